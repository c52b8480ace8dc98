"""The table object returned by reports (``Profile.top`` and friends): named
NumPy/list columns plus a text header, with ``to_pandas``, ``to_arrow``, the
Arrow PyCapsule stream interface, a pprof-like text ``repr`` and HTML."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np

from .._optional import require_pandas
from .._tabular import to_arrow_columns, to_pandas_columns
from ..display.notebook import report_table_html


class ReportTable:
    """A report as a table: columns of equal length, a title, and a text form.

    Columns are NumPy arrays (numbers) or lists of ``str``. ``len(t)`` is the row
    count, ``t["col"]`` a column, ``t.columns`` the names. Convert with
    :meth:`to_pandas`, :meth:`to_arrow`, or hand it to any library that speaks the
    Arrow PyCapsule interface (polars, duckdb, ``pyarrow.table(t)``).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> t = p.top(n=3)
    >>> len(t), t.columns[:3]
    (3, ['name', 'flat', 'flat%'])
    >>> t["name"]
    ['crypto/sha256.block', 'runtime.asyncPreempt', 'sort.Float64Slice.Less']
    >>> t.to_pandas().shape  # needs pandas
    (3, 7)
    """

    def __init__(
        self,
        columns: Mapping[str, Any],
        header: Optional[List[str]] = None,
        text: Optional[Callable[..., str]] = None,
        meta: Optional[dict] = None,
    ):
        self._columns = dict(columns)
        self.header = list(header or [])
        self._text = text
        self.meta = dict(meta or {})

    # ----------------------------------------------------------- container API
    @property
    def columns(self) -> List[str]:
        """Names of the columns, in order."""
        return list(self._columns)

    def __getitem__(self, name: str):
        return self._columns[name]

    def __len__(self) -> int:
        if not self._columns:
            return 0
        return _len(next(iter(self._columns.values())))

    def rows(self):
        """Iterate over rows as ``dict`` (convenient for small tables)."""
        names = self.columns
        cols = [self._columns[n] for n in names]
        for i in range(len(self)):
            yield {n: _cell(c, i) for n, c in zip(names, cols)}

    def to_dict(self) -> Dict[str, Sequence]:
        """Columns as a ``dict`` (NumPy arrays and lists)."""
        return dict(self._columns)

    def __eq__(self, other: object) -> bool:
        """Equal when the header lines, the column names, their order and every
        cell agree (NaN equals NaN); ``meta`` (formatting details) does not count."""
        if not isinstance(other, ReportTable):
            return NotImplemented
        if self.header != other.header or self.columns != other.columns or len(self) != len(other):
            return False
        return all(column_equal(self._columns[c], other._columns[c]) for c in self.columns)

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------- conversions
    def to_pandas(self):
        """The table as a ``pandas.DataFrame`` (string columns as ``Categorical``)."""
        require_pandas()  # clear error when pandas is missing
        return to_pandas_columns(self._columns)

    def to_arrow(self):
        """The table as a ``pyarrow.Table`` (string columns dictionary-encoded)."""
        return to_arrow_columns(self._columns)

    def __arrow_c_stream__(self, requested_schema=None):
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    # ----------------------------------------------------------------- display
    def to_text(self, n: Optional[int] = None) -> str:
        """The text form (like pprof's), optionally only the first ``n`` rows."""
        if self._text is not None:
            return self._text(self, n)
        return _generic_text(self, n)

    def __repr__(self) -> str:
        return self.to_text(n=50 if len(self) > 60 else None)

    def _repr_html_(self) -> str:
        return report_table_html(self)


def _generic_text(t: ReportTable, n: Optional[int]) -> str:
    names = t.columns
    rows = len(t) if n is None else min(n, len(t))
    cells = [[str(c) for c in names]]
    for i in range(rows):
        cells.append([str(_cell(t[c], i)) for c in names])
    widths = [max(len(r[j]) for r in cells) for j in range(len(names))]
    lines = list(t.header)
    for r in cells:
        lines.append(
            "  ".join(s.rjust(w) if j < len(names) - 1 else s for j, (s, w) in enumerate(zip(r, widths))).rstrip()
        )
    if rows < len(t):
        lines.append(f"... {len(t) - rows} more rows")
    return "\n".join(lines)


def _len(col) -> int:
    if hasattr(col, "codes"):
        return len(col.codes)
    if isinstance(col, tuple):
        return len(col[0])
    return len(col)


def _cell(col, i):
    """Row ``i`` of a column as a plain Python value."""
    if hasattr(col, "codes"):  # dictionary-coded strings
        c = int(col.codes[i])
        return None if c < 0 else col.categories[c]
    if isinstance(col, tuple):  # (values, missing mask)
        return None if col[1][i] else col[0][i].item()
    v = col[i]
    return v.item() if isinstance(v, np.generic) else v


def column_cells(col) -> list:
    """A column as a list of plain Python values (``None`` where missing)."""
    return [_cell(col, i) for i in range(_len(col))]


def column_equal(a, b) -> bool:
    """Cell-by-cell equality of two columns, NaN equal to NaN."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))
    ca, cb = column_cells(a), column_cells(b)
    return len(ca) == len(cb) and all(x == y or (x != x and y != y) for x, y in zip(ca, cb))
