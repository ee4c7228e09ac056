"""The command line says a thing once, and says it right: every option explains itself, an
error names the file it is about, advice fits the case, and ``--format json`` prints one JSON
document. In-process (click's runner) and on small inputs: the file costs about a second."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from tests.helpers import ROOT, openapi_document, operation


def _invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def _one_error_line(result: Result) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    return result.stderr


def _commands(group: click.Group, ctx: click.Context) -> list[tuple[str, click.Command]]:
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", c) for sub, c in _commands(command, ctx)]
        else:
            found.append((name, command))
    return found


def test_every_option_of_every_command_says_what_it_does() -> None:
    ctx = click.Context(main)
    commands = _commands(main, ctx)
    assert {"check", "generate", "drift", "overlay check", "fetch", "update"} <= dict(
        commands
    ).keys()
    silent = [
        f"{name} {param.opts[0]}"
        for name, command in commands
        for param in command.params
        if isinstance(param, click.Option) and not (param.help or "").strip()
    ]
    assert silent == []
    shown = _invoke("check", "--help").stdout
    for option in ("--config", "--out", "--ref-root"):
        line = next(line for line in shown.splitlines() if line.strip().startswith(option))
        assert len(line.split()) > 2, line  # the option, its metavar, then words


def test_overlay_check_of_a_family_document_runs_that_family_overlays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--spec spec/scim-api.yaml`` checks the SCIM family's overlays, not the platform's."""
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["overlay", "check", "--spec", "spec/scim-api.yaml"])
    assert result.exit_code == 0, result.output
    checked = {line.split()[1].split("#")[0] for line in result.stdout.splitlines()[:-1]}
    assert checked == {"spec/overlays/scim/pagination.overlay.yaml"}
    by_family = _invoke("overlay", "check", "--family", "scim", "--format", "json")
    assert by_family.exit_code == 0, by_family.output
    overlays = {a["overlay"] for a in json.loads(by_family.stdout)["actions"]}
    assert overlays == {"spec/overlays/scim/pagination.overlay.yaml"}


def test_overlay_check_of_another_document_takes_the_family_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy of a family's document (a snapshot kept elsewhere) is checked with ``--family``;
    an overlay that no longer matches it is reported as such."""
    monkeypatch.chdir(ROOT)
    copy = tmp_path / "scim-copy.json"
    copy.write_text(json.dumps(openapi_document({"/x": {"get": operation("getX")}})))
    result = _invoke("overlay", "check", "--spec", copy, "--family", "scim", "--format", "json")
    assert result.exit_code == 1, result.output  # the SCIM paging action finds no listing
    actions = json.loads(result.stdout)["actions"]
    assert [(a["overlay"], a["status"]) for a in actions] == [
        ("spec/overlays/scim/pagination.overlay.yaml", "unmatched")
    ]


def test_overlay_check_of_a_document_no_family_has_asks_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    doc = tmp_path / "other.json"
    doc.write_text(json.dumps(openapi_document({"/x": {"get": operation("getX")}})))
    line = _one_error_line(_invoke("overlay", "check", "--spec", doc))
    assert str(doc) in line and "spec/cube-codegen.yaml" in line and "--family" in line


@pytest.mark.parametrize(
    "args",
    [
        ("overlay", "check", "--family", "nope"),
        ("fetch", "--family", "nope", "--url", "https://127.0.0.1:9/openapi.json"),
    ],
)
def test_an_unknown_family_is_reported_in_the_configuration_file(
    args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    line = _one_error_line(_invoke(*args))
    assert line.startswith(
        "cube-codegen: spec/cube-codegen.yaml#/families: error: no family 'nope'"
    )
    assert "known: platform, scim" in line


def test_a_missing_configuration_given_by_hand_gets_no_advice_to_give_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    given = _one_error_line(_invoke("check", "--config", "spec/nope.yaml"))
    assert given.startswith("cube-codegen: spec/nope.yaml: error: no such file")
    assert "--config" not in given
    monkeypatch.chdir(tmp_path)  # no spec/ here: the default is missing, and the advice fits
    default = _one_error_line(_invoke("check"))
    assert "spec/cube-codegen.yaml" in default and "or pass --config PATH" in default


def test_every_json_format_prints_one_json_document(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    new = tmp_path / "new.json"
    old.write_text(json.dumps(openapi_document({"/x": {"get": operation("getX")}})))
    new.write_text(json.dumps(openapi_document({"/y": {"get": operation("getY")}})))
    drift = _invoke("drift", old, new, "--format", "json", "--no-overlays")
    assert drift.exit_code == 1, drift.output
    assert [c["id"] for c in json.loads(drift.stdout)["changes"]] == [
        "operation-removed",
        "operation-added",
    ]
    overlay = tmp_path / "mark.overlay.yaml"
    overlay.write_text(
        "overlay: 1.0.0\ninfo: {title: t, version: '1'}\n"
        "actions: [{target: $.info, update: {x-mark: 1}}]\n"
    )
    check = _invoke("overlay", "check", "--spec", new, "--format", "json", overlay)
    assert check.exit_code == 0, check.output
    assert [a["status"] for a in json.loads(check.stdout)["actions"]] == ["matched"]
