"""The configuration and the hand-written folders are untrusted too: a name that becomes a module
or a file is checked as a name, never joined as a path; every file read stays inside the tree and
is a regular file. Each case exits 2 with one line, writes nothing and copies nothing out."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.release.project import write_project


def _generate(config: Path, out: Path) -> tuple[int, str]:
    proc = run_cli("generate", "--config", str(config), "--out", str(out))
    return proc.returncode, proc.stderr


def _edit(config: Path, old: str, new: str) -> None:
    text = config.read_text(encoding="utf-8")
    assert old in text
    config.write_text(text.replace(old, new, 1), encoding="utf-8")


def _refused(rc: int, stderr: str, *words: str) -> None:
    assert rc == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize(
    ("old", "new", "pointer"),
    [
        ("module: api", 'module: "../../../../../../ESCAPED_MOD"', "/families/0/module"),
        ("module: api", 'module: "a/b"', "/families/0/module"),
        ("client: Widget", 'client: "Widget(): pass\\nimport os"', "/families/0/client"),
        ("name: widget_client", 'name: "../widget"', "/package/name"),
        (
            "distribution: widget-client",
            'distribution: "widget client; rm"',
            "/package/distribution",
        ),
        ("env: WIDGET_TOKEN", 'env: "X=1; Y"', "/families/0/auth/env"),
    ],
)
def test_names_from_the_configuration_are_names(
    tmp_path: Path, old: str, new: str, pointer: str
) -> None:
    config = write_project(tmp_path)
    _edit(config, old, new)
    out = tmp_path / "generated"
    rc, stderr = _generate(config, out)
    _refused(rc, stderr, "config-invalid", pointer)
    assert not out.exists()
    assert not Path("/ESCAPED_MOD").exists() and not (tmp_path / "ESCAPED_MOD").exists()


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("changelog: CHANGELOG.md", "changelog: /proc/self/environ", "config-invalid"),
        ("document: api.yaml", "document: /etc/hostname", "config-invalid"),
        ("changelog: CHANGELOG.md", "changelog: ../../outside.md", "path-outside-tree"),
        ("- overlays/notes.overlay.yaml", "- ../../secrets.overlay.yaml", "path-outside-tree"),
    ],
)
def test_configuration_paths_stay_in_the_project(
    tmp_path: Path, old: str, new: str, why: str
) -> None:
    config = write_project(tmp_path / "project")
    (tmp_path / "outside.md").write_text("not the project's\n", encoding="utf-8")
    (tmp_path / "secrets.overlay.yaml").write_text("overlay: 1.0.0\n", encoding="utf-8")
    _edit(config, old, new)
    out = tmp_path / "project" / "generated"
    rc, stderr = _generate(config, out)
    _refused(rc, stderr, why)
    assert not out.exists()


def test_a_symlink_out_of_the_tree_is_refused_for_every_configured_file(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    (config.parent / "CHANGELOG.md").unlink(missing_ok=True)
    (config.parent / "CHANGELOG.md").symlink_to("/proc/self/environ")
    out = tmp_path / "generated"
    rc, stderr = _generate(config, out)
    _refused(rc, stderr, "path-outside-tree", "CHANGELOG.md")
    assert not out.exists()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_document_that_is_not_a_regular_file_is_refused_unread(tmp_path: Path, kind: str) -> None:
    config = write_project(tmp_path)
    document = config.parent / "api.yaml"
    document.unlink()
    if kind == "fifo":
        os.mkfifo(document)  # reading it would wait for a writer for ever
    else:
        document.symlink_to("/dev/zero")  # reading it would never end
    rc, stderr = _generate(config, tmp_path / "generated")
    _refused(rc, stderr, "path-outside-tree")


@pytest.mark.parametrize("where", ["custom", "patches"])
def test_links_in_hand_written_folders_are_not_followed(tmp_path: Path, where: str) -> None:
    """A link to the environment (or any file out of the tree) never reaches the package."""
    config = write_project(tmp_path)
    folder = config.parent / where / "widget_client" / "widget_client"
    folder.mkdir(parents=True)
    (folder / "env.txt").symlink_to("/proc/self/environ")
    out = tmp_path / "generated"
    rc, stderr = _generate(config, out)
    _refused(rc, stderr, "path-outside-tree", "env.txt")
    assert not out.exists()
    (folder / "env.txt").unlink()
    (folder / "linked").symlink_to("/etc", target_is_directory=True)
    rc, stderr = _generate(config, out)
    _refused(rc, stderr, "path-outside-tree", "linked")
    assert not out.exists()


def test_the_generated_package_holds_no_environment(tmp_path: Path) -> None:
    """The environment's values never appear in a generated tree (a canary variable)."""
    config = write_project(tmp_path)
    out = tmp_path / "generated"
    proc = run_cli(
        "generate",
        "--config",
        str(config),
        "--out",
        str(out),
        env={"CANARY_SECRET": "c4n4ry-v4lue"},
    )
    assert proc.returncode == 0, proc.stderr
    for path in out.rglob("*"):
        if path.is_file():
            assert not re.search(b"c4n4ry-v4lue", path.read_bytes()), path


def test_an_input_inside_the_output_folder_is_refused_before_anything_happens(
    tmp_path: Path,
) -> None:
    """The output folder is replaced whole: a document or overlay kept inside it would be
    deleted by the run that reads it."""
    config = write_project(tmp_path)
    out = tmp_path / "generated"
    rc, stderr = _generate(config, out)
    assert rc == 0, stderr
    moved = out / "api.yaml"
    (config.parent / "api.yaml").rename(moved)
    _edit(config, "document: api.yaml", "document: ../generated/api.yaml")
    before = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    rc, stderr = _generate(config, out)
    _refused(rc, stderr, "out-refused", "holds the input")
    assert moved.is_file()
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == before
