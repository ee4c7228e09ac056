"""Shape recording in the generated SDK (``record_shapes=DIR`` / ``CUBE_RECORD_SHAPES``): off by
default; one line per difference, counted in memory; values only for enums; the size cap at its
edge; many threads appending at once. Against a real loopback server (``getDeployment``)."""

from __future__ import annotations

import json
import threading
import warnings
from pathlib import Path

import pytest
from runtime_servers import DEPLOYMENT, Exchange, LocalServer, deployment, platform

from generator.observed.records import read_observations

SECRET = "s3cr3t-value-that-must-not-be-recorded"


def _serve(server: LocalServer, **extra: object) -> None:
    @server.route("GET", DEPLOYMENT)
    def get(ex: Exchange) -> None:
        ex.json(200, {**deployment(name=SECRET), **extra})


def _lines(folder: Path) -> list[dict[str, object]]:
    path = folder / "shapes.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_recording_is_off_by_default(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CUBE_RECORD_SHAPES", raising=False)
    monkeypatch.chdir(tmp_path)
    _serve(server, surprise=SECRET)
    with platform(server.url) as client:
        assert client.deployments.get_deployment(7).name == SECRET
        assert client._recorder is None
    assert list(tmp_path.iterdir()) == []


def test_each_difference_is_one_line_counted_in_memory(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUBE_RECORD_SHAPES_EVERY", "1")  # every response compared whole
    _serve(server, surprise=SECRET, creationStep="paused")
    with platform(server.url, record_shapes=tmp_path) as client:
        for _ in range(30):
            got = client.deployments.get_deployment(7)
            assert got.name == SECRET
        assert len(_lines(tmp_path)) == 2  # each new difference once, as it is met
    lines = _lines(tmp_path)
    assert len(lines) == 4  # and the repeats as one line each at close
    assert SECRET not in (tmp_path / "shapes.jsonl").read_text(encoding="utf-8")
    by_kind = {str(line["kind"]): line for line in lines[:2]}
    assert by_kind["property-unknown"]["pointer"] == "/surprise"
    assert by_kind["property-unknown"]["seen"] == {"type": "string"}
    assert by_kind["enum-value-unknown"]["seen"] == {"type": "string", "value": "paused"}
    assert by_kind["enum-value-unknown"]["operation"] == {
        "method": "GET",
        "path": "/api/v1/deployments/{deploymentId}",
    }
    merged = read_observations([tmp_path])
    assert sorted(o.count for o in merged) == [30, 30]


def test_responses_are_compared_whole_first_then_one_in_every(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first 8 responses of an operation, then one in CUBE_RECORD_SHAPES_EVERY, are compared
    whole; a count is the number of compared responses that showed the difference."""
    monkeypatch.setenv("CUBE_RECORD_SHAPES_EVERY", "10")
    _serve(server, creationStep="paused", surprise=1)
    with platform(server.url, record_shapes=tmp_path) as client:
        for _ in range(45):  # compared whole: 1..8, 10, 20, 30, 40
            assert str(client.deployments.get_deployment(7).creation_step) == "Unknown('paused')"
    counts = {o.kind: o.count for o in read_observations([tmp_path])}
    assert counts == {"property-unknown": 12, "enum-value-unknown": 12}


def test_the_environment_turns_recording_on(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUBE_RECORD_SHAPES", str(tmp_path / "env"))
    _serve(server, other=1.5)
    with platform(server.url) as client:
        client.deployments.get_deployment(7)
    (line,) = _lines(tmp_path / "env")
    assert line["kind"] == "property-unknown" and line["seen"] == {"type": "number"}


def test_nothing_is_written_when_nothing_differs(server: LocalServer, tmp_path: Path) -> None:
    _serve(server)
    with platform(server.url, record_shapes=tmp_path) as client:
        client.deployments.get_deployment(7)
    assert _lines(tmp_path) == []


def test_the_size_cap_at_its_edge(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cap that holds exactly the first line keeps it; the next difference stops recording
    with one warning, and the file never passes the cap."""
    from cube_client._shapes import ShapesRecordingWarning

    first = tmp_path / "probe"
    _serve(server, a=1)
    with platform(server.url, record_shapes=first) as client:
        client.deployments.get_deployment(7)
    size = (first / "shapes.jsonl").stat().st_size
    monkeypatch.setenv("CUBE_RECORD_SHAPES_MAX_BYTES", str(size))
    capped = tmp_path / "capped"
    with platform(server.url, record_shapes=capped) as client:
        client.deployments.get_deployment(7)  # exactly the cap: written
        assert (capped / "shapes.jsonl").stat().st_size == size
        server.routes.clear()
        _serve(server, b=2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            client.deployments.get_deployment(7)  # one byte more would pass it: stopped
            client.deployments.get_deployment(7)
    stops = [w for w in caught if issubclass(w.category, ShapesRecordingWarning)]
    assert len(stops) == 1 and "cap" in str(stops[0].message)
    assert (capped / "shapes.jsonl").stat().st_size == size


def test_threads_append_whole_lines(tmp_path: Path) -> None:
    from cube_client._shapes import Difference, Recorder

    recorder = Recorder(tmp_path, max_bytes=10_000_000)
    kinds = [Difference("property-unknown", f"/f{i}", "not listed", "string") for i in range(40)]

    def work(n: int) -> None:
        for i in range(200):
            recorder.note("GET", "/x", 200, "application/json", [kinds[(n + i) % 40]])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    recorder.flush()
    observations = read_observations([tmp_path])  # every line parses and validates
    assert len(observations) == 40
    assert sum(o.count for o in observations) == 16 * 200


def test_a_raw_response_is_recorded_when_parsed(server: LocalServer, tmp_path: Path) -> None:
    _serve(server, surprise=SECRET)
    with platform(server.url, record_shapes=tmp_path) as client:
        raw = client.with_raw_response.deployments.get_deployment(7)
        assert _lines(tmp_path) == []  # not parsed yet: not compared
        assert raw.parse().name == SECRET
        (line,) = _lines(tmp_path)
    assert line["pointer"] == "/surprise"


def test_async_clients_record_too(server: LocalServer, tmp_path: Path) -> None:
    import asyncio

    from runtime_servers import async_platform

    _serve(server, surprise=SECRET)

    async def run() -> None:
        async with async_platform(server.url, record_shapes=tmp_path) as client:
            await client.deployments.get_deployment(7)

    asyncio.run(run())
    (line,) = _lines(tmp_path)
    assert line["kind"] == "property-unknown" and SECRET not in json.dumps(line)


def _events(server: LocalServer) -> None:
    @server.route("GET", "/events")
    def reply(ex: Exchange) -> None:
        body = "".join(f"data: {json.dumps(d)}\n\n" for d in ({"n": 1}, {"n": "two"})).encode()
        ex.send(200, body, {"Content-Type": "text/event-stream"})


def _stream(url: str, folder: Path | None) -> list[object]:
    from cube_client._base_client import PreparedCall, SyncAPIClient

    with (
        SyncAPIClient(
            base_url=url, credential="k", allow_http_loopback=True, record_shapes=folder
        ) as client,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # the second event's wrong type: warned, and kept
        call = PreparedCall("GET", "/events")
        return list(client.request(call, cast_to=dict[str, int], kind="event-stream").iter_items())


def test_a_client_records_its_own_streams_only(
    server: LocalServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A streamed value that differs is recorded by its own client's recorder: not in the folder
    of another client recording at the same time, and nowhere for a client that does not
    record. No recorder listens to every call, so the others' reads skip the scans listeners
    need (extra members of every model)."""
    from cube_client import _differences

    monkeypatch.delenv("CUBE_RECORD_SHAPES", raising=False)  # the plain client records nowhere
    _events(server)
    own, other = tmp_path / "own", tmp_path / "other"
    with platform(server.url, record_shapes=other):
        assert _differences.LISTENERS == []
        assert _stream(server.url, own) == [{"n": 1}, {"n": "two"}]
        assert _stream(server.url, None) == [{"n": 1}, {"n": "two"}]
    (line,) = _lines(own)
    assert (line["pointer"], line["kind"], line["seen"]) == (
        "/n",
        "type-mismatch",
        {"type": "string"},
    )
    assert line["media_type"] == "text/event-stream" and line["count"] == 1
    assert _lines(other) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["own"]


def test_a_strict_streams_error_pickles_without_its_recorder(
    server: LocalServer, tmp_path: Path
) -> None:
    """The call's context names its recorder (a lock inside): an error carrying it still crosses
    processes, as a ``ProcessPoolExecutor`` worker's does, with every other fact of its call."""
    import pickle

    from cube_client import APIResponseValidationError
    from cube_client._base_client import PreparedCall, SyncAPIClient

    _events(server)
    client = SyncAPIClient(
        base_url=server.url, credential="k", allow_http_loopback=True, strict=True,
        record_shapes=tmp_path,
    )  # fmt: skip
    with client, pytest.raises(APIResponseValidationError) as info:
        call = PreparedCall("GET", "/events")
        list(client.request(call, cast_to=dict[str, int], kind="event-stream").iter_items())
    (sent,) = info.value.differences
    assert sent.context.hear is not None
    (back,) = pickle.loads(pickle.dumps(info.value.differences))
    assert back.context.hear is None
    assert (back.pointer, back.context.part, back.context.status) == ("/n", "event 2", 200)
    assert back == sent  # the recorder takes no part in a context's equality


PROBES = ("x", "", 0, 1, -1, 1.5, True, False, None, {}, [], "2024-01-02")


def test_a_quick_match_is_never_one_the_full_check_refuses() -> None:
    """The walk accepts most values with one type or set test; every value it accepts so, for
    every field of every generated model, the full check accepts too (and says nothing)."""
    import importlib

    from cube_client._shape_walk import _fast, _matches, _plan, _value

    quick = 0
    for family in ("platform", "scim", "data", "chat"):
        models = importlib.import_module(f"cube_client.{family}.models")
        for name in models.__all__:
            cls = getattr(models, name)
            for info in getattr(cls, "model_fields", {}).values():
                plan = _plan(info.annotation)
                for probe in PROBES:
                    if _matches(_fast(plan), probe):
                        found: list[object] = []
                        _value(plan, probe, "/f", found)
                        assert found == [], (cls, info.annotation, probe)
                        quick += 1
    assert quick > 1000  # the quick path is the common one


def test_the_walk_names_what_differs_inside_lists_of_models() -> None:
    from cube_client._shape_walk import walk
    from cube_client.platform.models import DeploymentEnvironment

    good = {"id": "e", "type": "staging", "api_credentials": [{"type": "sql", "version": 1}]}
    odd = {
        "id": 5,
        "type": "preview",
        "branch": None,
        "api_credentials": [None, {"type": "rest", "version": "1", "port": None, "x": 1}],
    }
    found: list[object] = []
    walk(list[DeploymentEnvironment], [good, odd, None], "/items", found)
    assert [(d.kind, d.pointer, d.seen_type) for d in found] == [  # type: ignore[attr-defined]
        ("null-not-allowed", "/items/-/api_credentials/-", "null"),
        ("type-mismatch", "/items/-/api_credentials/-/version", "string"),
        ("property-unknown", "/items/-/api_credentials/-/x", "integer"),
        ("type-mismatch", "/items/-/id", "integer"),
        ("enum-value-unknown", "/items/-/type", "string"),
        ("null-not-allowed", "/items/-", "null"),
    ]
