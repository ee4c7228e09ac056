"""A response model crosses processes: returned by a ``ProcessPoolExecutor`` worker to a parent
that never imported its class, or pickled to a file and loaded by a fresh interpreter, it dumps,
copies, deep-copies and validates its own dump, nested models included. Each receiving side is a
real second interpreter (spawned, not forked), so nothing is inherited from the sender."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runtime_servers import API_KEY, Exchange, LocalServer

from tests.helpers import PACKAGE_ROOT

BODY: dict[str, Any] = {
    "applyThemeGlobally": True,
    "dashboardAppsEnabled": False,
    "restrictDataDownload": True,
    "sheetsAgentChatEnabled": False,
    "creatorMode": {
        "localizedTitles": [{"locale": "fr", "value": "Bonjour"}],
        "workspaceTitle": "WS",
    },
    "timezoneSettings": {"timezone": "Europe/Paris", "enabled": True},
    "futureField": {"kept": 1},
}

# The worker: imported by the spawned child by module name, so it must be a file.
WORKER = """
def fetch(url, key, path):
    import pickle
    from cube_client import PlatformClient
    client = PlatformClient(api_key=key, base_url=url, allow_http_loopback=True)
    config = client.app_theme.get_app_config()
    with open(path, "wb") as out:
        pickle.dump(config, out)
    return config
"""

# What every receiving process checks; prints what it read, as JSON.
CHECKS = """
import copy, json, sys
def checks(model, loaded_before):
    dump = model.model_dump(by_alias=True, exclude_unset=True)
    again = type(model).model_validate(dump)
    return {
        "loaded_before": loaded_before,
        "title": model.creator_mode.localized_titles[0].value,
        "dump": dump,
        "json": json.loads(model.model_dump_json(by_alias=True, exclude_unset=True)),
        "to_dict": model.to_dict(),
        "copy": copy.copy(model) == model,
        "deepcopy": copy.deepcopy(model) == model,
        "validated": again == model,
        "validated_tz": again.timezone_settings.timezone,
    }
"""

POOL = (
    CHECKS
    + """
import multiprocessing, sys
from concurrent.futures import ProcessPoolExecutor
import worker
if __name__ == "__main__":
    url, key, path = sys.argv[1:4]
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=ctx) as pool:
        model = pool.submit(worker.fetch, url, key, path).result()
    print(json.dumps(checks(model, False)))
"""
)

CACHE = (
    CHECKS
    + """
import pickle
loaded = any("._classes." in name for name in sys.modules)
with open(sys.argv[1], "rb") as source:
    model = pickle.load(source)
print(json.dumps(checks(model, loaded)))
"""
)


@pytest.fixture(scope="module")
def app_config_server() -> Iterator[LocalServer]:
    srv = LocalServer().start()

    @srv.route("GET", "/api/v1/app-config")
    def reply(ex: Exchange) -> None:
        ex.json(200, BODY)

    try:
        yield srv
    finally:
        srv.stop()


def _python(folder: Path, code: str, *args: str) -> dict[str, Any]:
    (folder / "main.py").write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "main.py", *args],
        cwd=folder,
        env={
            "PYTHONPATH": os.pathsep.join([str(PACKAGE_ROOT), str(folder)]),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def _assert_whole(result: dict[str, Any]) -> None:
    assert result["loaded_before"] is False
    assert result["title"] == "Bonjour"
    assert result["dump"]["creatorMode"]["localizedTitles"] == [
        {"locale": "fr", "value": "Bonjour"}
    ]
    assert result["dump"]["futureField"] == {"kept": 1}  # an unknown field survives the trip
    assert result["json"] == result["dump"]
    assert result["to_dict"] == BODY
    assert result["copy"] and result["deepcopy"] and result["validated"]
    assert result["validated_tz"] == "Europe/Paris"


def test_a_model_from_a_process_pool_and_from_a_pickled_cache(
    app_config_server: LocalServer, tmp_path: Path
) -> None:
    (tmp_path / "worker.py").write_text(WORKER, encoding="utf-8")
    cache = tmp_path / "config.pickle"
    _assert_whole(_python(tmp_path, POOL, app_config_server.url, API_KEY, str(cache)))
    assert len(app_config_server.seen("GET", "/api/v1/app-config")) == 1
    _assert_whole(_python(tmp_path, CACHE, str(cache)))
