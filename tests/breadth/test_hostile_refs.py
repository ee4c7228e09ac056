"""Hostile references: no ``$ref``, however written, reads a file outside the document's tree.

Each case plants a canary file (and a canary folder) outside the folder of the document, writes
a document whose reference reaches for it in one way, and runs ``cube-codegen generate`` in a
subprocess under an audit hook that records every file the process opens (the reference forms:
all in one such subprocess, each run logging to its own file). The run must fail with
one line naming the pointer, write nothing, never open the canary, and the canary's content must
appear in no output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cli_zygote_client
from tests.helpers import model_source

ROOT = Path(__file__).resolve().parents[2]
SECRET = "CANARYSECRET7f3a"
# Runs the CLI with an audit hook that appends every opened path to $OPEN_LOG.
GUARDED_CLI = """
import os, sys
log = open(os.environ["OPEN_LOG"], "a", encoding="utf-8")
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        log.write(os.path.realpath(path) + "\\n")
        log.flush()
sys.addaudithook(hook)
sys.argv[0] = "cube-codegen"
from generator.cli import main
main()
"""


def _canary_doc() -> dict[str, object]:
    schema = {"type": "object", "properties": {SECRET: {"type": "string", "description": SECRET}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": SECRET, "version": "1"},
        "paths": {"/stolen": {"get": {"responses": {"200": {"description": SECRET}}}}},
        "components": {"schemas": {"Secret": schema}},
        **schema,
    }


def _doc(ref: str, place: str = "schema") -> str:
    """A document using ``ref`` as a response schema, a path item or a discriminator target."""
    doc: dict[str, object] = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}}
    response = {"description": "ok", "content": {"application/json": {"schema": {"$ref": ref}}}}
    if place == "path-item":
        doc["paths"] = {"/a": {"$ref": ref}}
    elif place == "discriminator":
        doc["paths"] = {}
        doc["components"] = {
            "schemas": {
                "Pet": {
                    "oneOf": [{"$ref": "#/components/schemas/Cat"}],
                    "discriminator": {"propertyName": "kind", "mapping": {"cat": ref}},
                },
                "Cat": {"type": "object", "properties": {"kind": {"type": "string"}}},
            }
        }
    else:
        doc["paths"] = {"/a": {"get": {"responses": {"200": response}}}}
    return json.dumps(doc)


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    return _world(tmp_path)


def _run(world: dict[str, Path], doc_file: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    log = world["tmp"] / "opened.log"
    log.write_text("")
    env = {**os.environ, "OPEN_LOG": str(log), "CUBE_CODEGEN_NO_CACHE": "1"}
    args = ["generate", "--spec", str(doc_file), "--out", str(world["out"]), "--package", "p"]
    argv = [sys.executable, "-c", GUARDED_CLI, *args, *extra]
    forked = cli_zygote_client.run(  # the hook is installed before the command runs
        argv, [*args, *extra], world["spec"].parent, env, 180, code=GUARDED_CLI
    )
    if forked is not None:
        return forked
    return subprocess.run(
        argv,
        cwd=world["spec"].parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


# The same hook over many runs in one interpreter: each run's opens go to its own log, from its
# own folder; its exit code, stdout and stderr are kept as a process of its own would give them.
GUARDED_BATCH = """
import contextlib, io, json, os, sys, traceback
jobs = json.load(sys.stdin)
logs = [open(job["log"], "a", encoding="utf-8") for job in jobs]
current = [None]
def hook(event, args):
    if event == "open" and current[0] is not None and isinstance(args[0], (str, bytes)):
        current[0].write(os.path.realpath(os.fsdecode(args[0])) + "\\n")
        current[0].flush()
sys.addaudithook(hook)
from generator.cli import main
answers = []
for job, log in zip(jobs, logs):
    out, err, code = io.StringIO(), io.StringIO(), 0
    os.chdir(job["cwd"])
    current[0] = log
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main.main(job["args"], prog_name="cube-codegen")
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
    current[0] = None
    answers.append([code or 0, out.getvalue(), err.getvalue()])
