"""The data client against a loopback server answering as a Cube deployment does (issue 30):
Continue wait followed under one request id, request ids on results and errors, the three
result shapes read as the same typed rows, the endpoints the overlays add, and the frame
methods' error when their extra is missing."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from cube_client import (
    AsyncDataClient,
    ContinueWaitTimeoutError,
    DataClient,
    JobFailedError,
    MissingExtraError,
)
from cube_data_server import MEMBERS, ROWS, CubeDataServer
from runtime_servers import LocalServer

SPAN = re.compile(r"(?P<base>.+)-span-(?P<n>\d+)\Z")
QUERY = {"measures": ["orders.count", "orders.amount"], "dimensions": ["orders.status"]}


@pytest.fixture(scope="module")
def cube() -> Iterator[CubeDataServer]:
    server = LocalServer().start()
    try:
        yield CubeDataServer(server)
    finally:
        server.stop()


def client(cube: CubeDataServer, sleep: Any = None) -> DataClient:
    made = DataClient(token="jwt", base_url=cube.url, allow_http_loopback=True)
    if sleep is not None:  # record the back-off instead of sleeping
        made._sleep = sleep
    return made


def spans(cube: CubeDataServer, base: str) -> list[int]:
    found = []
    for seen in cube.server.seen():
        m = SPAN.match(seen.headers.get("x-request-id", ""))
        if m and m["base"] == base:
            found.append(int(m["n"]))
    return found


def test_continue_wait_twice_then_the_result_under_one_request_id(cube: CubeDataServer) -> None:
    progress: list[dict[str, Any]] = []
    delays: list[float] = []
    with client(cube, sleep=delays.append) as c:
        res = c.data.load_v1(query=QUERY, request_id="req-7", on_progress=progress.append)
    assert spans(cube, "req-7") == [1, 2, 3]
    assert [p["error"] for p in progress] == ["Continue wait", "Continue wait"]
    assert progress[1]["stage"].endswith("poll 2")
    assert len(delays) == 2 and 0 < delays[0] < delays[1] <= 1.0
    assert res._request_id == "req-7"
    assert res.results is not None and len(res.results) == 1
    bodies = [s.json() for s in cube.server.seen("POST", "/cubejs-api/v1/load")]
    assert all(b == {"query": QUERY} for b in bodies)


def test_a_generated_request_id_is_a_uuid_and_on_the_result(cube: CubeDataServer) -> None:
    with client(cube, sleep=lambda s: None) as c:
        res = c.data.load_v1(query=QUERY)
    rid = res._request_id
    assert rid is not None and re.fullmatch(r"[0-9a-f-]{36}", rid)
    assert spans(cube, rid) == [1, 2, 3]


def test_continue_wait_forever_ends_in_a_typed_error_naming_the_id(cube: CubeDataServer) -> None:
    with client(cube) as c, pytest.raises(ContinueWaitTimeoutError) as caught:
        c.data.load_v1(query={"measures": ["orders.stuck"]}, request_id="stuck-1", wait_timeout=0.3)
    err = caught.value
    assert err.request_id == "stuck-1" and "stuck-1" in str(err)
    assert err.polls == len(spans(cube, "stuck-1")) >= 3
    assert 0.3 - 1.0 < err.waited <= 0.3


def test_a_status_error_carries_the_request_id(cube: CubeDataServer) -> None:
    from cube_client import APIStatusError

    server = LocalServer().start()
    try:
        server.route("POST", "/cubejs-api/v1/load")(lambda ex: ex.error(400, "bad query"))
        with DataClient(
            token="t", base_url=server.url + "/cubejs-api", allow_http_loopback=True
        ) as c:
            with pytest.raises(APIStatusError) as caught:
                c.data.load_v1(query=QUERY, request_id="bad-1")
    finally:
        server.stop()
    assert caught.value.request_id == "bad-1"


def test_async_continue_wait(cube: CubeDataServer) -> None:
    seen: list[dict[str, Any]] = []

    async def main() -> Any:
        async def nap(_: float) -> None:
            return None

        async with AsyncDataClient(token="jwt", base_url=cube.url, allow_http_loopback=True) as c:
            c._sleep = nap
            return await c.data.load_v1(query=QUERY, request_id="async-1", on_progress=seen.append)

    res = asyncio.run(main())
    assert spans(cube, "async-1") == [1, 2, 3] and len(seen) == 2
    assert res._request_id == "async-1"


@pytest.mark.parametrize("shape", ["default", "compact", "columnar"])
def test_every_shape_gives_the_same_typed_rows(cube: CubeDataServer, shape: str) -> None:
    with client(cube, sleep=lambda s: None) as c:
        res = c.data.load_v1(query={**QUERY, "responseFormat": shape})
    rows = res.rows()
    assert [list(r) for r in rows] == [MEMBERS] * len(ROWS)
    first = rows[0]
    assert first["orders.count"] == 5 and type(first["orders.count"]) is int
    assert first["orders.amount"] == 12.5 and isinstance(first["orders.amount"], float)
    assert first["orders.createdAt.day"] == datetime.datetime(2024, 1, 1)
    assert first["orders.createdAt.day"].tzinfo is None
    assert first["orders.isPaid"] is True and rows[1]["orders.isPaid"] is False
    assert rows[2]["orders.amount"] is None and rows[1]["orders.amount"] == 3
    exact = res.rows(decimal=True)
    assert exact[0]["orders.amount"] == decimal.Decimal("12.50")
    raw = res.rows(raw=True)
    assert [[r[m] for m in MEMBERS] for r in raw] == ROWS
    assert res.results is not None and res.results[0].rows() == rows


def test_sql_dry_run_and_meta_options(cube: CubeDataServer) -> None:
    with client(cube, sleep=lambda s: None) as c:
        sql = c.data.sql_v1(query=QUERY, request_id="sql-1")
        dry = c.data.dry_run_v1(query=QUERY)
        views = c.data.meta_v1(only_views=True, extended=True)
    assert spans(cube, "sql-1") == [1, 2]
    assert sql.sql is not None and sql.sql.status == "ok"
    assert sql.sql.sql is not None and "orders__count" in sql.sql.sql[0]
    assert dry.normalized_queries is not None
    assert dry.normalized_queries[0]["measures"] == QUERY["measures"]
    assert views.cubes is not None and [cb.name for cb in views.cubes] == ["orders_view"]
    meta_seen = cube.server.seen("GET", "/cubejs-api/v1/meta")[-1]
    assert meta_seen.q("extended") == "true" and meta_seen.q("onlyViews") == "true"


def test_health_probes_live_at_the_host_root(cube: CubeDataServer) -> None:
    with client(cube) as c:
        assert c.health.livez().health == "HEALTH"
        assert c.health.readyz().health == "HEALTH"
    assert [s.path for s in cube.server.seen("GET")][-2:] == ["/livez", "/readyz"]


def test_a_missing_extra_names_the_pip_install(
    cube: CubeDataServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with client(cube, sleep=lambda s: None) as c:
        res = c.data.load_v1(query=QUERY)
    for module, method, extra in [
        ("pandas", "to_pandas", "pandas"),
        ("polars", "to_polars", "polars"),
        ("pyarrow", "to_arrow", "arrow"),
    ]:
        monkeypatch.setitem(sys.modules, module, None)  # import fails as when not installed
        with pytest.raises(MissingExtraError) as caught:
            getattr(res, method)()
        message = str(caught.value)
        assert "\n" not in message
        assert message.endswith(f"pip install 'cube-client[{extra}]'")
        assert isinstance(caught.value, ImportError)


def test_importing_the_package_imports_no_frame_library() -> None:
    import subprocess

    code = (
        "import sys, cube_client; from cube_client import DataClient;"
        "DataClient(token='t', base_url='https://x.example').data;"
        "import cube_client.data.models as m; m.V1LoadResponse;"
        "print(sorted(n for n in ('pandas', 'polars', 'pyarrow') if n in sys.modules))"
    )
    from tests.helpers import PACKAGE_ROOT

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(PACKAGE_ROOT)},
    )
    assert out.stdout.strip() == "[]"


def test_a_pre_aggregation_build_job_runs_then_completes(cube: CubeDataServer) -> None:
    selector = {"contexts": [{"securityContext": {}}], "timezones": ["UTC"], "cubes": ["orders"]}
    naps: list[float] = []
    with client(cube) as c:
        job = c.data.pre_aggregation_jobs_v1_job(selector=selector)
        job._sleep = naps.append
        assert job.id == "tok-1,tok-2"
        done = job.wait(interval=0.5, timeout=10)
    assert done.status == "done" and [j.token for j in done.jobs] == ["tok-1", "tok-2"]
    assert naps == [0.5]  # one poll saw the builds running, the next saw them done
    bodies = [s.json() for s in cube.server.seen("POST", "/cubejs-api/v1/pre-aggregations/jobs")]
    assert bodies[0] == {"action": "post", "selector": selector}
    assert bodies[1:] == [{"action": "get", "tokens": ["tok-1", "tok-2"]}] * 2


def test_a_failed_build_raises_naming_its_token() -> None:
    server = LocalServer().start()
    answers = iter([["tok-9"], [{"token": "tok-9", "status": "missing_partition"}]])
    server.route("POST", "/cubejs-api/v1/pre-aggregations/jobs")(
        lambda ex: ex.json(200, next(answers))
    )
    try:
        with DataClient(
            token="t", base_url=server.url + "/cubejs-api", allow_http_loopback=True
        ) as c:
            job = c.data.pre_aggregation_jobs_v1_job(
                selector={"contexts": [{"securityContext": {}}], "timezones": ["UTC"]}
            )
            with pytest.raises(JobFailedError) as caught:
                job.wait(interval=0)
    finally:
        server.stop()
    assert caught.value.error == "tok-9: missing_partition"


def test_the_default_wait_applies_and_none_means_no_limit(
    cube: CubeDataServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cube_client._data as data

    monkeypatch.setattr(data, "DEFAULT_WAIT_TIMEOUT", 0.0)
    with client(cube, sleep=lambda s: None) as c:
        with pytest.raises(ContinueWaitTimeoutError) as caught:
            c.data.load_v1(query=QUERY, request_id="default-1")  # the default: now 0 s
        assert caught.value.polls == 1
        res = c.data.load_v1(query=QUERY, request_id="unbounded-1", wait_timeout=None)
    assert spans(cube, "unbounded-1") == [1, 2, 3] and res._request_id == "unbounded-1"


def test_the_raw_response_is_the_answer_after_the_waits(cube: CubeDataServer) -> None:
    with client(cube, sleep=lambda s: None) as c:
        raw = c.data.with_raw_response.load_v1(query=QUERY, request_id="raw-1")
    assert raw.status_code == 200
    assert raw.http_response.request.headers["x-request-id"] == "raw-1-span-3"
    parsed = raw.parse()
    assert parsed._request_id == "raw-1" and parsed.rows()[0]["orders.count"] == 5


def test_async_build_job(cube: CubeDataServer) -> None:
    selector = {"contexts": [{"securityContext": {}}], "timezones": ["UTC"]}

    async def main() -> Any:
        async with AsyncDataClient(token="jwt", base_url=cube.url, allow_http_loopback=True) as c:
            job = await c.data.pre_aggregation_jobs_v1_job(selector=selector)
            return await job.wait(interval=0, timeout=10)

    cube.job_polls = 0
    done = asyncio.run(main())
    assert done.status == "done" and len(done.jobs) == 2
