"""Recording what the service sends where it differs from the document (off by default).

``record_shapes=DIR`` on a client, or ``CUBE_RECORD_SHAPES=DIR`` in the environment, makes every
JSON response be compared with the type the document gives it, and each *difference* (a field the
document does not list, an enum value or union variant it does not list, a null it does not
allow, a required field missing, another JSON type) be appended once to ``DIR/shapes.jsonl`` as
one JSON line. The maintainers read these files with ``cube-codegen learn``.

A record holds shapes, never data: the operation (method and path template), the status, the
media type, the JSON pointer of the field (array indices as ``-``, map keys as ``*``), what the
document says, the JSON type seen and a string's format when recognised. A value is kept only
where the document types the field as an enum or a union tag, i.e. where the value *is* the
shape. No header, query, URL, credential or other value is ever written.

JSON bodies and pages are compared whole with their types, every field (not only the ones the
caller's code reads): the first 8 responses of each operation, then one in
``CUBE_RECORD_SHAPES_EVERY`` (default 64), which keeps the average per-call cost small; a
count is the number of compared responses that showed the difference. Streamed values (JSON
lines, events) are recorded where the runtime reports every difference, its one point
(``_differences.report``): the call's context names its client's recorder (:meth:`Recorder.hear`),
so a client records its own calls only, and a client that records costs the others nothing.

Differences are counted in memory: a new one is appended at once (one ``write`` under a lock,
``O_APPEND``, so threads and processes never interleave lines), repeats are appended as one line
carrying their count when the client closes or the process exits. The file stops growing at
``CUBE_RECORD_SHAPES_MAX_BYTES`` (default :data:`DEFAULT_MAX_BYTES`) with one warning. Recording
never raises into a call: a folder that cannot be written turns recording off with a warning.
"""

from __future__ import annotations

import atexit
import datetime
import json
import os
import threading
import warnings
from dataclasses import dataclass, replace
from typing import Any

from ._shape_records import FILE_NAME, FORMAT, VERSION, heard, media, record_fields, record_line
from ._shape_values import Difference

__all__ = ["DEFAULT_MAX_BYTES", "FILE_NAME", "FORMAT", "VERSION", "Difference", "Recorder"]

RECORD_ENV = "CUBE_RECORD_SHAPES"
MAX_BYTES_ENV = "CUBE_RECORD_SHAPES_MAX_BYTES"
DEFAULT_MAX_BYTES = 1_000_000
"""The records file stops growing here (about five thousand differences)."""
EVERY_ENV = "CUBE_RECORD_SHAPES_EVERY"
FIRST_WHOLE = 8
DEFAULT_EVERY = 64
"""The first :data:`FIRST_WHOLE` responses of each operation, then one in this many, are
compared whole with their types; ``CUBE_RECORD_SHAPES_EVERY=1`` compares every response."""


class ShapesRecordingWarning(UserWarning):
    """Recording stopped: the records file reached its size cap, or could not be written."""


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Count:
    fields: dict[str, Any]
    pending: int = 0
    first: str = ""
    last: str = ""