sys.stdout.write(json.dumps(answers))
"""


def _run_all(
    jobs: list[tuple[dict[str, Path], Path]],
) -> list[subprocess.CompletedProcess[str]]:
    """:func:`_run` for each (world, document) in one guarded interpreter."""
    for world, _ in jobs:
        (world["tmp"] / "opened.log").write_text("")
    args = [
        {
            "cwd": str(world["spec"].parent),
            "log": str(world["tmp"] / "opened.log"),
            "args": ["generate", "--spec", str(doc), "--out", str(world["out"]), "--package", "p"],
        }
        for world, doc in jobs
    ]
    proc = subprocess.run(
        [sys.executable, "-c", GUARDED_BATCH],
        input=json.dumps(args),
        cwd=ROOT,
        env={**os.environ, "CUBE_CODEGEN_NO_CACHE": "1", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return [
        subprocess.CompletedProcess(["cube-codegen", *job["args"]], code, out, err)
        for job, (code, out, err) in zip(args, json.loads(proc.stdout), strict=True)
    ]


def _opened(world: dict[str, Path]) -> list[str]:
    return (world["tmp"] / "opened.log").read_text(encoding="utf-8").splitlines()


def _assert_refused(
    world: dict[str, Path], proc: subprocess.CompletedProcess[str], pointer: str, *forbidden: str
) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "[path-outside-tree]" in lines[0] or "[ref-remote]" in lines[0], lines[0]
    assert pointer in lines[0], lines[0]
    assert SECRET not in proc.stdout + proc.stderr
    assert not world["out"].exists(), "a refused document wrote output"
    outside = str(world["outside"].resolve())
    touched = [p for p in _opened(world) if p.startswith((outside, *forbidden))]
    assert not touched, f"opened outside the tree: {touched}"
    for path in world["tmp"].rglob("*"):
        planted = path.is_symlink() or path.parent == world["outside"]
        if path.is_file() and not planted and path.name != "opened.log":
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path


SCHEMA_PTR = "#/paths/~1a/get/responses/200/content/application~1json/schema/$ref"


def _forms(outside: Path) -> dict[str, str]:
    """Every way of writing a reference to the canary from spec/api.json."""
    abs_json = str(outside / "canary.json")
    rel = "../../outside/canary.json"
    return {
        "relative-dotdot": rel,
        "relative-dotdot-yaml-with-pointer": "../../outside/canary.yaml#/components/schemas/Secret",
        "dotdot-through-inner-folder": "sub/../../../outside/canary.json",
        "absolute": abs_json,
        "absolute-with-fragment": abs_json + "#/components/schemas/Secret",
        "file-url": "file://" + abs_json,
        "file-url-localhost": "file://localhost" + abs_json,
        "file-url-no-slashes": "file:" + abs_json,
        "file-url-upper-case": "FILE://" + abs_json,
        "network-path": "//localhost" + abs_json,
        "network-path-other-host": "//example.com/outside/canary.json",
        "percent-encoded-dots": "%2e%2e/%2e%2e/outside/canary.json",
        "percent-encoded-upper": "%2E%2E%2F%2E%2E%2Foutside%2Fcanary.json",
        "percent-encoded-absolute": abs_json.replace("/", "%2F"),
        "mixed-encoding": "..%2f..%2foutside/canary.json",
        "http-url": "http://127.0.0.1:9/canary.json",
        "device-absolute": "/dev/zero",
        "device-relative": "../../" + "../" * len(outside.parts) + "dev/zero",
        "proc-self": "/proc/self/environ",
        "nul-byte": "canary%00.json",
    }


def _world(tmp_path: Path) -> dict[str, Path]:
    """tmp/outside/{canary.json, canary.yaml}; tmp/project/spec/ (the tree); tmp/project/out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("canary.json", "canary.yaml"):
        (outside / name).write_text(json.dumps(_canary_doc()), encoding="utf-8")
    spec = tmp_path / "project" / "spec"
    (spec / "sub").mkdir(parents=True)
    return {"tmp": tmp_path, "outside": outside, "spec": spec, "out": tmp_path / "project" / "out"}


FORMS = sorted(_forms(Path("/x")))


@pytest.fixture(scope="module")
def form_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[dict[str, Path], Path, subprocess.CompletedProcess[str]]]:
    """Every reference form in a world of its own, all run in one guarded interpreter."""
    jobs = []
    for form in FORMS:
        world = _world(tmp_path_factory.mktemp(form))
        doc = world["spec"] / "api.json"
        doc.write_text(_doc(_forms(world["outside"])[form]), encoding="utf-8")
        jobs.append((world, doc))
    procs = _run_all(jobs)
    return {form: (*job, proc) for form, job, proc in zip(FORMS, jobs, procs, strict=True)}


@pytest.mark.parametrize("form", FORMS)
def test_reference_form_is_refused_and_canary_never_read(
    form_runs: dict[str, tuple[dict[str, Path], Path, subprocess.CompletedProcess[str]]],
    form: str,
) -> None:
    world, doc, proc = form_runs[form]
    assert str(doc.resolve()) in _opened(world)  # the hook logged this run's opens
    forbidden = ("/dev/zero", "/proc/") if form in ("device-absolute", "device-relative") else ()
    if form == "proc-self":
        forbidden = ("/proc/",)
    if form == "nul-byte":  # stays inside the tree, but cannot name a file
        assert proc.returncode == 2, proc.stderr
        assert "[path-outside-tree]" in proc.stderr and "Traceback" not in proc.stderr
        return
    _assert_refused(world, proc, str(doc) + SCHEMA_PTR, *forbidden)


