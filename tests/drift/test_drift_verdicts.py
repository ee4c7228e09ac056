"""Verdicts by construction: for each kind of document change, exactly the surfaces whose honest
callers stop type-checking are reported as broken (no false "breaks", no false "still
type-checks"), renames name their replacement, and a release follows the verdicts."""

from __future__ import annotations

import copy
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.document.config import load_config
from generator.document.loader import load_document
from generator.drift.callers import calls
from generator.drift.verdicts import Verdicts, judge
from generator.pipeline import Result, generate, single_document_config
from generator.release.drift_packages import judge_documents
from tests.helpers import ROOT, run_cli, seed_checkout_mypy
from tests.release.project import (
    config_version,
    document,
    generated_project,
    project_copy,
)


@pytest.fixture(scope="module", autouse=True)
def _seeded_run_state() -> None:
    """The verdicts here run from the checkout (in process, and ``update --config``) or outside
    any project (``drift``): their mypy caches start from the committed package's."""
    seed_checkout_mypy()


def _verdicts(new: dict[str, Any], tmp_path: Path) -> Verdicts:
    return judge_documents(document(), new)


def _broken(v: Verdicts) -> dict[str, str]:
    return {x.python: x.renamed_to for x in v.broken}


def _changed(edit: Any) -> dict[str, Any]:
    doc = document()
    edit(doc)
    return doc


def test_the_same_document_breaks_nothing_and_adds_nothing(tmp_path: Path) -> None:
    v = _verdicts(document(), tmp_path)
    assert v.broken == [] and v.added == []
    assert len(v.verdicts) == len({c.python for c in v.verdicts})  # each surface once


def test_the_projects_own_package_checks_clean_against_itself() -> None:
    """Every caller the verdicts write for the real platform package type-checks against that
    same package: no surface is ever reported broken for nothing."""
    result = generate(load_config(ROOT / "spec" / "cube-codegen.yaml"))
    v = judge(result.package, result.package, result.files)
    assert len(v.verdicts) == sum(len(calls(f)) for f in result.package.families) > 4000
    assert [x.python for x in v.broken] == []


def _rename_operation(doc: dict[str, Any]) -> None:
    doc["paths"]["/widgets/{widgetId}"]["get"]["operationId"] = "fetchWidget"


def _rename_tag(doc: dict[str, Any]) -> None:
    doc["paths"]["/gadgets"]["get"]["tags"] = ["Things"]
    doc["tags"].append({"name": "Things"})


