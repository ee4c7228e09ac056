"""``make update`` / ``cube-codegen update`` against a loopback HTTPS server serving a changed
document: regenerated tree, changelog, bumped version and summary in one step; atomic on failure."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import trustme
import yaml

from generator.emit.writer import read_tree
from tests.helpers import ROOT, run_cli, seed_checkout_mypy
from tests.release.project import (
    additive,
    breaking,
    config_version,
    document,
    generated_project,
    project_copy,
)
from tests.release.servers import ca_file, serving

TOKEN = "update-token-1234"


@pytest.fixture(scope="module", autouse=True)
def _seeded_run_state() -> None:
    """The updates here run from the checkout (``make -C``, ``--config``): their type checks
    start from the committed package's mypy cache."""
    seed_checkout_mypy()


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test project and its generated package, made once for the module (spec/ and
    generated/ only: the commands run from the checkout keep their state there)."""
    return generated_project(tmp_path_factory.mktemp("generated"))


def _make_update(
    tmp_path: Path, config: Path, url: str, ca: Path
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "CUBE_BASE_URL": url,
        "CUBE_API_KEY": TOKEN,
        "SSL_CERT_FILE": str(ca),
        "GITHUB_OUTPUT": str(tmp_path / "github-output"),
    }
    return subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-C",
            str(ROOT),
            "update",
            f"UPDATE_CONFIG={config}",
            f"UPDATE_OUT={tmp_path / 'generated'}",
            f"UPDATE_SUMMARY={tmp_path / 'summary.md'}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _outputs(tmp_path: Path) -> dict[str, str]:
    lines = (tmp_path / "github-output").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def _served(
    ca: trustme.CA, tmp_path: Path, generated: Path, doc: dict[str, Any]
) -> tuple[Path, Any]:
    config = project_copy(generated, tmp_path)
    return config, serving(doc, ca)


def test_breaking_change_bumps_major(ca: trustme.CA, tmp_path: Path, generated: Path) -> None:
    config = project_copy(generated, tmp_path)
    note = "- A note written by hand before the release."
    (config.parent / "CHANGELOG.md").write_text(f"# Changelog\n\n## Unreleased\n\n{note}\n")
    with serving(breaking(document()), ca) as server:
        proc = _make_update(tmp_path, config, server.url, ca_file(ca, tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert server.requests == [("GET", "/api/v1/spec", f"Bearer {TOKEN}")]
    assert TOKEN not in proc.stdout + proc.stderr
    assert config_version(config) == "2.0.0"
    assert _outputs(tmp_path) == {
        "failed": "false",
        "changed": "true",
        "bump": "major",
        "version": "2.0.0",
    }
    # the snapshot is the served document, the package is regenerated from it
    assert "/widgets" not in yaml.safe_load((config.parent / "api.yaml").read_text())["paths"]
    tree = read_tree(tmp_path / "generated")
    widgets = tree["widget_client/widget_client/api/resources/widgets.py"].decode()
    assert "def create_widget" not in widgets and "def get_widget" in widgets
    assert '__version__ = "2.0.0"' in tree["widget_client/widget_client/_version.py"].decode()
    changelog = (config.parent / "CHANGELOG.md").read_text()
    assert changelog.startswith("# Changelog\n\n## 2.0.0 (")
    # in Python names, each change once, under its resource, with why and a fingerprint
    assert "### Breaking: code that type-checked no longer does" in changelog
    assert "- `client.widgets`\n  - `create_widget(...)`: " in changelog
    assert 'has no attribute "create_widget"' in changelog
    assert changelog.count("`create_widget(...)`") == 1
    # what was unreleased ships in 2.0.0: under its section, no Unreleased heading left
    assert changelog.endswith(f"\n\n{note}\n") and "Unreleased" not in changelog
    assert tree["widget_client/CHANGELOG.md"].decode().endswith(changelog)
    summary = (tmp_path / "summary.md").read_text()
    assert "`1.2.3` → `2.0.0` (major)" in summary
    assert "POST /widgets" in summary and "### Breaking (1)" in summary
    assert "`client.widgets.create_widget()` | **no** |" in summary  # the SDK's words
    assert "### Type-check verdicts" in summary and "no longer type-check" in summary
    # generated/ is exactly what generate makes from the updated spec/
    assert (
        run_cli("check", "--config", str(config), "--out", str(tmp_path / "generated")).returncode
        == 0
    )


def test_additive_change_bumps_minor(ca: trustme.CA, tmp_path: Path, generated: Path) -> None:
    config = project_copy(generated, tmp_path)
    with serving(additive(document()), ca) as server:
        proc = _make_update(tmp_path, config, server.url, ca_file(ca, tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert config_version(config) == "1.3.0"
    assert _outputs(tmp_path)["bump"] == "minor"
    tree = read_tree(tmp_path / "generated")
    models = tree["widget_client/widget_client/api/_classes/widget.py"].decode()
    assert "colour" in models
    summary = (tmp_path / "summary.md").read_text()
    assert "(minor)" in summary and "request-parameter-added" in summary
    assert "### Breaking" not in summary


def test_unchanged_document_is_a_no_op(ca: trustme.CA, tmp_path: Path, generated: Path) -> None:
    config = project_copy(generated, tmp_path)
    before_spec = read_tree(config.parent)
    before_tree = read_tree(tmp_path / "generated")
    with serving(document(), ca) as server:
        proc = _make_update(tmp_path, config, server.url, ca_file(ca, tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert len(server.requests) == 1
    assert read_tree(config.parent) == before_spec
    assert read_tree(tmp_path / "generated") == before_tree
    assert _outputs(tmp_path) == {
        "failed": "false",
        "changed": "false",
        "bump": "none",
        "version": "1.2.3",
    }
    assert "No changes" in (tmp_path / "summary.md").read_text()


def test_patch_bump_when_only_generated_code_changes(tmp_path: Path, generated: Path) -> None:
    """A change drift does not rate as an API change but the package shows (a deprecation)."""
    config = project_copy(generated, tmp_path)
    doc = document()
    doc["paths"]["/gadgets"]["get"]["deprecated"] = True
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(doc))
    proc = run_cli(
        "update", "--config", str(config), "--out", str(tmp_path / "generated"), "--from", str(new)
    )
    assert proc.returncode == 1, proc.stderr  # 1: changes written
    assert config_version(config) == "1.2.4"
    assert "operation-deprecated" in (config.parent / "CHANGELOG.md").read_text()


@pytest.mark.parametrize("failure", ["overlay-unmatched", "bad-document", "unreachable"])
def test_failure_leaves_spec_and_generated_as_they_were(
    ca: trustme.CA, tmp_path: Path, generated: Path, failure: str
) -> None:
    config = project_copy(generated, tmp_path)
    before_spec = read_tree(config.parent)
    before_tree = read_tree(tmp_path / "generated")
    if failure == "overlay-unmatched":  # the overlay targets an operation the new document lacks
        doc = document()
        del doc["paths"]["/gadgets"]
        args = ["--from", str(tmp_path / "new.yaml")]
        (tmp_path / "new.yaml").write_text(yaml.safe_dump(doc))
    elif failure == "bad-document":
        (tmp_path / "new.yaml").write_text("openapi: 3.1.0\npaths: [1, 2]\n")
        args = ["--from", str(tmp_path / "new.yaml")]
    else:
        args = ["--base-url", "https://127.0.0.1:9", "--token", TOKEN, "--timeout", "2"]
    proc = run_cli("update", "--config", str(config), "--out", str(tmp_path / "generated"), *args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert ".spec.txn-" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert read_tree(config.parent) == before_spec
    assert read_tree(tmp_path / "generated") == before_tree
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".spec")]
    assert leftovers == []


def test_a_failed_update_writes_its_summary_and_outputs_in_full(
    tmp_path: Path, generated: Path
) -> None:
    """CI can act on a failure: the summary names what failed (here the overlay action that no
    longer matches, with its advice, uncut), and $GITHUB_OUTPUT says failed=true."""
    config = project_copy(generated, tmp_path)
    doc = document()
    del doc["paths"]["/gadgets"]
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(doc))
    output, summary = tmp_path / "github-output", tmp_path / "summary.md"
    proc = run_cli(
        "update", "--config", str(config), "--out", str(tmp_path / "generated"),
        "--from", str(new), "--summary", str(summary), "--github-output", str(output),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert output.read_text().splitlines() == ["changed=false", "failed=true"]
    text = summary.read_text()
    assert text.startswith("## API update failed") and "nothing was released" in text
    assert "notes.overlay.yaml" in text and "/gadgets" in text
    line = proc.stderr.strip()
    assert line.count("\n") == 0 and "…" not in line  # one line, not cut before its advice


def test_a_summary_too_long_for_a_pull_request_is_cut_with_the_full_report_beside(
    tmp_path: Path,
) -> None:
    from generator.release.update import SUMMARY_LIMIT, fitted_summary

    text = "\n".join(f"- change {i} " + "x" * 80 for i in range(2000))
    cut = fitted_summary(text, "summary-full.md")
    assert len(cut) <= SUMMARY_LIMIT < len(text)
    assert cut.endswith("the full report is `summary-full.md`)\n")
    assert text.startswith(cut.rsplit("\n\n…", 1)[0])
    assert fitted_summary("short", "x.md") == "short"
