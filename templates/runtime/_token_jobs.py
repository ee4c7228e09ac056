"""Jobs started and followed through one operation (``x-cube-token-job``).

Cube's pre-aggregation builds are started with ``action: post`` (the answer lists one token per
build) and followed with ``action: get`` and those tokens (the answer gives each build's status).
:func:`token_job` turns that into the package's job handle (``_jobs``): ``wait()`` polls until
every build reached a success value, raises :class:`JobFailedError` as soon as one reached a
failure value (naming its token), and :class:`JobTimeoutError` when ``timeout`` runs out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._exceptions import APIError
from ._jobs import AsyncJob, JobSpec, SyncJob

__all__ = ["TokenJobSpec", "TokenJobStarted", "TokenJobStatus", "async_token_job", "token_job"]


@dataclass(frozen=True)
class TokenJobSpec:
    """Where each job's token and status are, and which statuses end it."""

    token_key: str = "token"
    status_key: str = "status"
    success_values: tuple[str, ...] = ("done",)
    failure_values: tuple[str, ...] = ("failed",)


@dataclass(frozen=True)
class TokenJobStarted:
    """The started jobs' tokens; ``id`` joins them (the job handle's id)."""

    tokens: tuple[str, ...]

    @property
    def id(self) -> str:
        return ",".join(self.tokens)


@dataclass(frozen=True)
class TokenJobStatus:
    """All jobs at one poll: ``status`` is the first failure value any job has, else the success
    value when every job has one, else ``running``; ``jobs`` are the parsed entries."""

    status: str
    jobs: list[Any] = field(default_factory=list)
    error: str = ""


def _items(answer: Any) -> list[Any]:
    value = getattr(answer, "root", answer)
    if isinstance(value, Mapping):
        return list(value.values())
    return list(value) if isinstance(value, list) else []


def _get(item: Any, key: str) -> Any:
    value = item.get(key) if isinstance(item, Mapping) else getattr(item, key, None)
    return getattr(value, "value", value)  # an enum member or an Unknown value: its text


def started(answer: Any) -> TokenJobStarted:
    """The tokens of a start answer; an answer without any is an error."""
    tokens = tuple(str(t) for t in _items(answer) if isinstance(t, str))
    if not tokens:
        raise APIError("the start answer lists no job tokens; there is nothing to follow")
    return TokenJobStarted(tokens)


def summary(answer: Any, spec: TokenJobSpec) -> TokenJobStatus:
    """One status for all jobs of a status answer (see :class:`TokenJobStatus`)."""
    jobs = _items(answer)
    states = [(str(_get(j, spec.token_key)), str(_get(j, spec.status_key))) for j in jobs]
    failed = [(t, s) for t, s in states if s in spec.failure_values]
    if failed:
        error = ", ".join(f"{t}: {s}" for t, s in failed)
        return TokenJobStatus(failed[0][1], jobs, error)
    if states and all(s in spec.success_values for _, s in states):
        return TokenJobStatus(spec.success_values[0], jobs)
    return TokenJobStatus("running", jobs)


def _job_spec(spec: TokenJobSpec) -> JobSpec:
    return JobSpec(
        id_field="id",
        status_field="status",
        success_values=spec.success_values,
        failure_values=spec.failure_values,
        error_field="error",
        expires_field=None,
    )


def token_job(
    answer: Any, spec: TokenJobSpec, poll: Callable[[list[str]], Any]
) -> SyncJob[TokenJobStarted, TokenJobStatus]:
    """A job handle over the jobs a start ``answer`` lists; ``poll(tokens)`` asks their status."""
    first = started(answer)
    return SyncJob(
        first,
        spec=_job_spec(spec),
        poll=lambda: summary(poll(list(first.tokens)), spec),
    )


def async_token_job(
    answer: Any, spec: TokenJobSpec, poll: Callable[[list[str]], Awaitable[Any]]
) -> AsyncJob[TokenJobStarted, TokenJobStatus]:
    """The async twin of :func:`token_job`."""
    first = started(answer)

    async def status() -> TokenJobStatus:
        return summary(await poll(list(first.tokens)), spec)

    return AsyncJob(first, spec=_job_spec(spec), poll=status)