@pytest.mark.parametrize("place", ["path-item", "discriminator"])
def test_other_reference_positions_are_sandboxed(world: dict[str, Path], place: str) -> None:
    ref = "../../outside/canary.json" + ("#/paths/~1stolen" if place == "path-item" else "")
    doc = world["spec"] / "api.json"
    doc.write_text(_doc(ref, place), encoding="utf-8")
    proc = _run(world, doc)
    pointer = "#/paths/~1a/$ref" if place == "path-item" else "/discriminator/mapping/cat"
    _assert_refused(world, proc, pointer)


def test_symlink_to_a_file_outside_is_refused(world: dict[str, Path]) -> None:
    (world["spec"] / "innocent.json").symlink_to(world["outside"] / "canary.json")
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("innocent.json"), encoding="utf-8")
    _assert_refused(world, _run(world, doc), str(doc) + SCHEMA_PTR)


def test_symlinked_folder_leading_outside_is_refused(world: dict[str, Path]) -> None:
    (world["spec"] / "shared").symlink_to(world["outside"], target_is_directory=True)
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("shared/canary.json"), encoding="utf-8")
    _assert_refused(world, _run(world, doc), str(doc) + SCHEMA_PTR)


def test_symlink_to_a_device_is_refused(world: dict[str, Path]) -> None:
    (world["spec"] / "zero.json").symlink_to("/dev/zero")
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("zero.json"), encoding="utf-8")
    _assert_refused(world, _run(world, doc), str(doc) + SCHEMA_PTR, "/dev/zero")


def test_fifo_inside_the_tree_is_refused_without_blocking(world: dict[str, Path]) -> None:
    os.mkfifo(world["spec"] / "pipe.json")
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("pipe.json"), encoding="utf-8")
    proc = _run(world, doc)
    assert proc.returncode == 2, proc.stderr
    assert "device, pipe or folder" in proc.stderr and "Traceback" not in proc.stderr
    assert str(world["spec"].resolve() / "pipe.json") not in _opened(world)


def test_second_hop_from_an_inner_file_is_refused(world: dict[str, Path]) -> None:
    """A file inside the tree may refer on, but not out: the check applies at every hop."""
    inner = {"type": "object", "properties": {"x": {"$ref": "../../../outside/canary.json"}}}
    (world["spec"] / "sub" / "inner.json").write_text(json.dumps(inner), encoding="utf-8")
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("sub/inner.json"), encoding="utf-8")
    proc = _run(world, doc)
    _assert_refused(world, proc, "inner.json#/schema/properties/x/$ref")


def test_reference_added_by_an_overlay_is_sandboxed(world: dict[str, Path]) -> None:
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("#/components/schemas/Local"), encoding="utf-8")
    overlay = world["spec"] / "steal.overlay.yaml"
    overlay.write_text(
        "overlay: 1.0.0\ninfo: {title: o, version: '1'}\nactions:\n"
        "  - target: $.paths['/a'].get.responses['200'].content['application/json']\n"
        "    description: swap the schema\n"
        "    update: {schema: {$ref: '../../outside/canary.json'}}\n",
        encoding="utf-8",
    )
    proc = _run(world, doc, "--overlay", str(overlay))
    # the update merges into the existing schema object: its $ref is replaced in place; the
    # refusal names the overlay action that wrote it, and where in the document it landed
    _assert_refused(world, proc, SCHEMA_PTR)
    assert "steal.overlay.yaml#/actions/0/update: error:" in proc.stderr


def test_references_inside_the_tree_still_work(world: dict[str, Path]) -> None:
    (world["spec"] / "sub" / "pet.yaml").write_text(
        "type: object\nproperties: {name: {type: string}, owner: {$ref: '../owner.json'}}\n",
        encoding="utf-8",
    )
    (world["spec"] / "owner.json").write_text('{"type": "object", "properties": {"id": {}}}')
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("sub/pet.yaml"), encoding="utf-8")
    proc = _run(world, doc)
    assert proc.returncode == 0, proc.stderr
    models = model_source(world["out"] / "p")
    assert "class Pet(" in models and "class Owner(" in models


def test_ref_root_widens_the_sandbox_for_a_maintainer(world: dict[str, Path]) -> None:
    doc = world["spec"] / "api.json"
    doc.write_text(_doc("../../outside/canary.json"), encoding="utf-8")
    proc = _run(world, doc, "--ref-root", str(world["tmp"]))
    assert proc.returncode == 0, proc.stderr
    models = model_source(world["out"] / "p")
    assert SECRET in models  # the one case where reading it was asked for
    # absolute references stay refused even then
    doc.write_text(_doc(str(world["outside"] / "canary.json")), encoding="utf-8")
    proc = _run(world, doc, "--ref-root", str(world["tmp"]))
    assert proc.returncode == 2 and "absolute paths" in proc.stderr
