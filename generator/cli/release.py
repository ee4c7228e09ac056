"""``cube-codegen release-check``: the release job's guard, before anything is built."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from generator.cli.options import config_option
from generator.diagnostics import CodegenError


@click.command("release-check")
@config_option("Project configuration holding the package version.")
@click.option("--tag", required=True, help="The pushed tag, e.g. v1.2.3 ($GITHUB_REF_NAME).")
def release_check(config_path: Path, tag: str) -> None:
    """Exit 1 unless TAG is `v` + the package version in the configuration and the changelog
    has a section for that version (and no entries left under `## Unreleased`)."""
    from generator.document.config import load_config

    try:
        config = load_config(config_path)
        log = config.path(config.package.changelog) if config.package.changelog else None
    except CodegenError as exc:
        click.echo(f"cube-codegen: {exc.summary()}", err=True)
        sys.exit(2)
    version = config.package.version
    if tag != f"v{version}":
        click.echo(
            f"cube-codegen: tag {tag!r} does not name the package version {version} in "
            f"{config_path}; tag v{version}, or bump the version first [release-tag-mismatch]",
            err=True,
        )
        sys.exit(1)
    if log is not None:
        _check_changelog(log, version)
    click.echo(f"release {version}: tag {tag} matches {config_path}")


def _check_changelog(path: Path, version: str) -> None:
    """Exit 1 unless the changelog has a section for ``version`` and nothing left unreleased."""
    from generator.release.changelog import release_problem

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        click.echo(f"cube-codegen: {path}: cannot read the changelog: {exc.strerror}", err=True)
        sys.exit(2)
    problem = release_problem(text, version, str(path))
    if problem is not None:
        click.echo(f"cube-codegen: {problem[1]} [{problem[0]}]", err=True)
        sys.exit(1)
