"""A lazily built model's fields read as their validators make them, whichever path a read takes.

The first read of an instance keeps every field whose raw value already is its typed value,
without the validator (see ``_lazy`` and ``_field_plans``); every other value goes through it.
Here every field of every generated model is read from a spread of JSON values and compared
with what the field's own validator makes of the same value: equal and of the same type when
it validates, kept as received with a warning naming the field when it does not. Then what
stays lazy: fields nobody reads are never validated (no warning), nested models are built only
when read, a value the caller set stays, and a field sent under its own name is still found.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib
import json
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Annotated, Any

import pydantic
import pytest

from tests.helpers import ROOT, ensure_generated_importable

ensure_generated_importable()

from cube_client._differences import _QUIET as QUIET  # noqa: E402
from cube_client._differences import add_listener, remove_listener  # noqa: E402
from cube_client._field_plans import accepts  # noqa: E402
from cube_client._lenient import NOWHERE  # noqa: E402
from cube_client._models import (  # noqa: E402
    BaseModel,
    Unknown,
    Where,
    adapter,
    construct,
    lazy_builder,
)
from cube_client.platform.models import (  # noqa: E402
    DeploymentEnvironment,
    DeploymentEnvironmentApiCredential,
    PageInfo,
)

FAMILIES = ("platform", "scim", "data", "chat")
PROBES: tuple[Any, ...] = ("x", "", 0, 1, -1, 2**70, 1.5, float("inf"), True, False, None, {}, [])


def _classes() -> list[type[BaseModel]]:
    found = []
    for family in FAMILIES:
        models = importlib.import_module(f"cube_client.{family}.models")
        for name in models.__all__:
            cls = getattr(models, name)
            if isinstance(cls, type) and issubclass(cls, BaseModel):
                found.append(cls)
    return found


def _plain_fields() -> dict[str, tuple[type[BaseModel], str, str, Any]]:
    """One field for each distinct type a field may keep raw values of: its class, name, wire
    name and validated type."""
    fields: dict[str, tuple[type[BaseModel], str, str, Any]] = {}
    for cls in _classes():
        cls.model_rebuild()
        for name, info in cls.model_fields.items():
            tp = Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation
            if accepts(info.annotation, info.metadata) is not None:
                kind = re.sub(r" object at 0x[0-9a-f]+", " object", repr(tp))  # one per run
                fields.setdefault(kind, (cls, name, info.alias or name, tp))
    return fields


@functools.cache
def _plain() -> dict[str, tuple[type[BaseModel], str, str, Any]]:
    return _plain_fields()


# the kinds found by the last collection, by what they are found from
KINDS_KEPT = ROOT / ".cache" / "plain-field-kinds"


def _plain_kinds() -> list[str]:
    """The kinds of :func:`_plain_fields`, named at collection: by each pytest-xdist worker,
    though only the one that runs the tests needs the classes. The first finds them (loading
    every class: about 1.6 CPU s) and keeps them by the package's text and the libraries', and
    the other reads them, as later runs do; a test below checks they are what is found."""
    import cube_client

    key = hashlib.sha256(sys.version.encode() + (ROOT / "requirements.lock").read_bytes())
    package = Path(cube_client.__file__).parent
    for path in sorted(package.rglob("*.py*")):
        key.update(f"{path.relative_to(package)}\0{path.stat().st_size}\0".encode())
        key.update(path.read_bytes())
    kept = KINDS_KEPT / f"{key.hexdigest()[:16]}.json"
    KINDS_KEPT.mkdir(parents=True, exist_ok=True)
    with open(KINDS_KEPT / "lock", "w", encoding="ascii") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if kept.is_file():
            kinds: list[str] = json.loads(kept.read_text(encoding="utf-8"))
            return kinds
        kinds = sorted(_plain())
        staged = kept.with_name(f"{kept.name}.{os.getpid()}")
        staged.write_text(json.dumps(kinds), encoding="utf-8")
        staged.replace(kept)
    return kinds


KINDS = _plain_kinds()


def _read(cls: type[BaseModel], name: str, raw: dict[str, Any]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = getattr(cls._from_json(raw), name)
    return value, [str(w.message) for w in caught]


def test_every_kind_of_plain_field_is_found() -> None:
    assert sorted(_plain()) == KINDS  # the kinds named at collection are those found
    kinds = " ".join(_plain())
    assert len(_plain()) >= 10
    for kind in ("str", "int", "bool", "Literal", "None", "Ge"):
        assert kind in kinds, kind


@pytest.mark.parametrize("kind", KINDS)
def test_a_read_gives_what_the_validator_gives(kind: str) -> None:
    cls, name, key, tp = _plain()[kind]
    probes = [*PROBES, *(v for v in _listed(tp) if v not in PROBES)]
    for probe in probes:
        value, warned = _read(cls, name, {key: probe})
        try:
            expected = adapter(tp).validate_python(probe)
        except pydantic.ValidationError:  # built leniently: what construct makes, and says
            expected, found = construct(tp, probe, f"/{key}")
            loud = [d for d in found if d.kind not in QUIET]
            assert bool(warned) == bool(loud), (kind, probe, warned, found)
            assert all(f"/{key}" in w for w in warned), (kind, probe, warned)
        else:
            assert warned == [], (kind, probe, warned)
        assert type(value) is type(expected) and value == expected, (kind, probe, value)


def _listed(tp: Any) -> list[Any]:
    plan = accepts(tp, [])
    return list(plan.listed) if plan else []


ENV = {"id": "e1", "type": "staging", "branch": "main", "api_credentials": [{"type": "rest"}]}


def test_fields_nobody_reads_are_never_validated() -> None:
    bad = {**ENV, "branch": 5, "user": ["not", "a", "string"]}
    value, warned = _read(DeploymentEnvironment, "id", bad)
    assert (value, warned) == ("e1", [])
    env = DeploymentEnvironment._from_json(bad)
    assert env.type == "staging"
    assert "api_credentials" not in env.__dict__ and "branch" not in env.__dict__  # not yet read
    with pytest.warns(UserWarning, match="/branch: int 5"):
        assert env.branch == 5


def test_a_kept_value_is_read_again_without_the_reader() -> None:
    env = DeploymentEnvironment._from_json(ENV)
    first = env.api_credentials
    assert env.api_credentials is first and env.__dict__["api_credentials"] is first
    with pytest.warns(UserWarning, match="/api_credentials/0/version: required field missing"):
        assert first[0].type == "rest" and first[0].version is None
    assert first[0].version is None  # kept: warned once
    assert env.to_dict() is ENV


def test_an_unknown_enum_value_is_unknown_and_told_to_listeners() -> None:
    seen: list[Any] = []
    add_listener(seen.append)
    try:
        env = DeploymentEnvironment._from_json({**ENV, "type": "preview", "extra": 1})
        assert env.type == Unknown("preview")
    finally:
        remove_listener(seen.append)
    assert [(d.kind, d.pointer) for d in seen] == [
        ("extra-field", "/extra"),
        ("unknown-enum-value", "/type"),
    ]


def test_only_members_the_document_does_not_name_reach_the_listeners() -> None:
    """Page items and the models nested in them: a member under its wire name or its field
    name is known; any other is told to listeners once, named by its place."""
    seen: list[Any] = []
    known = {**ENV, "api_credentials": [{"type": "sql", "version": 1}]}
    odd = {**ENV, "also": 3, "api_credentials": [{"type": "sql"}, {"type": "rest", "new": 2}]}
    add_listener(seen.append)
    try:
        page = lazy_builder(list[DeploymentEnvironment])([known, odd], Where(NOWHERE, "/items"))
        assert [len(env.api_credentials) for env in page] == [1, 2]
        info = PageInfo._from_json({"has_next_page": True, "hasPreviousPage": False})
        assert info.has_next_page is True
    finally:
        remove_listener(seen.append)
    assert [(d.kind, d.pointer, d.seen) for d in seen] == [
        ("extra-field", "/items/1/also", 3),
        ("extra-field", "/items/1/api_credentials/1/new", 2),
    ]


def test_a_value_the_caller_set_stays_when_the_others_are_read() -> None:
    env = DeploymentEnvironment._from_json(ENV)
    env.branch = "mine"
    assert (env.id, env.branch) == ("e1", "mine")


def test_a_field_sent_under_its_own_name_is_found() -> None:
    page = importlib.import_module("cube_client.platform.models").PageInfo
    info = page._from_json({"has_next_page": True, "hasPreviousPage": False})
    assert (info.has_next_page, info.has_previous_page) == (True, False)


def test_the_class_has_no_field_attributes_and_pydantic_instances_are_untouched() -> None:
    with pytest.raises(AttributeError):
        DeploymentEnvironmentApiCredential.url  # noqa: B018
    made = DeploymentEnvironmentApiCredential(type="sql", version=2, port=5432)
    assert (made.type, made.version, made.port, made.url) == ("sql", 2, 5432, None)
    partial = DeploymentEnvironmentApiCredential.model_construct(type="sql")
    with pytest.raises(AttributeError, match="version"):
        partial.version  # noqa: B018


def test_nested_models_keep_their_plain_fields_as_built_and_validate_the_rest_when_read() -> None:
    sent = {"type": "sql", "version": 2, "port": "x", "url": "u", "new": 1}
    env = DeploymentEnvironment._from_json({**ENV, "api_credentials": [sent]})
    assert env.__dict__ == {}  # a response's own model: nothing kept before its first read
    (credential,) = env.api_credentials
    kept = dict(credential.__dict__)  # kept as built: the values already typed, and defaults
    assert kept == {"type": "sql", "version": 2, "url": "u", "database": None, "host": None}
    with pytest.warns(UserWarning, match="/api_credentials/0/port: str 'x'"):
        assert credential.port == "x"  # refused as built, then kept as received when read
    assert credential.to_dict() is sent and credential.model_extra == {"new": 1}
