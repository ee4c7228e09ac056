"""The command line's one error path: one line on stderr naming what is wrong, then exit 2.

Every command reports bad input here, so the prefix, the folding of untrusted text to one line,
the token redaction and the exit code are written once.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from generator import runstate
from generator.diagnostics import CodegenError, one_line

F = TypeVar("F", bound=Callable[..., Any])

EXIT_INVALID = 2
LINE_LIMIT = 8000  # an error line is never cut before its advice; this bounds only runaway text


def fail(message: object, *, token: str | None = None) -> NoReturn:
    """Print ``cube-codegen: <message>`` as one line (``token`` redacted) and exit 2."""
    line = one_line(message, LINE_LIMIT)
    if token:
        from generator.document.fetch import redact

        line = redact(line, token)
    click.echo(f"cube-codegen: {line}", err=True)
    sys.exit(EXIT_INVALID)


def reports_errors(func: F) -> F:
    """Bad input raised anywhere in ``func`` (:class:`CodegenError`, a document nesting too
    deeply, an unreadable input or unwritable output) ends on :func:`fail`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CodegenError as exc:
            fail(exc.summary())
        except RecursionError:
            fail("input nests too deeply to process")
        except runstate.RunStateRefused as exc:
            fail(exc)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            fail(f"{where}{exc.strerror or exc} [os-error]")

    return wrapper  # type: ignore[return-value]
