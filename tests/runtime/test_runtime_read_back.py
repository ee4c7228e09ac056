"""Every field a server sends is read back, whatever class a process happens to read first.

A lazily built model validates a field when it is first read. Whether pydantic knows a field's
wire name at that moment depends on which classes were touched before (forward references are
resolved per class, on first need), so a read-back test in one process proves one order only.
Here each family's models get a body with every field set under its wire name, and fresh
processes read them in shuffled orders (two in make test, five with make test-heavy), comparing
every typed value with what was sent.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pydantic
import pytest

from tests.helpers import PACKAGE_ROOT, ensure_generated_importable

ensure_generated_importable()

FAMILIES = ("platform", "scim", "data", "chat")
# The shuffled orders: two in make test, three more in make test-heavy.
SEEDS = [
    pytest.param((1, 2), id="orders-1-2"),
    pytest.param((3, 4, 5), id="orders-3-5", marks=pytest.mark.heavy),
]

# A child process: read every sample in a shuffled order of classes, report what did not come back.
CHILD = """
import importlib, json, random, sys, warnings
sys.path[:0] = [sys.argv[3], sys.argv[3] + "/tests"]
from _cube_client_test_support import assert_reads_back
samples = json.load(open(sys.argv[1]))
random.Random(int(sys.argv[2])).shuffle(samples)
failures, fields = [], 0
for module, name, body in samples:
    cls = getattr(importlib.import_module(module), name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            assert_reads_back(cls._from_json(body), body, name)
        except AssertionError as exc:
            failures.append(str(exc).splitlines()[0])
    failures += [str(w.message) for w in caught if "required field missing" in str(w.message)]
    fields += len(body)
print(json.dumps({"failures": failures, "fields": fields, "models": len(samples)}))
"""


def _strip(tp: Any) -> Any:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


SKIP = object()  # a model the sample does not go into again (a cycle, or deep enough)


def sample(tp: Any, stack: tuple[type, ...] = ()) -> Any:
    """A JSON value of type ``tp``, every field of every model present under its wire name
    (but for fields that would go round a cycle)."""
    tp = _strip(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        members = [
            m for m in args if m is not type(None) and getattr(m, "__name__", "") != "Unknown"
        ]
        return sample(members[0], stack) if members else None
    if origin is typing.Literal:
        return args[0]
    if origin is list:
        item = sample(args[0], stack) if args else "item"
        return SKIP if item is SKIP else [item]
    if origin is dict:
        value = sample(args[1], stack) if len(args) == 2 else "value"
        return SKIP if value is SKIP else {"key": value}
    if isinstance(tp, type) and issubclass(tp, pydantic.RootModel):
        return sample(tp.model_fields["root"].annotation, stack)
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        if tp in stack or len(stack) > 8:
            return SKIP
        if not tp.__pydantic_complete__:
            tp.model_rebuild()
        body = {
            info.alias or name: sample(info.annotation, (*stack, tp))
            for name, info in tp.model_fields.items()
        }
        return {key: value for key, value in body.items() if value is not SKIP}
    simple = {
        str: "text",
        int: 7,
        float: 2.5,
        bool: True,
        datetime.datetime: "2024-05-06T07:08:09Z",
        datetime.date: "2024-05-06",
        bytes: "Ynl0ZXM=",
    }
    return simple.get(tp, {"free": ["form", 1]})


def samples_of(family: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every object model of a family with its sample body (built in this process, not the child)."""
    import importlib

    from cube_client._models import BaseModel

    module = importlib.import_module(f"cube_client.{family}.models")
    out = []
    for name in sorted(module.__all__):  # each class in its own module, loaded on first use
        cls = getattr(module, name)
        if isinstance(cls, type) and issubclass(cls, BaseModel):
            body = sample(cls)
            if isinstance(body, dict) and body and not _cut_required(cls, body):
                out.append((module.__name__, name, body))
    return out


def _cut_required(cls: Any, body: dict[str, Any]) -> bool:
    """Whether a required field was left out of ``body`` (only cycles do that)."""
    return any(
        info.is_required() and (info.alias or name) not in body
        for name, info in cls.model_fields.items()
    )


@pytest.mark.parametrize("seeds", SEEDS)
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.slow
def test_every_field_reads_back_in_any_order_of_first_reads(
    family: str, seeds: tuple[int, ...], tmp_path: Path
) -> None:
    samples = samples_of(family)
    assert samples, f"no models found for {family}"
    data = tmp_path / "samples.json"
    data.write_text(json.dumps(samples), encoding="utf-8")
    fields = 0
    for seed in seeds:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, str(data), str(seed), str(PACKAGE_ROOT)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert result["failures"] == [], f"seed {seed}: {result['failures'][:10]}"
        assert result["models"] == len(samples)
        fields = result["fields"]
    assert fields >= len(samples)
