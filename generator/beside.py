"""Work done in a forked child while this process goes on: a second core for one generation.

A child is forked only on Linux, only while this process runs a single thread (a fork copies
one thread, so a lock another thread held would stay held in the child), and not when
``CUBE_CODEGEN_NO_FORK`` is set. Everywhere else, and whenever a child fails for any reason,
:meth:`Beside.result` does the work in this process instead: a child can make a run faster,
never different. The child only computes: it writes no file (it may read the run state,
which marks an entry it reads as used), streams its value back pickled through a pipe (read
and unpickled here as it comes), leaves through ``os._exit`` (no cleanup of this process runs
twice, no buffer is flushed twice), and dies with this process when that is killed. A child
that has not answered within its deadline (``CUBE_CODEGEN_CHILD_DEADLINE`` seconds from the
fork, 60 by default: stopped, stuck, starved) is killed (SIGKILL) and the work done here.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import pickle
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from generator.files import libc

T = TypeVar("T")
NO_FORK_ENV = "CUBE_CODEGEN_NO_FORK"
DEADLINE_ENV = "CUBE_CODEGEN_CHILD_DEADLINE"
DEADLINE = 60.0  # seconds from the fork; the documents' validation takes well under one here
PIPE_BYTES = 1 << 20  # the pipe a child's value comes through (the unprivileged maximum)


def deadline() -> float:
    """The child's deadline in seconds: ``CUBE_CODEGEN_CHILD_DEADLINE`` when it is a positive
    number, else :data:`DEADLINE`."""
    try:
        value = float(os.environ.get(DEADLINE_ENV, ""))
    except ValueError:
        return DEADLINE
    return value if 0 < value < float("inf") else DEADLINE


_PR_SET_PDEATHSIG = 1


def can_fork() -> bool:
    return (
        sys.platform == "linux"
        and not os.environ.get(NO_FORK_ENV)
        and threading.active_count() == 1
    )


class Beside(Generic[T]):
    """``work()`` started in a child now; :meth:`result` is its value, or ``here()`` (by
    default ``work()`` in this process) when there is no child or the child failed. Use as a
    context manager, so that a run that stops early (an error, Ctrl-C) also stops the child."""

    def __init__(self, work: Callable[[], T], *, here: Callable[[], T] | None = None) -> None:
        self._work = work
        self._here = here or work  # what stands in for the child's value when there is none
        self._pid = 0
        self._fd = -1
        self._value: tuple[T] | None = None
        self._until = 0.0
        if can_fork():
            self._start()

    @property
    def forked(self) -> bool:
        return self._pid > 0

    def _start(self) -> None:
        read, write = os.pipe()
        with contextlib.suppress(OSError):  # fewer trips for a large value (the default: 64 KB)
            fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, leave
            os.close(read)
            _child(self._work, write, parent)
        os.close(write)
        self._pid, self._fd = pid, read
        self._until = time.monotonic() + deadline()

    def result(self) -> T:
        """The child's value (waiting for it), else ``here()``; the same value when asked again."""
        if self._value is None:
            self._value = (self._collect(),)
        return self._value[0]

    def _collect(self) -> T:
        if self._pid:
            incoming = io.BufferedReader(_Incoming(self._fd, self._until), PIPE_BYTES)
            try:  # unpickled as it arrives, while the child is still pickling and sending
                value: T = pickle.load(incoming)
                whole = incoming.read(1) == b""  # nothing after the value: the child ended
            except _Late:  # past the deadline: stop the child, do the work here
                self.cancel()
                return self._here()
            except Exception:  # a child that failed or died part-way: its exit status says
                whole = False
            _, status = os.waitpid(self._pid, 0)
            self._pid = 0
            os.close(self._fd)
            self._fd = -1
            if whole and os.waitstatus_to_exitcode(status) == 0:
                return value
        return self._here()

    def cancel(self) -> None:
        if self._pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = 0
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


def _child(work: Callable[[], object], write: int, parent: int) -> None:
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with contextlib.suppress(Exception):  # die with the parent, even by SIGKILL
            libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() == parent:  # not already orphaned before the line above
            value = work()
            with open(write, "wb", buffering=PIPE_BYTES, closefd=False) as out:
                pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)  # sent frame by frame
            code = 0
    finally:
        os._exit(code)


class _Late(Exception):
    """The child has not sent its whole value by its deadline."""


class _Incoming(io.RawIOBase):
    """The reading end of a child's pipe as a file :func:`pickle.load` reads, each read waiting
    no later than the deadline (then :class:`_Late`)."""

    def __init__(self, fd: int, until: float) -> None:
        super().__init__()
        self._fd = fd
        self._until = until

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._until - time.monotonic()
        if left <= 0 or not select.select([self._fd], [], [], left)[0]:
            raise _Late
        return os.readv(self._fd, [buffer])


class Tickets:
    """The numbers ``0 .. count - 1``, each handed to whichever process asks first: a parent and
    the child it forks afterwards share the work between them as each is free, however the two
    cores are loaded. A pipe holds one byte per number (so at most :data:`MAX_TICKETS`), its
    writing end closed before any fork: a read of one byte is atomic, and an empty pipe is the
    end for both. Without a child, this process takes every number."""

    MAX_TICKETS = 255

    def __init__(self, count: int) -> None:
        if not 0 <= count <= self.MAX_TICKETS:
            raise ValueError(f"{count} tickets: at most {self.MAX_TICKETS}")
        self._read, write = os.pipe()
        try:
            os.write(write, bytes(range(count)))
        finally:
            os.close(write)

    def take(self) -> int | None:
        """The next number nobody has taken, or None when none is left."""
        if self._read < 0:
            return None
        data = os.read(self._read, 1)
        return data[0] if data else None

    def __iter__(self) -> Iterator[int]:
        """The numbers this process takes, one by one, until none is left."""
        while (number := self.take()) is not None:
            yield number

    def close(self) -> None:
        if self._read >= 0:
            os.close(self._read)
            self._read = -1

    def __enter__(self) -> Tickets:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
