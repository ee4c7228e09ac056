"""Rows and frames of a query result (models marked ``x-cube-data-result``).

A result's ``data`` comes in one of three shapes: rows (a list of objects keyed by member),
``compact`` (``members`` and a ``dataset`` of row arrays) or ``columnar`` (``members`` and one
array per member in ``columns``). :meth:`LoadResultMixin.rows` gives every shape as the same
list of dicts keyed by member name, each value converted by the member's type in
``annotation``:

- ``number`` (and the measure kinds ``count``, ``sum``, ...): ``int`` when the text is an
  integer, else ``float`` (``decimal=True``: ``decimal.Decimal``, exact);
- ``time``: ``datetime.datetime``, naive: the local time the server sends, without a zone;
- ``boolean``: ``bool``; anything else as sent.

``rows(raw=True)`` keeps the values as sent. ``to_pandas()``, ``to_polars()`` and ``to_arrow()``
build a frame column by column (no rows in between) through the optional extras; see
``_frames``. Reading works on the response as received, so a large result is not validated
value by value first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._member_values import columns_of, converter, member_kinds

if TYPE_CHECKING:
    import pandas  # type: ignore[import-untyped, import-not-found, unused-ignore]
    import polars  # type: ignore[import-not-found, unused-ignore]
    import pyarrow  # type: ignore[import-untyped, import-not-found, unused-ignore]

__all__ = ["LoadResponseMixin", "LoadResultMixin", "member_kinds"]


class LoadResultMixin:
    """Rows and frames of one query result (see module)."""

    def _raw(self) -> dict[str, Any]:
        raw: dict[str, Any] = self.to_dict()  # type: ignore[attr-defined]
        return raw

    def member_kinds(self) -> dict[str, str]:
        """Each member's kind from the annotation: ``number``, ``time``, ``boolean``, ``string``."""
        return member_kinds(self._raw().get("annotation"))

    def columns(self) -> dict[str, list[Any]]:
        """Each member's values, as sent, in the order the data names them."""
        raw = self._raw()
        return columns_of(raw.get("data"), raw.get("annotation"))

    def rows(self, *, decimal: bool = False, raw: bool = False) -> list[dict[str, Any]]:
        """The result's rows as dicts keyed by member name, values typed (see module)."""
        columns = self.columns()
        if not raw:
            kinds = self.member_kinds()
            for name, values in columns.items():
                convert = converter(kinds.get(name, "string"), decimal)
                if convert is not None:
                    columns[name] = [None if v is None else convert(v) for v in values]
        names = list(columns)
        return [dict(zip(names, row, strict=True)) for row in zip(*columns.values(), strict=True)]

    def to_pandas(self) -> pandas.DataFrame:
        """The result as a pandas DataFrame, dtypes by the annotation (``cube-client[pandas]``)."""
        from ._frames import pandas_frame

        return pandas_frame(self.columns(), self.member_kinds())

    def to_polars(self) -> polars.DataFrame:
        """The result as a Polars DataFrame, dtypes by the annotation (``cube-client[polars]``)."""
        from ._frames import polars_frame

        return polars_frame(self.columns(), self.member_kinds())

    def to_arrow(self) -> pyarrow.Table:
        """The result as an Arrow table, types from the annotation (``cube-client[arrow]``)."""
        from ._frames import arrow_table

        return arrow_table(self.columns(), self.member_kinds())


class LoadResponseMixin:
    """A load response reads as its first result: ``rows()`` and the frames."""

    @property
    def first(self) -> LoadResultMixin:
        """The first result (a blending query has one per query; see ``results``)."""
        results = getattr(self, "results", None) or []
        if not results:
            from ._exceptions import APIError

            raise APIError("the response has no results")
        first: LoadResultMixin = results[0]
        return first

    def rows(self, *, decimal: bool = False, raw: bool = False) -> list[dict[str, Any]]:
        """The first result's rows (see :meth:`LoadResultMixin.rows`)."""
        return self.first.rows(decimal=decimal, raw=raw)

    def to_pandas(self) -> pandas.DataFrame:
        return self.first.to_pandas()

    def to_polars(self) -> polars.DataFrame:
        return self.first.to_polars()

    def to_arrow(self) -> pyarrow.Table:
        return self.first.to_arrow()
