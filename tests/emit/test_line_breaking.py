"""The renderer's own line breaking and import blocks agree with the pinned ruff.

Each statement below is one our templates write (or a harder variant of one). It is broken by
:func:`generator.emit.layout.fit` and the result is given to ``ruff format --check`` and
``ruff check`` with the generated package's settings: any difference fails the test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from generator.emit.imports import class_module_imports, import_block, used_names
from generator.emit.layout import LINE_LENGTH, fit, fit_item, fit_return
from generator.emit.sanitize import docstring_body, py_str

RUFF = Path(sys.executable).with_name("ruff")
SETTINGS = f"""[tool.ruff]
line-length = {LINE_LENGTH}
target-version = "py311"

[tool.ruff.lint]
select = ["E", "F", "I", "UP", "B", "RUF"]
ignore = ["E501", "F821", "F401", "RUF012", "B018", "F706", "F841"]

[tool.ruff.lint.isort]
known-first-party = ["pkg"]
"""

LITERAL = (
    'Literal["model", "absolute", "thousands", "millions", "billions", "trillions", "zillions"]'
)
STATEMENTS = [
    (0, f"class Scale(RootModel[Open[{LITERAL}]]):"),
    (4, f"root: Open[{LITERAL}]"),
    (4, f'field: Annotated[Open[{LITERAL}] | None, Field(alias="fieldName")] = None'),
    (
        4,
        'field: Annotated[Open[Literal["a", "b"]] | None, Field(alias="aFieldNameThatIsLonger", ge=0)] = None',
    ),
    (
        4,
        'nested_folders: Annotated[list[V1CubeMetaNestedFolder] | None, Field(alias="nestedFolders")] = None',
    ),
    (4, f"plain: Open[{LITERAL}] | Something | None = None"),
    (4, f'tags: Annotated[list[{LITERAL}] | None, Field(alias="tagsAndMore")] = ["model"]'),
    (4, f"def f(self, status: {LITERAL} | None = None, *, k: int = 3) -> None:"),
    (
        4,
        "def databricks_metric_view_integration_with_raw(self) -> DatabricksMetricViewIntegrationResourceRaw:",
    ),
    (
        8,
        'assert foo(a.b.c.d()) == Model({"aaaaaaaa": 1, "bbbbbbbbbbbb": [1, 2, 3], "c": {"d": "eeeee"}})',
    ),
    (
        8,
        "self.some_method_name = async_to_raw_response_wrapper(resource.some_method_name_that_is_long)",
    ),
    (
        8,
        "x = foo(aaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb)[0].bar(ccccccccccccccc)",
    ),
    (
        8,
        "return SyncPage(self._client, call, _LIST_ENVIRONMENTS_PAGES, EnvironmentWithDeploymentsAndMore)",
    ),
    (
        8,
        "return SyncPage(self._client, call, _PAGES, Environment | Foooooooooooooooooooooooooooooooooooooooooooooooooo)",
    ),
    (
        8,
        'x: dict[str, Any] = {"aaaaaaaa": 1, "bbbbbbbbbbbb": [1, 2, 3], "c": {"d": "eeeeeeeeeeeeeeeee"}}',
    ),
    (
        8,
        'x = ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")',
    ),
    (
        8,
        "xxxx = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    ),
    (
        8,
        "foo(x=lambda: self.get_something(aaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbb, ccc))",
    ),
    (
        8,
        'assert sdk.resource.method_name(argument_one="aaaaaaaaaaa") == M.model_validate({}).copy(u=1)',
    ),
    (
        0,
        '_REFS = {"AaaaaaaaaaaaaaaaaaaaA": "aaaaaaaaaaaaaaaaaaa", "BbbbbbbbbbbbbbbbbbbbbbbbbB": "bbbbbbbbbbb"}',
    ),
    (
        8,
        "job: SyncJob[models.DashboardExportJobResponse, models.DashboardStatusResponse] = SyncJob(s, k=1)",
    ),
    (
        8,
        f'body: Any = {{"kind": "{"a" * 40}"}} if variant == "missing" else {{"kind": "{"b" * 30}"}}',
    ),
    (
        8,
        "assert isinstance(value, list) and isinstance(value[0], _models.SomeLongModelNameForAnItemOfTheList)",
    ),
    (
        8,
        f'value = [_models.Item.model_validate({{"k": "{"v" * 30}"}}) for item in [1, 2, 3, 4, 5]]',
    ),
    (4, f'RESPONSE: ClassVar[Any] = b\'{{"name": "{"x" * 120}"}}\''),
    (
        4,
        "segment: PostShieldInformationBarrierSegmentMembersRequestShieldInformationBarrierSegmentNumberOne",
    ),
    (0, "class " + "Long" * 24 + "(BaseModel):"),
]


def _ruff(tmp_path: Path, text: str) -> None:
    (tmp_path / "pyproject.toml").write_text(SETTINGS, encoding="utf-8")
    (tmp_path / "case.py").write_text(text, encoding="utf-8")
    for args in (["format", "--check", "--diff"], ["check"]):
        proc = subprocess.run(
            [str(RUFF), *args, "--no-cache", "case.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, text + "\n" + proc.stdout + proc.stderr


def _indented(indent: int, text: str) -> str:
    """The statement placed at ``indent`` inside enough blocks to be valid on its own."""
    opener = "".join(" " * i + f"class C{i}:\n" for i in range(0, indent, 4))
    body = " " * indent + text + ("\n" + " " * (indent + 4) + "pass" if text.endswith(":") else "")
    return opener + body + "\n"


@pytest.mark.parametrize(("indent", "statement"), STATEMENTS, ids=range(len(STATEMENTS)))
def test_a_broken_statement_is_what_ruff_writes(
    tmp_path: Path, indent: int, statement: str
) -> None:
    assert indent + len(statement) > LINE_LENGTH
    out = fit(statement, indent)
    assert out != statement  # every case here is over the line length
    _ruff(tmp_path, _indented(indent, out))


def test_a_statement_that_fits_comes_back_untouched() -> None:
    assert fit("x = f(a, b)", 4) == "x = f(a, b)"
    assert fit_item("name: int | None = None", 8, kind="param") == "name: int | None = None,"


@pytest.mark.parametrize(
    ("kind", "item"),
    [
        ("param", f"status: {LITERAL} | list[{LITERAL}] | NotGiven = NOT_GIVEN"),
        (
            "arg",
            'await self._client.request(call, cast_to=_models.SomeRatherLongModelName, kind="json")',
        ),
        ("entry", '"aaaaaaaaaaaaaaaaaaaaaaaa": ' + py_str(f"NotRequired[{LITERAL}]")),
    ],
)
def test_an_item_of_an_exploded_bracket_is_what_ruff_writes(
    tmp_path: Path, kind: str, item: str
) -> None:
    out = fit_item(item, 12, kind=kind)
    # the item sits at 12 columns inside a bracket that opens at 8
    text = {
        "param": "class C:\n    class D:\n        def f(\n            self,\n            "
        + out
        + "\n        ) -> None: ...\n",
        "arg": "async def g():\n    if True:\n        x = h(\n            1,\n            "
        + out
        + "\n        )\n",
        "entry": "if True:\n    if True:\n        x = {\n            1: 2,\n            "
        + out
        + "\n        }\n",
    }[kind]
    _ruff(tmp_path, text)


def test_a_long_return_annotation_is_broken_as_ruff_does(tmp_path: Path) -> None:
    union = "_models.GetModelsOneofResponseOptionNumberOne | _models.GetModelsOneofResponseOptionNumberTwo"
    closing = fit_return(union, 4)
    assert closing.startswith(") -> (\n")
    _ruff(tmp_path, f"class C:\n    def f(\n        self,\n    {closing}\n        pass\n")
    assert fit_return("int", 4) == ") -> int:"


@pytest.mark.parametrize(
    "statement",
    [f'SERVER_URL = "https://{"v" * 110}"', f'NAME: str = "{"n" * 120}"', f'X = b"{"x" * 98}"'],
)
def test_a_value_too_long_even_in_parentheses_stays_on_its_line(
    tmp_path: Path, statement: str
) -> None:
    """The formatter parenthesizes an unbreakable value only when it then fits (a server URL
    of the document just over the line is parenthesized; a longer one is not)."""
    assert fit(statement, 0) == statement
    _ruff(tmp_path, statement + "\n")
    shorter = f'SERVER_URL = "https://{"v" * 80}"'
    assert fit(shorter, 0) == f'SERVER_URL = (\n    "https://{"v" * 80}"\n)'
    _ruff(tmp_path, fit(shorter, 0) + "\n")


def test_a_class_header_without_bases_is_left_as_it_is() -> None:
    header = "class " + "Long" * 30 + ":"
    assert fit(header, 0) == header


def test_a_line_that_is_not_python_is_left_for_the_checks_to_report() -> None:
    assert fit("x = = " + "y" * 120, 0) == "x = = " + "y" * 120


@pytest.mark.parametrize(
    "text", ['say "hi"', "it's", "both \" and '", "\u00e9\U0001f600\\", '"""', "tab\there"]
)
def test_string_literals_take_the_formatters_quotes(tmp_path: Path, text: str) -> None:
    literal = py_str(text)
    assert eval(literal) == text
    _ruff(tmp_path, f"x = {literal}\n")


