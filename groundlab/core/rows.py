"""The rows of an input as records: a pandas DataFrame or a list of dicts read row by row
(:func:`read_table`), and the :class:`Source` that every reader of rows returns, so that a row
is named the same way wherever it came from (``row 3``, ``line 3``, ``item 3``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .records import InputError


def _json_type(value: object) -> str:
    """What kind of JSON value ``value`` is, as a message names it (``a string``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


@dataclass
class Source:
    """The records of an input, however it was stored.

    ``unit`` names one record in messages (``line`` in JSON Lines, ``row`` in a CSV, counted as
    a spreadsheet shows them, in Parquet or a DataFrame, counted from 1; ``item`` in a JSON array).
    ``cells``: values are CSV text, so lists come written into them. ``doc``: the whole
    document when the input is one JSON object (tools wrap their records in one)."""

    name: str
    kind: str
    unit: str
    records: List[Tuple[int, dict]]
    columns: List[str]
    doc: Optional[dict] = None
    cells: bool = False
    refs: Optional[Dict[int, str]] = None  # a DataFrame row with an index label of its own

    def ref(self, number: int) -> str:
        if self.refs and number in self.refs:
            return self.refs[number]
        return f"{self.unit} {number}"

    def where(self, ref: str) -> str:
        return f"{self.name} {ref}" if self.name else ref

    def part(self, keys: Sequence[str], records: Sequence[object]) -> "Source":
        """The records a document holds under ``keys`` (``results.results``), as a source of their own."""
        rows = [(k, r) for k, r in enumerate(records, 1) if isinstance(r, dict)]
        return Source(f"{self.name} {'.'.join(keys)}", "json", "item", rows, columns_of(r for _, r in rows))


def columns_of(records: Iterable[Mapping]) -> List[str]:
    """The keys of ``records`` in the order they first appear."""
    seen: Dict[str, None] = {}
    for record in records:
        for key in record:
            if key not in seen:
                seen[key] = None
    return list(seen)


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON can hold it: numpy and pandas values as Python's, NaN as ``None``, times
    as ISO text; anything else as its text. Nesting deeper than 100 levels is left as it is."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if depth > 100:
        return value
    if isinstance(value, Mapping):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    kind = type(value).__module__.split(".")[0]
    if kind == "numpy":
        return plain(value.tolist(), depth + 1) if hasattr(value, "tolist") else str(value)
    if kind == "pandas":
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return None
        if isinstance(value, pd.Timestamp):
            return value.isoformat()
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", errors="replace")
    return str(value)


def read_table(data: object) -> Source:
    """The records of a pandas DataFrame or a list of dicts, rows counted from 1; a DataFrame row
    whose index label is not its position is named with its label too."""
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        frame = data
        if frame.index.name and frame.index.name not in frame.columns:
            frame = frame.reset_index()
        columns = [str(c) for c in frame.columns]
        raw = frame.to_dict("records")
        records = [(k, {str(c): plain(v) for c, v in row.items()}) for k, row in enumerate(raw, 1)]
        refs = {k: f"row {k}, index {label!r}" for k, label in enumerate(data.index, 1) if label != k - 1}
        return Source("", "table", "row", records, columns, refs=refs or None)
    if isinstance(data, (list, tuple)):
        for k, item in enumerate(data, 1):
            if not isinstance(item, Mapping):
                raise InputError(f"row {k} of the list of cases is {_json_type(plain(item))}, not a dict; "
                                 "pass one dict per case, or a DataFrame.")
        records = [(k, {str(c): plain(v) for c, v in item.items()}) for k, item in enumerate(data, 1)]
        return Source("", "table", "row", records, columns_of(r for _, r in records))
    raise InputError(f"cases must be a file path, a pandas DataFrame or a list of dicts, not {type(data).__name__}.")


__all__ = ["Source", "columns_of", "plain", "read_table"]
