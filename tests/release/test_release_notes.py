"""Releases say what they are: unreleased changelog entries move under the version being
released, ``release-check`` refuses a changelog without a section for its version, and the built
wheel's metadata carries the release's own section."""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from generator.release.changelog import release_problem, release_unreleased, split_sections
from tests.helpers import PACKAGE_ROOT, ROOT, run_cli
from tests.release.project import write_project

LOG = """# Changelog

## Unreleased

- A note written by hand.

## 1.2.3 (2026-01-02)

- Earlier.
"""


def test_unreleased_entries_move_under_the_version_being_released() -> None:
    into_new = release_unreleased(LOG, "1.3.0")
    _, sections = split_sections(into_new)
    assert [s.heading for s in sections] == ["## 1.3.0", "## 1.2.3 (2026-01-02)"]
    assert sections[0].entries == "- A note written by hand."
    assert sections[1].entries == "- Earlier."
    into_existing = release_unreleased(LOG, "1.2.3")
    assert (
        into_existing
        == "# Changelog\n\n## 1.2.3 (2026-01-02)\n\n- Earlier.\n\n- A note written by hand.\n"
    )
    assert release_unreleased(into_existing, "1.2.3") == into_existing  # nothing left to move
    fenced = "# C\n\n## 2.0.0\n\n```md\n## Unreleased\n```\n"
    assert release_unreleased(fenced, "2.0.0") == fenced  # a heading inside a code block


def test_release_problem_names_what_is_missing() -> None:
    unreleased = release_problem(LOG, "1.2.3", "CHANGELOG.md")
    assert unreleased and unreleased[0] == "release-changelog-unreleased"
    assert "2 lines under `## Unreleased`" not in unreleased[1]  # one line of entries
    assert "1 lines under `## Unreleased`" in unreleased[1] and "## 1.2.3" in unreleased[1]
    missing = release_problem(release_unreleased(LOG, "1.2.3"), "1.4.0", "CHANGELOG.md")
    assert missing and missing[0] == "release-changelog-missing"
    assert "has no `## 1.4.0` section" in missing[1]
    assert release_problem(release_unreleased(LOG, "1.2.3"), "1.2.3", "CHANGELOG.md") is None
    assert release_problem("# C\n\n## v1.2.3\n\n- x\n", "1.2.3", "C") is None


def test_release_check_refuses_a_changelog_without_the_release_section(tmp_path: Path) -> None:
    config = write_project(tmp_path)
    log = config.parent / "CHANGELOG.md"
    for text, code, expected in [
        ("# Changelog\n\n## 1.2.2\n\n- Old.\n", 1, "[release-changelog-missing]"),
        (LOG, 1, "[release-changelog-unreleased]"),
        (release_unreleased(LOG, "1.2.3"), 0, "release 1.2.3: tag v1.2.3 matches"),
    ]:
        log.write_text(text, encoding="utf-8")
        proc = run_cli("release-check", "--config", str(config), "--tag", "v1.2.3")
        assert proc.returncode == code, proc.stdout + proc.stderr
        assert expected in proc.stdout + proc.stderr
        if code:
            assert len(proc.stderr.strip().splitlines()) == 1 and str(log) in proc.stderr


def test_the_wheel_carries_its_own_release_section(tmp_path: Path) -> None:
    """The committed package, built as a wheel: its long description (README then CHANGELOG)
    lists the release under its own version and nothing as unreleased."""
    version = yaml.safe_load((ROOT / "spec" / "cube-codegen.yaml").read_text())["package"][
        "version"
    ]
    source = tmp_path / "src"
    shutil.copytree(PACKAGE_ROOT, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
         str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(name))
    assert metadata["Version"] == version
    description = str(metadata.get_payload())
    changelog = description[description.index("# Changelog") :]
    _, sections = split_sections(changelog)
    assert sections[0].version == version and not any(s.unreleased for s in sections)
    assert "`client.scheduled_tasks`" in sections[0].entries  # the entries that were unreleased
    assert release_problem(changelog, version, "METADATA") is None


def test_drift_bump_version_moves_unreleased_entries_too(tmp_path: Path) -> None:
    """``drift --changelog --bump-version`` releases what was unreleased under the new version."""
    from click.testing import CliRunner

    from generator.cli.drift import drift

    def doc(paths: list[str]) -> str:
        ok = {"200": {"description": "ok"}}
        body = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "paths": {p: {"get": {"operationId": p.strip("/"), "responses": ok}} for p in paths}}  # fmt: skip
        path = tmp_path / f"{len(paths)}.yaml"
        path.write_text(yaml.safe_dump(body), encoding="utf-8")
        return str(path)

    config, log = tmp_path / "c.yaml", tmp_path / "CHANGELOG.md"
    config.write_text("package:\n  name: x\n  version: 1.2.3\n", encoding="utf-8")
    log.write_text(LOG, encoding="utf-8")
    result = CliRunner().invoke(
        drift,
        [doc(["/a"]), doc(["/a", "/b"]), "--changelog", str(log), "--bump-version", str(config),
         "--overlays", str(tmp_path / "none")],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    _, sections = split_sections(log.read_text(encoding="utf-8"))
    assert [s.version for s in sections] == ["1.3.0", "1.2.3"]
    assert sections[0].entries.endswith("- A note written by hand.")
    assert release_problem(log.read_text(encoding="utf-8"), "1.3.0", "CHANGELOG.md") is None
