"""The caller's side of :mod:`tests.cli_zygote`: one server per test process, started on first
use with this process's environment; each run sends its request and reads the child's output
and exit status as :func:`subprocess.run` would give them (text decoded with the locale's
encoding, newlines translated, a timeout killing the child and raising ``TimeoutExpired``)."""

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

_lock = threading.Lock()
_server: dict[str, object] = {}


def _start_up_settings(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(START_UP_PREFIXES)}


def _server_socket() -> tuple[str, dict[str, str]] | None:
    """The server's socket and the start-up settings it was started with (started now when
    this process has none; None when it cannot start)."""
    with _lock:
        if "socket" in _server:
            return _server["socket"], _server["settings"]  # type: ignore[return-value]
        if "failed" in _server:
            return None
        folder = tempfile.mkdtemp(prefix="cli-zygote-")
        path = os.path.join(folder, "s")
        env = dict(os.environ)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.cli_zygote", path],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdout is not None
        if proc.stdout.readline() != b"ready\n":
            proc.kill()
            proc.wait()
            shutil.rmtree(folder, ignore_errors=True)
            _server["failed"] = True
            return None
        proc.stdout.close()
        atexit.register(_stop, proc, folder)
        _server.update(socket=path, settings=_start_up_settings(env), proc=proc)
        return path, _server["settings"]  # type: ignore[return-value]


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
    module: str = "generator",
) -> subprocess.CompletedProcess[str] | None:
    """``python -m MODULE ARGS`` (``argv``) run by a forked child; None when a new interpreter
    is needed (the start-up settings differ, or there is no server)."""
    server = _server_socket()
    if server is None or _start_up_settings(env) != server[1]:
        return None
    path = server[0]
    umask = os.umask(0o022)
    os.umask(umask)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        request = {"args": args, "cwd": str(cwd), "env": env, "umask": umask, "module": module}
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
    code = os.waitstatus_to_exitcode(status)
    return subprocess.CompletedProcess(argv, code, _text(out), _text(err))


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
