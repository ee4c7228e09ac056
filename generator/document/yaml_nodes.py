"""Plain data straight from a composed YAML node tree: the common case of a document, fast.

PyYAML's constructor builds every value through a chain of Python calls and then the loader
copies the result once more into plain JSON types. Documents are almost always mappings,
sequences and plain scalars; this walk turns those nodes into the same plain data in one
pass. Anything else (an explicit tag such as ``!!binary``, a merge key, a duplicate or
non-string key, NaN, a lone surrogate, nesting or alias expansion past the limits) raises
:class:`Unusual`, and the loader reads the text the thorough way, which gives the same data
or the same diagnostic as before. The fast path never decides an error.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_REAL = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_KEY_TAGS = frozenset({_STR, _INT, _FLOAT, _BOOL, _NULL})  # read as written, like the loader
_BOOLS = yaml.constructor.SafeConstructor.bool_values


class Unusual(Exception):
    """The tree holds something only the full constructor reads the same way."""


def plain_data(
    root: Any, *, max_depth: int, max_nodes: int, surrogates: re.Pattern[str] | None
) -> Any:
    """The JSON-typed value of ``root`` (a composed node, or None for an empty text).

    ``surrogates`` is the pattern of lone surrogates, or None when the text cannot hold one.
    Aliases are copied at each use, as the loader's copy does, and count toward ``max_nodes``.
    """
    if root is None:
        return None
    out: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(root, out, 0, 0)]
    count = 0
    scalar = yaml.ScalarNode
    mapping = yaml.MappingNode
    while stack:
        node, parent, key, depth = stack.pop()
        count += 1
        if count > max_nodes or depth > max_depth:
            raise Unusual
        cls = node.__class__
        tag = node.tag
        if cls is scalar:
            parent[key] = _scalar(node.value, tag, surrogates)
        elif cls is mapping:
            if tag != _MAP:
                raise Unusual
            value: dict[str, Any] = {}
            for key_node, value_node in node.value:
                name = key_node.value
                if key_node.__class__ is not scalar or key_node.tag not in _KEY_TAGS:
                    raise Unusual  # a merge key, a list or a mapping as a key
                if name in value or (surrogates is not None and surrogates.search(name)):
                    raise Unusual
                value[name] = None
                stack.append((value_node, value, name, depth + 1))
            parent[key] = value
        else:
            if tag != _SEQ or not isinstance(node, yaml.SequenceNode):
                raise Unusual
            items: list[Any] = [None] * len(node.value)
            for i, item in enumerate(node.value):
                stack.append((item, items, i, depth + 1))
            parent[key] = items
    return out[0]


def _scalar(text: str, tag: str, surrogates: re.Pattern[str] | None) -> Any:
    if tag == _STR:
        if surrogates is not None and surrogates.search(text):
            raise Unusual
        return text
    if tag == _INT and _DECIMAL.fullmatch(text):
        return int(text)
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return _BOOLS[text.lower()]
    if tag == _FLOAT and _REAL.fullmatch(text):
        return float(text)
    raise Unusual  # 0x1F, 0o17, 1_000, 1:30, .inf, explicit tags: the constructor's business
