"""Model classes load module by module: the first use of a class builds its module and the
classes it names, nothing else, in sync and async clients alike; every class is still reachable from
``<family>.models`` (the names type checkers see), reports that module as its own (``__module__``,
``repr``, pickle), and an unknown name is an AttributeError. The index names each class once,
and its stub (``models.pyi``, what type checkers read) declares exactly the classes it names."""

from __future__ import annotations

import ast
import json
import re
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
import pydoc
shown = pydoc.render_doc(models.DeploymentEnvironment, renderer=pydoc.plaintext)
print(json.dumps({"before": before, "after": after, "total": len(models.__all__),
                  "help": "in module cube_client.platform.models" in shown,
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
    assert result["help"] is True  # help() names the public module too


def test_every_class_named_by_a_models_module_loads_and_builds() -> None:
    code = """
import importlib, json, pickle
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
        # where users meet it, and where pickle finds it again
        public = cls.__module__ == models.__name__ and repr(cls).startswith(f"<class '{models.__name__}.")
        built += cls.__name__ == name and public and pickle.loads(pickle.dumps(cls)) is cls
    out[family] = [built, len(models.__all__)]
print(json.dumps(out))
"""
    result = _run(code)
    for family, counts in result.items():
        assert isinstance(counts, list)
        built, total = counts
        assert total > 0 and built == total, family


def _index_names(text: str) -> list[str]:
    """The names a models module's ``lazy_classes`` call maps, in order."""
    call = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Call) and n.args[2:])
    mapping = call.args[2]
    assert isinstance(mapping, ast.Dict)
    return [k.value for k in mapping.keys if isinstance(k, ast.Constant)]


def _stub_names(text: str) -> list[str]:
    """The names a ``models.pyi`` defines at its top level (classes and TypedDict twins)."""
    out: list[str] = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef):
            out.append(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            out.append(node.targets[0].id)
    return out


def test_the_index_names_each_class_once_and_the_stub_declares_the_same_classes() -> None:
    families = sorted(p.parent for p in (PACKAGE_ROOT / "cube_client").glob("*/models.py"))
    assert [f.name for f in families] == ["chat", "data", "platform", "scim"]
    for folder in families:
        index = (folder / "models.py").read_text(encoding="utf-8")
        names = _index_names(index)
        assert len(names) > 5 and len(set(names)) == len(names), folder.name
        for name in names:  # named once in the whole file, not also in imports or __all__
            assert len(re.findall(rf"\b{name}\b", index)) == 1, (folder.name, name)
        declared = _stub_names((folder / "models.pyi").read_text(encoding="utf-8"))
        assert sorted(declared) == sorted(names), folder.name
        assert "TYPE_CHECKING" not in index and "__all__" not in index


def test_the_stub_declares_each_field_as_its_name_type_and_default() -> None:
    """What a type checker reads of a class: no ``Field(...)`` alias or constraint and no
    ``model_config`` call where the class has fields; the class module keeps them all."""
    from cube_client.platform.models import DeploymentEnvironment

    stub = ast.parse((PACKAGE_ROOT / "cube_client/platform/models.pyi").read_text("utf-8"))
    classes = {n.name: n for n in stub.body if isinstance(n, ast.ClassDef)}
    fields = [n for n in classes["DeploymentEnvironment"].body if isinstance(n, ast.AnnAssign)]
    declared = [n.target.id for n in fields if isinstance(n.target, ast.Name)]
    assert declared == list(DeploymentEnvironment.model_fields)
    for node in classes.values():
        if any(isinstance(n, ast.AnnAssign) for n in node.body):
            assert "model_config" not in ast.unparse(node), node.name
        for field in (n for n in node.body if isinstance(n, ast.AnnAssign)):
            assert "Field(" not in ast.unparse(field.annotation), node.name
    # the run-time class keeps the alias the stub leaves out
    from cube_client.platform.models import ApiKeyResponse

    assert ApiKeyResponse.model_fields["created_at"].alias == "createdAt"
    stub_key = next(n for n in classes["ApiKeyResponse"].body if isinstance(n, ast.AnnAssign))
    assert "createdAt" not in ast.unparse(classes["ApiKeyResponse"]), ast.unparse(stub_key)
