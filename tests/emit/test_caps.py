"""The README's table of caps is the code's: each row's value is the constant it names."""

from __future__ import annotations

import importlib
import re

from tests.helpers import ROOT

_UNITS = {"MB": 1024 * 1024}


def _rows() -> list[tuple[str, str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("| cap | value | where | beyond it |", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append((cells[0], cells[1], cells[2]))
    return rows


def _numbers(value: str) -> list[float]:
    out = []
    for number, unit in re.findall(r"([\d,]+(?:\.\d+)?)\s*(MB)?", value):
        out.append(float(number.replace(",", "")) * _UNITS.get(unit, 1))
    return out


def test_every_cap_in_the_readme_is_the_constant_it_names() -> None:
    rows = _rows()
    assert len(rows) >= 10
    for name, value, where in rows:
        module_file = re.match(r"`([\w/]+)\.py`", where)
        constants = re.findall(r"`([A-Z_][A-Z0-9_]*)`", where)
        assert module_file and constants, f"row {name!r} names no module and constant"
        module = importlib.import_module("generator." + module_file.group(1).replace("/", "."))
        actual = [float(getattr(module, c)) for c in constants]
        assert _numbers(value) == actual, (name, value, constants)
