"""Compiled templates kept between runs, as Python keeps ``.pyc`` files for modules.

Compiling the templates costs a run about a fifth of a second; the compiled code is stored under
the run state folder (``.cache/cube-codegen/templates/``), keyed by template name and checked
against the template's source before use, so an edited template is compiled again. A cache that
cannot be read or written is ignored: it never changes what a run writes, only how fast.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

import jinja2

from generator.files import TEMP_TAG


class TemplateCache(jinja2.BytecodeCache):
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.folder / f"{bucket.key}.cache"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            with self._path(bucket).open("rb") as fh:
                bucket.load_bytecode(fh)
        except OSError:
            return
        except (ValueError, EOFError, TypeError, pickle.UnpicklingError):  # damaged: compile again
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        path = self._path(bucket)
        tmp = ""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(
                prefix=f".{path.name}.{TEMP_TAG}-{os.getpid()}-", suffix=".tmp", dir=self.folder
            )
            with os.fdopen(fd, "wb") as fh:
                bucket.write_bytecode(fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError:
            if tmp:
                Path(tmp).unlink(missing_ok=True)
