"""``cube-codegen release-check``: the release job's guard, before anything is built."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from generator.cli.errors import reports_errors
from generator.cli.options import config_option


@click.command("release-check")
@config_option("Project configuration holding the package version.")
@click.option("--tag", required=True, help="The pushed tag, e.g. v1.2.3 ($GITHUB_REF_NAME).")
@reports_errors
def release_check(config_path: Path, tag: str) -> None:
    """Exit 1 unless TAG is `v` + the package version in the configuration."""
    from generator.document.config import load_config

    version = load_config(config_path).package.version
    if tag != f"v{version}":
        click.echo(
            f"cube-codegen: tag {tag!r} does not name the package version {version} in "
            f"{config_path}; tag v{version}, or bump the version first [release-tag-mismatch]",
            err=True,
        )
        sys.exit(1)
    click.echo(f"release {version}: tag {tag} matches {config_path}")
