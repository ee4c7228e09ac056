"""The whole loop on a copy of a small project: a loopback server sends, for three operations, an
extra field, an unknown enum value, a null where none is allowed and a missing required field;
the SDK records them (and none of the 20 secrets the server and caller put elsewhere); ``learn``
lists exactly those four; ``learn --write`` writes an overlay whose every action matches, after
which strict calls pass and the new field is a typed attribute; ``learn`` then finds nothing;
``drift --observed`` on a snapshot that documents two of them says so.

One server and one project for the module; the client runs in subprocesses (the package is
generated twice, and the records are written at the client's exit)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from generator.cli import main
from generator.document.loader import dump_yaml
from tests.helpers import run_cli
from tests.release.project import document, write_project
from tests.runtime.runtime_servers import Exchange, LocalServer

SECRETS = [f"secret-{i:02d}-{'k7Qz' * 2}{i * 7919:x}" for i in range(20)]
TOKEN = SECRETS[0]


def loop_document() -> dict[str, Any]:
    """The test project's document with an enum (``Widget.state``) to surprise, and a gadget's
    label required (so a null there differs from the document)."""
    doc = document()
    widget = doc["components"]["schemas"]["Widget"]
    widget["properties"]["state"] = {"type": "string", "enum": ["active", "retired"]}
    doc["components"]["schemas"]["Gadget"]["required"] = ["id", "label"]
    return doc


def _widget(i: int, **more: Any) -> dict[str, Any]:
    return {"id": 10 + i, "name": SECRETS[i], "size": 3, "state": "active", **more}


def _serve(server: LocalServer) -> None:
    @server.route("GET", "/widgets/7")
    def get_widget(ex: Exchange) -> None:  # an extra field, its value a secret
        ex.json(200, _widget(1, colour=SECRETS[2]), {"X-Trace": SECRETS[3]})

    @server.route("POST", "/widgets")
    def create_widget(ex: Exchange) -> None:  # an enum value the document does not list
        ex.json(201, _widget(4, state="paused"), {"Set-Cookie": f"s={SECRETS[5]}"})

    @server.route("GET", "/gadgets")
    def list_gadgets(ex: Exchange) -> None:  # a null label, a missing id; secrets in the rest
        rows = [{"id": 20 + i, "label": SECRETS[i]} for i in range(8, 18)]
        rows += [{"id": 30, "label": None}, {"label": SECRETS[18]}]
        ex.json(200, rows, {"X-Request-Id": SECRETS[19]})


CALLS = """
import json, os, sys, warnings
sys.path.insert(0, {package!r})
from widget_client import WidgetClient
warnings.simplefilter("ignore")
kw = dict(api_key={token!r}, base_url={url!r}, allow_http_loopback=True, strict={strict})
with WidgetClient(record_shapes={records!r}, **kw) as client:
    w = client.widgets.get_widget(7)
    made = client.widgets.create_widget(name={name!r}, size=4)
with WidgetClient(**kw) as client:  # recording from the environment
    gadgets = client.gadgets.list_gadgets(label={label!r})
