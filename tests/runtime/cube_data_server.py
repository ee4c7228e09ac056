"""A loopback server that answers the core data API as a Cube deployment does.

Routes live under ``/cubejs-api`` or another base path (the health probes at the root). ``orders.count`` queries are
answered ``{"error": "Continue wait"}`` twice, then with the result; ``orders.stuck`` queries
always wait. Results come in the shape the query's ``responseFormat`` asks (rows, ``compact``,
``columnar``), measures as text, times without a zone, as Cube sends them. Pre-aggregation
jobs run on the first status call and are done on the second.
"""

from __future__ import annotations

import threading
from typing import Any

from runtime_servers import Exchange, LocalServer

BASE = "/cubejs-api"
MEMBERS = [
    "orders.status",
    "orders.createdAt.day",
    "orders.isPaid",
    "orders.count",
    "orders.amount",
]
ROWS: list[list[Any]] = [
    ["shipped", "2024-01-01T00:00:00.000", True, "5", "12.50"],
    ["pending", "2024-01-02T00:00:00.000", False, "7", "3"],
    ["shipped", "2024-01-03T00:00:00.000", None, "11", None],
]
ANNOTATION = {
    "measures": {
        "orders.count": {"title": "Orders Count", "type": "number"},
        "orders.amount": {"title": "Orders Amount", "type": "number"},
    },
    "dimensions": {
        "orders.status": {"title": "Orders Status", "type": "string"},
        "orders.isPaid": {"title": "Orders Is Paid", "type": "boolean"},
    },
    "segments": {},
    "timeDimensions": {
        "orders.createdAt.day": {"title": "Orders Created at", "type": "time"},
    },
}
WAITS_BEFORE_RESULT = 2


def data_in(shape: str) -> Any:
    if shape == "compact":
        return {"members": MEMBERS, "dataset": ROWS}
    if shape == "columnar":
        return {"members": MEMBERS, "columns": [list(c) for c in zip(*ROWS, strict=True)]}
    return [dict(zip(MEMBERS, row, strict=True)) for row in ROWS]


class CubeDataServer:
    """Routes on a :class:`LocalServer`, with the polls counted per base request id."""

    def __init__(self, server: LocalServer, base: str = BASE) -> None:
        self.server = server
        self.base = base
        self.polls: dict[str, int] = {}
        self.job_polls = 0
        self._lock = threading.Lock()
        for path, handler in {
            "/v1/load": self._load,
            "/v1/sql": self._sql,
            "/v1/dry-run": self._dry_run,
            "/v1/pre-aggregations/jobs": self._jobs,
        }.items():
            server.route("POST", base + path)(handler)
        server.route("GET", base + "/v1/meta")(self._meta)
        for probe in ("/livez", "/readyz"):
            server.route("GET", probe)(lambda ex: ex.json(200, {"health": "HEALTH"}))

    @property
    def url(self) -> str:
        return self.server.url + self.base

    def _must_wait(self, ex: Exchange, waits: int) -> bool:
        """Count this poll under its base request id; True while the query 'runs'."""
        header = ex.seen.headers.get("x-request-id", "")
        base = header.rsplit("-span-", 1)[0]
        with self._lock:
            self.polls[base] = self.polls.get(base, 0) + 1
            count = self.polls[base]
        if count <= waits:
            ex.json(200, {"error": "Continue wait", "stage": f"Executing query, poll {count}"})
            return True
        return False

    def _load(self, ex: Exchange) -> None:
        query = ex.seen.json().get("query") or {}
        stuck = "orders.stuck" in (query.get("measures") or [])
        if self._must_wait(ex, 10**9 if stuck else WAITS_BEFORE_RESULT):
            return
        shape = query.get("responseFormat", "default")
        result = {"annotation": ANNOTATION, "data": data_in(shape), "lastRefreshTime": "x"}
        ex.json(200, {"queryType": "regularQuery", "results": [result], "slowQuery": False})

    def _sql(self, ex: Exchange) -> None:
        if self._must_wait(ex, 1):
            return
        text = 'SELECT count(*) "orders__count" FROM orders LIMIT 10000'
        ex.json(200, {"sql": {"status": "ok", "sql": [text, []]}})

    def _dry_run(self, ex: Exchange) -> None:
        query = ex.seen.json()["query"]
        normalized = {**query, "timezone": "UTC", "filters": [], "timeDimensions": []}
        ex.json(200, {"queryType": "regularQuery", "normalizedQueries": [normalized]})

    def _meta(self, ex: Exchange) -> None:
        cube = {"name": "orders", "type": "cube", "measures": [], "dimensions": [], "segments": []}
        view = {**cube, "name": "orders_view", "type": "view"}
        views_only = ex.seen.q("onlyViews") == "true"
        ex.json(200, {"cubes": [view] if views_only else [cube, view]})

    def _jobs(self, ex: Exchange) -> None:
        body = ex.seen.json()
        if body["action"] == "post":
            ex.json(200, ["tok-1", "tok-2"])
            return
        with self._lock:
            self.job_polls += 1
            status = "processing" if self.job_polls == 1 else "done"
        ex.json(200, [{"token": t, "table": f"t_{t}", "status": status} for t in body["tokens"]])
