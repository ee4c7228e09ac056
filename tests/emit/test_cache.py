"""The no-op cache of ``cube-codegen generate``: what regenerates, what is left alone.

A small project (one family, one overlay) in a temporary folder; no timing assertions — the fast
path is recognised by what it does not import.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from generator import DEFAULT_CONFIG, DEFAULT_OUT, OUTPUT_MARKER
from generator.cli import main
from generator.document.config import Config
from generator.emit import cache, file_stats, writer
from tests.helpers import ROOT, model_source, run_cli

DOCUMENT = """\
openapi: 3.1.0
info: {title: Pets, version: 1.0.0}
servers: [{url: 'https://pets.example.com'}]
paths:
  /pets:
    get:
      operationId: listPets
      tags: [Pets]
      responses:
        '200':
          description: The pets.
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Pet:
      type: object
      properties:
        name: {type: string}
"""

OVERLAY = """\
overlay: 1.0.0
info: {title: Pet descriptions, version: 1.0.0}
actions:
  - target: $.components.schemas.Pet
    description: Pets have a documented purpose.
    update:
      description: A pet.
"""

CONFIG = """\
package: {name: pets_client, distribution: pets-client}
families:
  - name: pets
    document: pets.yaml
    overlays: [pets.overlay.yaml]
    module: pets
    client: Pets
    auth_optional: true
"""

HEAVY = ("pydantic", "jinja2", "generator.pipeline", "yaml")


@pytest.fixture(autouse=True)
def key_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The key reads copies of templates/ and generator/: the shared checkout's own files are
    never touched here, and edits others make to them meanwhile do not change these keys."""
    copies = tmp_path / "key-inputs"
    for attr, source in (
        ("TEMPLATES_DIR", ROOT / "templates"),
        ("GENERATOR_DIR", ROOT / "generator"),
    ):
        copy = copies / source.name
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        monkeypatch.setattr(cache, attr, copy)
    return copies


@pytest.fixture
def project(tmp_path: Path) -> Path:
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "pets.yaml").write_text(DOCUMENT)
    (spec / "pets.overlay.yaml").write_text(OVERLAY)
    (spec / "cube-codegen.yaml").write_text(CONFIG)
    return tmp_path


def generate(project: Path) -> Result:
    args = ["generate", "--config", str(project / "spec/cube-codegen.yaml")]
    result = CliRunner().invoke(main, [*args, "--out", str(project / "generated")])
    assert result.exit_code == 0, result.output
    return result


def regenerated(result: Result) -> bool:
    return result.output.startswith("generated ")


def snapshot(out: Path) -> dict[str, tuple[int, bytes]]:
    return {
        p.relative_to(out).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(out.rglob("*"))
        if p.is_file()
    }


def test_unchanged_inputs_leave_the_tree_untouched(project: Path) -> None:
    out = project / "generated"
    assert regenerated(generate(project))
    assert cache.manifest_path(out).is_file()
    assert not (out / ".cache").exists()  # the manifest is outside the generated tree
    before = snapshot(out)
    result = generate(project)
    assert not regenerated(result)
    assert "up to date" in result.output
    assert snapshot(out) == before  # same files, same bytes, same mtimes


def test_changed_document_regenerates(project: Path) -> None:
    out = project / "generated"
    generate(project)
    doc = project / "spec/pets.yaml"
    doc.write_text(doc.read_text().replace("name: {type: string}", "nickname: {type: string}"))
    assert regenerated(generate(project))
    assert "nickname" in model_source(out / "pets_client/pets_client/pets")


def test_changed_overlay_regenerates(project: Path) -> None:
    out = project / "generated"
    generate(project)
    overlay = project / "spec/pets.overlay.yaml"
    overlay.write_text(overlay.read_text().replace("A pet.", "A much-loved pet."))
    assert regenerated(generate(project))
    assert "A much-loved pet." in model_source(out / "pets_client/pets_client/pets")


def test_named_input_outside_the_config_folder_counts(project: Path) -> None:
    """An overlay beside spec/ rather than in it: the fast path reads it from the manifest."""
    out = project / "generated"
    overlay = project / "shared.overlay.yaml"
    shutil.move(project / "spec/pets.overlay.yaml", overlay)
    config = project / "spec/cube-codegen.yaml"
    config.write_text(config.read_text().replace("[pets.overlay.yaml]", "[../shared.overlay.yaml]"))
    args = ["generate", "--config", "spec/cube-codegen.yaml", "--out", "generated"]
    assert run_cli(*args, cwd=project).stdout.startswith("generated ")
    assert "up to date" in run_cli(*args, cwd=project).stdout
    overlay.write_text(overlay.read_text().replace("A pet.", "A shared pet."))
    assert run_cli(*args, cwd=project).stdout.startswith("generated ")
    assert "A shared pet." in model_source(out / "pets_client/pets_client/pets")


def test_changed_config_regenerates(project: Path) -> None:
    generate(project)
    config = project / "spec/cube-codegen.yaml"
    config.write_text(config.read_text().replace("distribution: pets-client", "distribution: pets"))
    assert regenerated(generate(project))


