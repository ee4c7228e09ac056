"""The caller's side of :mod:`tests.cli_zygote`: a server per kind of run (command line, or
program using a generated package), interpreter flags and import path, started on first use;
each run sends its request and reads the child's output and exit status as
:func:`subprocess.run` would give them (text decoded with the locale's encoding, newlines
translated, a timeout killing the child and raising ``TimeoutExpired``)."""

from __future__ import annotations

import atexit
import contextlib
import json
import locale
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What the interpreter reads from the environment while it starts (encodings, hash seed,
# import path, warnings, ...): a run that changes one of these needs a new interpreter.
START_UP_PREFIXES = ("PYTHON", "LC_", "LANG", "LANGUAGE")

# Start-up settings a server may be started with beyond this process's own (each such server
# serves the runs with the same ones): the import path. Any other difference (an import-time
# profile, a hash seed, ...) takes a fresh interpreter.
SERVED_DIFFERENCES = ("PYTHONPATH",)
FRESH_ENV = "CUBE_TESTS_FRESH_CLI"
MAX_SERVERS = 4

_lock = threading.Lock()
_servers: dict[tuple[object, ...], str | None] = {}


def _start_up_settings(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(START_UP_PREFIXES)}


def _server_socket(kind: str, flags: tuple[str, ...], env: dict[str, str]) -> str | None:
    """The socket of the server for runs of ``kind`` with interpreter ``flags`` and ``env``'s
    start-up settings (started now when there is none); None when those runs need a fresh
    interpreter, or the server cannot start."""
    settings = _start_up_settings(env)
    own = _start_up_settings(dict(os.environ))
    differ = {k for k in settings.keys() | own.keys() if settings.get(k) != own.get(k)}
    if differ - set(SERVED_DIFFERENCES):
        return None
    key = (kind, flags, tuple(sorted(settings.items())))
    with _lock:
        if key not in _servers:
            _servers[key] = _start(kind, flags, env) if len(_servers) < MAX_SERVERS else None
        return _servers[key]


def _start(kind: str, flags: tuple[str, ...], env: dict[str, str]) -> str | None:
    folder = tempfile.mkdtemp(prefix="cli-zygote-")
    path = os.path.join(folder, "s")
    proc = subprocess.Popen(
        [sys.executable, *flags, "-m", "tests.cli_zygote", path, kind],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    ready = proc.stdout.readline() == b"ready\n"
    proc.stdout.close()
    atexit.register(_stop, proc, folder)
    return path if ready else None


def _stop(proc: subprocess.Popen[bytes], folder: str) -> None:
    proc.kill()
    proc.wait()
    shutil.rmtree(folder, ignore_errors=True)


def run(
    argv: list[str],
    args: list[str],
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    *,
    module: str = "generator",
    code: str | None = None,
    flags: tuple[str, ...] = (),
    kind: str = "cli",
) -> subprocess.CompletedProcess[str] | None:
    """``python [flags] -m MODULE ARGS`` (or ``-c CODE ARGS``; ``argv`` for the result) run by
    a child forked from the server of its ``kind``; None when a fresh interpreter is needed
    (always with ``CUBE_TESTS_FRESH_CLI`` set: to compare, or to rule the server out)."""
    if os.environ.get(FRESH_ENV):
        return None
    path = _server_socket(kind, flags, env)
    if path is None:
        return None
    umask = _umask()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    request: dict[str, object] = {"args": args, "cwd": str(cwd), "env": env, "umask": umask}
    request.update({"code": code} if code is not None else {"module": module})
    try:
        conn.connect(path)
        socket.send_fds(conn, [json.dumps(request).encode()], [0, out_w, err_w])
    except OSError:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        conn.close()
        return None
    os.close(out_w)
    os.close(err_w)
    with conn:
        out, err, status = _collect(conn, out_r, err_r, argv, timeout)
    exit_code = os.waitstatus_to_exitcode(status)
    return subprocess.CompletedProcess(argv, exit_code, _text(out), _text(err))


def _umask() -> int:
    """This process's umask, read without setting it (another thread may be creating files)."""
    with contextlib.suppress(OSError, StopIteration, ValueError):
        with open("/proc/self/status", encoding="ascii") as status:
            return int(next(x for x in status if x.startswith("Umask:")).split()[1], 8)
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def _collect(
    conn: socket.socket, out_r: int, err_r: int, argv: list[str], timeout: float
) -> tuple[bytes, bytes, int]:
    """Read both pipes to their end and the server's two lines; on timeout kill the child."""
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: [], conn.fileno(): []}
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            ready = selector.select(left) if left > 0 else []
            if not ready:
                _kill(b"".join(chunks[conn.fileno()]))
                raise subprocess.TimeoutExpired(argv, timeout)
            for key, _ in ready:
                data = os.read(key.fd, 1 << 16)
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
                    if key.fd != conn.fileno():
                        os.close(key.fd)
    lines = b"".join(chunks[conn.fileno()]).decode().split("\n")
    status = [int(x.split()[1]) for x in lines if x.startswith("status ")]
    assert status, f"the CLI fork server gave no exit status: {lines!r}"
    return b"".join(chunks[out_r]), b"".join(chunks[err_r]), status[0]


def _kill(told: bytes) -> None:
    for line in told.decode().split("\n"):
        if line.startswith("pid "):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(line.split()[1]), signal.SIGKILL)


def _text(data: bytes) -> str:
    """As ``subprocess.run(text=True)`` decodes: the locale's encoding, universal newlines."""
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")