print(json.dumps({{
    "colour": getattr(w, "colour", None),
    "colour_typed": "colour" in type(w).model_fields,
    "state": str(made.state),
    "labels": [g.label for g in gadgets][-2:],
}}))
"""


def _call(root: Path, url: str, records: Path, *, strict: bool) -> dict[str, Any]:
    code = CALLS.format(
        package=str(root / "generated" / "widget_client"),
        token=TOKEN,
        url=url,
        strict=strict,
        records=str(records),
        name=SECRETS[6],
        label=SECRETS[7],
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"CUBE_RECORD_SHAPES": str(records), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    srv = LocalServer().start()
    _serve(srv)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("learn-loop")
    write_project(root, loop_document())
    done = run_cli("generate", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def _learned_lines(stdout: str) -> list[str]:
    return [line.strip() for line in stdout.splitlines() if line.startswith("    ")]


def _cli(*args: str) -> Result:
    """``cube-codegen ARGS`` in process (the current folder is the project)."""
    return CliRunner().invoke(main, list(args))


def _learn_lists_the_four(records: Path) -> None:
    found = _cli("learn", str(records))
    assert found.exit_code == 1, found.output
    lines = _learned_lines(found.stdout)
    assert len(lines) == 4, found.stdout
    fields = {line.split(":")[0] for line in lines}
    assert fields == {"Widget.colour", "Widget.state", "Gadget.label", "Gadget.id"}
    assert "client.widgets.get_widget" in found.stdout
    assert "client.gadgets.list_gadgets" in found.stdout


def _every_learned_action_matches(project: Path) -> None:
    config = yaml.safe_load((project / "spec" / "cube-codegen.yaml").read_text(encoding="utf-8"))
    overlays = config["families"][0]["overlays"]
    assert overlays[-1] == "overlays/api/learned.overlay.yaml"
    learned = yaml.safe_load((project / "spec" / overlays[-1]).read_text(encoding="utf-8"))
    assert len(learned["actions"]) == 4
    assert all(a["x-observed"]["count"] >= 1 for a in learned["actions"])
    paths = [f"spec/{o}" for o in overlays]
    check = _cli("overlay", "check", "--spec", "spec/api.yaml", "--format", "json", *paths)
    assert check.exit_code == 0, check.output
    statuses = [a["status"] for a in json.loads(check.stdout)["actions"]]
    assert statuses == ["matched"] * len(statuses), check.stdout


def _generated_tests_replay_what_was_learned(project: Path) -> None:
    package = project / "generated" / "widget_client"
    replayed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "observed", "tests"],
        cwd=package, env={"PYTHONPATH": str(package), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout[-3000:]
    assert "3 passed" in replayed.stdout  # get_widget, create_widget, list_gadgets


def _drift_says_two_are_documented(project: Path, records: Path) -> None:
    newer = copy.deepcopy(loop_document())
    widget = newer["components"]["schemas"]["Widget"]
    widget["properties"]["colour"] = {"type": "string"}
    widget["properties"]["state"]["enum"].append("paused")
    (project / "newer.yaml").write_text(dump_yaml(newer), encoding="utf-8")
    drift = _cli("drift", "spec/api.yaml", "newer.yaml", "--observed", str(records))
    assert drift.exit_code == 0, drift.output
    section = drift.stdout[drift.stdout.index("Observed shapes") :]
    documented = [line for line in section.splitlines() if "now documented" in line]
    assert len(documented) == 2, section
    assert any("Widget.colour" in line for line in documented)
    assert any("Widget.state" in line for line in documented)
    assert "2 documented by the new snapshot, 2 accepted through overlays, 0 rejected" in section
    retire = section[section.index("Learned actions the service now documents") :]
    assert retire.count("learned.overlay.yaml#") == 2, retire
    assert "['Widget']['properties']`" in retire and "['properties']['state']`" in retire


def test_recorded_shapes_are_learned_checked_and_retired(
    project: Path, server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    records = project / "records"
    before = _call(project, server.url, records, strict=False)
    assert before["colour"] == SECRETS[2] and before["colour_typed"] is False
    assert before["state"] == "Unknown('paused')"
    text = (records / "shapes.jsonl").read_text(encoding="utf-8")
    leaked = [s for s in SECRETS if s in text]
    assert leaked == [], f"records hold secret values: {leaked}"
    assert server.seen("GET", "/gadgets")[0].q("label") == SECRETS[7]  # the secrets were sent

    _learn_lists_the_four(records)
    wrote = _cli("learn", str(records), "--write")
    assert wrote.exit_code == 0, wrote.output
    _every_learned_action_matches(project)

    after = _call(project, server.url, project / "records-after", strict=True)
    assert after["colour"] == SECRETS[2] and after["colour_typed"] is True
    assert after["state"] == "paused"
    assert after["labels"] == [None, SECRETS[18]]
    assert not (project / "records-after" / "shapes.jsonl").exists()  # nothing differs now
    _generated_tests_replay_what_was_learned(project)

    again = _cli("learn", str(records))
    assert again.exit_code == 0, again.output
    assert _learned_lines(again.stdout) == []
    _drift_says_two_are_documented(project, records)
