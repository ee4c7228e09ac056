"""Read one YAML or JSON document from disk or bytes, defensively.

Documents are untrusted: size and nesting are bounded, YAML is read with the C safe loader and
without implicit timestamps (a date stays the string the author wrote), mapping keys become
strings (``200:`` is the status code ``"200"``), and every failure is a one-line diagnostic.
The YAML parser (:mod:`generator.document.yaml_text`) is loaded only for a YAML text: a JSON
document, or a YAML one kept parsed (:mod:`generator.document.parsed_cache`), never needs it.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from generator.diagnostics import CodegenError, Diagnostic, one_line, pointer
from generator.document import parsed_cache
from generator.document.parse_rules import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_NODES,
    DuplicateKey,
    Malformed,
    NonStringKey,
)
from generator.document.parse_rules import SURROGATE as _SURROGATE
from generator.document.sandbox import regular_file

__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "DuplicateKey", "NonStringKey"]
# The only way JSON text decoded from UTF-8 can carry a lone surrogate: a \uD800-\uDFFF escape
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


_BRACKETS = re.compile(r"[\[\]{}]")


def _check_flow_depth(text: str, file: str) -> None:
    """Refuse flow nesting (``[[[...`` or ``{{{...``) deeper than :data:`MAX_DEPTH` before the
    YAML parser sees it: some tens of thousands of levels crash the process in native code,
    beyond what any Python exception can catch. Brackets are counted without regard to quoting,
    so a text with hundreds of unbalanced brackets inside strings is refused too (no OpenAPI
    document has them)."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth = depth + 1 if match.group() in "[{" else max(depth - 1, 0)
        if depth > MAX_DEPTH:
            line = text.count("\n", 0, match.start()) + 1
            raise _fail(file, "", f"nesting is deeper than {MAX_DEPTH} levels (line {line})")


def _shown(ptr: str, parts: int = 12) -> str:
    """A pointer short enough for one line: its first ``parts`` steps, then an ellipsis."""
    steps = ptr.split("/")
    return ptr if len(steps) <= parts + 1 else "/".join(steps[: parts + 1]) + "/…"


def _fail(file: str, ptr: str, message: str, id: str = "document-unreadable") -> CodegenError:
    return CodegenError(Diagnostic(id, "error", file, ptr, message))


def is_json_name(name: str) -> bool:
    return name.lower().endswith(".json")


def parse_text(text: str, file: str, *, as_json: bool | None = None) -> Any:
    """Parse YAML or JSON text (JSON when ``as_json`` or when the text starts with ``{``/``[``)."""
    if as_json is None:
        as_json = text.lstrip()[:1] in ("{", "[")
    try:
        if as_json:
            raw = json.loads(
                text, parse_constant=_reject_constant, object_pairs_hook=_unique_object
            )
            if _json_within_bounds(raw, surrogates=_SURROGATE_ESCAPE.search(text) is not None):
                return raw  # already plain data; anything else is named by normalise below
        else:
            _check_flow_depth(text, file)
            from generator.document import yaml_text  # YAML's parser, for a YAML text only

            escapes = "\\u" in text or "\\U" in text or _SURROGATE.search(text)
            raw, plain = yaml_text.read(text, _SURROGATE if escapes else None)
            if plain:
                return raw
    except NonStringKey as exc:
        message = f"a mapping key at line {exc.line} is a list or a mapping, not a string"
        raise _fail(file, "", message) from None
    except DuplicateKey as exc:
        exc = (_json_duplicate(text) if as_json else _yaml_duplicate(text, exc)) or exc
        raise _fail(file, exc.pointer, exc.message(), id="duplicate-key") from None
    except RecursionError:
        raise _fail(file, "", f"nesting is deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        msg = f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        raise _fail(file, "", msg) from None
    except Malformed as exc:
        raise _fail(file, "", str(exc)) from None
    except ValueError as exc:
        raise _fail(file, "", f"malformed document: {one_line(exc)}") from None
    return normalise(raw, file)


def _json_within_bounds(raw: Any, *, surrogates: bool) -> bool:
    """Whether parsed JSON is already what :func:`normalise` makes of it: JSON gives string
    keys, plain types and no shared nodes, so only its depth and size, and (when the text has a
    ``\\uD800``-``\\uDFFF`` escape) lone surrogates, are checked, without copying."""
    if not isinstance(raw, (dict, list)):
        return not (surrogates and isinstance(raw, str) and _SURROGATE.search(raw))
    count = 1
    stack: list[tuple[Any, int]] = [(raw, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= MAX_DEPTH and node:
            return False  # its values lie deeper than the bound
        count += len(node)
        values = node.values() if isinstance(node, dict) else node
        if surrogates and isinstance(node, dict) and any(_SURROGATE.search(k) for k in node):
            return False
        for v in values:
            if isinstance(v, (dict, list)):
                stack.append((v, depth + 1))
            elif surrogates and isinstance(v, str) and _SURROGATE.search(v):
                return False
    return count <= MAX_NODES


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key, 0, None)  # the line is found by _json_duplicate
            seen.add(key)
    return out


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')


class _Frame:
    __slots__ = ("index", "key", "keys", "ptr")

    def __init__(self, ptr: str, keys: dict[str, int] | None) -> None:
        self.ptr, self.keys, self.key, self.index = ptr, keys, "", 0

    def child(self) -> str:
        return self.ptr + (pointer(self.key) if self.keys is not None else f"/{self.index}")


def _json_duplicate(text: str) -> DuplicateKey | None:
    """The first duplicate key of JSON ``text``, with its lines and the pointer of the second
    occurrence (run only once a duplicate was found, so the text is known to be JSON)."""
    stack: list[_Frame] = []
    pending: tuple[str, int] | None = None
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            ptr = stack[-1].child() if stack else ""
            stack.append(_Frame(ptr, {} if token == "{" else None))
        elif token in "}]":
            if stack:
                stack.pop()
        elif token == ",":
            if stack and stack[-1].keys is None:
                stack[-1].index += 1
        elif token == ":":
            top = stack[-1] if stack else None
            if pending is not None and top is not None and top.keys is not None:
                key, line = pending
                top.key = key
                if key in top.keys:
                    return DuplicateKey(key, line, top.keys[key], top.child())
                top.keys[key] = line
        else:
            pending = (json.loads(token), text.count("\n", 0, match.start()) + 1)
            continue
        pending = None
    return None


def _yaml_duplicate(text: str, found: DuplicateKey) -> DuplicateKey | None:
    from generator.document import yaml_text

    return yaml_text.duplicate(text, found)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def normalise(raw: Any, file: str) -> Any:
    """Copy into plain JSON types: string keys, no NaN, bounded depth; iterative, no recursion."""
    root: list[Any] = [None]
    stack: list[tuple[Any, list[Any] | dict[str, Any], str | int, int, str]] = [
        (raw, root, 0, 0, "")
    ]
    count = 0
    while stack:
        value, parent, key, depth, ptr = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise _fail(
                file,
                "",
                f"document expands to more than {MAX_NODES:,} values (nested YAML aliases?)",
            )
        if depth > MAX_DEPTH:
            raise _fail(file, _shown(ptr), f"nesting is deeper than {MAX_DEPTH} levels")
        out: Any
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if isinstance(k, bool) or k is None:
                    sk = "null" if k is None else ("true" if k else "false")
                elif isinstance(k, (str, int)):
                    sk = str(k)
                    if _SURROGATE.search(sk):
                        raise _fail(file, ptr, "a key with a lone UTF-16 surrogate is not Unicode")
                elif isinstance(k, float) and math.isfinite(k):
                    sk = repr(k)
                else:
                    raise _fail(file, ptr, f"mapping key {one_line(repr(k), 60)} is not a string")
                out[sk] = None
                stack.append((v, out, sk, depth + 1, ptr + pointer(sk)))
        elif isinstance(value, (list, tuple)):
            out = [None] * len(value)
            for i, v in enumerate(value):
                stack.append((v, out, i, depth + 1, f"{ptr}/{i}"))
        elif isinstance(value, float) and not math.isfinite(value):
            raise _fail(file, ptr, "NaN and infinity are not JSON numbers")
        elif isinstance(value, str) and _SURROGATE.search(value):
            raise _fail(
                file, ptr, "text with a lone UTF-16 surrogate (\\uD800-\\uDFFF) is not Unicode"
            )
        elif value is None or isinstance(value, (str, int, float, bool)):
            out = value
        else:  # dates, binary, sets from explicit YAML tags
            out = str(value)
        parent[key] = out  # type: ignore[index]
    return root[0]


def load_document(path: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES) -> Any:
    """Load a YAML or JSON file; raises :class:`CodegenError` with a one-line reason."""
    return parse_document(document_bytes(path, max_bytes=max_bytes), str(path))


def document_bytes(path: str | os.PathLike[str], *, max_bytes: int = MAX_BYTES) -> bytes:
    """A document file's bytes: a regular file within ``max_bytes``; raises
    :class:`CodegenError` with a one-line reason."""
    p = Path(path)
    file = str(path)
    regular_file(p, file)  # /dev/zero or a pipe would never end
    try:
        size = p.stat().st_size
        if size > max_bytes:
            mb = size / 1024 / 1024
            raise _fail(
                file, "", f"{mb:.1f} MB exceeds the {max_bytes // 1024 // 1024} MB document limit"
            )
        return p.read_bytes()
    except FileNotFoundError:
        raise _fail(file, "", "no such file", id="file-not-found") from None
    except IsADirectoryError:
        raise _fail(file, "", "is a directory, not a document", id="file-not-found") from None
    except OSError as exc:
        raise _fail(file, "", f"cannot read: {exc.strerror}") from None


def parse_document(data: bytes, file: str, *, clean: bool = False) -> Any:
    """The document ``data`` (the bytes of ``file``) holds. ``clean``: the run state knows
    these very bytes parse without error (:mod:`generator.document.known_documents`), so JSON is
    read without the checks a clean document never needs (every object's keys compared while
    parsing, the depth and size walked after)."""
    if is_json_name(file):
        if clean:
            return json.loads(data.decode("utf-8-sig"))
        return parse_bytes(data, file, as_json=True)
    return parsed_cache.parsed(data, lambda: parse_bytes(data, file))


def parse_bytes(data: bytes, file: str, *, as_json: bool | None = None) -> Any:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(file, "", f"not UTF-8 text (byte {exc.start})") from None
    if "\x00" in text:
        raise _fail(file, "", "contains a NUL byte; not a text document")
    return parse_text(text, file, as_json=as_json)


def dump_json(doc: Any) -> str:
    """Stable JSON: sorted keys would reorder paths, so insertion order is kept as written."""
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def dump_yaml(doc: Any) -> str:
    from generator.document import yaml_text  # YAML's writer, loaded when one is written

    return yaml_text.dump(doc)
