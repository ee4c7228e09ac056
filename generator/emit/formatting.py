"""Format the generated tests with the pinned ruff, all files in one call of each command.

The package's own modules are rendered already in the formatter's output (templates laid out by
:mod:`generator.emit.layout` and :mod:`generator.emit.imports`) and are not formatted again; the
generated tests, whose template has not been brought there yet, still are.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from generator.diagnostics import CodegenError, Diagnostic
from generator.transaction import scratch


def _ruff() -> list[str]:
    exe = Path(sys.executable).with_name("ruff")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "ruff"]


def format_tree(files: dict[str, str], project_root: str, scratch_base: Path) -> dict[str, str]:
    """Return ``files`` with every generated test module fixed (imports) and formatted.

    ``project_root`` is the key prefix of the generated distribution, whose pyproject.toml holds
    the ruff settings, so formatting here and linting later read the same configuration. The
    files are formatted in a scratch folder under ``scratch_base`` (the output's parent), never
    in the system's temporary folder.
    """
    tests = f"{project_root}/tests/"
    chosen = {rel for rel in files if rel.startswith(tests) and rel.endswith(".py")}
    if not chosen:
        return files
    with scratch(scratch_base, "fmt") as tmp:
        root = Path(tmp)
        for rel, text in files.items():
            if rel in chosen or rel == f"{project_root}/pyproject.toml":
                path = root / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
        cwd = root / project_root
        env = {**os.environ, "RUFF_NO_CACHE": "true"}
        for args in (
            [
                "check",
                "--fix",
                "--exit-zero",
                "--quiet",
                "--select",
                "I,F401,UP,RUF022,RUF036",
                "--no-cache",
                ".",
            ],
            ["format", "--quiet", "--no-cache", "."],
        ):
            proc = subprocess.run(
                [*_ruff(), *args], cwd=cwd, capture_output=True, text=True, env=env, check=False
            )
            if proc.returncode != 0:
                first = (proc.stderr or proc.stdout).strip().splitlines()[:1]
                raise CodegenError(
                    Diagnostic(
                        "format-failed",
                        "error",
                        "generated",
                        "",
                        f"ruff {args[0]} failed: {first[0] if first else proc.returncode}",
                    )
                )
        return {
            rel: (root / rel).read_text(encoding="utf-8") if rel in chosen else text
            for rel, text in files.items()
        }
