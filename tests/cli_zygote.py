"""A fork server for the tests' ``cube-codegen`` runs: the libraries imported once, a process
forked per command line.

Starting ``python -m generator`` costs about half a CPU second before the command does
anything (the interpreter, click, pydantic, jinja2, httpx2, ...), and the suite starts
hundreds. This server imports those libraries and :mod:`generator.cli.commands` (what every
command line but the no-op loads) once; for each command line it forks a child that becomes
``python -m generator ARGS`` as a fresh process would: the caller's working folder,
environment, umask, standard input and two pipes for standard output and error, ``sys.argv``
and ``sys.path[0]`` as ``-m`` sets them, and the module run as ``__main__``. The child leaves
as that interpreter would (an uncaught exception prints its traceback and exits 1, a signal
ends it); its exit status is sent back. The generator's own modules past the command line are
imported by the child, in the order the command imports them, so what a command registers on
import is what a fresh process would have.

What a fork cannot give, a fresh process does (:mod:`tests.cli_zygote_client` decides): each
server is started with the interpreter flags and start-up settings (``PYTHON*``, the locale) of
the runs it serves.

Run as ``python [FLAGS] -m tests.cli_zygote SOCKET [cli|python]`` (what it imports once: for the
command line, or for programs using a generated package); it prints ``ready`` on its standard
output once it listens, and serves until the socket is closed, the server killed or its parent
(the test process) gone. One message per connection: a JSON request (``args``, ``cwd``, ``env``,
``umask``; ``module``, ``generator`` unless said, or ``code`` to run as ``-c`` does) with three
file descriptors (stdin, stdout, stderr); the answers are ``pid N`` when the child starts and
``status N`` (its wait status) when it ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
from typing import Any

# Imported here once instead of in every child: what the command lines load from outside the
# generator, and the command line itself. Nothing here reads the environment on import.
PRELOAD = (
    "generator.cli.commands",
    "click",
    "yaml",
    "pydantic",
    "pydantic.main",
    "pydantic.fields",
    "pydantic.functional_validators",
    "pydantic.type_adapter",
    "openapi_pydantic",
    "jinja2",
    "jinja2.sandbox",
    "httpx2",
    "jsonschema",
    "jsonschema.validators",
    "jsonpath_rfc9535",
    "regex",
    "packaging.version",
    "ssl",
    "email.message",
    "email.parser",
    "subprocess",
    "tempfile",
    "zipfile",
    "ctypes",
    "uuid",
    "ast",
    "tokenize",
)
# For ``python -c`` programs using a generated package (the README's blocks): its libraries.
PRELOAD_PYTHON = (
    "httpx2",
    "pydantic",
    "pydantic.main",
    "pydantic.fields",
    "pydantic.type_adapter",
    "asyncio",
    "ssl",
    "json",
    "email.utils",
)


def _preload(kind: str) -> None:
    import importlib

    for name in PRELOAD if kind == "cli" else PRELOAD_PYTHON:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def serve(path: str) -> dict[str, Any] | None:
    """Answer connections on ``path`` until it is closed; in a child, the request to run."""
    parent = os.getppid()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    server.settimeout(2.0)  # to notice that the test process is gone (then leave)
    os.write(1, b"ready\n")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    os.close(devnull)
    while True:
        _reap()
        try:
            conn, _ = server.accept()
        except TimeoutError:
            if os.getppid() != parent:
                return None
            continue
        except OSError:
            return None
        try:
            data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
        except OSError:
            conn.close()
            continue
        if os.fork() == 0:  # the child watching the command's process
            server.close()
            request = _watch(conn, data, fds)
            if request is not None:  # the command's process
                return request
        conn.close()
        for fd in fds:
            os.close(fd)


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _watch(conn: socket.socket, data: bytes, fds: list[int]) -> dict[str, Any] | None:
    """Fork the command's process (returning its request there); here, report its pid, then
    its wait status, and leave."""
    try:
        request: dict[str, Any] = json.loads(data)
        pid = os.fork()
        if pid == 0:
            conn.close()
            _become(request, fds)
            return request
        for fd in fds:
            os.close(fd)
        conn.sendall(f"pid {pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        conn.sendall(f"status {status}\n".encode())
    except BaseException:  # the caller sees the connection close without a status
        os._exit(1)
    os._exit(0)


def _become(request: dict[str, Any], fds: list[int]) -> None:
    """Take the caller's standard streams, folder, environment and umask."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(request["umask"])
    if "tempfile" in sys.modules:  # the temporary folder is looked up again, from this environment
        sys.modules["tempfile"].tempdir = None
    if "code" in request:  # as -c sets them
        sys.argv = ["-c", *request["args"]]
        sys.path[0] = ""
    else:  # as -m sets them
        sys.argv = ["-m", *request["args"]]
        sys.path[0] = os.getcwd()


def main() -> None:
    _preload(sys.argv[2] if len(sys.argv) > 2 else "cli")
    request = serve(sys.argv[1])
    if request is None:  # the test process is gone: so is its socket's folder
        with contextlib.suppress(OSError):
            os.unlink(sys.argv[1])
            os.rmdir(os.path.dirname(sys.argv[1]))
        return
    if "code" in request:
        _run_code(request["code"])
    else:
        import runpy

        runpy._run_module_as_main(request.get("module", "generator"))  # type: ignore[attr-defined]


def _run_code(code: str) -> None:
    """Run ``code`` as ``python -c`` does: in a new ``__main__`` module, named ``<string>``."""
    import builtins
    import types

    module = types.ModuleType("__main__")
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    module.__spec__ = module.__loader__ = None
    sys.modules["__main__"] = module
    exec(compile(code, "<string>", "exec"), module.__dict__)


if __name__ == "__main__":
    main()
