"""The one escaping point: every string from a document that reaches generated source passes here.

Two routes lead into source files. Our templates insert strings through :func:`py_str` (a string
literal), :func:`docstring_body` (text inside a triple-quoted docstring) and :func:`comment_text`
(one comment line). Schemas handed to the model generator go through :func:`sanitize_schema`,
which folds the text fields that library writes into docstrings and ``Field(...)`` arguments.
"""

from __future__ import annotations

import re
from typing import Any

MAX_TEXT = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029\ufeff\ud800-\udfff]")
_PLAIN = re.compile(r"[ !#-\[\]-~]*")  # printable ASCII but for the double quote and backslash
_QUOTE_RUN = re.compile(r'"(?=")|"$')
_DOC_TEXT_KEYS = ("description", "title", "summary")
_NAME_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def py_str(value: object) -> str:
    """A Python string literal for any text: only printable ASCII survives unescaped.

    The quotes are the formatter's choice: double, unless the text holds more double quotes
    than single ones, so generated code needs no formatting pass.
    """
    text = str(value)
    if _PLAIN.fullmatch(text):  # the common case: nothing to escape
        return f'"{text}"'
    quote = "'" if text.count('"') > text.count("'") else '"'
    return _literal(text, quote)


def toml_str(value: object) -> str:
    """A TOML basic string: always double-quoted (single quotes make TOML literal strings).

    The escapes used (``\\" \\\\ \\n \\t \\r \\uXXXX \\UXXXXXXXX``) mean the same
    in TOML and Python.
    """
    return _literal(str(value), '"')


def _literal(text: str, quote: str) -> str:
    out = [quote]
    for ch in text:
        code = ord(ch)
        if ch == quote:
            out.append("\\" + quote)
        elif ch == "\\":
            out.append("\\\\")
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif code <= 0xFFFF:  # ``\\uXXXX``, not ``\\xXX``: valid in TOML strings as well
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append(quote)
    return "".join(out)


def clean_text(value: object, limit: int = MAX_TEXT) -> str:
    """Prose from a document with control and line-separator characters removed, bounded."""
    text = _CONTROL.sub(" ", str(value)).replace("\r\n", "\n").replace("\r", "\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def docstring_body(value: object, indent: int = 0, limit: int = MAX_TEXT) -> str:
    """Text safe inside a regular (non-raw) triple-quoted docstring whose quotes stand at column
    ``indent``, laid out as the formatter leaves docstrings: lines after the first moved to that
    column (their own relative indentation kept), no trailing spaces."""
    text = clean_text(value, limit).strip().replace("\\", "\\\\")
    # a quote followed by a quote, or the last character, is escaped: no run of three
    # unescaped quotes, and no quote that would merge with the closing ones
    text = _QUOTE_RUN.sub('\\\\"', text)
    first, *rest = [line.rstrip() for line in text.split("\n")]
    if not rest:
        return first
    rest = [_expand_indentation(line) for line in rest]
    margin = min((len(ln) - len(ln.lstrip(" ")) for ln in rest if ln), default=0)
    pad = " " * indent
    return "\n".join([first, *(pad + ln[margin:] if ln else "" for ln in rest)])


def _expand_indentation(line: str) -> str:
    """Tabs in a line's indentation as spaces, to the next multiple of eight."""
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)].expandtabs(8) + body


def comment_text(value: object, limit: int = 200) -> str:
    """One line of text safe after ``#``."""
    return " ".join(clean_text(value, limit).split())


def sanitize_schema(schema: Any) -> Any:
    """Copy of a schema whose prose fields are cleaned before the model generator reads them."""
    if isinstance(schema, list):
        return [sanitize_schema(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NAME_MAPS and isinstance(value, dict):
            out[key] = {name: sanitize_schema(sub) for name, sub in value.items()}
        elif key in _DOC_TEXT_KEYS and isinstance(value, str):
            out[key] = " ".join(clean_text(value, 500).replace("\\", "/").split())
        elif key in ("example", "examples") or key.startswith("x-"):
            continue  # never rendered into models; dropping them removes a route for hostile text
        else:
            out[key] = sanitize_schema(value)
    return out
