"""Frames from a result's columns: pandas, Polars and Arrow, each an optional extra.

Only imported when a ``to_*`` method is called, so the base install never imports a frame
library. Types come from the member kinds of the annotation (see ``_results``): numbers are
``int64`` when every value is an integer, else ``float64``; times are naive timestamps
(microseconds in Polars and Arrow, pandas' own unit in pandas); booleans are booleans; other
members are text. A missing library is a :class:`MissingExtraError` naming the ``pip install``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._exceptions import MissingExtraError
from ._member_values import converter
from ._version import DISTRIBUTION

if TYPE_CHECKING:
    import pandas  # type: ignore[import-untyped, import-not-found, unused-ignore]
    import polars  # type: ignore[import-not-found, unused-ignore]
    import pyarrow  # type: ignore[import-untyped, import-not-found, unused-ignore]

__all__ = ["arrow_table", "pandas_frame", "polars_frame", "require"]


def require(module: str, extra: str, method: str) -> Any:
    """``module`` imported, or a one-line error naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"{method}() needs {module}, which is not installed: "
            f"pip install '{DISTRIBUTION}[{extra}]'"
        ) from None


def _typed(values: list[Any], kind: str) -> list[Any]:
    convert = converter(kind)
    return values if convert is None else [None if v is None else convert(v) for v in values]


def _all_int(values: list[Any]) -> bool:
    return all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in values)


def pandas_frame(columns: dict[str, list[Any]], kinds: dict[str, str]) -> pandas.DataFrame:
    """A pandas DataFrame: one vectorised conversion per column."""
    pd = require("pandas", "pandas", "to_pandas")
    frame: dict[str, Any] = {}
    for name, values in columns.items():
        kind = kinds.get(name, "string")
        series = pd.Series(values, dtype=object)
        if kind == "number":
            series = pd.to_numeric(series)
        elif kind == "time":
            series = pd.to_datetime(series, format="ISO8601")
        elif kind == "boolean":
            typed = _typed(values, kind)
            series = pd.Series(typed, dtype="boolean" if None in typed else bool)
        frame[name] = series
    return pd.DataFrame(frame, columns=list(columns))


def arrow_table(columns: dict[str, list[Any]], kinds: dict[str, str]) -> pyarrow.Table:
    """An Arrow table, typed column by column."""
    pa = require("pyarrow", "arrow", "to_arrow")
    arrays = []
    for name, values in columns.items():
        kind = kinds.get(name, "string")
        typed = _typed(values, kind)
        if kind == "number":
            arrays.append(pa.array(typed, type=pa.int64() if _all_int(typed) else pa.float64()))
        elif kind == "time":
            arrays.append(pa.array(typed, type=pa.timestamp("us")))
        elif kind == "boolean":
            arrays.append(pa.array(typed, type=pa.bool_()))
        else:
            arrays.append(pa.array([None if v is None else str(v) for v in typed], pa.string()))
    return pa.table(arrays, names=list(columns))


def polars_frame(columns: dict[str, list[Any]], kinds: dict[str, str]) -> polars.DataFrame:
    """A Polars DataFrame, typed column by column."""
    pl = require("polars", "polars", "to_polars")
    series = []
    for name, values in columns.items():
        kind = kinds.get(name, "string")
        typed = _typed(values, kind)
        if kind == "number":
            dtype = pl.Int64 if _all_int(typed) else pl.Float64
        elif kind == "time":
            dtype = pl.Datetime("us")
        elif kind == "boolean":
            dtype = pl.Boolean
        else:
            typed, dtype = [None if v is None else str(v) for v in typed], pl.String
        series.append(pl.Series(name, typed, dtype=dtype))
    return pl.DataFrame(series)
