"""Cost per call: the generated client against raw ``httpx2`` + ``json.loads``, sync and async.

Each measured twice: the call alone, and the call with every field of every item read (by name,
as a program reads them; the raw side walks every decoded value). Run by ``bench/run.py`` in a
fresh interpreter with the generated distribution on PYTHONPATH and ``bench/server.py``
listening on 127.0.0.1. Each side keeps one ``httpx2`` client (one keep-alive connection) for
all its calls; blocks of calls alternate side by side, round by round. Prints one JSON object:
seconds per call of every block, and the server's connection counts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import os
import shutil
import tempfile
import time
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
from cube_client import AsyncPlatformClient, PlatformClient

PATH = "/api/v1/deployments/1/environments"
KEY = "bench-key"
ITEMS = 100


def _stats(base: str) -> dict[str, int]:
    with urllib.request.urlopen(base + "/_stats") as resp:
        data: dict[str, int] = json.loads(resp.read())
    return data


def _items(page: Any) -> list[Any]:
    items = page.items if hasattr(page, "items") else list(page)
    return list(items)


def _walk_json(value: Any) -> int:
    """Touch every value of decoded JSON; the number of leaves."""
    if isinstance(value, dict):
        return sum(_walk_json(v) for v in value.values())
    if isinstance(value, list):
        return sum(_walk_json(v) for v in value)
    return 1


# Every declared field of the page's two models, read by name as a program reads them (checked
# against the classes' own fields by _check_readers, so a field the document adds is read too).
ENVIRONMENT_FIELDS = ("api_credentials", "branch", "id", "type", "user")
CREDENTIAL_FIELDS = ("database", "host", "port", "type", "url", "version")
_read_environment = operator.attrgetter(*ENVIRONMENT_FIELDS)
_read_credential = operator.attrgetter(*CREDENTIAL_FIELDS)


def _check_readers() -> None:
    from cube_client.platform.models import (
        DeploymentEnvironment,
        DeploymentEnvironmentApiCredential,
    )

    for cls, names in (
        (DeploymentEnvironment, ENVIRONMENT_FIELDS),
        (DeploymentEnvironmentApiCredential, CREDENTIAL_FIELDS),
    ):
        assert set(cls.model_fields) == set(names), f"{cls.__name__}: {sorted(cls.model_fields)}"


def _read_models(items: list[Any]) -> int:
    """Read every field of every item, nested credentials too; the number of fields read."""
    count = 0
    for item in items:
        count += len(_read_environment(item))
        for credential in item.api_credentials:
            count += len(_read_credential(credential))
    return count


def _timed(fn: Callable[[], int], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


async def _timed_async(fn: Callable[[], Awaitable[int]], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        await fn()
    return (time.perf_counter() - start) / calls


def run_sync(base: str, calls: int, rounds: int, warmup: int, read_all: bool) -> dict[str, Any]:
    before = _stats(base)
    # Not `as client`: the runtime's __enter__ is typed as the base class (no `environments`).
    client = PlatformClient(api_key=KEY, base_url=base, allow_http_loopback=True)
    records = tempfile.mkdtemp(prefix="bench-shapes-")
    recording = PlatformClient(
        api_key=KEY, base_url=base, allow_http_loopback=True, record_shapes=records
    )
    with httpx2.Client(base_url=base) as http, client, recording:
        headers = {"Authorization": f"Bearer {KEY}"}

        def raw() -> int:
            response = http.get(PATH, headers=headers)
            response.raise_for_status()
            data = json.loads(response.content)
            return _walk_json(data["items"]) if read_all else len(data["items"])

        def generated() -> int:
            items = _items(client.environments.get_deployment_environments(1))
            return _read_models(items) if read_all else len(items)

        def recorded() -> int:  # shape recording on (nothing differs: nothing is written)
            items = _items(recording.environments.get_deployment_environments(1))
            return _read_models(items) if read_all else len(items)

        sides: dict[str, Callable[[], int]] = {"raw": raw, "generated": generated}
        if not read_all:
            sides["recording"] = recorded
        assert raw() > 0 and generated() > 0 and (read_all or raw() == generated() == ITEMS)
        for fn in sides.values():
            for _ in range(warmup):
                fn()
        times: dict[str, list[float]] = {name: [] for name in sides}
        for r in range(rounds):
            for name in list(sides) if r % 2 == 0 else list(reversed(sides)):
                times[name].append(_timed(sides[name], calls))
    after = _stats(base)
    written = os.path.exists(os.path.join(records, "shapes.jsonl"))
    shutil.rmtree(records, ignore_errors=True)
    connections = after["connections"] - before["connections"] - 1
    return {
        "times": times,
        "connections": connections,
        "sides": len(sides),
        "recorded_differences": written,
    }


async def run_async(
    base: str, calls: int, rounds: int, warmup: int, read_all: bool
) -> dict[str, Any]:
    before = _stats(base)
    client = AsyncPlatformClient(api_key=KEY, base_url=base, allow_http_loopback=True)
    async with httpx2.AsyncClient(base_url=base) as http, client:
        headers = {"Authorization": f"Bearer {KEY}"}

        async def raw() -> int:
            response = await http.get(PATH, headers=headers)
            response.raise_for_status()
            data = json.loads(response.content)
            return _walk_json(data["items"]) if read_all else len(data["items"])

        async def generated() -> int:
            items = _items(await client.environments.get_deployment_environments(1))
            return _read_models(items) if read_all else len(items)

        sides: dict[str, Callable[[], Awaitable[int]]] = {"raw": raw, "generated": generated}
        counts = (await raw(), await generated())
        assert min(counts) > 0 and (read_all or counts == (ITEMS, ITEMS))
        for fn in sides.values():
            for _ in range(warmup):
                await fn()
        times: dict[str, list[float]] = {name: [] for name in sides}
        for r in range(rounds):
            for name in list(sides) if r % 2 == 0 else list(reversed(sides)):
                times[name].append(await _timed_async(sides[name], calls))
    after = _stats(base)
    return {"times": times, "connections": after["connections"] - before["connections"] - 1}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--calls", type=int, default=250, help="calls per block")
    parser.add_argument("--rounds", type=int, default=6, help="blocks per side")
    parser.add_argument("--warmup", type=int, default=50)
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    _check_readers()
    timing = (args.calls, args.rounds, args.warmup)
    result = {}
    for read_all in (False, True):
        suffix = "_read_all" if read_all else ""
        result["sync" + suffix] = run_sync(base, *timing, read_all)
        result["async" + suffix] = asyncio.run(run_async(base, *timing, read_all))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
