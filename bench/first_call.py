"""One cold start, timed by ``bench/client_bench.py`` as a whole process: import, client, first
call of a resource (``generated``), or the same request raw (``raw``: ``import httpx2, pydantic``,
``httpx2.get`` and ``json.loads``). Checks the answer, so a failing side cannot look fast."""

from __future__ import annotations

import sys

KEY = "bench-key"
PATH = "/api/v1/deployments/1/environments"
ITEMS = 100


def main(side: str, port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    if side == "generated":
        import cube_client

        client = cube_client.PlatformClient(api_key=KEY, base_url=base, allow_http_loopback=True)
        page = client.environments.get_deployment_environments(1)
        count = len(list(page.items))
    else:
        import json

        import httpx2
        import pydantic  # noqa: F401 - the baseline imports what the client is built on

        response = httpx2.get(base + PATH, headers={"Authorization": f"Bearer {KEY}"})
        response.raise_for_status()
        count = len(json.loads(response.content)["items"])
    if count != ITEMS:
        raise SystemExit(f"expected {ITEMS} items, got {count}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