class Recorder:
    """The deduplicating appender of one records folder (shared by every client using it)."""

    def __init__(self, folder: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be at least 1")
        self.path = os.path.join(os.fspath(folder), FILE_NAME)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._counts: dict[tuple[Any, ...], _Count] = {}
        self._off = False
        self._responses: dict[tuple[str, str], int] = {}
        every = os.environ.get(EVERY_ENV, "").strip()
        self.every = int(every) if every.isdigit() and int(every) > 0 else DEFAULT_EVERY
        atexit.register(self.flush)

    def sampled(self, method: str, path: str) -> bool:
        """Whether this response of the operation is compared whole (see the module)."""
        key = (method, path)
        with self._lock:
            seen = self._responses[key] = self._responses.get(key, 0) + 1
        return seen <= FIRST_WHOLE or seen % self.every == 0

    def hear(self, found: Any) -> None:
        """The runtime's one point for differences (``_differences.report``): the values of
        streams (JSON lines, events) are recorded from here. Whole bodies and pages are compared
        with their types instead (:func:`observe`), every field, not only those read."""
        diff = None if self._off else heard(found)
        if diff is None:
            return
        context = found.context
        self.note(
            context.method.upper(), context.path, context.status, media(context.media_type), [diff]
        )

    def note(
        self, method: str, path: str, status: int, media_type: str, found: list[Difference]
    ) -> None:
        """Count ``found`` (from one response); a difference not seen before is appended now."""
        if self._off or not found:
            return
        now = _now()
        lines: list[str] = []
        with self._lock:
            for diff in found:
                key = (method, path, status, media_type, replace(diff, documented=""))
                count = self._counts.get(key)
                if count is None:
                    fields = record_fields(method, path, status, media_type, diff)
                    self._counts[key] = _Count(fields)
                    lines.append(record_line(fields, 1, now, now))
                else:
                    count.first = count.first or now
                    count.last = now
                    count.pending += 1
            self._append(lines)

    def flush(self) -> None:
        """Append a line for each difference seen again since its last line (with that count)."""
        with self._lock:
            lines = []
            for count in self._counts.values():
                if count.pending:
                    lines.append(record_line(count.fields, count.pending, count.first, count.last))
                    count.pending, count.first = 0, ""
            self._append(lines)

    def _append(self, lines: list[str]) -> None:
        if not lines or self._off:
            return
        data = "".join(lines).encode("utf-8")
        try:
            os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, 0o600)
            try:
                if os.fstat(fd).st_size + len(data) > self.max_bytes:
                    self._stop(f"{self.path} reached its cap of {self.max_bytes} bytes")
                    return
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            self._stop(f"{self.path} cannot be written ({exc.strerror or exc})")

    def _stop(self, why: str) -> None:
        self._off = True
        warnings.warn(ShapesRecordingWarning(f"shape recording stopped: {why}"), stacklevel=5)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


_recorders: dict[tuple[str, int], Recorder] = {}
_recorders_lock = threading.Lock()


def recorder_for(folder: str | os.PathLike[str] | None) -> Recorder | None:
    """The recorder of ``folder`` (else ``$CUBE_RECORD_SHAPES``), or None when recording is off."""
    chosen = os.fspath(folder) if folder is not None else os.environ.get(RECORD_ENV, "")
    if not chosen:
        return None
    cap_text = os.environ.get(MAX_BYTES_ENV, "").strip()
    cap = int(cap_text) if cap_text.isdigit() and int(cap_text) > 0 else DEFAULT_MAX_BYTES
    key = (os.path.abspath(chosen), cap)
    with _recorders_lock:
        if key not in _recorders:
            _recorders[key] = Recorder(chosen, cap)
        return _recorders[key]


def observe(recorder: Recorder, method: str, path: str, response: Any, cast_to: Any) -> None:
    """Compare one JSON response with ``cast_to`` and note what differs (never raises)."""
    if cast_to is None or cast_to is object or not response.content:
        return
    if not recorder.sampled(method, path):
        return
    try:
        data = json.loads(response.content)
    except ValueError:
        return
    observe_data(recorder, method, path, response, cast_to, data, "")


def observe_data(
    recorder: Recorder,
    method: str,
    path: str,
    response: Any,
    tp: Any,
    data: Any,
    pointer: str,
) -> None:
    """Compare parsed ``data`` (found at ``pointer`` in the body) with ``tp``; note differences."""
    found: list[Difference] = []
    try:
        from ._shape_walk import walk

        walk(tp, data, pointer, found)
    except RecursionError:
        return
    recorder.note(
        method.upper(),
        path,
        response.status_code,
        media(response.headers.get("content-type", "").split(";")[0]),
        list(dict.fromkeys(found)),
    )
