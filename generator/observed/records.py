"""Shape records, as the SDK writes them (``record_shapes=DIR``), read as untrusted input.

Records come from other teams' machines: every file is size-capped, every line is validated
against format version 1 field by field (a bad line is one diagnostic naming the file, the line
and the field, exit 2), and names are only ever used after the checks here. Lines that say the
same thing (operation, status, media type, kind, pointer, seen shape) are merged into one
:class:`Observation`: counts added, the first and last times widened, package versions joined.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic, one_line

FORMAT = "cube-client-shapes"
VERSION = 1
FILE_SUFFIX = ".jsonl"
MAX_FILE_BYTES = 8 * 1024 * 1024
"""A records file larger than this is refused (the SDK caps its own file at 1 MB)."""
MAX_FILES = 1000
MAX_LINE = 8192
MAX_OBSERVATIONS = 20_000
KINDS = frozenset(
    {
        "property-unknown",
        "enum-value-unknown",
        "null-not-allowed",
        "required-missing",
        "union-variant-unknown",
        "type-mismatch",
    }
)
VALUE_KINDS = frozenset({"enum-value-unknown", "union-variant-unknown"})
JSON_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})
FORMATS = frozenset({"date-time", "date", "uuid", "email", "uri"})

_METHOD = re.compile(r"[A-Z]{1,16}")
_PATH = re.compile(r"/[\x21-\x7e]{0,1023}")
_MEDIA = re.compile(r"[A-Za-z0-9!#$&^_.+-]{1,64}/[A-Za-z0-9!#$&^_.+-]{1,64}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_VERSION = re.compile(r"[A-Za-z0-9.+!_-]{1,64}")
_DOCUMENTED = re.compile(r"[A-Za-z |-]{1,64}")
_TOKEN_MAX = 128
_POINTER_MAX = 1024
_KEYS = frozenset(
    {
        "format",
        "version",
        "package",
        "package_version",
        "operation",
        "status",
        "media_type",
        "kind",
        "pointer",
        "documented",
        "seen",
        "count",
        "first",
        "last",
    }
)


@dataclass(frozen=True)
class Seen:
    """What the response held: a JSON type, a recognised string format, an enum or tag value."""

    type: str
    format: str | None = None
    value: str | int | float | bool | None = None


@dataclass(frozen=True)
class Observation:
    """One difference, merged over every line and file that reported it."""

    method: str
    path: str
    status: int
    media_type: str
    kind: str
    pointer: str
    seen: Seen
    documented: str = ""
    count: int = 0
    first: str = ""
    last: str = ""
    versions: tuple[str, ...] = ()
    source: str = ""  # the first file and line that reported it, for messages

    @property
    def key(self) -> tuple[Any, ...]:
        return (
            self.method,
            self.path,
            self.status,
            self.media_type,
            self.kind,
            self.pointer,
            self.seen,
        )

    @property
    def tokens(self) -> list[str]:
        """The pointer's tokens, unescaped (RFC 6901)."""
        if not self.pointer:
            return []
        return [t.replace("~1", "/").replace("~0", "~") for t in self.pointer[1:].split("/")]

    @property
    def operation(self) -> str:
        return f"{self.method} {self.path}"


def _bad(file: str, line: int, field: str, message: str) -> CodegenError:
    ptr = f"/{line}" + (f"/{field}" if field else "")
    return CodegenError(Diagnostic("records-invalid", "error", file, ptr, message))


