"""Hand-written code survives regeneration: custom files are copied in, kept patches are merged
into each new generation (three-way); a conflict fails naming file and hunk, writing nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.document.loader import dump_yaml
from generator.emit.writer import read_tree
from tests.helpers import run_cli
from tests.release.project import additive, document, write_project

GADGETS = "widget_client/widget_client/api/resources/gadgets.py"
HELPERS = "widget_client/widget_client/helpers.py"
HELPER_SOURCE = '''\
"""Hand-written helpers, kept across regenerations."""

from widget_client.api.models import Widget


def widget_label(widget: Widget) -> str:
    return f"{widget.id}: {widget.name}"
'''
METHOD = '''
    def count_gadgets(self) -> int:
        """Hand-written: how many gadgets there are."""
        return len(self.list_gadgets())
'''
ANCHOR = '    """Operations tagged Gadgets"""\n'  # the sync resource's docstring comes first


def _cli(config: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, "--config", str(config), "--out", str(out))


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    config = write_project(tmp_path)
    helper = config.parent / "custom" / HELPERS
    helper.parent.mkdir(parents=True)
    helper.write_text(HELPER_SOURCE, encoding="utf-8")
    out = tmp_path / "generated"
    assert _cli(config, out, "generate").returncode == 0
    gadgets = out / GADGETS
    text = gadgets.read_text(encoding="utf-8")
    assert ANCHOR in text
    gadgets.write_text(text.replace(ANCHOR, ANCHOR + METHOD, 1), encoding="utf-8")
    kept = run_cli("keep", GADGETS, "--config", str(config), "--out", str(out))
    assert kept.returncode == 0, kept.stderr
    return config, out


def _assert_custom_code_in(out: Path, config: Path) -> None:
    tree = read_tree(out)
    assert tree[HELPERS].decode() == HELPER_SOURCE
    assert tree[GADGETS].decode().count("def count_gadgets") == 1
    assert _cli(config, out, "check").returncode == 0  # check compares with custom code applied
    probe = (
        "from widget_client.helpers import widget_label\n"
        "from widget_client.api.models import Widget\n"
        "from widget_client.api.resources.gadgets import GadgetsResource\n"
        "class Fake(GadgetsResource):\n"
        "    def list_gadgets(self, **kw): return [1, 2, 3]\n"
        "print(widget_label(Widget(id=7, name='w')), Fake(None).count_gadgets())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": str(out / "widget_client")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stdout.strip() == "7: w 3", proc.stderr


@pytest.mark.slow
def test_custom_files_and_kept_patches_survive_two_regenerations(tmp_path: Path) -> None:
    config, out = _setup(tmp_path)
    assert (config.parent / "patches" / (GADGETS + ".base")).is_file()
    _assert_custom_code_in(out, config)

    # regeneration 1: an overlay edit reaching the patched file, elsewhere in it
    overlay = config.parent / "overlays" / "notes.overlay.yaml"
    overlay.write_text(
        overlay.read_text().replace(
            "Lists gadgets in creation order.", "Lists gadgets, oldest first."
        )
    )
    assert _cli(config, out, "generate").returncode == 0
    text = (out / GADGETS).read_text()
    assert "Lists gadgets, oldest first." in text and "in creation order" not in text
    _assert_custom_code_in(out, config)

    # regeneration 2: the document changes the patched method's neighbour's signature
    (config.parent / "api.yaml").write_text(dump_yaml(additive(document())))
    assert _cli(config, out, "generate").returncode == 0
    text = (out / GADGETS).read_text()
    assert "limit: int | NotGiven = NOT_GIVEN" in text
    _assert_custom_code_in(out, config)


def test_conflicting_patch_fails_naming_file_and_hunk(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    out = tmp_path / "generated"
    assert _cli(config, out, "generate").returncode == 0
    gadgets = out / GADGETS
    gadgets.write_text(
        gadgets.read_text().replace("Lists gadgets in creation order.", "Lists gadgets (kept).")
    )
    assert run_cli("keep", str(gadgets), "--config", str(config), "--out", str(out)).returncode == 0
    before = read_tree(out)
    overlay = config.parent / "overlays" / "notes.overlay.yaml"
    overlay.write_text(
        overlay.read_text().replace("Lists gadgets in creation order.", "Lists every gadget.")
    )
    proc = _cli(config, out, "generate")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "[patch-conflict]" in proc.stderr and GADGETS in proc.stderr
    assert "hunk at lines" in proc.stderr
    assert read_tree(out) == before  # generated/ as it was


def test_custom_file_may_not_replace_a_generated_one(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    clash = config.parent / "custom" / GADGETS
    clash.parent.mkdir(parents=True)
    clash.write_text("x = 1\n")
    proc = _cli(config, tmp_path / "generated", "generate")
    assert proc.returncode == 2
    assert "[custom-code-collision]" in proc.stderr and "cube-codegen keep" in proc.stderr
    assert not (tmp_path / "generated").exists()
