"""Models are IR built from the schema catalogue: every name comes from naming.py, nothing after
the template renames anything, and the runtime is told attribute names, not wire names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.document.config import load_config
from generator.ir.types import Model, ValueModel
from generator.pipeline import generate, load_family, single_document_config, strip_root
from tests.helpers import generate_package, model_source, openapi_document, run_python

PACKAGE = "model_ir_client"


def _family(tmp_path: Path, schemas: dict[str, Any]) -> Any:
    spec = tmp_path / "doc.json"
    spec.write_text(json.dumps(openapi_document(schemas=schemas, title="M")), encoding="utf-8")
    config = single_document_config(spec, (), PACKAGE, tmp_path / "out")
    result = generate(config)
    return result.package.families[0], strip_root(result.files, PACKAGE)


def test_field_names_dodge_pydantic_and_annotation_names(tmp_path: Path) -> None:
    names_in_document = ("model_config", "json", "str", "datetime", "a-b", "aB", "json_")
    props = {n: {"type": "string"} for n in names_in_document}
    family, files = _family(tmp_path, {"Thing": {"type": "object", "properties": props}})
    (model,) = family.models
    assert isinstance(model, Model)
    names = {f.name: f.py_name for f in model.fields}
    assert names == {  # a pydantic member's name gets an underscore, a collision a number
        "model_config": "model_config_",
        "json": "json_",
        "str": "str_",
        "datetime": "datetime_",
        "a-b": "a_b",
        "aB": "a_b_2",
        "json_": "json_2",  # one suffix rule: the stem, then _2
    }
    source = model_source(files, PACKAGE)
    assert 'a_b_2: Annotated[str | None, Field(alias="aB")] = None' in source
    assert 'json_: Annotated[str | None, Field(alias="json")] = None' in source


def test_recursive_value_classes_are_typed_on_root(tmp_path: Path) -> None:
    schemas = {
        "Tree": {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}},
            ]
        },
        "Leaf": {"type": "object", "properties": {"tree": {"$ref": "#/components/schemas/Tree"}}},
    }
    family, files = _family(tmp_path, schemas)
    kinds = {m.name: m for m in family.models}
    assert isinstance(kinds["Tree"], ValueModel) and kinds["Tree"].recursive
    assert isinstance(kinds["Leaf"], Model)
    source = model_source(files, PACKAGE)
    assert "class Tree(RootModel[Any]):\n    root: Open[str | list[Tree]]" in source
    out = tmp_path / "dist"
    generate_package(openapi_document(schemas=schemas, title="M"), out, PACKAGE)
    run_python(
        f"from {PACKAGE} import models\n"
        "leaf = models.Leaf.model_validate({'tree': ['a', ['b']]})\n"
        "assert leaf.tree is not None and isinstance(leaf.tree.root, list)\n"
        "import pickle\n"  # the recursive classes report the public module, and travel
        f"assert models.Tree.__module__ == models.Leaf.__module__ == '{PACKAGE}.models'\n"
        "assert pickle.loads(pickle.dumps(leaf)) == leaf\n",
        out,
    )


def test_one_of_required_groups_are_checked_by_the_model(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "bId": {"type": "string"}},
        "oneOf": [{"required": ["a"]}, {"required": ["bId"]}],
    }
    family, _ = _family(tmp_path, {"Pick": schema})
    (model,) = family.models
    assert isinstance(model, Model) and model.one_of == (("a",), ("b_id",))


def test_job_fields_reach_the_runtime_as_attribute_names() -> None:
    config = load_config(Path("spec/cube-codegen.yaml"))
    platform = next(f for f in config.families if f.name == "platform")
    from generator.ir.build import FamilyBuilder

    loaded = load_family(config, platform)
    family = FamilyBuilder(loaded.document, loaded.file, loaded.config).build()
    jobs = [op.job for op in family.operations if op.job is not None]
    assert jobs, "the platform document has a job operation"
    models = {m.name: m for m in family.models if isinstance(m, Model)}
    attributes = {f.py_name for m in models.values() for f in m.fields}
    for job in jobs:
        assert job.id_field in attributes and job.status_field in attributes