@pytest.mark.parametrize("changed", ["templates/family/client.py.jinja", "generator/ir/naming.py"])
def test_changed_template_or_generator_file_regenerates(
    project: Path, key_inputs: Path, changed: str
) -> None:
    generate(project)
    assert not regenerated(generate(project))
    with (key_inputs / changed).open("a") as fh:
        fh.write("\n")
    assert regenerated(generate(project))
    assert not regenerated(generate(project))


def test_tool_version_is_part_of_the_key(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate(project)
    versions = cache._tool_versions()
    assert set(versions) == set(cache.TOOLS)
    monkeypatch.setattr(cache, "_tool_versions", lambda: {**versions, "ruff": "0.0.1"})
    assert regenerated(generate(project))


@pytest.mark.parametrize("damage", ["edit", "delete", "add"])
def test_damaged_tree_is_restored(project: Path, damage: str) -> None:
    out = project / "generated"
    generate(project)
    before = {rel: data for rel, (_, data) in snapshot(out).items()}
    target = out / "pets_client/pets_client/pets/models.py"
    if damage == "edit":
        target.write_text(target.read_text() + "\n# hand edit\n")
    elif damage == "delete":
        target.unlink()
    else:  # a file the tool did not write: the run refuses, --force replaces it
        (out / "pets_client/stray.py").write_text("x = 1\n")
        args = ["generate", "--config", str(project / "spec/cube-codegen.yaml"), "--out", str(out)]
        refused = CliRunner().invoke(main, args)
        assert refused.exit_code == 2 and "pets_client/stray.py" in refused.output
        assert regenerated(CliRunner().invoke(main, [*args, "--force"]))
        assert {rel: data for rel, (_, data) in snapshot(out).items()} == before
        return
    assert regenerated(generate(project))
    assert {rel: data for rel, (_, data) in snapshot(out).items()} == before


def _same_size_edit(target: Path) -> None:
    text = target.read_text()
    edited = text.replace("generated", "GENERATED", 1)
    assert edited != text and len(edited) == len(text)
    target.write_text(edited)


@pytest.mark.parametrize("mtime", ["changed", "restored"])
def test_same_size_edit_is_found(project: Path, mtime: str) -> None:
    """An edit that keeps the size is found by its times: the modification time, or the
    change time when the modification time is set back (no program can set that back)."""
    out = project / "generated"
    generate(project)
    assert not regenerated(generate(project))  # the records are taken and trusted
    target = out / "pets_client/pyproject.toml"
    before = target.read_bytes()
    old = target.stat()
    _same_size_edit(target)
    if mtime == "restored":
        os.utime(target, ns=(old.st_atime_ns, old.st_mtime_ns))
        assert target.stat().st_mtime_ns == old.st_mtime_ns
    assert target.stat().st_size == old.st_size
    assert regenerated(generate(project))
    assert target.read_bytes() == before


def test_unchanged_files_are_not_read(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once their stat records hold (past the racy window), a no-op run reads neither the
    inputs nor the generated files; a run that had to read them records them again."""
    monkeypatch.setattr(file_stats, "RACY_NS", 0)  # no window: records hold at once
    generate(project)
    reads: list[str] = []
    for name in ("tree_hash", "_hash_inputs"):
        real = getattr(cache, name)
        monkeypatch.setattr(cache, name, lambda *a, _r=real, _n=name: reads.append(_n) or _r(*a))
    assert not regenerated(generate(project))
    assert reads == []
    (project / "spec/pets.yaml").touch()  # new times, same bytes: read once, then recorded
    assert not regenerated(generate(project))
    assert reads == ["_hash_inputs"]
    assert not regenerated(generate(project))
    assert reads == ["_hash_inputs"]


def test_a_tree_read_by_its_records_hashes_as_one_walked(tmp_path: Path) -> None:
    """The names its stat records hold are the files a walk compares: nested folders and
    hidden files in, tool caches and the marker out, so both readings hash alike."""
    out = tmp_path / "generated"
    for rel, text in {
        "pkg/pkg/__init__.py": "x = 1\n",
        "pkg/pkg/_classes/pet.py": "y = 2\n",
        "pkg/.hidden": "z\n",
        "pkg/pkg/__pycache__/pet.cpython-311.pyc": "\0",
        "pkg/build/lib/pkg/__init__.py": "x = 1\n",
        "pkg/pkg.egg-info/PKG-INFO": "Name: pkg\n",
    }.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    records = cache._tree_records(out)
    assert records is not None
    assert set(records) == {"pkg/pkg/__init__.py", "pkg/pkg/_classes/pet.py", "pkg/.hidden"}
    walked = cache.tree_hash(out)
    assert cache.tree_hash(out, records) == walked
    (out / "pkg/.hidden").write_text("Z\n")
    assert cache.tree_hash(out, records) == cache.tree_hash(out) != walked


def test_the_first_no_op_after_a_run_reads_the_tree_by_name(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file a run writes is within the racy window of the records it takes, so the next
    no-op reads the tree: by the names its records hold, not by a second walk. (The window is
    widened here: a sync slowed by other work on the machine cannot age the files past it.)"""
    monkeypatch.setattr(file_stats, "RACY_NS", 60_000_000_000)
    generate(project)
    read: list[str] = []
    real = cache._read_named
    monkeypatch.setattr(
        cache, "_read_named", lambda out, names: real(out, read.extend(names) or names)
    )
    walked: list[Path] = []
    monkeypatch.setattr(writer, "read_tree", lambda out: walked.append(out) or {})
    assert not regenerated(generate(project))
    out = project / "generated"
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert read and sorted(read) == sorted(files - {OUTPUT_MARKER})
    assert walked == []


def test_a_record_within_the_racy_window_is_not_trusted(tmp_path: Path) -> None:
    """A file changed in the clock tick its record was taken in could keep every field: such
    a record (times within the window before it was taken) sends the check to the bytes."""
    path = tmp_path / "f.py"
    path.write_text("x = 1\n")
    record = file_stats.record_of(str(path))
    assert record is not None
    newest = max(record[1], record[2])
    current = {"f.py": record}
    assert file_stats.trusted({"f.py": list(record)}, current, newest + file_stats.RACY_NS + 1)
    assert not file_stats.trusted({"f.py": record}, current, newest + file_stats.RACY_NS)
    assert not file_stats.trusted({"f.py": record}, current, newest)
    whole = [record[0], 5_000_000_000, 5_000_000_000, record[3]]  # a 1 s file system's times
    assert file_stats.racy(whole, 5_000_000_000 + file_stats.RACY_NS + 1)  # the wider window
    assert file_stats.racy(whole, 5_000_000_000 + file_stats.RACY_WHOLE_NS)
    assert not file_stats.racy(whole, 5_000_000_000 + file_stats.RACY_WHOLE_NS + 1)
    assert not file_stats.trusted({"f.py": record}, {"g.py": record}, newest + 10**10)
    assert not file_stats.trusted({"f.py": None}, {"f.py": None}, newest + 10**10)


def test_tool_caches_inside_the_tree_do_not_count(project: Path) -> None:
    out = project / "generated"
    generate(project)
    pycache = out / "pets_client/pets_client/__pycache__"
    pycache.mkdir()
    (pycache / "x.cpython-311.pyc").write_bytes(b"\0")
    assert not regenerated(generate(project))


def test_disabled_by_environment(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate(project)
    monkeypatch.setenv(cache.DISABLE_ENV, "1")
    assert regenerated(generate(project))


def test_single_document_mode_is_never_cached(project: Path) -> None:
    out = project / "single"
    args = ["generate", "--spec", str(project / "spec/pets.yaml"), "--package", "pets"]
    for _ in range(2):
        result = CliRunner().invoke(main, [*args, "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert regenerated(result)
    assert not cache.manifest_path(out).exists()


def test_fast_path_answers_before_the_heavy_imports(project: Path) -> None:
    out = project / "generated"
    args = ["generate", "--config", "spec/cube-codegen.yaml", "--out", "generated"]
    first = run_cli(*args, cwd=project)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("generated ")
    before = snapshot(out)
    second = run_cli(*args, cwd=project, env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert second.returncode == 0, second.stderr
    assert "up to date" in second.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in second.stderr.splitlines()}
    assert "generator.emit.cache" in imported
    assert not imported & set(HEAVY), imported & set(HEAVY)
    assert snapshot(out) == before
    quiet = run_cli(*args, "--quiet", cwd=project)
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_make_generate_is_answered_before_click_loads(project: Path) -> None:
    """``generate`` (and ``generate --quiet``) with the defaults, as ``make generate`` runs it,
    is answered by the entry point before click or any command module loads; an option sends
    the same question through the command, which answers it alike."""
    first = run_cli("generate", cwd=project)
    assert first.stdout.startswith("generated "), first.stderr
    before = snapshot(project / "generated")
    for extra in ([], ["--quiet"]):
        again = run_cli("generate", *extra, cwd=project, env={"PYTHONPROFILEIMPORTTIME": "1"})
        imported = {line.rsplit("|", 1)[-1].strip() for line in again.stderr.splitlines()}
        assert "generator.emit.cache" in imported
        assert not imported & {"click", "generator.cli.commands", *HEAVY}
        assert again.returncode == 0
        assert again.stdout == ("" if extra else f"{cache.message(Path('generated'))}\n")
    through_click = run_cli("generate", "--out", "generated", cwd=project)
    assert through_click.stdout == f"{cache.message(Path('generated'))}\n"
    assert snapshot(project / "generated") == before


def test_one_front_door_with_the_configuration_defaults() -> None:
    """click parses every command line; its defaults are the configuration's."""
    from generator import cli

    params = {p.name: p.default for p in cli.generate.params}
    assert params["config_path"] == DEFAULT_CONFIG
    assert Config.model_fields["out_dir"].default == DEFAULT_OUT
    assert not hasattr(cache, "exit_if_up_to_date")


def test_key_paths_match_the_renderer(monkeypatch: pytest.MonkeyPatch) -> None:
    from generator import TEMPLATES

    monkeypatch.undo()
    assert cache.TEMPLATES_DIR == TEMPLATES
    assert cache.GENERATOR_DIR == ROOT / "generator"
