"""YAML text in and out, with PyYAML: loaded only when a YAML text is parsed or written.

Read with the C safe loader (where PyYAML has it) and without implicit timestamps (a date
stays the string the author wrote); mapping keys are taken as the strings they are written as,
and a duplicate or non-string key is refused. The common shapes are read in one pass
(:mod:`generator.document.yaml_nodes`), anything else by the full constructor.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from generator.diagnostics import one_line, pointer
from generator.document.parse_rules import (
    MAX_DEPTH,
    MAX_NODES,
    DuplicateKey,
    Malformed,
    NonStringKey,
)
from generator.document.yaml_nodes import Unusual, plain_data

_BaseLoader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class KeysAsWritten(_BaseLoader):  # type: ignore[misc]
    """Safe loader that keeps timestamps as strings, reads every mapping key as the string it is
    written as, and refuses duplicate keys.

    OpenAPI's keys are strings: YAML 1.1 would read ``1``, ``true`` and ``yes`` as numbers and
    booleans, and ``1`` and ``true`` are the same Python key, so one entry would vanish. Keys are
    taken as written (``200`` is ``"200"``, ``yes`` is ``"yes"``); a key that is a list or a
    mapping is an error with its line.
    """

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[str, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *base` entries may be overridden by design
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise NonStringKey(line)
            if key_node.value in seen:
                raise DuplicateKey(key_node.value, line, seen[key_node.value])
            seen[key_node.value] = line
        self.flatten_mapping(node)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise NonStringKey(key_node.start_mark.line + 1)
            mapping[key_node.value] = self.construct_object(value_node, deep=deep)
        return mapping


KeysAsWritten.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def read(text: str, surrogates: re.Pattern[str] | None) -> tuple[Any, bool]:
    """The value of YAML ``text`` and whether it is plain data already (the one-pass reader's
    value; else the constructor's, which the loader still copies into plain data). Raises
    :class:`Malformed`, :class:`DuplicateKey`, :class:`NonStringKey` or ``RecursionError``;
    ``surrogates``: the pattern of lone surrogates, or None when the text cannot hold one."""
    try:
        try:  # the common shapes in one pass; anything unusual the thorough way below
            root = yaml.compose(text, Loader=KeysAsWritten)
            value = plain_data(
                root, max_depth=MAX_DEPTH, max_nodes=MAX_NODES, surrogates=surrogates
            )
            return value, True
        except Unusual:
            pass
        return yaml.load(text, Loader=KeysAsWritten), False
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise Malformed(f"malformed YAML{where}: {exc.problem or exc.context}") from None
    except (yaml.YAMLError, ValueError) as exc:
        raise Malformed(f"malformed document: {one_line(exc)}") from None


def duplicate(text: str, found: DuplicateKey) -> DuplicateKey | None:
    """``found`` with the pointer of the duplicate key, from the composed node tree."""
    try:
        root = yaml.compose(text, Loader=KeysAsWritten)
    except yaml.YAMLError:
        return None
    stack: list[tuple[Any, str]] = [(root, "")]
    seen: set[int] = set()
    while stack:
        node, ptr = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = str(key_node.value)
                if key_node.start_mark.line + 1 == found.line and key == found.key:
                    return DuplicateKey(found.key, found.line, found.first_line, ptr + pointer(key))
                stack.append((value_node, ptr + pointer(key)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, f"{ptr}/{i}") for i, v in enumerate(node.value))
    return None


def dump(doc: Any) -> str:
    dumper: type[Any] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return str(
        yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100, indent=2)
    )