def test_names_in_strings_and_comments_are_not_uses() -> None:
    code = 'x: Literal["Any"] = Field(alias="datetime")  # Mapping\ny = datetime.date\n'
    assert used_names(code) >= {"Literal", "Field", "datetime", "y"}
    assert "Any" not in used_names(code) and "Mapping" not in used_names(code)
    assert "date" not in used_names(code)  # an attribute, not a name
    twin = "class P(TypedDict):\n    Literal: Thing | None\n    other: int\n"
    assert "Literal" not in used_names(twin)  # a key being bound, not the typing name used
    assert {"Thing", "TypedDict"} <= used_names(twin)


@pytest.mark.parametrize(
    ("code", "used"),
    [
        ("f(name=1, other=x)\n", {"f", "x"}),  # keyword arguments bind, their values are uses
        ("f(a==b)\nc == d\n", {"f", "a", "b", "c", "d"}),  # a comparison is a use
        ("if (y:=g()):\n    pass\n", {"if", "y", "g", "pass"}),  # walrus: not a binding `name:`
        ("    field: T = v\ntry:\n    x\n", {"T", "v", "x"}),  # `name:` at a line's start
        ("lambda q: q\n", {"lambda", "q"}),
        ("a.b.c(1.5e3, .5, d[0])\n", {"a", "d"}),  # attributes and numbers are not names
        ("name_with_digits2 = 3\n", {"name_with_digits2"}),  # `x = v` (spaced) counts
        ("s = 'it''s' + \"x\\\"y\" # z\n", {"s"}),
    ],
)
def test_what_counts_as_a_use(code: str, used: set[str]) -> None:
    """The names a module is taken to use (its imports are written from them), at the edges
    of the one-pass scan: keyword arguments, comparisons, walrus, line-start bindings."""
    assert used_names(code) == used


