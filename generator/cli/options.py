"""Click options several commands share, declared once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from generator import DEFAULT_CONFIG

F = TypeVar("F", bound=Callable[..., Any])


def config_option(help: str) -> Callable[[F], F]:
    """``--config``: the project configuration (its path becomes ``config_path``)."""
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=DEFAULT_CONFIG,
        show_default=True,
        help=help,
    )


def observed_option(help: str) -> Callable[[F], F]:
    """``--observed``: shape records the SDK wrote (folders of ``*.jsonl`` or files; repeatable)."""
    return click.option("--observed", multiple=True, type=click.Path(path_type=Path), help=help)


def out_option(help: str) -> Callable[[F], F]:
    """``--out``: the output folder (None: the configuration's default, generated/)."""
    return click.option("--out", type=click.Path(path_type=Path), default=None, help=help)


def project_options(func: F) -> F:
    """``--config`` and ``--out``: the project configuration and the output folder."""
    func = out_option("Output folder [generated].")(func)
    return config_option("Project configuration naming each API family.")(func)


def family_option(help: str) -> Callable[[F], F]:
    """``--family NAME``: one API family of the configuration (unknown names are reported
    against the configuration file, with the known ones)."""
    return click.option("--family", default=None, metavar="NAME", help=help)


def ref_root_option(func: F) -> F:
    """``--ref-root``: where a document's ``$ref``s may read files from."""
    return click.option(
        "--ref-root",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        default=None,
        help="Folder a document's $refs may read files from (default: the document's own "
        "folder). Widen it only for documents you trust.",
    )(func)


def connection_options(func: F) -> F:
    """``--token``, ``--timeout`` and ``--ca-bundle`` for reaching the service."""
    # here, not at the top: ``generate``'s no-op answer imports this module, and must stay
    # clear of the fetcher's imports
    from generator.document.fetch import DEFAULT_TIMEOUT, TOKEN_ENV

    func = click.option(
        "--ca-bundle",
        type=click.Path(dir_okay=False, exists=True, path_type=Path),
        default=None,
        help="PEM file of CA certificates to trust (default: SSL_CERT_FILE or SSL_CERT_DIR, "
        "else the system's store, as the generated SDK).",
    )(func)
    func = click.option(
        "--timeout",
        type=click.FloatRange(min=0.1, max=600),
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Seconds allowed for each attempt.",
    )(func)
    return click.option(
        "--token", envvar=TOKEN_ENV, default="", help=f"API token [env {TOKEN_ENV}]."
    )(func)
