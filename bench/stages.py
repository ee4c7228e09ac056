"""Where one generation spends its time: imports, then each pipeline stage, by wall clock.

    python bench/stages.py                                  # the project (spec/, 4 families)
    python bench/stages.py --spec FILE --package NAME       # one document, as generate --spec
    python bench/stages.py ... --cprofile 25                # and cProfile's top functions

Stages are timed by wrapping the functions :mod:`generator.pipeline` calls (in this process
only; no module is changed). Nested stages are not subtracted: the first call of a
stage includes its lazy imports.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import importlib
import io
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

timings: dict[str, list[float]] = defaultdict(list)


def timed(name: str, fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            timings[name].append(time.perf_counter() - start)

    return wrapper


def import_time(module: str) -> float:
    start = time.perf_counter()
    importlib.import_module(module)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path)
    parser.add_argument("--package", default="bench_pkg")
    parser.add_argument("--cprofile", type=int, default=0, help="print the top N by own time")
    args = parser.parse_args()

    gc.disable()  # as the command does (generator.cli)
    process_start = time.perf_counter()
    imports = [(m, import_time(m)) for m in ("click", "generator.cli", "generator.pipeline")]
    from generator import pipeline
    from generator.document.config import load_config
    from generator.emit.writer import write_tree

    _instrument(pipeline)
    if args.spec:
        config = pipeline.single_document_config(args.spec, (), args.package, Path("unused"))
    else:
        config = load_config(ROOT / "spec/cube-codegen.yaml")
    profiler = cProfile.Profile() if args.cprofile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    result = pipeline.generate(config)
    generated = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        write_tree(Path(tmp) / "out", result.files)
        written = time.perf_counter() - t
    if profiler:
        profiler.disable()
    total = time.perf_counter() - process_start
    ops = sum(len(f.operations) for f in result.package.families)
    print(f"{len(result.files)} files, {ops} operations; in-process total {total * 1000:.0f} ms")
    _print_timings(imports, generated, written)
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.cprofile)
        print("\n" + "\n".join(ln for ln in out.getvalue().splitlines() if ln.strip())[:8000])


def _instrument(pipeline: Any) -> None:
    """Wrap the stage functions the pipeline calls (and its builders' methods) in timers."""
    stages = [
        "prepare_family",
        "validated",
        "apply_overlays",
        "bundle",
        "validate",
        "render_package",
        "spec_hash",
        "bound_names",
    ]
    for name in stages:
        if hasattr(pipeline, name) and callable(getattr(pipeline, name)):
            if isinstance(getattr(pipeline, name), type):
                cls = getattr(pipeline, name)
                for method in ("build", "cases"):
                    if hasattr(cls, method):
                        setattr(cls, method, timed(f"{name}.{method}", getattr(cls, method)))
            else:
                setattr(pipeline, name, timed(name, getattr(pipeline, name)))
    pipeline.FamilyBuilder.build = timed("FamilyBuilder.build", pipeline.FamilyBuilder.build)
    from generator.ir import build

    for name in IR_STEPS:  # the build's own steps, as it calls them
        setattr(build, name, timed(f"  ir: {name}", getattr(build, name)))
    build.FamilyBuilder._samples = timed("  ir: samples", build.FamilyBuilder._samples)
    build.FamilyBuilder._resources = timed("  ir: resources", build.FamilyBuilder._resources)


IR_STEPS = ("named_operations", "name_classes", "operations", "build_models", "renames")


def _print_timings(imports: list[tuple[str, float]], generated: float, written: float) -> None:
    print("\nimports (cumulative, in order):")
    for module, seconds in imports:
        print(f"  {module:<40} {seconds * 1000:7.0f} ms")
    print(f"\npipeline.generate {generated * 1000:.0f} ms; write_tree {written * 1000:.0f} ms")
    print(f"  {'stage':<40} {'calls':>5} {'total':>9} {'first':>9} {'share':>6}")
    for name, values in sorted(timings.items(), key=lambda kv: -sum(kv[1])):
        print(
            f"  {name:<40} {len(values):>5} {sum(values) * 1000:>6.0f} ms "
            f"{values[0] * 1000:>6.0f} ms {sum(values) / generated:>6.0%}"
        )


if __name__ == "__main__":
    main()
