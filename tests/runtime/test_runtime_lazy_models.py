"""Model classes load one by one: the first use of a class builds it and the classes it names,
nothing else, in sync and async clients alike; every class is still reachable from
``<family>.models`` (the names type checkers see), and an unknown name is an AttributeError."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import PACKAGE_ROOT

CHILD = """
import json, sys
import cube_client
client = cube_client.PlatformClient(api_key="k", base_url="https://cube.example.test")
resource = client.environments  # a resource module: no model class yet
before = sorted(m for m in sys.modules if "._classes." in m)
from cube_client.platform import models
page_class = models.DeploymentEnvironmentsListResponse
after = sorted(m for m in sys.modules if "._classes." in m)
env = {"id": "e1", "type": "staging", "api_credentials": []}
page = page_class._from_json({"items": [env], "data": [env], "pageInfo": {
    "hasNextPage": False, "hasPreviousPage": True}})
read = [page.items[0].id, page.items[0].type, page.page_info.has_previous_page]
try:
    models.NoSuchClass
    missing = "no error"
except AttributeError as exc:
    missing = str(exc)
print(json.dumps({"before": before, "after": after, "total": len(models.__all__),
                  "read": read, "missing": missing, "dir": "DeploymentEnvironment" in dir(models)}))
"""


def _run(code: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(PACKAGE_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def test_a_class_loads_with_the_classes_it_names_and_nothing_else() -> None:
    result = _run(CHILD)
    assert result["before"] == []
    after = result["after"]
    assert isinstance(after, list) and isinstance(result["total"], int)
    names = {m.rsplit(".", 1)[-1] for m in after}
    assert {"deployment_environments_list_response", "deployment_environment", "page_info"} <= names
    assert len(after) <= 10 < result["total"] // 10  # a handful, of several hundred
    assert result["read"] == ["e1", "staging", True]
    assert "NoSuchClass" in str(result["missing"])
    assert result["dir"] is True


def test_every_class_named_by_a_models_module_loads_and_builds() -> None:
    code = """
import importlib, json
out = {}
for family in ("platform", "scim", "data", "chat"):
    models = importlib.import_module(f"cube_client.{family}.models")
    built = 0
    for name in models.__all__:
        cls = getattr(models, name)
        if hasattr(cls, "model_json_schema"):
            cls.model_json_schema()  # builds the validator: every name it refers to resolves
        else:  # a TypedDict twin: its keys are there
            assert cls.__annotations__, name
        built += cls.__name__ == name
    out[family] = [built, len(models.__all__)]
print(json.dumps(out))
"""
    result = _run(code)
    for family, counts in result.items():
        assert isinstance(counts, list)
        built, total = counts
        assert total > 0 and built == total, family