def record_files(inputs: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The ``*.jsonl`` files of each folder given (not recursive), and each file given, sorted."""
    found: list[Path] = []
    for given in inputs:
        path = Path(given)
        if path.is_dir() and not path.is_symlink():
            found.extend(sorted(p for p in path.iterdir() if p.name.endswith(FILE_SUFFIX)))
        else:
            found.append(path)
    if len(found) > MAX_FILES:
        raise _bad(str(inputs), 0, "", f"{len(found)} records files; at most {MAX_FILES} are read")
    return found


def _read(path: Path) -> str:
    file = str(path)
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        raise CodegenError(
            Diagnostic("file-not-found", "error", file, "", "no such file")
        ) from None
    except OSError as exc:
        raise _bad(file, 0, "", f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _bad(file, 0, "", "not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise _bad(file, 0, "", f"{info.st_size} bytes exceeds the {MAX_FILE_BYTES}-byte cap")
        data = handle.read(MAX_FILE_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _bad(file, 0, "", f"not UTF-8 text (byte {exc.start})") from None


def read_observations(inputs: Iterable[str | os.PathLike[str]]) -> list[Observation]:
    """Every observation in ``inputs`` (folders or files), merged, in first-seen order."""
    merged: dict[tuple[Any, ...], Observation] = {}
    for path in record_files(inputs):
        for obs in _lines(str(path), _read(path)):
            had = merged.get(obs.key)
            merged[obs.key] = obs if had is None else _merge(had, obs)
            if len(merged) > MAX_OBSERVATIONS:
                raise _bad(str(path), 0, "", f"more than {MAX_OBSERVATIONS} distinct differences")
    return list(merged.values())


def _lines(file: str, text: str) -> Iterator[Observation]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise _bad(file, number, "", f"line longer than {MAX_LINE} characters")
        try:
            raw = json.loads(line)
        except ValueError as exc:
            raise _bad(file, number, "", f"not JSON ({one_line(exc, 80)})") from None
        yield parse_record(raw, file, number)


def _merge(a: Observation, b: Observation) -> Observation:
    return Observation(
        a.method,
        a.path,
        a.status,
        a.media_type,
        a.kind,
        a.pointer,
        a.seen,
        a.documented or b.documented,
        a.count + b.count,
        min(a.first, b.first),
        max(a.last, b.last),
        tuple(sorted({*a.versions, *b.versions})),
        a.source,
    )


def _field(
    raw: dict[str, Any], name: str, kind: type | tuple[type, ...], file: str, line: int
) -> Any:
    value = raw.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise _bad(file, line, name, "missing or of the wrong type")
    return value


def _match(pattern: re.Pattern[str], value: str, file: str, line: int, field: str) -> str:
    if not pattern.fullmatch(value):
        raise _bad(file, line, field, f"not a valid value: {one_line(value, 60)!r}")
    return value


def parse_record(raw: Any, file: str, line: int) -> Observation:
    """One record line, checked field by field (see the module)."""
    if not isinstance(raw, dict):
        raise _bad(file, line, "", "a record is a JSON object")
    if raw.get("format") != FORMAT:
        raise _bad(file, line, "format", f"not a {FORMAT} record")
    version = raw.get("version")
    if version != VERSION:
        raise _bad(
            file,
            line,
            "version",
            f"format version {one_line(version, 20)} (this tool reads {VERSION})",
        )
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise _bad(file, line, one_line(unknown[0], 40), "a field the format does not have")
    operation = _field(raw, "operation", dict, file, line)
    method = _match(
        _METHOD, _field(operation, "method", str, file, line), file, line, "operation/method"
    )
    path = _match(_PATH, _field(operation, "path", str, file, line), file, line, "operation/path")
    status = _field(raw, "status", int, file, line)
    if not 100 <= status <= 599:
        raise _bad(file, line, "status", "not an HTTP status")
    kind = _field(raw, "kind", str, file, line)
    if kind not in KINDS:
        raise _bad(file, line, "kind", f"unknown kind {one_line(kind, 40)!r}")
    count = _field(raw, "count", int, file, line)
    if not 1 <= count <= 10**12:
        raise _bad(file, line, "count", "not a count")
    return Observation(
        method,
        path,
        status,
        _match(_MEDIA, _field(raw, "media_type", str, file, line), file, line, "media_type"),
        kind,
        _pointer(_field(raw, "pointer", str, file, line), file, line),
        _seen(_field(raw, "seen", dict, file, line), kind, file, line),
        _match(_DOCUMENTED, _field(raw, "documented", str, file, line), file, line, "documented"),
        count,
        _match(_TIME, _field(raw, "first", str, file, line), file, line, "first"),
        _match(_TIME, _field(raw, "last", str, file, line), file, line, "last"),
        (
            _match(
                _VERSION,
                _field(raw, "package_version", str, file, line),
                file,
                line,
                "package_version",
            ),
        ),
        f"{file}:{line}",
    )


def _pointer(value: str, file: str, line: int) -> str:
    """A body pointer: tokens of printable characters, none longer than a name may be."""
    if value and (not value.startswith("/") or len(value) > _POINTER_MAX):
        raise _bad(file, line, "pointer", "not a JSON pointer")
    for token in value[1:].split("/") if value else []:
        plain = token.replace("~1", "/").replace("~0", "~")
        if (
            not plain
            or len(plain) > _TOKEN_MAX
            or not plain.isprintable()
            or re.search(r"~(?![01])", token)
        ):
            raise _bad(file, line, "pointer", f"not a field name: {one_line(token, 40)!r}")
    return value


def _seen(raw: dict[str, Any], kind: str, file: str, line: int) -> Seen:
    if set(raw) - {"type", "format", "value"}:
        raise _bad(file, line, "seen", "a field the format does not have")
    kind_type = raw.get("type")
    if kind_type not in JSON_TYPES and not (kind == "required-missing" and kind_type == "absent"):
        raise _bad(file, line, "seen/type", f"not a JSON type: {one_line(kind_type, 40)!r}")
    fmt = raw.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise _bad(file, line, "seen/format", f"not a recognised format: {one_line(fmt, 40)!r}")
    value = raw.get("value")
    if "value" in raw:
        if kind not in VALUE_KINDS:
            raise _bad(file, line, "seen/value", "a value where the record may hold none")
        if not isinstance(value, str | int | float | bool) or (
            isinstance(value, str) and (len(value) > _TOKEN_MAX or not value.isprintable())
        ):
            raise _bad(file, line, "seen/value", "not an enum value")
    return Seen(str(kind_type), fmt, value)
