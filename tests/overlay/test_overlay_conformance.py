"""Conformance: every case under <shared>/overlay-conformance, discovered by walking its folders.

Sources: the OAI Overlay Specification repository (compliant sets, schema pass/fail fixtures and
the published schemas), speakeasy-api/openapi ``overlay/testdata`` and lornajane/openapi-overlays-js
``test/``. Expected outputs are compared as parsed data. Conformance runs use ``strict=False``
because the specification says an action whose target matches nothing simply succeeds.

Where a third-party case contradicts the specification text, the case is listed in
``SPEC_DEVIATIONS``/``SPEC_REJECTS`` with the section it contradicts; the test asserts the
specification's behaviour and, where one exists, that a specification-conformant rewrite of the
offending action produces the case's expected output.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from generator.diagnostics import CodegenError, resolve_pointer
from generator.document.loader import load_document
from generator.overlay import apply_overlay, load_overlay, parse_overlay
from generator.overlay.model import OverlayResult

CORPUS = "overlay-conformance"
OAI = "oai-overlay-spec"
SPEAKEASY = "speakeasy-openapi/testdata"
LORNAJANE = "lornajane-openapi-overlays-js/test"


# --------------------------------------------------------------------------------------------
# Discovery


@dataclass(frozen=True)
class ApplyCase:
    """Input document + overlay -> expected document (or an expected error)."""

    suite: str
    overlay: Path
    document: Path
    expected: Path | None

    @property
    def id(self) -> str:
        if self.suite == "oai":  # every compliant set uses the same three file names
            return f"oai/{self.overlay.parent.name}"
        exp = self.expected.name if self.expected else "no-expected-output"
        return f"{self.suite}/{self.overlay.name}+{self.document.name}->{exp}"


@dataclass(frozen=True)
class SchemaCase:
    """One OAI schema fixture: ``verdict`` is the folder it sits in (pass or fail)."""

    version_dir: str
    verdict: str
    path: Path

    @property
    def id(self) -> str:
        return f"schema/{self.version_dir}/{self.verdict}/{self.path.name}"


def _shared_root(config: pytest.Config) -> Path | None:
    value = str(config.getoption("--shared") or "")
    root = Path(value).resolve() / CORPUS if value else None
    return root if root and root.is_dir() else None


def oai_compliant_cases(root: Path) -> Iterator[ApplyCase]:
    for folder in sorted((root / OAI / "compliant-sets").iterdir()):
        if folder.is_dir():
            yield ApplyCase(
                "oai", folder / "overlay.yaml", folder / "openapi.yaml", folder / "output.yaml"
            )


def schema_cases(root: Path) -> Iterator[SchemaCase]:
    for version_dir in sorted((root / OAI / "tests").iterdir()):
        for verdict in ("pass", "fail"):
            for path in sorted((version_dir / verdict).glob("*.yaml")):
                yield SchemaCase(version_dir.name, verdict, path)


# The upstream Go tests (overlay/apply_test.go, compare_test.go) pair these overlays with outputs
# whose names do not follow the ``overlay-X`` / ``openapi-X-expected`` convention; the Go tests
# themselves are not part of the shared copy. ``None`` means "the input, unchanged".
SPEAKEASY_EXPECTED: dict[str, str | None] = {
    "overlay.yaml": "openapi-overlayed.yaml",
    "overlay-generated.yaml": "openapi-overlayed.yaml",
    "overlay-mismatched.yaml": "openapi-strict-onechange.yaml",
    "overlay-zero-change.yaml": None,
}


def speakeasy_cases(root: Path) -> Iterator[ApplyCase]:
    folder = root / SPEAKEASY
    for overlay in sorted(folder.glob("overlay*.yaml")):
        suffix = overlay.stem.removeprefix("overlay").lstrip("-")
        document = folder / "openapi.yaml"
        parts = suffix.split("-") if suffix else []
        for n in range(len(parts), 0, -1):  # longest matching input name wins
            candidate = folder / f"openapi-{'-'.join(parts[:n])}.yaml"
            if candidate.exists():
                document = candidate
                break
        expected: Path | None = folder / f"openapi-{suffix}-expected.yaml"
        if overlay.name in SPEAKEASY_EXPECTED:
            alias = SPEAKEASY_EXPECTED[overlay.name]
            expected = document if alias is None else folder / alias
        elif expected is not None and not expected.exists():
            expected = None
        yield ApplyCase("speakeasy", overlay, document, expected)


# lornajane's test/overlay.test.js pairs these expected outputs with inputs by hand; every other
# expected file is named after its overlay, or ``<input>-<overlay>``.
LORNAJANE_PAIRS = {
    "output1.yaml": ("petstore.yaml", "overlay.yaml"),
    "one-less-server.yaml": ("openapi-with-servers.yaml", "remove-server.yaml"),
    "remove-responses.yaml": ("responses.yaml", "remove-responses.yaml"),
    "town-root-updated.yaml": ("town.yaml", "update-root.yaml"),
}


def lornajane_cases(root: Path) -> Iterator[ApplyCase]:
    folder = root / LORNAJANE
    inputs = {p.name for p in (folder / "openapi").glob("*.yaml")}
    overlays = {p.name for p in (folder / "overlays").glob("*.yaml")}
    for expected in sorted((folder / "expected").glob("*.yaml")):
        name = expected.name
        pair: tuple[str, str] | None = LORNAJANE_PAIRS.get(name)
        if pair is None and name in inputs and name in overlays:
            pair = (name, name)
        if pair is None:
            pair = next(
                (
                    (i, name.removeprefix(i.removesuffix(".yaml") + "-"))
                    for i in sorted(inputs)
                    if name.startswith(i.removesuffix(".yaml") + "-")
                    and name.removeprefix(i.removesuffix(".yaml") + "-") in overlays
                ),
                None,
            )
        if pair is None:
            raise AssertionError(f"cannot tell which input and overlay produce {expected}")
        yield ApplyCase(
            "lornajane",
            folder / "overlays" / pair[1],
            folder / "openapi" / pair[0],
            expected,
        )


def all_apply_cases(root: Path) -> list[ApplyCase]:
    return [*oai_compliant_cases(root), *speakeasy_cases(root), *lornajane_cases(root)]


def corpus_overlays(root: Path) -> list[Path]:
    """Every overlay document in the corpus outside the schema fixtures."""
    return sorted({case.overlay for case in all_apply_cases(root)})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    root = _shared_root(metafunc.config)
    generators: dict[str, Callable[[Path], list[Any]]] = {
        "apply_case": all_apply_cases,
        "schema_case": lambda r: list(schema_cases(r)),
        "overlay_file": corpus_overlays,
    }
    for name, generate in generators.items():
        if name in metafunc.fixturenames:
            if root is None:  # the shared_dir fixture skips these
                metafunc.parametrize(name, [None], ids=["shared-inputs-not-given"])
            else:
                items = generate(root)
                ids = [getattr(i, "id", None) or i.relative_to(root).as_posix() for i in items]
                metafunc.parametrize(name, items, ids=ids)


# --------------------------------------------------------------------------------------------
# Cases that contradict the specification text


@dataclass(frozen=True)
class Deviation:
    """Action ``index`` of a case breaks the specification: applying it must fail with
    ``error_id``; ``rewrite`` turns the raw action into specification-conformant actions."""

    index: int
    error_id: str
    section: str
    rewrite: Callable[[dict[str, Any]], list[dict[str, Any]]] = field(repr=False)


def _drop_key_selector(action: dict[str, Any]) -> list[dict[str, Any]]:
    # RFC 9535 has no ``~`` (property-name) selector; removing the member itself is what the
    # action means: ``$.tags[?(...)].description~`` -> ``$.tags[?(...)].description``.
    return [{**action, "target": action["target"].removesuffix("~")}]


def _replace_primitive_with_object(action: dict[str, Any]) -> list[dict[str, Any]]:
    # Updating the primitive ``x-my-ignore: true`` with an object is incompatible; the
    # specification's way to change the type of a value is remove, then update the parent.
    match = re.fullmatch(r"(.*)\[\"([^\"]+)\"\]", action["target"])
    assert match, action["target"]
    parent, key = match.groups()
    return [
        {"target": action["target"], "remove": True},
        {"target": parent, "update": {key: action["update"]}},
    ]


RFC9535 = "Overlay 1.1.0 'RFC9535 Compliance' (1.0.0 'Action Object': target is RFC 9535 JSONPath)"
PRIMITIVE = (
    "Overlay 1.1.0 'Action Object', update: if the target selects primitive nodes the value "
    "MUST be a primitive (1.0.0: targets MUST be objects or arrays)"
)

SPEC_DEVIATIONS: dict[str, list[Deviation]] = {
    # speakeasy: ``.description~`` is JSONPath-Plus syntax, and speakeasy replaces a primitive
    # with an object where the specification says the combination is an error.
    "speakeasy/overlay.yaml": [
        Deviation(4, "overlay-jsonpath-invalid", RFC9535, _drop_key_selector),
        Deviation(5, "overlay-update-incompatible", PRIMITIVE, _replace_primitive_with_object),
    ],
    "speakeasy/overlay-generated.yaml": [
        Deviation(2, "overlay-update-incompatible", PRIMITIVE, _replace_primitive_with_object),
    ],
}

# Cases without an expected output that the specification (or our documented decision) rejects.
SPEC_REJECTS: dict[str, tuple[str, str, str]] = {
    # The file's own comment: "this is non-compliant behaviour" (``@.x-my-ignore`` is not
    # RFC 9535: ``-`` cannot appear in a member-name shorthand).
    "speakeasy/overlay-old.yaml": ("overlay-jsonpath-invalid", "/actions/0/target", RFC9535),
    # 1.1.0 'Action Object' says ``update`` "has no impact if ... copy contains a value" and
    # ``copy`` "has no impact if ... update contains a value": both cannot hold, so we reject an
    # action carrying both (speakeasy lets update win).
    "speakeasy/overlay-copy-mutual-exclusive.yaml": (
        "overlay-invalid",
        "/actions/0",
        "update and copy",
    ),
}

# Outcomes the upstream tests assert (apply_test.go TestApplyToStrict, copy_test.go).
UPSTREAM_STATUSES: dict[str, list[str]] = {
    "speakeasy/overlay-mismatched.yaml": ["unmatched", "matched", "redundant"],
    "speakeasy/overlay-zero-change.yaml": ["matched", "matched"],
    "speakeasy/overlay-copy-errors.yaml": ["unmatched"],
}


def _key(case: ApplyCase) -> str:
    return f"{case.suite}/{case.overlay.name}"


# --------------------------------------------------------------------------------------------
# Tests


def _apply(case: ApplyCase, raw_overlay: Any, *, strict: bool) -> OverlayResult:
    overlay = parse_overlay(raw_overlay, str(case.overlay))
    document = load_document(case.document)
    return apply_overlay(document, overlay, document_file=str(case.document), strict=strict)


def test_apply_case(shared_dir: Path, apply_case: ApplyCase) -> None:
    case = apply_case
    assert case.overlay.is_relative_to(shared_dir)
    raw = load_document(case.overlay)
    key = _key(case)

    if key in SPEC_REJECTS:
        error_id, ptr, _section = SPEC_REJECTS[key]
        with pytest.raises(CodegenError) as info:
            _apply(case, raw, strict=False)
        assert (info.value.first.id, info.value.first.pointer) == (error_id, ptr)
        return

    if case.expected is not None and load_document(case.expected) == load_document(case.document):
        # The upstream tool printed its input unchanged because it refused the overlay (every
        # such lornajane case is named "fail to ..." or "... is a nop" upstream). The
        # specification agrees that each is not a valid Overlay (1.0.0 'Overlay Object':
        # ``overlay`` and ``info`` are REQUIRED, ``actions`` MUST contain at least one value;
        # 'Action Object': ``target`` is a JSONPath query), so we refuse it before applying.
        if case.suite == "lornajane":
            with pytest.raises(CodegenError) as info:
                _apply(case, raw, strict=False)
            assert (info.value.first.id, info.value.first.file) == (
                "overlay-invalid",
                str(case.overlay),
            )
            return

    shift = 0  # a rewrite may turn one action into several
    for deviation in SPEC_DEVIATIONS.get(key, []):
        index = deviation.index + shift
        # Each deviating action fails as the specification says, naming itself...
        with pytest.raises(CodegenError) as info:
            _apply(case, raw, strict=False)
        assert info.value.first.id == deviation.error_id, deviation.section
        assert info.value.first.pointer.split("/")[1:3] == ["actions", str(index)]
        # ...and is then replaced by its specification-conformant equivalent.
        raw = copy.deepcopy(raw)
        replacement = deviation.rewrite(raw["actions"][index])
        raw["actions"][index : index + 1] = replacement
        shift += len(replacement) - 1

    lax = _apply(case, raw, strict=False)
    strict = _apply(case, raw, strict=True)
    # Strictness changes the report, never the document.
    assert strict.document == lax.document
    assert {d.id for d in strict.errors} <= {"overlay-action-unmatched"}
    unmatched = [o.index for o in lax.outcomes if o.status == "unmatched"]
    assert sorted({int(d.pointer.split("/")[2]) for d in strict.errors}) == unmatched
    assert len(lax.outcomes) == len(raw["actions"])

    if key in UPSTREAM_STATUSES:
        assert [o.status for o in lax.outcomes] == UPSTREAM_STATUSES[key]
    if case.expected is not None:
        assert lax.document == load_document(case.expected)
    else:
        # No expected output upstream: the overlay is valid and applies without error.
        assert not lax.errors


def _shared_verdict(shared_dir: Path, doc: Any) -> bool:
    """The published OAI schema's verdict, picked by the document's ``overlay`` version."""
    version = doc.get("overlay") if isinstance(doc, dict) else None
    if not isinstance(version, str):
        return False
    match = re.match(r"^(\d+)\.(\d+)\.", version)
    schemas = shared_dir / CORPUS / OAI / "schemas"
    folder = next(
        (p for p in schemas.iterdir() if match and p.name.startswith(f"v{match[1]}.{match[2]}")),
        None,
    )
    if folder is None:
        return False
    schema = yaml.safe_load((folder / "schema.yaml").read_text(encoding="utf-8"))
    return bool(Draft202012Validator(schema).is_valid(doc))


def _our_verdict(doc: Any, file: str) -> CodegenError | None:
    try:
        parse_overlay(doc, file)
    except CodegenError as exc:
        return exc
    return None


def test_schema_fixture(shared_dir: Path, schema_case: SchemaCase) -> None:
    case = schema_case
    doc = load_document(case.path)
    expected_valid = case.verdict == "pass"
    # The published schema agrees with the folder it sits in (guards our reading of the corpus).
    assert _shared_verdict(shared_dir, doc) == expected_valid

    if case.version_dir.endswith("-dev"):
        # A draft version we do not support: refused at /overlay, whatever else it says...
        error = _our_verdict(doc, str(case.path))
        assert error is not None and error.first.pointer in ("", "/overlay")
        # ...and its schema is 1.1's with another version pattern, so the fixture with its
        # version relabelled 1.2.x -> 1.1.x must get the same verdict from our 1.1 schema.
        if isinstance(doc, dict) and re.match(r"^1\.2\.\d+$", str(doc.get("overlay"))):
            doc = {**doc, "overlay": "1.1." + str(doc["overlay"]).split(".")[2]}
        else:
            return

    error = _our_verdict(doc, str(case.path))
    if expected_valid:
        assert error is None, error.summary() if error else ""
        return
    assert error is not None
    first = error.first
    assert (first.id, first.file) == ("overlay-invalid", str(case.path))
    assert "\n" not in error.summary() and first.message
    resolve_pointer(doc, first.pointer)  # the pointer names a value that exists


def test_schema_agrees_on_corpus_overlays(shared_dir: Path, overlay_file: Path) -> None:
    """Our validator and the published schemas agree on every overlay in the corpus, except for
    our one addition: ``update`` together with ``copy`` is rejected (see SPEC_REJECTS)."""
    doc = load_document(overlay_file)
    ours = _our_verdict(doc, str(overlay_file)) is None
    theirs = _shared_verdict(shared_dir, doc)
    actions = doc.get("actions") if isinstance(doc, dict) else None
    both = isinstance(actions, list) and any(
        isinstance(a, dict) and "update" in a and "copy" in a for a in actions
    )
    assert ours == (theirs and not both)


def test_every_corpus_file_is_used(shared_dir: Path) -> None:
    """Discovery leaves nothing behind: every input, overlay and expected file is in a case."""
    root = shared_dir / CORPUS
    cases = all_apply_cases(root)
    used = {p for c in cases for p in (c.overlay, c.document, c.expected) if p is not None}
    used |= {c.path for c in schema_cases(root)}
    ignored = {"README.md", "LICENSE", "readme.md", "schema.yaml", "removeNote.yaml"}
    for path in root.rglob("*.yaml"):
        if path.name in ignored or "versions" in path.parts or "docs" in path.parts:
            continue
        assert path in used, f"{path.relative_to(root)} is not part of any conformance case"
    assert len(cases) >= 30


def test_overlay_loads_from_file(shared_dir: Path) -> None:
    """``load_overlay`` (file -> validated model) on a real corpus file, ``extends`` recorded."""
    path = shared_dir / CORPUS / OAI / "compliant-sets" / "remove-server" / "overlay.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    overlay = load_overlay(path)
    assert overlay.extends == raw["extends"]
    assert [a.target for a in overlay.actions] == [a["target"] for a in raw["actions"]]
