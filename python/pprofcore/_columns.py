"""Column groups of a :class:`~pprofcore.Profile` (labels, locations, lines,
functions, mappings) and its string table. Each column is a read-only NumPy view
into the C++ profile; string columns hold ``int32`` codes into ``profile.strings``.
"""

from __future__ import annotations

from typing import Dict, Iterator, Sequence, Tuple, Union, overload

import numpy as np


class Table:
    """A named group of equally long NumPy columns (read-only, zero-copy).

    Columns are attributes (``table.name``) and items (``table["name"]``);
    ``len(table)`` is the number of rows.
    """

    __slots__ = ("_name", "_columns")

    def __init__(self, name: str, columns: Dict[str, np.ndarray]):
        self._name = name
        self._columns = columns

    def __getattr__(self, item: str) -> np.ndarray:
        try:
            return self._columns[item]
        except KeyError:
            raise AttributeError(f"{self._name} has no column {item!r}; columns: {', '.join(self._columns)}") from None

    def __getitem__(self, item: str) -> np.ndarray:
        return self._columns[item]

    def __len__(self) -> int:
        first = next(iter(self._columns.values()))
        # line_offsets has one more entry than there are rows
        return len(self._columns["id"]) if "id" in self._columns else len(first)

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __dir__(self):
        return list(self._columns) + ["columns", "to_dict"]

    @property
    def columns(self) -> Tuple[str, ...]:
        """Names of the columns."""
        return tuple(self._columns)

    def to_dict(self) -> Dict[str, np.ndarray]:
        """The columns as a ``dict`` of NumPy arrays (views, not copies)."""
        return dict(self._columns)

    def __repr__(self) -> str:
        cols = ", ".join(f"{k}:{v.dtype}" for k, v in self._columns.items())
        return f"<{self._name}: {len(self)} rows; {cols}>"


class StringTable(Sequence[str]):
    """The profile's string table: a read-only sequence of ``str``.

    Code 0 is always ``""``. Invalid UTF-8 is shown with U+FFFD; the exact bytes
    are in :attr:`data` (``uint8``) and :attr:`offsets` (``int64``, ``len + 1``).
    """

    __slots__ = ("_core", "_list", "data", "offsets")

    def __init__(self, core, data: np.ndarray, offsets: np.ndarray):
        self._core = core
        self._list = None
        self.data = data
        self.offsets = offsets

    def _strings(self) -> list:
        if self._list is None:
            self._list = self._core.string_list()
        return self._list  # type: ignore[return-value]  # set just above

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list: ...
    def __getitem__(self, i: Union[int, slice]):
        return self._strings()[i]

    def __iter__(self):
        return iter(self._strings())

    def lookup(self, codes) -> np.ndarray:
        """Map an array of codes to an object array of ``str`` (``-1`` -> ``None``)."""
        codes = np.asarray(codes)
        table = np.array(self._strings() + [None], dtype=object)
        return table[np.where(codes < 0, len(table) - 1, codes)]

    def code_of(self, s: str) -> int:
        """The first code whose string equals ``s``, or ``-1``."""
        try:
            return self._strings().index(s)
        except ValueError:
            return -1

    def __repr__(self) -> str:
        return f"<StringTable: {len(self)} strings, {self.data.nbytes} bytes>"
