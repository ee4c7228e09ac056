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

import hashlib
import hmac
import os
import tempfile
from pathlib import Path

import jinja2

from generator import runstate
from generator.files import TEMP_TAG

_DIGEST = hashlib.sha256().digest_size


class TemplateCache(jinja2.BytecodeCache):
    def __init__(self, folder: Path, key: bytes) -> None:
        self.folder = folder
        self._key = key

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.folder / f"{bucket.key}.cache"

    def _sign(self, bucket: jinja2.bccache.Bucket, payload: bytes) -> bytes:
        label = f"{bucket.key}\0{bucket.checksum}\0".encode()
        return hmac.new(self._key, label + payload, hashlib.sha256).digest()

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            data = runstate.read_private(self._path(bucket))
        except (OSError, runstate.RunStateRefused):  # another user's or a link: compile again
            return
        if data is None or len(data) <= _DIGEST:
            return
        mac, payload = data[:_DIGEST], data[_DIGEST:]
        if not hmac.compare_digest(mac, self._sign(bucket, payload)):
            return  # not made by this installation (or damaged): compile again
        try:
            bucket.bytecode_from_string(payload)
        except (ValueError, EOFError, TypeError):  # pragma: no cover - signed, so ours
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = self._path(bucket)
        payload = bucket.bytecode_to_string()
        tmp = ""
        try:
            fd, tmp = tempfile.mkstemp(
                prefix=f".{path.name}.{TEMP_TAG}-{os.getpid()}-", suffix=".tmp", dir=self.folder
            )
            with os.fdopen(fd, "wb") as fh:
                fh.write(self._sign(bucket, payload) + payload)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError:
            if tmp:
                Path(tmp).unlink(missing_ok=True)


def private_cache() -> TemplateCache | None:
    """The cache in the run state, or None where the run state cannot hold one safely."""
    try:
        return TemplateCache(runstate.folder("templates"), runstate.secret_key())
    except (OSError, runstate.RunStateRefused):
        return None
