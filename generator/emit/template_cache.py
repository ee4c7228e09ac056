"""Compiled templates kept between runs, as Python keeps ``.pyc`` files for modules.

Compiling the templates costs a run about a fifth of a second; the compiled code is stored in
the private run state (``templates/``, see :mod:`generator.runstate`), keyed by template name and
checked against the template's source before use, so an edited template is compiled again.
Compiled code is code: an entry is loaded only from a file the caller owns and no one else can
write, opened without following a link, and only when its HMAC-SHA256, keyed with this
installation's secret (``key`` in the run state, owner-only), matches; anything else is
compiled again. A cache that cannot be read or written is ignored: it never changes what a
run writes, only how fast.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from generator import runstate


class TemplateCache(jinja2.BytecodeCache):
    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        self._key = key

    def _entry(self, bucket: jinja2.bccache.Bucket) -> tuple[Path, bytes]:
        """Where the bucket's code is kept and what its signature covers besides the code:
        the template's name and its source's checksum."""
        return self.folder / f"{bucket.key}.cache", f"{bucket.key}\0{bucket.checksum}".encode()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        payload = runstate.read_signed(*self._entry(bucket), self._key)
        if payload is None:  # missing, another user's, a link, damaged: compile again
            return
        try:
            bucket.bytecode_from_string(payload)
        except (ValueError, EOFError, TypeError):  # pragma: no cover - signed, so ours
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path, label = self._entry(bucket)
        runstate.write_signed(path, label, self._key, bucket.bytecode_to_string())


def private_cache() -> TemplateCache | None:
    """The cache in the run state, or None where the run state cannot hold one safely."""
    try:
        return TemplateCache(runstate.folder("templates"), runstate.secret_key())
    except (OSError, runstate.RunStateRefused):
        return None
