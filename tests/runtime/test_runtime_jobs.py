"""Export jobs against a real server: one that completes (then its file is downloaded), one that
fails, one that expires while the server keeps answering "pending", and a wait that times out.

Expiry and timeouts run on a fake clock whose sleep only moves time forward, so no test waits.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import time
from pathlib import Path
from typing import Any

import pytest
from cube_client import APIError, PermissionDeniedError
from cube_client._exceptions import JobError, JobExpiredError, JobFailedError, JobTimeoutError
from cube_client._jobs import AsyncJob, JobSpec, SyncJob
from cube_client.platform import models
from runtime_servers import Exchange, LocalServer, async_platform, platform

BASE = "/api/v1/deployments/7/dashboard-exports"
JOB = f"{BASE}/job-1"
DOWNLOAD = f"{JOB}/download"
PDF = b"%PDF-1.7\n" + hashlib.sha256(b"seed").digest() * 8000 + b"\n%%EOF\n"  # ~256 KB
# The generated client names model attributes (the generator knows them); JSON keys for dicts.
SPEC = JobSpec(
    id_field="job_id",
    status_field="status",
    success_values=("completed",),
    failure_values=("failed",),
    error_field="error",
    expires_field="expires_at",
)
DICT_SPEC = JobSpec(id_field="jobId", expires_field="expiresAt")


class FakeClock:
    """Wall-clock seconds that advance only when the job sleeps."""

    def __init__(self) -> None:
        self.now = time.time()
        self.polls: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)


def _export_server(
    server: LocalServer,
    statuses: list[dict[str, Any]],
    *,
    expires_in: float = 300,
    clock: FakeClock | None = None,
) -> None:
    """Submit answers a job expiring ``expires_in`` s from now; status walks ``statuses`` (the
    last one repeats); download serves :data:`PDF`."""

    @server.route("POST", BASE)
    def submit(ex: Exchange) -> None:
        now = clock.now if clock else time.time()
        expires = datetime.datetime.fromtimestamp(now + expires_in, tz=datetime.UTC)
        ex.json(201, {"jobId": "job-1", "expiresAt": expires.isoformat().replace("+00:00", "Z")})

    @server.route("GET", JOB)
    def status(ex: Exchange) -> None:
        if clock is not None:
            clock.polls.append(clock.now)
        n = len(server.seen("GET", JOB))
        ex.json(200, statuses[min(n, len(statuses)) - 1])

    @server.route("GET", DOWNLOAD)
    def download(ex: Exchange) -> None:
        ex.stream(
            200,
            (PDF[i : i + 50_000] for i in range(0, len(PDF), 50_000)),
            {"Content-Type": "application/pdf"},
        )


PENDING = {"status": "pending"}
PROCESSING = {"status": "processing", "progress": 0.5}
DONE = {"status": "completed"}
FAILED = {"status": "failed", "error": "renderer crashed on page 3"}


def test_job_completes_then_downloads_sync(server: LocalServer, tmp_path: Path) -> None:
    _export_server(server, [PENDING, PROCESSING, DONE])
    with platform(server.url) as client:
        job = client.dashboard_exports.start_export_job(7, dashboard_id=5, format="pdf")
        assert isinstance(job, SyncJob) and isinstance(
            job.submitted, models.DashboardExportJobResponse
        )
        assert job.id == "job-1"
        assert job.expires_at is not None and job.expires_at > datetime.datetime.now(datetime.UTC)
        target = tmp_path / "dashboard.pdf"
        written = job.download(target, interval=0)  # waits for completion first
        assert written == len(PDF) and target.read_bytes() == PDF
        assert job.completed and job.wait().status == "completed"  # no further polling
        buffer = io.BytesIO()
        assert job.download(buffer) == len(PDF) and buffer.getvalue() == PDF
    assert len(server.seen("GET", JOB)) == 3
    assert len(server.seen("GET", DOWNLOAD)) == 2
    assert server.seen("POST", BASE)[0].json() == {"dashboardId": 5, "format": "pdf"}


@pytest.mark.anyio
async def test_job_completes_then_downloads_async(server: LocalServer, tmp_path: Path) -> None:
    _export_server(server, [PENDING, DONE])
    async with async_platform(server.url) as client:
        job = await client.dashboard_exports.start_export_job(7, dashboard_id=5, format="pdf")
        assert isinstance(job, AsyncJob)
        status = await job.wait(interval=0)
        assert (
            isinstance(status, models.DashboardExportStatusResponse)
            and status.status == "completed"
        )
        target = tmp_path / "dashboard.pdf"
        assert await job.download(target) == len(PDF)
        assert target.read_bytes() == PDF
    assert len(server.seen("GET", JOB)) == 2


def test_job_fails_sync(server: LocalServer, tmp_path: Path) -> None:
    _export_server(server, [PENDING, FAILED])
    with platform(server.url) as client:
        job = client.dashboard_exports.start_export_job(7, dashboard_id=5, format="png")
        with pytest.raises(JobFailedError) as info:
            job.wait(interval=0)
        assert info.value.error == "renderer crashed on page 3"
        assert info.value.job_id == "job-1" and "renderer crashed" in str(info.value)
        assert isinstance(info.value, JobError) and isinstance(info.value, APIError)
        assert job.status().status == "failed"  # one poll, returned rather than raised
        with pytest.raises(JobFailedError):
            job.download(tmp_path / "never.png", interval=0)
    assert not (tmp_path / "never.png").exists()
    assert server.seen("GET", DOWNLOAD) == []


@pytest.mark.anyio
async def test_job_fails_async(server: LocalServer) -> None:
    _export_server(server, [FAILED])
    async with async_platform(server.url) as client:
        job = await client.dashboard_exports.start_export_job(
            7, dashboard_public_id="pub", format="pdf"
        )
        with pytest.raises(JobFailedError) as info:
            await job.wait(interval=0)
        assert info.value.error == "renderer crashed on page 3"


def _job_with_clock(
    client: Any, clock: FakeClock
) -> SyncJob[models.DashboardExportJobResponse, models.DashboardExportStatusResponse]:
    submitted = client.dashboard_exports.start_export(7, dashboard_id=5, format="pdf")
    return SyncJob(
        submitted,
        spec=SPEC,
        poll=lambda: client.dashboard_exports.get_export_status(7, submitted.job_id),
        download=lambda: client.dashboard_exports.download_export(7, submitted.job_id),
        clock=clock.time,
        sleep=clock.sleep,
    )


def test_job_expires_before_it_completes_sync(server: LocalServer) -> None:
    clock = FakeClock()
    _export_server(server, [PENDING], expires_in=9, clock=clock)
    with platform(server.url) as client:
        job = _job_with_clock(client, clock)
        expires = job.expires_at
        assert expires is not None
        with pytest.raises(JobExpiredError) as info:
            job.wait(interval=2)
        assert info.value.expires_at == expires and info.value.job_id == "job-1"
        # never polled at or after the expiry (nor within the 2 s margin before it)
        assert clock.polls and all(t < expires.timestamp() - 2 for t in clock.polls)
        assert len(clock.polls) == 4  # t = 0, 2, 4, 6; a poll at 8 would be inside the 2 s margin
        clock.now = expires.timestamp() + 1
        with pytest.raises(JobExpiredError):
            job.status()
        with pytest.raises(JobExpiredError):
            job.download(io.BytesIO())
    assert len(server.seen("GET", JOB)) == 4 and server.seen("GET", DOWNLOAD) == []


@pytest.mark.anyio
async def test_job_expires_before_it_completes_async(server: LocalServer) -> None:
    clock = FakeClock()
    _export_server(server, [PENDING], expires_in=10, clock=clock)
    async with async_platform(server.url) as client:
        submitted = await client.dashboard_exports.start_export(7, dashboard_id=5, format="pdf")
        job: AsyncJob[models.DashboardExportJobResponse, models.DashboardExportStatusResponse] = (
            AsyncJob(
                submitted,
                spec=SPEC,
                poll=lambda: client.dashboard_exports.get_export_status(7, submitted.job_id),
                clock=clock.time,
                sleep=clock.asleep,
            )
        )
        with pytest.raises(JobExpiredError):
            await job.wait(interval=3)
    assert len(clock.polls) == 3  # t = 0, 3, 6; a poll at 9 would be inside the 2 s margin


def test_job_wait_times_out_sync(server: LocalServer) -> None:
    clock = FakeClock()
    _export_server(server, [PROCESSING], clock=clock)
    with platform(server.url) as client:
        job = _job_with_clock(client, clock)
        with pytest.raises(JobTimeoutError) as info:
            job.wait(interval=2, timeout=5)
        assert info.value.timeout == 5
    start = clock.polls[0]
    assert [t - start for t in clock.polls] == pytest.approx([0, 2, 4, 5], abs=0.01)


def test_job_status_errors_are_api_errors(server: LocalServer) -> None:
    _export_server(server, [PENDING])

    @server.route("GET", JOB)
    def forbidden(ex: Exchange) -> None:
        ex.error(403, "only the submitter may poll this job")

    with platform(server.url) as client:
        job = client.dashboard_exports.start_export_job(7, dashboard_id=5, format="pdf")
        with pytest.raises(PermissionDeniedError, match="only the submitter"):
            job.wait(interval=0)


def test_job_spec_reads_dicts_models_and_epochs() -> None:
    clock = FakeClock()
    submitted = {"jobId": 42, "expiresAt": int((clock.now + 60) * 1000)}
    statuses = iter([{"status": "queued"}, {"status": "ok"}])
    spec = JobSpec(success_values=("ok",), failure_values=("err",))
    job: SyncJob[dict[str, Any], dict[str, Any]] = SyncJob(
        submitted, spec=spec, poll=lambda: next(statuses), clock=clock.time, sleep=clock.sleep
    )
    assert job.id == "42"
    assert job.expires_at is not None and abs(job.expires_at.timestamp() - (clock.now + 60)) < 0.01
    assert job.wait(interval=1) == {"status": "ok"}
    assert "42" in repr(job) and "ok" in repr(job)
    with pytest.raises(TypeError):
        job.download(io.BytesIO())
    model = models.DashboardExportJobResponse.model_validate(
        {"jobId": "j", "expiresAt": "2030-01-02T03:04:05+01:00"}
    )
    other: SyncJob[Any, Any] = SyncJob(model, spec=SPEC, poll=dict)
    assert other.id == "j"
    assert other.expires_at == datetime.datetime(2030, 1, 2, 2, 4, 5, tzinfo=datetime.UTC)
    assert SyncJob({"jobId": "x"}, spec=DICT_SPEC, poll=dict).expires_at is None
    with pytest.raises(APIError, match="no 'jobId'"):
        _ = SyncJob({}, spec=DICT_SPEC, poll=dict).id


@pytest.mark.anyio
async def test_job_wait_times_out_async(server: LocalServer) -> None:
    clock = FakeClock()
    _export_server(server, [PROCESSING], clock=clock)
    async with async_platform(server.url) as client:
        job = await client.dashboard_exports.start_export_job(7, dashboard_id=5, format="pdf")
        job._clock, job._sleep = clock.time, clock.asleep  # the generated handle, on a fake clock
        with pytest.raises(JobTimeoutError):
            await job.wait(interval=2, timeout=3)
    start = clock.polls[0]
    assert [t - start for t in clock.polls] == pytest.approx([0, 2, 3], abs=0.01)
