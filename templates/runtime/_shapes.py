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
(``_differences.report``), where the recorder listens.

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
import re
import threading
import warnings
from dataclasses import dataclass, replace
from typing import Any, Literal

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
FILE_NAME = "shapes.jsonl"
FORMAT = "cube-client-shapes"
VERSION = 1
MAX_NAME = 128
"""A field name longer than this is not recorded (a name, not a value, is what records hold)."""
MAX_VALUE = 128

Kind = Literal[
    "property-unknown",
    "enum-value-unknown",
    "null-not-allowed",
    "required-missing",
    "union-variant-unknown",
    "type-mismatch",
]


_THEIR_KINDS: dict[str, Kind] = {
    "extra-field": "property-unknown",
    "unknown-enum-value": "enum-value-unknown",
    "null": "null-not-allowed",
    "missing": "required-missing",
    "wrong-type": "type-mismatch",
    "unknown-variant": "union-variant-unknown",
}
_VALUE_KINDS = frozenset({"enum-value-unknown", "union-variant-unknown"})
_DOCUMENTED: dict[Kind, str] = {
    "property-unknown": "not listed",
    "enum-value-unknown": "enum",
    "null-not-allowed": "not null",
    "required-missing": "required",
    "type-mismatch": "another type",
    "union-variant-unknown": "union tag",
}
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]{0,127}")


def _safe_pointer(pointer: str) -> str:
    """A value's place as a shape: array indexes as ``-``, anything not name-like (a map's key
    is data) as ``*``."""
    if not pointer:
        return ""
    out = []
    for token in pointer[1:].split("/"):
        plain = token.replace("~1", "/").replace("~0", "~")
        out.append("-" if plain.isdigit() else token if _NAME.fullmatch(plain) else "*")
    return "/" + "/".join(out)


class ShapesRecordingWarning(UserWarning):
    """Recording stopped: the records file reached its size cap, or could not be written."""


@dataclass(frozen=True)
class Difference:
    """One way a response differed from the document, as a shape (see the module)."""

    kind: Kind
    pointer: str
    documented: str
    seen_type: str
    seen_format: str | None = None
    seen_value: str | int | float | bool | None = None


def json_type(value: Any) -> str:
    """The JSON type name of a parsed JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


_FORMATS = (
    (
        "date-time",
        re.compile(r"\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:?\d\d)?"),
    ),
    ("date", re.compile(r"\d{4}-\d\d-\d\d")),
    ("uuid", re.compile(r"[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")),
    ("email", re.compile(r"[^@\s]{1,64}@[^@\s]+\.[^@\s]+")),
    ("uri", re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")),
)


def string_format(value: Any) -> str | None:
    """The format a string value has, among those the document can state, or None."""
    if not isinstance(value, str) or len(value) > 2048:
        return None
    for name, pattern in _FORMATS:
        if pattern.fullmatch(value):
            return name
    return None


def escape_token(name: str) -> str:
    """One JSON pointer token (RFC 6901)."""
    return name.replace("~", "~0").replace("/", "~1")


def _shape_value(value: Any) -> str | int | float | bool | None:
    """An enum or tag value as recorded: scalars only, long strings never."""
    if isinstance(value, str):
        return value if len(value) <= MAX_VALUE else None
    if isinstance(value, bool | int | float):
        return value
    return None


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
        from ._differences import add_listener

        add_listener(self._hear)

    def sampled(self, method: str, path: str) -> bool:
        """Whether this response of the operation is compared whole (see the module)."""
        key = (method, path)
        with self._lock:
            seen = self._responses[key] = self._responses.get(key, 0) + 1
        return seen <= FIRST_WHOLE or seen % self.every == 0

    def _hear(self, found: Any) -> None:
        """The runtime's one point for differences (``_differences.report``): the values of
        streams (JSON lines, events) are recorded from here. Whole bodies and pages are compared
        with their types instead (:func:`observe`), every field, not only those read."""
        context = found.context
        kind = _THEIR_KINDS.get(str(found.kind))
        if self._off or not context.part or kind is None or not context.status:
            return
        seen = found.seen
        absent = kind == "required-missing"
        value = _shape_value(seen) if kind in _VALUE_KINDS else None
        diff = Difference(
            kind,
            _safe_pointer(found.pointer),
            _DOCUMENTED[kind],
            "absent" if absent else json_type(seen),
            None if absent else string_format(seen),
            value,
        )
        media = context.media_type.lower()
        self.note(
            context.method.upper(),
            context.path,
            context.status,
            media if _MEDIA.fullmatch(media) else "application/json",
            [diff],
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
                    fields = _fields(method, path, status, media_type, diff)
                    self._counts[key] = _Count(fields)
                    lines.append(_line(fields, 1, now, now))
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
                    lines.append(_line(count.fields, count.pending, count.first, count.last))
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


def _fields(
    method: str, path: str, status: int, media_type: str, diff: Difference
) -> dict[str, Any]:
    from ._version import DISTRIBUTION, __version__

    seen: dict[str, Any] = {"type": diff.seen_type}
    if diff.seen_format:
        seen["format"] = diff.seen_format
    if diff.kind in _VALUE_KINDS and diff.seen_value is not None:
        seen["value"] = diff.seen_value
    return {
        "format": FORMAT,
        "version": VERSION,
        "package": DISTRIBUTION,
        "package_version": __version__,
        "operation": {"method": method, "path": path},
        "status": status,
        "media_type": media_type,
        "kind": diff.kind,
        "pointer": diff.pointer,
        "documented": diff.documented,
        "seen": seen,
    }


def _line(fields: dict[str, Any], count: int, first: str, last: str) -> str:
    return json.dumps({**fields, "count": count, "first": first, "last": last}) + "\n"


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


_MEDIA = re.compile(r"[A-Za-z0-9!#$&^_.+-]{1,64}/[A-Za-z0-9!#$&^_.+-]{1,64}")


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
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
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
        media if _MEDIA.fullmatch(media) else "application/json",
        list(dict.fromkeys(found)),
    )
