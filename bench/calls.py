"""Cost per call: the generated client against raw ``httpx2`` + ``json.loads``, sync and async.

Run by ``bench/run.py`` in a fresh interpreter with the generated distribution on PYTHONPATH and
``bench/server.py`` listening on 127.0.0.1. Each side keeps one ``httpx2`` client (one keep-alive
connection) for all its calls; blocks of calls alternate side by side, round by round. Prints
one JSON object: seconds per call of every block, and the server's connection counts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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


def run_sync(base: str, calls: int, rounds: int, warmup: int) -> dict[str, Any]:
    before = _stats(base)
    # Not `as client`: the runtime's __enter__ is typed as the base class (no `environments`).
    client = PlatformClient(api_key=KEY, base_url=base, allow_http_loopback=True)
    with httpx2.Client(base_url=base) as http, client:
        headers = {"Authorization": f"Bearer {KEY}"}

        def raw() -> int:
            response = http.get(PATH, headers=headers)
            response.raise_for_status()
            return len(json.loads(response.content)["items"])

        def generated() -> int:
            return len(_items(client.environments.get_deployment_environments(1)))

        sides: dict[str, Callable[[], int]] = {"raw": raw, "generated": generated}
        for fn in sides.values():
            assert fn() == ITEMS
            for _ in range(warmup):
                fn()
        times: dict[str, list[float]] = {name: [] for name in sides}
        for r in range(rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for name in order:
                fn = sides[name]
                start = time.perf_counter()
                for _ in range(calls):
                    fn()
                times[name].append((time.perf_counter() - start) / calls)
    after = _stats(base)
    return {"times": times, "connections": after["connections"] - before["connections"] - 1}


async def run_async(base: str, calls: int, rounds: int, warmup: int) -> dict[str, Any]:
    before = _stats(base)
    client = AsyncPlatformClient(api_key=KEY, base_url=base, allow_http_loopback=True)
    async with httpx2.AsyncClient(base_url=base) as http, client:
        headers = {"Authorization": f"Bearer {KEY}"}

        async def raw() -> int:
            response = await http.get(PATH, headers=headers)
            response.raise_for_status()
            return len(json.loads(response.content)["items"])

        async def generated() -> int:
            return len(_items(await client.environments.get_deployment_environments(1)))

        sides: dict[str, Callable[[], Awaitable[int]]] = {"raw": raw, "generated": generated}
        for fn in sides.values():
            assert await fn() == ITEMS
            for _ in range(warmup):
                await fn()
        times: dict[str, list[float]] = {name: [] for name in sides}
        for r in range(rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for name in order:
                fn = sides[name]
                start = time.perf_counter()
                for _ in range(calls):
                    await fn()
                times[name].append((time.perf_counter() - start) / calls)
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
    result = {
        "sync": run_sync(base, args.calls, args.rounds, args.warmup),
        "async": asyncio.run(run_async(base, args.calls, args.rounds, args.warmup)),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
