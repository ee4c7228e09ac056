"""Which module defines each model class: the classes hoisted from inside a schema share the
module of the outermost class holding them, so a large document's package has about one class
module per component schema; and a grouping that would close a ring of run-time imports (value
classes whose bases name each other's classes) is split back, so every module still imports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.ir.naming import ClassName
from generator.ir.placement import module_names
from generator.ir.types import Model, ModelRef, ValueModel
from generator.pipeline import generate, single_document_config
from tests.helpers import (
    generate_package,
    openapi_document,
    operation,
    run_python,
    schema_ref,
)

PACKAGE = "grouped_client"


def _modules(tmp_path: Path, doc: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """Class → module, and the generated class modules' texts by module name."""
    spec = tmp_path / "doc.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    result = generate(single_document_config(spec, (), PACKAGE, tmp_path / "out"))
    (family,) = result.package.families
    prefix = f"{PACKAGE}/{PACKAGE}/_classes/"
    texts = {
        path[len(prefix) : -3]: text
        for path, text in result.files.items()
        if path.startswith(prefix) and not path.endswith("__init__.py")
    }
    return {m.name: m.module for m in family.models}, texts


def _obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def test_hoisted_classes_share_the_outermost_module_and_components_keep_their_own(
    tmp_path: Path,
) -> None:
    schemas = {
        "Order": _obj(
            id={"type": "string"},
            address=_obj(street={"type": "string"}, geo=_obj(lat={"type": "number"})),
            lines={"type": "array", "items": _obj(sku={"type": "string"})},
            customer=schema_ref("Customer"),
        ),
        "Customer": _obj(name={"type": "string"}),
    }
    body = _obj(note=_obj(text={"type": "string"}))  # an operation's own class, and one inside it
    paths = {"/orders": {"post": operation("createOrder", schema_ref("Order"), body=body)}}
    modules, texts = _modules(tmp_path, openapi_document(paths, schemas=schemas))
    order = modules["Order"]
    held = [n for n in modules if n.startswith("Order") and n != "Order"]
    assert {"OrderAddress", "OrderAddressGeo", "OrderItem"} <= set(held)
    assert {modules[n] for n in held} == {order}  # nested two deep: still the outermost's
    assert modules["Customer"] != order  # a component is a module of its own
    inner = [n for n in modules if n.endswith("Note")]
    assert len(inner) == 1 and modules[inner[0]] == modules[inner[0].removesuffix("Note")]
    assert len(texts) == len(set(modules.values()))  # one file per module, none empty
    text = texts[order]
    for name in ("Order", *held):  # defined there, reported as the public module's
        assert f"\nclass {name}(BaseModel):" in text
        assert f'\n{name}.__module__ = "{PACKAGE}.models"' in text
    assert "\n    from .order_address import" not in text  # no import of its own classes
    assert '"Customer": "customer"' in text  # what it names elsewhere, bound on first use


def _value_ring() -> dict[str, Any]:
    """Two schemas, each holding a map of the other: each map is a value class whose base
    names the other schema's class, so grouping each map with its holder would make two
    modules that import each other when they run."""
    return {
        "Alpha": _obj(betas={"type": "object", "additionalProperties": schema_ref("Beta")}),
        "Beta": _obj(alphas={"type": "object", "additionalProperties": schema_ref("Alpha")}),
        "Gamma": _obj(deltas={"type": "object", "additionalProperties": schema_ref("Delta")}),
        "Delta": _obj(n={"type": "integer"}),
    }


def test_a_ring_of_run_time_imports_is_split_back_and_the_package_loads(tmp_path: Path) -> None:
    modules, texts = _modules(tmp_path, openapi_document(schemas=_value_ring()))
    maps = {n: m for n, m in modules.items() if n not in ("Alpha", "Beta", "Gamma", "Delta")}
    assert len(maps) == 3
    by_holder = {
        n.removesuffix("Betas").removesuffix("Alphas").removesuffix("Deltas"): n for n in maps
    }
    assert modules[by_holder["Alpha"]] != modules["Alpha"]  # on the ring: split back
    assert modules[by_holder["Beta"]] != modules["Beta"]
    assert modules[by_holder["Gamma"]] == modules["Gamma"]  # no ring: grouped
    assert "\nfrom .delta import Delta\n" in texts[modules["Gamma"]]  # its base, at run time
    out = tmp_path / "dist"
    generate_package(openapi_document(schemas=_value_ring()), out, PACKAGE)
    run_python(
        f"from {PACKAGE} import models\n"
        "a = models.Alpha.model_validate({'betas': {'x': {'alphas': {'y': {}}}}})\n"
        "assert a.betas is not None and a.betas.root['x'].alphas is not None\n"
        "g = models.Gamma.model_validate({'deltas': {'k': {'n': 3}}})\n"
        "assert g.deltas is not None and g.deltas.root['k'].n == 3\n",
        out,
    )


def test_module_names_split_only_the_modules_on_a_ring() -> None:
    def name(text: str) -> ClassName:
        return ClassName.unchecked(text)

    a, b, c, a_map, b_map, c_map = map(name, ("A", "B", "C", "AMap", "BMap", "CMap"))
    models = [
        Model(a, ()),
        Model(b, ()),
        Model(c, ()),
        ValueModel(a_map, ModelRef(b)),  # held by A, names B
        ValueModel(b_map, ModelRef(a)),  # held by B, names A: a ring
        ValueModel(c_map, ModelRef(a)),  # held by C, names A: no ring
    ]
    refs = {a: frozenset(), b: frozenset(), c: frozenset()}
    refs |= {a_map: frozenset({b}), b_map: frozenset({a}), c_map: frozenset({a})}
    owners = {a_map: a, b_map: b, c_map: c}
    modules = module_names(models, refs, owners)
    assert modules[c_map] == modules[c] == "c"
    assert len({modules[a], modules[a_map], modules[b], modules[b_map]}) == 4
    recursive = ValueModel(a_map, ModelRef(b), recursive=True)  # typed on root: no import
    modules = module_names([*models[:3], recursive, *models[4:]], refs, owners)
    assert modules[a_map] == modules[a] and modules[b_map] == modules[b]
