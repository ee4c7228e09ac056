"""The vendor extensions are typed models: one set of defaults, documented from the models."""

from __future__ import annotations

import re

import pytest

from generator.document.extensions import (
    ContinueWaitSpec,
    JobSpec,
    PaginationSpec,
    RequestIdSpec,
    TokenJobSpec,
    parse,
    reference_table,
)
from tests.helpers import ROOT


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("x-cube-pagination", PaginationSpec),
        ("x-cube-job", JobSpec),
        ("x-cube-request-id", RequestIdSpec),
        ("continueWait", ContinueWaitSpec),
        ("x-cube-token-job", TokenJobSpec),
    ],
)
def test_readme_reference_is_rendered_from_the_model(name: str, model: type) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(
        rf"<!-- reference {re.escape(name)} -->\n(.*?)\n<!-- end reference -->", readme, re.S
    )
    assert found is not None, f"README has no reference table for {name}"
    assert found.group(1) == reference_table(model)


def test_defaults_apply_and_models_are_frozen() -> None:
    spec = parse(PaginationSpec, {"style": "offset", "items": ["data"]}, "/x")
    assert isinstance(spec, PaginationSpec)
    assert (spec.offset_param, spec.limit_param, spec.first_offset) == ("offset", "limit", 0)
    with pytest.raises(ValueError, match="frozen"):
        spec.style = "cursor"  # type: ignore[misc]
    job = parse(JobSpec, {"statusOperation": "s", "idField": "jobId"}, "/x")
    assert isinstance(job, JobSpec) and job.path_param == "jobId"


@pytest.mark.parametrize(
    ("raw", "pointer"),
    [
        ({"style": "pages", "items": ["a"]}, "/op/x-cube-pagination/style"),
        ({"style": "offset", "items": []}, "/op/x-cube-pagination/items"),
        (
            {"style": "offset", "items": ["a"], "defaultLimit": True},
            "/op/x-cube-pagination/defaultLimit",
        ),
        (
            {"style": "offset", "items": ["a"], "alternatives": [{"style": "cursor"}]},
            "/op/x-cube-pagination/alternatives/0/items",
        ),
        ("offset", "/op/x-cube-pagination"),
    ],
)
def test_a_bad_extension_names_its_pointer(raw: object, pointer: str) -> None:
    found = parse(PaginationSpec, raw, "/op/x-cube-pagination")
    assert isinstance(found, tuple)
    assert found[0] == pointer, found
