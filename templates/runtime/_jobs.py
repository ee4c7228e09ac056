"""Asynchronous jobs (``x-cube-job``): follow a submitted job to its result and download it.

A job is built from the parsed submit response and two callables that generated code binds to
the status and download operations::

    job = SyncJob(submitted, spec=JobSpec(...), poll=lambda: status(...), download=lambda: get(...))
    job.wait()                 # polls every 2 s until a success value; returns the status model
    job.download("out.pdf")    # waits first if needed, streams the file, returns the byte count

``wait`` raises :class:`JobFailedError` (with the job's ``error`` text) on a failure value,
:class:`JobTimeoutError` when ``timeout`` runs out, and :class:`JobExpiredError` *before* the
submit response's expiry time would pass: no request is ever made within ``expiry_margin``
seconds of it (the server drops the job and its file then), so a dropped job is never polled.
Any other status value means "not finished yet". Clock and sleep are injectable for tests.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import IO, TYPE_CHECKING, Generic, TypeVar

from ._exceptions import APIError, JobExpiredError, JobFailedError, JobTimeoutError
from ._job_spec import JobSpec, field_text, read_field, to_datetime

if TYPE_CHECKING:
    import datetime
    import os

    from ._binary_response import AsyncBinaryResponse, BinaryResponse

__all__ = ["AsyncJob", "JobSpec", "SyncJob"]

S = TypeVar("S")  # the parsed submit response
T = TypeVar("T")  # the parsed status response

DEFAULT_INTERVAL = 2.0
DEFAULT_EXPIRY_MARGIN = 2.0


class _JobState(Generic[S, T]):
    """What the sync and async jobs share: reading the submit and status responses, the rules."""

    def __init__(
        self,
        submitted: S,
        *,
        spec: JobSpec,
        clock: Callable[[], float],
        expiry_margin: float,
    ) -> None:
        self._submitted = submitted
        self._spec = spec
        self._clock = clock
        self._margin = expiry_margin
        self._completed: T | None = None
        self._last: T | None = None

    @property
    def submitted(self) -> S:
        """The parsed submit response."""
        return self._submitted

    @property
    def spec(self) -> JobSpec:
        return self._spec

    @property
    def id(self) -> str:
        """The job id from the submit response."""
        value = field_text(read_field(self._submitted, self._spec.id_field))
        if not value:
            raise APIError(
                f"the submit response has no {self._spec.id_field!r}; the job cannot be followed"
            )
        return value

    @property
    def expires_at(self) -> datetime.datetime | None:
        """When the server drops the job and its file (from the submit response), if it says."""
        return to_datetime(read_field(self._submitted, self._spec.expires_field))

    @property
    def last_status(self) -> T | None:
        """The status model of the latest poll, if any."""
        return self._last

    @property
    def completed(self) -> bool:
        return self._completed is not None

    def _safe_id(self) -> str:
        return field_text(read_field(self._submitted, self._spec.id_field)) or "?"

    def _check_expiry(self, ahead: float = 0.0) -> None:
        """Raise if a request ``ahead`` seconds from now would come within the expiry margin."""
        expires = self.expires_at
        if expires is None:
            return
        if self._clock() + ahead >= expires.timestamp() - self._margin:
            raise JobExpiredError(
                f"job {self._safe_id()} expires at {expires.isoformat()} before it completed; "
                "not polling it any further",
                job_id=self._safe_id(),
                expires_at=expires,
            )

    def _state(self, status: object) -> str | None:
        return field_text(read_field(status, self._spec.status_field))

    def _record(self, status: T) -> T:
        self._last = status
        if self._state(status) in self._spec.success_values:
            self._completed = status
        return status

    def _finished(self, status: T) -> bool:
        """True on a success value; raises on a failure value; False while still running."""
        state = self._state(status)
        if state in self._spec.success_values:
            return True
        if state in self._spec.failure_values:
            error = field_text(read_field(status, self._spec.error_field)) or ""
            raise JobFailedError(
                f"job {self._safe_id()} {state}" + (f": {error}" if error else ""),
                job_id=self._safe_id(),
                error=error,
                status=status,
            )
        return False

    def _next_delay(self, interval: float, deadline: float | None, timeout: float | None) -> float:
        """The sleep before the next poll; raises when the timeout or the expiry comes first."""
        delay = interval
        if deadline is not None:
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise JobTimeoutError(
                    f"job {self._safe_id()} did not complete within {timeout} s",
                    job_id=self._safe_id(),
                    timeout=timeout or 0.0,
                )
            delay = min(delay, remaining)
        self._check_expiry(ahead=delay)
        return delay

    def _deadline(self, interval: float, timeout: float | None) -> float | None:
        if interval < 0:
            raise ValueError("interval must be 0 or more")
        return None if timeout is None else self._clock() + timeout

    def __repr__(self) -> str:
        state = self._state(self._last)  # None before the first poll
        return f"<{type(self).__name__} id={self._safe_id()!r} status={state!r}>"


class SyncJob(_JobState[S, T]):
    """A submitted job: ``status()`` polls once, ``wait()`` until done, ``download()`` the file."""

    def __init__(
        self,
        submitted: S,
        *,
        spec: JobSpec,
        poll: Callable[[], T],
        download: Callable[[], BinaryResponse] | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        expiry_margin: float = DEFAULT_EXPIRY_MARGIN,
    ) -> None:
        super().__init__(submitted, spec=spec, clock=clock, expiry_margin=expiry_margin)
        self._poll = poll
        self._download = download
        self._sleep = sleep

    def status(self) -> T:
        """Poll once and return the status model (a failure status is returned, not raised)."""
        self._check_expiry()
        return self._record(self._poll())

    def wait(self, *, interval: float = DEFAULT_INTERVAL, timeout: float | None = None) -> T:
        """Poll every ``interval`` seconds until the job succeeds; returns its status model."""
        if self._completed is not None:
            return self._completed
        deadline = self._deadline(interval, timeout)
        while True:
            status = self.status()
            if self._finished(status):
                return status
            self._sleep(self._next_delay(interval, deadline, timeout))

    def download(
        self,
        file: str | os.PathLike[str] | IO[bytes],
        *,
        interval: float = DEFAULT_INTERVAL,
        timeout: float | None = None,
    ) -> int:
        """Stream the result to a path or an open binary file (waiting first); its byte count."""
        if self._download is None:
            raise TypeError(f"job {self._safe_id()} has no download operation")
        self.wait(interval=interval, timeout=timeout)
        self._check_expiry()
        return self._download().write_to_file(file)


class AsyncJob(_JobState[S, T]):
    """Async twin of :class:`SyncJob`; ``poll`` and ``download`` return awaitables."""

    def __init__(
        self,
        submitted: S,
        *,
        spec: JobSpec,
        poll: Callable[[], Awaitable[T]],
        download: Callable[[], Awaitable[AsyncBinaryResponse]] | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        expiry_margin: float = DEFAULT_EXPIRY_MARGIN,
    ) -> None:
        super().__init__(submitted, spec=spec, clock=clock, expiry_margin=expiry_margin)
        self._poll = poll
        self._download = download
        self._sleep = sleep

    async def status(self) -> T:
        """Poll once and return the status model (a failure status is returned, not raised)."""
        self._check_expiry()
        return self._record(await self._poll())

    async def wait(self, *, interval: float = DEFAULT_INTERVAL, timeout: float | None = None) -> T:
        """Poll every ``interval`` seconds until the job succeeds; returns its status model."""
        if self._completed is not None:
            return self._completed
        deadline = self._deadline(interval, timeout)
        while True:
            status = await self.status()
            if self._finished(status):
                return status
            await self._sleep(self._next_delay(interval, deadline, timeout))

    async def download(
        self,
        file: str | os.PathLike[str] | IO[bytes],
        *,
        interval: float = DEFAULT_INTERVAL,
        timeout: float | None = None,
    ) -> int:
        """Stream the result to a path or an open binary file (waiting first); its byte count."""
        if self._download is None:
            raise TypeError(f"job {self._safe_id()} has no download operation")
        await self.wait(interval=interval, timeout=timeout)
        self._check_expiry()
        response = await self._download()
        return await response.write_to_file(file)
