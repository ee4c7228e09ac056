"""A copied project finishes nothing of the original's (issue 32): journals name their folders
relative to the project, and a swap needs the staged folder's inode, which a copy does not
keep. (Its own file: four real runs, so it runs beside the other files.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.mark.slow
def test_a_copied_project_does_not_finish_the_originals_swap(tmp_path: Path) -> None:
    """A run killed after its journal is finished by the next command in that project; a copy
    of the project (journal included) finishes nothing in the original."""
    from tests.release.project import write_project

    original = tmp_path / "original"
    original.mkdir()
    write_project(original)
    assert run_cli("generate", cwd=original).returncode == 0
    marker = original / "generated" / "widget_client" / "README.md"
    before = marker.read_bytes()
    (original / "spec" / "api.yaml").write_text(
        (original / "spec" / "api.yaml").read_text().replace("Widget", "Gizmo")
    )
    killed = run_cli("generate", cwd=original, env={"CUBE_CODEGEN_KILL_AT": "journal"})
    assert killed.returncode != 0
    copy = tmp_path / "copy"
    shutil.copytree(original, copy, symlinks=True)
    proc = run_cli("generate", "--quiet", cwd=copy)
    assert proc.returncode == 0, proc.stderr
    assert marker.read_bytes() == before  # the original is as it was left: not swapped
    assert [p.name for p in original.iterdir() if ".txn-" in p.name]  # its staging still there
    proc = run_cli("generate", "--quiet", cwd=original)  # its own next command finishes it
    assert proc.returncode == 0 and "finished an interrupted generate" in proc.stderr
