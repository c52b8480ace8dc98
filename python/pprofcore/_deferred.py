"""The samples of a name filter's output, left in its input until read.

A focus or ignore keeps some of its input's samples unchanged, in order, over
the same header and tables; a hide or show keeps them with some locations
taken out of their stacks (the location rows stay the input's), over tables
whose locations may have lost lines. Copying the samples is most of the
filter's time on a big profile (the kernel clearing the fresh pages of the
copy), and the explorer's reports of the output read them off the input with
the kept mask and the hidden locations instead (``_core.derived_aggregate``
with ``deferred``, ``NodeTable.edges(sample_keep=, hidden=)``).
:class:`DeferredSamples` holds the input's C++ profile, the masks and the
output's own tables when it has them (a C++ profile without samples), and
makes the copy (``_core.kept_output``) the first time anything asks for the
output's own C++ profile. The input is held as long as the output lives.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional

import numpy as np

from . import _core

#: The columns of ``_core.Profile.columns()`` that hold samples (one row per
#: sample, or per label row); the others are the header's and the tables'.
SAMPLE_COLUMNS = ("values", "stack_offsets", "stack_locations", "label_offsets")
SAMPLE_PREFIXES = ("labels.",)


def is_sample_column(name: str) -> bool:
    return name in SAMPLE_COLUMNS or name.startswith(SAMPLE_PREFIXES)


class DeferredSamples:
    """``source``'s samples marked by ``kept`` (one byte per source sample),
    their stacks without the locations ``hidden`` marks (one byte per
    location; None: none), over the header and tables of ``tables`` (a C++
    profile without samples; None: the source's), copied into a C++ profile
    of their own on first :meth:`build`."""

    __slots__ = ("source", "kept", "hidden", "tables", "num_samples", "_lock", "_built", "_table_columns")

    def __init__(self, source: Any, kept: np.ndarray, hidden: Optional[np.ndarray] = None, tables: Any = None) -> None:
        self.source = source
        self.kept = kept
        self.hidden = hidden
        self.tables = source if tables is None else tables
        self.num_samples = int(np.count_nonzero(kept))
        self._lock = threading.Lock()
        self._built: Optional[Any] = None
        self._table_columns: Optional[Dict[str, np.ndarray]] = None

    def build(self) -> Any:
        """The output's own C++ profile, copied once (a request thread and a
        background one may ask at the same time)."""
        with self._lock:
            if self._built is None:
                tables = None if self.tables is self.source else self.tables
                self._built = _core.kept_output(self.source, self.kept, self.hidden, tables)
            return self._built

    def table_columns(self) -> Dict[str, np.ndarray]:
        """The output's header and table columns (its tables' profile's);
        no sample column."""
        cols = self._table_columns
        if cols is None:
            cols = self._table_columns = {k: v for k, v in self.tables.columns().items() if not is_sample_column(k)}
        return cols

    def total(self, ti: int) -> int:
        """Sum of sample type ``ti`` over the kept samples (wrapping as a
        sum over the copy's values would)."""
        values = self.source.columns()["values"]
        return int(values[self.kept.view(np.bool_), ti].sum(dtype=np.int64))
