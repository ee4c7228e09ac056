"""The one-pass YAML reader (document/yaml_nodes) gives exactly what the full constructor and
the loader's copy give, and hands every unusual shape to them rather than deciding it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from generator.diagnostics import CodegenError
from generator.document import loader, yaml_text
from generator.document.yaml_nodes import Unusual, plain_data

LIMITS: dict[str, Any] = {"max_depth": loader.MAX_DEPTH, "max_nodes": loader.MAX_NODES}


def thorough(text: str) -> Any:
    return loader.normalise(yaml.load(text, Loader=yaml_text.KeysAsWritten), "t.yaml")


def fast(text: str) -> Any:
    root = yaml.compose(text, Loader=yaml_text.KeysAsWritten)
    return plain_data(root, surrogates=loader._SURROGATE, **LIMITS)


COMMON = {
    "scalars": "a: 1\nb: -7\nc: 2.5\nd: -0.0\ne: .5\nf: 1.0e+3\ng: true\nh: No\ni: ~\nj: ''\nk: x\n",
    "quoted numbers stay text": "a: '1'\nb: \"2.5\"\nc: 'true'\nd: 'null'\n",
    "keys as written": "200: a\ntrue: b\n1.5: c\nnull: d\n~: e\nyes: f\n",
    "dates stay text": "created: 2024-01-02\nat: 2024-01-02T03:04:05Z\n",
    "nesting and lists": "a:\n  - {b: [1, 2, {c: d}]}\n  - []\n  - {}\nempty:\n",
    "aliases are copied": "base: &b {x: [1, 2]}\none: *b\ntwo: *b\n",
    "unicode": 'name: naïve ✓\nemoji: "\\U0001F600"\n',
    "empty document": "",
    "a bare scalar": "just text\n",
}

UNUSUAL = {
    "hex integer": "a: 0x1F\n",
    "octal integer": "a: 017\n",
    "underscored integer": "a: 1_000\n",
    "sexagesimal": "a: 1:30\n",
    "infinity": "a: .inf\n",
    "not a number": "a: .nan\n",
    "merge key": "base: &b {x: 1}\nthing:\n  <<: *b\n  y: 2\n",
    "explicit binary": "a: !!binary aGVsbG8=\n",
    "explicit timestamp": "a: !!timestamp 2024-01-02\n",
    "explicit set": "a: !!set {x, y}\n",
    "ordered map": "a: !!omap [{x: 1}]\n",
    "duplicate key": "a: 1\na: 2\n",
    "number and text key collide": "200: a\n'200': b\n",
    "list as key": "? [1, 2]\n: x\n",
}


@pytest.mark.parametrize("text", COMMON.values(), ids=COMMON.keys())
def test_common_shapes_read_the_same_in_one_pass(text: str) -> None:
    expected = thorough(text)
    got = fast(text)
    assert got == expected
    assert repr(got) == repr(expected)  # 1 and True, 1 and 1.0 told apart


@pytest.mark.parametrize("text", UNUSUAL.values(), ids=UNUSUAL.keys())
def test_unusual_shapes_go_the_thorough_way_with_the_same_outcome(text: str) -> None:
    with pytest.raises(Unusual):
        fast(text)
    try:
        expected: Any = thorough(text)
    except (CodegenError, yaml.YAMLError, loader.DuplicateKey, loader.NonStringKey) as exc:
        expected = type(exc)
    try:
        got: Any = loader.parse_text(text, "t.yaml", as_json=False)
    except CodegenError as exc:
        got = type(exc)
    if isinstance(expected, type):  # the thorough path's error, as the loader reports it
        assert got is CodegenError
    else:
        assert repr(got) == repr(expected)


def test_alias_expansion_past_the_limit_is_left_to_the_thorough_path() -> None:
    text = "a: &a [1, 2, 3, 4]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n"
    root = yaml.compose(text, Loader=yaml_text.KeysAsWritten)
    assert plain_data(root, surrogates=None, max_depth=256, max_nodes=200)["c"][3][3] == [
        1,
        2,
        3,
        4,
    ]
    with pytest.raises(Unusual):
        plain_data(root, surrogates=None, max_depth=256, max_nodes=20)
    with pytest.raises(Unusual):
        plain_data(root, surrogates=None, max_depth=2, max_nodes=200)


def test_a_lone_surrogate_is_left_to_the_thorough_path() -> None:
    """libyaml refuses the escape itself; a node carrying one is still never passed on."""
    key = yaml.ScalarNode("tag:yaml.org,2002:str", "a")
    value = yaml.ScalarNode("tag:yaml.org,2002:str", "x\ud800")
    root = yaml.MappingNode("tag:yaml.org,2002:map", [(key, value)])
    assert plain_data(root, surrogates=None, **LIMITS) == {"a": "x\ud800"}  # not looked for
    with pytest.raises(Unusual):
        plain_data(root, surrogates=loader._SURROGATE, **LIMITS)


def test_every_shared_yaml_document_reads_the_same(shared_dir: Path) -> None:
    """The published documents and the corpus: the fast path is taken and agrees."""
    files = sorted((shared_dir / "specs").rglob("*.yaml"))
    assert files
    compared = 0
    for path in files:
        text = path.read_text(encoding="utf-8-sig")
        try:
            expected = thorough(text)
        except Exception:  # unreadable inputs are other tests' business
            continue
        try:
            got = fast(text)
        except Unusual:
            continue
        assert repr(got) == repr(expected), path
        compared += 1
    assert compared >= len(files) // 2