def _rename_component(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    schemas["Gizmo"] = schemas.pop("Gadget")
    items = doc["paths"]["/gadgets"]["get"]["responses"]["200"]["content"]["application/json"]
    items["schema"]["items"]["$ref"] = "#/components/schemas/Gizmo"


def _enum_value_added(doc: dict[str, Any]) -> None:
    doc["components"]["schemas"]["Widget"]["properties"]["state"] = {"enum": ["on", "off", "new"]}


def _required_query_added(doc: dict[str, Any]) -> None:
    doc["paths"]["/gadgets"]["get"]["parameters"].append(
        {"name": "shelf", "in": "query", "required": True, "schema": {"type": "string"}}
    )


def _field_type_changed(doc: dict[str, Any]) -> None:
    doc["components"]["schemas"]["Widget"]["properties"]["size"] = {"type": "string"}


def _additive(doc: dict[str, Any]) -> None:
    doc["components"]["schemas"]["Widget"]["properties"]["colour"] = {"type": "string"}
    doc["paths"]["/gadgets"]["get"]["parameters"].append(
        {"name": "limit", "in": "query", "schema": {"type": "integer"}}
    )


CASES = {
    "operation-id": (
        _rename_operation,
        {"client.widgets.get_widget(...)": "client.widgets.fetch_widget"},
    ),
    "tag": (
        _rename_tag,
        {
            "client.gadgets": "client.things",
            "client.gadgets.list_gadgets(...)": "client.things.list_gadgets",
            "client.gadgets.list_gadgets(label=...)": "client.things.list_gadgets",
        },
    ),
    "component": (
        _rename_component,
        {
            "models.Gadget": "models.Gizmo",
            "models.Gadget.id": "",
            "models.Gadget(id=...)": "",
            "models.Gadget.label": "",
            "models.Gadget(label=...)": "",
            "client.gadgets.list_gadgets(...)": "",  # its result was annotated list[Gadget]
            "client.gadgets.list_gadgets(label=...)": "",
        },
    ),
    "required-argument": (
        _required_query_added,
        {
            "client.gadgets.list_gadgets(...)": "",
            "client.gadgets.list_gadgets(label=...)": "",
        },
    ),
    "field-type": (_field_type_changed, {"models.Widget.size": ""}),
    "additive": (_additive, {}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_kind_of_change_breaks_exactly_its_surfaces(case: str, tmp_path: Path) -> None:
    edit, expected = CASES[case]
    v = _verdicts(_changed(edit), tmp_path)
    assert _broken(v) == expected
    if case == "additive":
        assert {p for _, p in v.added} >= {
            "models.Widget.colour",
            "client.gadgets.list_gadgets(limit=...)",
        }


def test_a_response_enum_that_gains_a_value_breaks_its_readers(tmp_path: Path) -> None:
    old = document()
    _enum_value_added(old)
    old["components"]["schemas"]["Widget"]["properties"]["state"]["enum"] = ["on", "off"]
    new = copy.deepcopy(old)
    new["components"]["schemas"]["Widget"]["properties"]["state"]["enum"].append("new")
    v = judge_documents(old, new)
    assert _broken(v) == {"models.Widget.state": ""}
    (only,) = v.broken
    assert "Literal" in only.errors[0] and "'new'" in only.errors[0]


def test_update_on_a_rename_is_a_major_release_naming_old_and_new(
    tmp_path: Path, generated: Path
) -> None:
    config = project_copy(generated, tmp_path)
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(_changed(_rename_tag)), encoding="utf-8")
    summary = tmp_path / "summary.md"
    proc = run_cli(
        "update", "--config", str(config), "--out", str(tmp_path / "gen"),
        "--from", str(new), "--summary", str(summary),
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert config_version(config) == "2.0.0"
    changelog = (config.parent / "CHANGELOG.md").read_text()
    assert "- `client.gadgets`\n  - `(the name itself)`: renamed: use `client.things`" in changelog
    assert "### Added" in changelog and "`client.things`" in changelog
    assert "renamed: use `client.things.list_gadgets`" in summary.read_text()


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test project generated once for the module (into ``gen``); each test updates a
    copy of its own."""
    return generated_project(tmp_path_factory.mktemp("generated"), "gen")


def _update_project(root: Path, generated: Path, doc: dict[str, Any]) -> tuple[Path, str, int]:
    """A generated project updated to ``doc``: its config, the summary and the exit code."""
    config = project_copy(generated, root)
    new, summary = root / "new.yaml", root / "summary.md"
    new.write_text(yaml.safe_dump(doc), encoding="utf-8")
    proc = run_cli(
        "update", "--config", str(config), "--out", str(root / "gen"),
        "--from", str(new), "--summary", str(summary),
    )  # fmt: skip
    return config, summary.read_text() if summary.exists() else proc.stderr, proc.returncode


def test_a_waiver_turns_a_known_break_into_a_minor_release(tmp_path: Path, generated: Path) -> None:
    """The maintainer's way: the summary names the break with its fingerprint; a committed
    waiver with that fingerprint, a reason and an expiry lets the next update be minor."""
    doc = _changed(_field_type_changed)
    config, text, rc = _update_project(tmp_path / "first", generated, doc)
    assert rc == 1 and config_version(config) == "2.0.0"
    (fingerprint,) = set(re.findall(r"`\[([0-9a-f]{16})\]`", text))  # summary and changelog
    waivers = {
        "waivers": [
            {"fingerprint": fingerprint, "reason": "size was never an integer", "expires": "2099-01-01"},
            {"fingerprint": "0" * 16, "reason": "an old one", "expires": "2001-01-01"},
        ]
    }  # fmt: skip
    second = tmp_path / "second"
    (second / "spec").mkdir(parents=True)
    (second / "spec" / "drift-waivers.yaml").write_text(yaml.safe_dump(waivers), encoding="utf-8")
    config, text, rc = _update_project(second, generated, doc)
    assert rc == 1 and config_version(config) == "1.3.0"  # minor: the one break is waived
    assert f"`{fingerprint}` until 2099-01-01: size was never an integer" in text
    assert "**expired** 2001-01-01" in text and "(waived)" in text


def test_a_malformed_waiver_file_is_one_line_with_its_pointer(
    tmp_path: Path, generated: Path
) -> None:
    config = project_copy(generated, tmp_path)
    (config.parent / "drift-waivers.yaml").write_text(
        "waivers:\n  - fingerprint: nothex\n    reason: x y z\n    expires: 2030-01-01\n"
    )
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(_changed(_additive)), encoding="utf-8")
    proc = run_cli(
        "update", "--config", str(config), "--out", str(tmp_path / "gen"), "--from", str(new)
    )
    assert proc.returncode == 2
    assert "drift-waivers.yaml" in proc.stderr and "/waivers/0/fingerprint" in proc.stderr
    assert "[waivers-invalid]" in proc.stderr and proc.stderr.count("\n") == 1


def test_drift_type_check_reports_verdicts_and_exits_1_on_a_break(tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(document()))
    new.write_text(json.dumps(_changed(_rename_operation)))
    proc = run_cli(
        "drift",
        str(old),
        str(new),
        "--no-overlays",
        "--type-check",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    verdicts = json.loads(proc.stdout)["verdicts"]  # one JSON document: changes and verdicts
    assert [b["surface"] for b in verdicts["broken"]] == ["client.widgets.get_widget(...)"]
    assert verdicts["broken"][0]["renamed_to"] == "client.widgets.fetch_widget"
    assert "client.widgets.fetch_widget(...)" in verdicts["added"]


# The published pairs: ``make test`` judges the first (a sample of the sweep), ``make
# test-heavy`` the other too.
PAIRS = [
    pytest.param(
        ("platform-api.03_bdf1ffb62e5b.yaml", "platform-api.05_018d2f81e72e.yaml"), id="03-05"
    ),
    pytest.param(
        ("platform-api.05_018d2f81e72e.yaml", "platform-api.07_3320af8370b0.yaml"),
        id="05-07",
        marks=pytest.mark.heavy,
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS)
def test_published_pairs_get_a_verdict_for_every_surface(
    shared_dir: Path, tmp_path: Path, pair: tuple[str, str]
) -> None:
    """Every surface of the older published document's package gets its verdict within a minute;
    each break carries mypy's reason, and a rename its replacement when there is one. Each
    document is generated once (as ``judge_documents`` does), for both judgements."""
    cube = shared_dir / "specs" / "cube"
    started = time.perf_counter()
    old, new = (_one_family_package(cube / name, tmp_path) for name in pair)
    v = judge(old.package, new.package, new.files)
    assert time.perf_counter() - started < 60
    assert len(v.verdicts) > 1000 and v.added
    assert all(x.errors and x.errors[0] for x in v.broken)
    rechecked = judge(new.package, new.package, new.files)  # the newer package against itself
    assert rechecked.broken == []


def _one_family_package(document: Path, tmp_path: Path) -> Result:
    """``document`` generated as ``drift --type-check`` generates each side: one family, named
    as :func:`judge_documents` names it."""
    spec, out = tmp_path / f"{document.stem}.json", tmp_path / document.stem
    spec.write_text(json.dumps(load_document(document)), encoding="utf-8")
    return generate(single_document_config(spec, (), "api_client", out))
