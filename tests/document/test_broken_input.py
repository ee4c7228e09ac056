"""A document that no client could be generated from correctly is broken input: exit 2 with one
line naming the file, the pointer and what is wrong, and nothing written. A document that is
merely beyond what pydantic runs (a look-around pattern) still generates, with a warning."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import openapi_document, operation, run_cli, schema_ref


def _document(url: str = "https://api.example.com/v1", pattern: str = "^[a-z]+$") -> dict[str, Any]:
    code = {"type": "string", "pattern": pattern}
    return openapi_document(
        {"/things": {"get": operation("listThings", schema_ref("Thing"))}},
        schemas={"Thing": {"type": "object", "properties": {"code": code}}},
        server=url,
    )


def _generate(tmp_path: Path, doc: dict[str, Any]) -> tuple[int, str, Path]:
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "out"
    proc = run_cli("generate", "--spec", str(spec), "--out", str(out), "--package", "things")
    return proc.returncode, proc.stderr, out


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/v1\nimport os",
        "https://api.example.com/\tv1",
        "https://a.example/\x7f",
    ],
)
def test_a_server_url_no_client_could_call_is_refused(tmp_path: Path, url: str) -> None:
    rc, stderr, out = _generate(tmp_path, _document(url=url))
    assert rc == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "#/servers/0/url" in stderr and "[server-url-invalid]" in stderr
    assert not out.exists()


def test_a_pattern_that_is_no_regular_expression_is_refused(tmp_path: Path) -> None:
    rc, stderr, out = _generate(tmp_path, _document(pattern="[a-"))
    assert rc == 2 and len(stderr.strip().splitlines()) == 1, stderr
    assert "#/components/schemas/Thing" in stderr and "[pattern-invalid]" in stderr
    assert not out.exists()


def test_a_pattern_pydantic_cannot_run_is_a_warning(tmp_path: Path) -> None:
    rc, stderr, out = _generate(tmp_path, _document(pattern=r"^(?=\p{L})\w+$"))
    assert rc == 0, stderr
    assert "[pattern-unsupported]" in stderr
    assert (out / "things" / "models.py").is_file()


@pytest.mark.parametrize("brackets", ["[]", "{}"])
def test_flow_nesting_that_would_crash_the_parser_is_one_line(
    tmp_path: Path, brackets: str
) -> None:
    """40,000 levels of ``[`` crash YAML parsing in native code (exit 139, no message); the depth
    is checked before the parser runs."""
    opening, closing = brackets
    inner = (opening + "a: " if opening == "{" else opening) * 40_000
    text = (
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\nx: " + inner + closing * 40_000
    )
    spec = tmp_path / "deep.yaml"
    spec.write_text(text + "\n", encoding="utf-8")
    proc = run_cli(
        "generate", "--spec", str(spec), "--out", str(tmp_path / "out"), "--package", "deep"
    )
    assert proc.returncode == 2, proc.stderr[-500:]
    (line,) = proc.stderr.strip().splitlines()
    assert "nesting is deeper than 256 levels (line 4)" in line and len(line) < 300, line


def test_block_nesting_names_a_short_pointer(tmp_path: Path) -> None:
    body = "".join("  " * (i + 1) + "a:\n" for i in range(400)) + "  " * 401 + "b: 1\n"
    spec = tmp_path / "block.yaml"
    spec.write_text(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\nx:\n" + body, encoding="utf-8"
    )
    proc = run_cli(
        "generate", "--spec", str(spec), "--out", str(tmp_path / "out"), "--package", "deep"
    )
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "#/x/a/a/" in line and "/…:" in line and len(line) < 300, line


def _alias_chain(doc: dict[str, Any], length: int, ring: bool = False) -> dict[str, Any]:
    """``Thing`` → ``Link0`` → ``Link1`` → … : schemas that are only a reference to the next."""
    schemas = doc["components"]["schemas"]
    thing = schemas.pop("Thing")
    schemas["Thing"] = {"$ref": "#/components/schemas/Link0"}
    for i in range(length):
        nxt = "Link0" if ring and i == length - 1 else f"Link{i + 1}"
        schemas[f"Link{i}"] = {"$ref": f"#/components/schemas/{nxt}"}
    if not ring:
        schemas[f"Link{length}"] = thing
    return doc


def test_a_chain_of_references_longer_than_the_cap_is_refused_with_its_start(
    tmp_path: Path,
) -> None:
    """Thousands of schemas that only refer to the next: refused at once (it took minutes, then
    failed without a pointer); the cap is in the README's table."""
    code, err, out = _generate(tmp_path, _alias_chain(_document(), 5000))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "#/components/schemas/" in err and "more than 256 schemas" in err
    assert "[ref-chain-too-long]" in err and not out.exists()


def test_a_chain_within_the_cap_and_a_ring_still_generate(tmp_path: Path) -> None:
    for name in ("chain", "ring"):
        (tmp_path / name).mkdir()
    code, err, out = _generate(tmp_path / "chain", _alias_chain(_document(), 200))
    assert code == 0 and (out / "things" / "_classes").is_dir(), err
    code, err, _ = _generate(tmp_path / "ring", _alias_chain(_document(), 100, ring=True))
    assert code == 0, err
    assert "Link0 -> Link1 -> Link2 -> … -> Link99 -> Link0 (100 schemas) only refer" in err
    assert "[ref-cycle]" in err


@pytest.mark.parametrize("length", [5_000_000, 200_000_000])
def test_a_huge_min_length_is_built_when_the_test_runs_not_written(
    tmp_path: Path, length: int
) -> None:
    """``minLength: 200000000`` in a 400-byte document made a test file of gigabytes; the sample
    is now an expression the test evaluates (the README's caps table: 256 literal characters)."""
    doc = _document()
    doc["components"]["schemas"]["Thing"]["properties"]["code"] = {
        "type": "string",
        "minLength": length,
    }
    code, err, out = _generate(tmp_path, doc)
    assert code == 0, err
    (test_file,) = (out / "tests").glob("test_*.py")
    assert test_file.stat().st_size < 50_000
    assert f'"value" + "x" * {length - 5}' in test_file.read_text()
    if length == 5_000_000:  # the package's own tests build it and read it back
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
            cwd=out, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout[-2000:]