def test_import_blocks_are_sorted_as_the_linter_wants(tmp_path: Path) -> None:
    imports: list[tuple[str, str | None]] = [
        ("pkg._models", "Open"),
        ("typing", "TYPE_CHECKING"),
        ("pydantic", "model_validator"),
        ("datetime", None),
        ("typing", "Annotated"),
        ("pkg._models", "BaseModel"),
        ("collections.abc", "Sequence"),
        ("pydantic", "ConfigDict"),
        ("pkg.platform", "models as _models"),
        (".a_module_whose_name_is_long_enough_to_wrap_the_import_line", "SomeClassName"),
        (".a_module_whose_name_is_long_enough_to_wrap_the_import_line", "SomeClassNameParam"),
        (".b", "APIKeys"),
        (".b", "AsyncAPIKeys"),
    ]
    block = import_block(imports, "pkg")
    uses = "\n".join(f"print({(n or m).split(' as ')[-1]})" for m, n in imports if m != "datetime")
    _ruff(
        tmp_path,
        "from __future__ import annotations\n\n" + block + "\n\nprint(datetime)\n" + uses + "\n",
    )
    assert block.index("import datetime") < block.index("from collections.abc")


def test_a_class_module_imports_only_what_its_body_uses() -> None:
    body = (
        "class A(BaseModel):\n    when: datetime.date | None = None\n    other: B | None = None\n"
    )
    text = class_module_imports(used_names(body), "pkg", [], [(".b", "B"), (".c", "C")])
    assert "import datetime" in text and "BaseModel" in text
    assert "from .b import B" in text and ".c" not in text
    assert "Field" not in text and "Literal" not in text
    assert text.endswith("if TYPE_CHECKING:\n    from .b import B")


@pytest.mark.parametrize(
    "text",
    [
        "POST /a/b\n0e/{x}",
        "Summary\n   - one\n     more\n\n   - two",
        "first\n\tindented with a tab\nback",
        'ends with a quote "',
    ],
    ids=["path-with-newline", "nested-list", "tab", "quote"],
)
def test_docstrings_are_laid_out_as_the_formatter_leaves_them(tmp_path: Path, text: str) -> None:
    module = f'"""{docstring_body(text)}"""\n\n\nclass C:\n    """{docstring_body(text, 4)}"""\n\n'
    module += f'    def f(self) -> None:\n        """{docstring_body(text, 8)}"""\n'
    _ruff(tmp_path, module)
