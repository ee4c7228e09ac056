"""One fuzz example in a fresh interpreter: limits, an audit hook, then ``cube-codegen generate``.

Run as ``python fuzz_child.py JOB.json``. The job names the document, the output folder, the
package name, the memory and CPU limits and the file the hook logs to. Nothing of the generator
is imported before the hook is installed, so every file the run opens (its own modules, the
templates, the document, every ``$ref``) and every file system change is logged, one JSON array
a line: ``["read"|"write", event, path]``. After an exit 0 the generated package and every one
of its modules is imported in this same process (still audited); a failure there exits 3 with
the traceback on stderr. Paths are absolute, not resolved: the test resolves them
after the run (a symlink is judged by where it leads).
"""

from __future__ import annotations

import json
import os
import resource
import sys

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Events that change the file system, and which of their arguments are paths.
_CHANGES = {
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.symlink": (0, 1),
    "os.link": (0, 1),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (1,),
    "shutil.copytree": (1,),
    "shutil.move": (0, 1),
    "shutil.make_archive": (0,),
    "tempfile.mkdtemp": (0,),
    "tempfile.mkstemp": (0,),
}
_LISTINGS = ("os.listdir", "os.scandir")
_DIR_FD = {"os.mkdir": 2, "os.rename": 2, "os.remove": 1, "os.rmdir": 1, "os.symlink": 2}


def _install(log_path: str) -> None:
    import functools
    import shutil

    log = open(log_path, "w", encoding="utf-8", buffering=1)  # opened before the hook
    cwd = os.getcwd()
    removing = [0]  # inside shutil.rmtree, whose walk opens names relative to a folder's fd
    rmtree = shutil.rmtree

    @functools.wraps(rmtree)
    def counted_rmtree(*args: object, **kwargs: object) -> None:
        removing[0] += 1
        try:
            rmtree(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            removing[0] -= 1

    counted_rmtree.avoids_symlink_attacks = rmtree.avoids_symlink_attacks  # type: ignore[attr-defined]
    shutil.rmtree = counted_rmtree  # type: ignore[assignment]

    def absolute(value: object) -> str | None:
        if isinstance(value, (str, bytes, os.PathLike)):
            text = os.fsdecode(value)
            if os.path.isabs(text):
                return text
            # relative to a folder's fd inside rmtree (its root is logged), else to the cwd
            return None if removing[0] else os.path.join(cwd, text)
        return None  # a file descriptor: already audited when it was opened

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            path = absolute(args[0])
            if path is None:
                return
            mode, flags = args[1], args[2]
            writes = (isinstance(flags, int) and flags >= 0 and flags & _WRITE_FLAGS) or (
                isinstance(mode, str) and any(c in mode for c in "wax+")
            )
            log.write(json.dumps(["write" if writes else "read", event, path]) + "\n")
        elif event in _LISTINGS:
            path = absolute(args[0]) if args and args[0] is not None else cwd
            if path is not None:
                log.write(json.dumps(["read", event, path]) + "\n")
        elif event in _CHANGES:
            slot = _DIR_FD.get(event)
            if slot is not None and len(args) > slot and args[slot] not in (None, -1):
                return  # relative to an open folder (shutil.rmtree's walk): its root is logged
            for index in _CHANGES[event]:
                if index < len(args):
                    path = absolute(args[index])
                    if path is not None:
                        log.write(json.dumps(["write", event, path]) + "\n")

    sys.addaudithook(hook)


def _import_all(out: str, package: str) -> None:
    import importlib
    import pkgutil

    sys.path.insert(0, out)
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        importlib.import_module(info.name)


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        job = json.load(fh)
    memory = int(job["memory_bytes"])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(job["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    _install(job["log"])
    from generator.cli import main as cli  # the generator loads under the hook

    try:
        cli(job["argv"], prog_name="cube-codegen")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if code != 0:
            return code
    try:
        _import_all(job["out"], job["package"])
    except BaseException:
        import traceback

        sys.stderr.write("import failed:\n" + traceback.format_exc())
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
