"""Bad input to ``generate --spec``: one clear line, exit 2, nothing written, no traceback, no hang.

Each case writes a document (or a folder of them) into ``tmp_path`` and runs the CLI in a
fresh interpreter with a timeout (the table of cases: two interpreters running their half of
the command lines one after the other, :mod:`tests.cli_batch`). The line must name the file and, where the problem has a place, the
JSON pointer of that place, and say what is wrong.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cli_batch import run_cli_batch
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120
HEAD = 'openapi: 3.1.0\ninfo: {title: t, version: "1"}\n'


def _op(body: str) -> str:
    return HEAD + "paths:\n  /a:\n    post:\n" + body


def _json(doc: object) -> str:
    return json.dumps(doc)


def _billion_laughs() -> str:
    text = HEAD + "paths: {}\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, 10):
        text += f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n"
    return text


# name: (file name, text or bytes, expected pointer suffix after the file name, message part)
CASES: dict[str, tuple[str, str | bytes, str, str]] = {
    "malformed-yaml": ("api.yaml", HEAD + "paths: {\n  /a: [\n", "", "malformed YAML at line"),
    "malformed-json": ("api.json", '{"openapi": "3.1.0", "paths": {', "", "malformed JSON at line"),
    "tab-indented-yaml": ("api.yaml", HEAD + "paths:\n\t/a: {}\n", "", "malformed YAML"),
    "not-utf8": ("api.yaml", b"openapi: 3.1.0\ninfo: {title: \xff\xfe}\n", "", "not UTF-8"),
    "nul-byte": ("api.yaml", b"openapi: 3.1.0\x00\n", "", "NUL byte"),
    "empty-file": ("api.yaml", "", "", "top level is not a mapping"),
    "top-level-list": ("api.json", "[1, 2]", "", "top level is not a mapping"),
    "missing-openapi": (
        "api.yaml",
        "info: {title: t, version: '1'}\npaths: {}\n",
        "#/openapi",
        "missing",
    ),
    "openapi-not-string": (
        "api.json",
        _json({"openapi": 3.1, "paths": {}}),
        "#/openapi",
        "missing",
    ),
    "openapi-4": ("api.yaml", "openapi: 4.0.0\npaths: {}\n", "#/openapi", "not supported"),
    "swagger": ("api.yaml", "swagger: '2.0'\npaths: {}\n", "#/swagger", "Swagger 2.0"),
    "missing-paths": ("api.yaml", HEAD, "#/paths", "`paths` must be"),
    "paths-is-list": ("api.yaml", HEAD + "paths: [1]\n", "#/paths", "`paths` must be"),
    "info-is-string": (
        "api.yaml",
        "openapi: 3.1.0\ninfo: hello\npaths: {}\n",
        "#/info",
        "OpenAPI object model",
    ),
    "responses-wrong-type": (
        "api.yaml",
        _op("      responses: 7\n"),
        "#/paths/~1a/post/responses",
        "OpenAPI object model",
    ),
    "operation-is-list": (
        "api.yaml",
        HEAD + "paths:\n  /a:\n    get: [1]\n",
        "#/paths/~1a/get",
        "OpenAPI object model",
    ),
    "dangling-body-ref": (
        "api.yaml",
        _op("      requestBody: {$ref: '#/components/requestBodies/nope'}\n      responses: {}\n"),
        "#/paths/~1a/post/requestBody/$ref",
        "names nothing",
    ),
    "dangling-parameter-ref": (
        "api.yaml",
        _op("      parameters: [{$ref: '#/components/parameters/nope'}]\n      responses: {}\n"),
        "#/paths/~1a/post/parameters/0/$ref",
        "names nothing",
    ),
    "dangling-path-item-ref": (
        "api.yaml",
        HEAD + "paths:\n  /a: {$ref: '#/components/pathItems/nope'}\n",
        "#/paths/~1a/$ref",
        "names nothing",
    ),
    "dangling-file-ref": (
        "api.yaml",
        HEAD + "paths:\n  /a: {$ref: 'missing.yaml#/a'}\n",
        "",
        "missing file missing.yaml",
    ),
    "cyclic-body-ref": (
        "api.yaml",
        _op("      requestBody: {$ref: '#/components/requestBodies/a'}\n      responses: {}\n")
        + "components:\n  requestBodies:\n"
        + "    a: {$ref: '#/components/requestBodies/b'}\n"
        + "    b: {$ref: '#/components/requestBodies/a'}\n",
        "#/components/requestBodies/",
        "cyclic $ref",
    ),
    "cyclic-parameter-ref": (
        "api.yaml",
        _op("      parameters: [{$ref: '#/components/parameters/p'}]\n      responses: {}\n")
        + "components:\n  parameters:\n    p: {$ref: '#/components/parameters/p'}\n",
        "#/components/parameters/p",
        "cyclic $ref",
    ),
    "ref-not-a-string": (
        "api.yaml",
        _op("      requestBody: {$ref: 7}\n      responses: {}\n"),
        "#/paths/~1a/post/requestBody/$ref",
        "must be a string",
    ),
    "remote-ref": (
        "api.yaml",
        HEAD + "paths:\n  /a: {$ref: 'https://example.com/a.yaml#/a'}\n",
        "#/paths/~1a",
        "remote $ref",
    ),
    "deep-json": (
        "api.json",
        '{"openapi": "3.1.0", "paths": {}, "x": ' + "[" * 10_000 + "]" * 10_000 + "}",
        "",
        "nesting is deeper than",
    ),
    "deep-yaml-flow": (
        "api.yaml",
        HEAD + "paths: {}\nx: " + "[" * 10_000 + "]" * 10_000 + "\n",
        "",
        "nesting is deeper than",
    ),
    "deep-yaml-block": (
        "api.yaml",
        HEAD + "paths: {}\nx:\n" + "".join(" " * i + "a:\n" for i in range(1, 2_000)),
        "",
        "nesting is deeper than",
    ),
    "billion-laughs": ("api.yaml", _billion_laughs(), "", "expands to more than"),
    "lone-surrogate": (
        "api.json",
        '{"openapi": "3.1.0", "paths": {}, "info": {"title": "\\ud800", "version": "1"}}',
        "#/info/title",
        "surrogate",
    ),
    "nan": ("api.json", '{"openapi": "3.1.0", "paths": {}, "x": NaN}', "", "NaN"),
    "complex-key": (
        "api.yaml",
        HEAD + "paths: {}\nx: {? [a, b] : 1}\n",
        "",
        "is a list or a mapping, not a string",
    ),
}


def _generate_args(spec: Path, out: Path) -> list[str]:
    return ["generate", "--spec", str(spec), "--out", str(out), "--package", "bad_client",
            "--report", str(out.parent / "report.json")]  # fmt: skip


def run_generate(spec: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*_generate_args(spec, out), timeout=TIMEOUT)


def assert_refused(
    proc: subprocess.CompletedProcess[str], spec: Path, out: Path, ptr: str, msg: str
) -> None:
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith(f"cube-codegen: {spec}{ptr}"), line
    assert msg in line, line
    assert len(line) < 1000, line
    assert not out.exists(), "output written for a refused document"
    assert not (out.parent / "report.json").exists()
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")], "temporary left behind"


def _case(tmp_path: Path, name: str) -> tuple[Path, Path]:
    file, text, _, _ = CASES[name]
    folder = tmp_path / name
    folder.mkdir()
    spec = folder / file
    if isinstance(text, bytes):
        spec.write_bytes(text)
    else:
        spec.write_text(text, encoding="utf-8")
    return spec, folder / "out"


@pytest.mark.slow
def test_bad_documents_are_refused_in_one_line(tmp_path: Path) -> None:
    """Every case through ``cube-codegen generate``: two fresh interpreters, each running its
    half of the cases one after the other (:mod:`tests.cli_batch`)."""
    cases = {name: _case(tmp_path, name) for name in CASES}
    halves = [list(cases)[0::2], list(cases)[1::2]]
    with ThreadPoolExecutor(2) as pool:
        answers = pool.map(
            lambda names: run_cli_batch(
                [_generate_args(*cases[n]) for n in names], timeout=TIMEOUT
            ),
            halves,
        )
        results = {
            n: a
            for names, got in zip(halves, answers, strict=True)
            for n, a in zip(names, got, strict=True)
        }
    failures = []
    for name, (code, stderr) in results.items():
        spec, out = cases[name]
        _, _, ptr, msg = CASES[name]
        proc = subprocess.CompletedProcess(["cube-codegen", "generate"], code, "", stderr)
        try:
            assert_refused(proc, spec, out, ptr, msg)
        except AssertionError as exc:
            failures.append(f"{name}: {exc}")
    assert not failures, "\n".join(failures)


def test_fifty_megabyte_document_is_refused_without_reading_it(tmp_path: Path) -> None:
    spec = tmp_path / "huge.json"
    with spec.open("w", encoding="utf-8") as f:
        f.write('{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, "x": "')
        chunk = "a" * (1024 * 1024)
        for _ in range(50):
            f.write(chunk)
        f.write('"}')
    out = tmp_path / "out"
    proc = run_generate(spec, out)
    assert_refused(proc, spec, out, "", "MB document limit")


def test_existing_output_is_left_as_it_was(tmp_path: Path) -> None:
    spec = tmp_path / "api.yaml"
    spec.write_text(HEAD + "paths: [1]\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("previous")
    proc = run_generate(spec, out)
    assert proc.returncode == 2
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert (out / "keep.txt").read_text() == "previous"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "schema-alias-cycle",
            "A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n",
        ),
        ("schema-self-alias", "A: {$ref: '#/components/schemas/A'}\n"),
        ("schema-allof-cycle", "A: {allOf: [{$ref: '#/components/schemas/A'}]}\n"),
    ],
)
def test_cyclic_schemas_without_structure_do_not_hang(tmp_path: Path, name: str, text: str) -> None:
    """A schema that is only a reference to itself: a package (Any) with a warning, or exit 2."""
    spec = tmp_path / "api.yaml"
    spec.write_text(
        HEAD
        + "paths:\n  /a:\n    get:\n      operationId: getA\n      responses:\n"
        + "        '200':\n          description: ok\n          content:\n"
        + "            application/json:\n              schema: {$ref: '#/components/schemas/A'}\n"
        + "components:\n  schemas:\n    "
        + text
    )
    out = tmp_path / "out"
    proc = run_generate(spec, out)
    assert "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode == 2:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert not out.exists()
    else:
        assert proc.returncode == 0, proc.stderr
        compiled = [compile(p.read_text(), str(p), "exec") for p in out.rglob("*.py")]
        assert compiled


@pytest.mark.parametrize(
    ("files", "ptr", "message"),
    [
        (  # a path item in another file that leads back to the root's path item
            {
                "api.yaml": HEAD + "paths:\n  /a: {$ref: 'b.yaml#/x'}\n",
                "b.yaml": "x: {$ref: 'api.yaml#/paths/~1a'}\n",
            },
            "#/paths/~1a",
            "cyclic $ref",
        ),
        (  # the root's own file name in a reference
            {"api.yaml": HEAD + "paths:\n  /a: {$ref: 'api.yaml#/paths/~1a'}\n"},
            "#/paths/~1a",
            "cyclic $ref",
        ),
        (  # a fragment that is not a JSON pointer
            {"api.yaml": HEAD + "paths:\n  /a: {$ref: 'b.yaml#x'}\n", "b.yaml": "x: {}\n"},
            "#/paths/~1a",
            "does not exist",
        ),
        (  # a target missing in an existing file
            {"api.yaml": HEAD + "paths:\n  /a: {$ref: 'b.yaml#/nope'}\n", "b.yaml": "x: {}\n"},
            "#/paths/~1a",
            "does not exist",
        ),
        (  # another file that is not YAML
            {"api.yaml": HEAD + "paths:\n  /a: {$ref: 'b.yaml#/x'}\n", "b.yaml": "x: [\n"},
            "",
            "malformed YAML",
        ),
    ],
)
def test_bad_references_across_files(
    tmp_path: Path, files: dict[str, str], ptr: str, message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    spec = tmp_path / "api.yaml"
    out = tmp_path / "out"
    proc = run_generate(spec, out)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert message in lines[0], lines[0]
    assert ptr in lines[0], lines[0]
    assert not out.exists()
