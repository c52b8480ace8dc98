"""The :class:`Profile` class: an immutable, columnar pprof profile."""

from __future__ import annotations

import os
from typing import List, Optional, Tuple, Union

import numpy as np

from . import _core
from ._tables import StringTable, Table

_PICKLE_VERSION = 1


class Profile:
    """An immutable pprof profile held as columnar tables in C++.

    Create one with :func:`pprofcore.load`, :func:`pprofcore.loads` or
    :func:`pprofcore.load_many`. Every array attribute is a read-only, zero-copy
    NumPy view that keeps the profile alive; string columns are ``int32`` codes
    into :attr:`strings`; cross references are dense row indices (the original
    pprof ids are kept in the ``id`` columns).

    Tables (see ``docs/data-model.md``):

    - samples: :attr:`values` (``n_samples x n_types``), :attr:`stack_offsets` +
      :attr:`stack_locations` (CSR, leaf first), :attr:`label_offsets` into
      :attr:`labels` (``key``, ``str`` (-1 = numeric), ``num``, ``num_unit``);
    - :attr:`locations` (``id``, ``mapping`` (-1 = none), ``address``,
      ``is_folded``, ``line_offsets`` into :attr:`lines`);
    - :attr:`lines` (``function``, ``line``, ``column``), leaf-most inline frame first;
    - :attr:`functions` (``id``, ``name``, ``system_name``, ``filename``, ``start_line``);
    - :attr:`mappings` (``id``, ``memory_start``, ``memory_limit``, ``file_offset``,
      ``filename``, ``build_id``, ``has_functions``, ``has_filenames``,
      ``has_line_numbers``, ``has_inline_frames``).

    ``len(profile)`` is the number of samples. Profiles compare equal when every
    column and the string table are identical. A profile pickles as its pprof
    bytes, so Dask, multiprocessing and Ray can move it.
    """

    __slots__ = ("_core", "_cols", "_strings", "_tables", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError("use pprofcore.load(), loads() or load_many() to create a Profile")

    @classmethod
    def _wrap(cls, core: "_core.Profile") -> "Profile":
        self = object.__new__(cls)
        self._core = core
        self._cols = core.columns()
        self._strings = None
        self._tables = {}
        return self

    # ------------------------------------------------------------------ header
    def _s(self, code: int) -> str:
        return self._core.string(code)

    @property
    def sample_types(self) -> List[Tuple[str, str]]:
        """``(type, unit)`` of each value column, e.g. ``[("cpu", "nanoseconds")]``."""
        return [(self._s(t), self._s(u)) for t, u in zip(self._cols["sample_type.type"], self._cols["sample_type.unit"])]

    @property
    def period_type(self) -> Optional[Tuple[str, str]]:
        """``(type, unit)`` of :attr:`period`, or ``None`` when the profile has none."""
        if not self._core.has_period_type:
            return None
        t, u = self._core.period_type_codes
        return (self._s(t), self._s(u))

    @property
    def period(self) -> int:
        """Sampling period in units of :attr:`period_type`."""
        return self._core.period

    @property
    def time_nanos(self) -> int:
        """Collection time, nanoseconds since the Unix epoch (0 = unknown)."""
        return self._core.time_nanos

    @property
    def duration_nanos(self) -> int:
        """Duration of the collection in nanoseconds."""
        return self._core.duration_nanos

    @property
    def comments(self) -> List[str]:
        """Free-form comments attached to the profile."""
        return [self._s(int(c)) for c in self._cols["comments"]]

    @property
    def drop_frames(self) -> str:
        """Regex of frames the producer wants dropped (with their callees); ``""`` if none."""
        return self._s(self._core.drop_frames_code)

    @property
    def keep_frames(self) -> str:
        """Regex of frames exempt from :attr:`drop_frames`; ``""`` if none."""
        return self._s(self._core.keep_frames_code)

    @property
    def default_sample_type(self) -> str:
        """Name of the sample type to show by default; ``""`` if unset."""
        return self._s(self._core.default_sample_type_code)

    @property
    def doc_url(self) -> str:
        """Documentation link for the profile's sample types; ``""`` if unset."""
        return self._s(self._core.doc_url_code)

    @property
    def strings(self) -> StringTable:
        """The string table (a sequence of ``str``; code 0 is ``""``)."""
        if self._strings is None:
            self._strings = StringTable(self._core, self._cols["strings.data"], self._cols["strings.offsets"])
        return self._strings

    # ----------------------------------------------------------------- columns
    @property
    def values(self) -> np.ndarray:
        """Sample values, ``int64`` of shape ``(n_samples, n_types)``, C-contiguous."""
        return self._cols["values"]

    @property
    def stack_offsets(self) -> np.ndarray:
        """``int64``, ``n_samples + 1``: sample ``i``'s stack is
        ``stack_locations[stack_offsets[i]:stack_offsets[i+1]]``."""
        return self._cols["stack_offsets"]

    @property
    def stack_locations(self) -> np.ndarray:
        """``int32`` location rows of all stacks, leaf first."""
        return self._cols["stack_locations"]

    @property
    def label_offsets(self) -> np.ndarray:
        """``int64``, ``n_samples + 1``: sample ``i``'s labels are rows
        ``label_offsets[i]:label_offsets[i+1]`` of :attr:`labels`."""
        return self._cols["label_offsets"]

    def _table(self, name: str) -> Table:
        t = self._tables.get(name)
        if t is None:
            prefix = name + "."
            t = Table(name, {k[len(prefix):]: v for k, v in self._cols.items() if k.startswith(prefix)})
            self._tables[name] = t
        return t

    @property
    def labels(self) -> Table:
        """Sample labels: ``key``, ``str`` (-1 for numeric labels), ``num``, ``num_unit``."""
        return self._table("labels")

    @property
    def locations(self) -> Table:
        """Locations: ``id``, ``mapping``, ``address``, ``is_folded``, ``line_offsets``."""
        return self._table("locations")

    @property
    def lines(self) -> Table:
        """Lines of all locations: ``function``, ``line``, ``column``."""
        return self._table("lines")

    @property
    def functions(self) -> Table:
        """Functions: ``id``, ``name``, ``system_name``, ``filename``, ``start_line``."""
        return self._table("functions")

    @property
    def mappings(self) -> Table:
        """Mappings (binaries and libraries)."""
        return self._table("mappings")

    def stack(self, i: int) -> np.ndarray:
        """Location rows of sample ``i``'s stack, leaf first."""
        o = self.stack_offsets
        return self.stack_locations[o[i]:o[i + 1]]

    def sample_type_index(self, sample_type: Union[int, str, None] = None) -> int:
        """Index of a sample type given by index or ``type`` name.

        ``None`` follows pprof: :attr:`default_sample_type` when set, else the last type.
        """
        types = [t for t, _ in self.sample_types]
        if sample_type is None:
            sample_type = self.default_sample_type or (len(types) - 1)
        if isinstance(sample_type, (int, np.integer)):
            i = int(sample_type)
            if not -len(types) <= i < len(types):
                raise IndexError(f"sample type index {i} out of range for {len(types)} types")
            return i % len(types)
        if sample_type in types:
            return types.index(sample_type)
        raise KeyError(f"no sample type {sample_type!r}; have {', '.join(types)}")

    def total(self, sample_type: Union[int, str, None] = None) -> int:
        """Sum of one sample type's values (default: pprof's default type)."""
        if len(self) == 0:
            return 0
        return int(self.values[:, self.sample_type_index(sample_type)].sum(dtype=np.int64))

    @property
    def memory_bytes(self) -> int:
        """Approximate bytes held by the profile's C++ columns."""
        return self._core.memory_bytes()

    def __len__(self) -> int:
        return self._core.num_samples

    # ------------------------------------------------------------------ output
    def to_bytes(self, compress: bool = True, level: Optional[int] = None) -> bytes:
        """Serialize to ``profile.proto`` bytes, gzip-compressed unless ``compress=False``.

        Output is deterministic: equal profiles give identical bytes, and
        ``loads(p.to_bytes()) == p``. ``level`` is the gzip level (1 = fastest).
        """
        return self._core.encode(compress, -1 if level is None else int(level))

    def save(self, path: Union[str, "os.PathLike[str]"], compress: bool = True, level: Optional[int] = None) -> None:
        """Write the profile to ``path`` (gzip-compressed unless ``compress=False``)."""
        data = self.to_bytes(compress=compress, level=level)
        with open(os.fspath(path), "wb") as f:
            f.write(data)

    # ----------------------------------------------------------------- reports
    def top(self, sample_type: Union[int, str, None] = None, by: str = "functions", n: Optional[int] = None,
            sort: str = "flat", mean: bool = False, unit: Optional[str] = None, inline: bool = True):
        """Flat and cum per function (or file, line, address), like ``pprof -top``.

        Parameters
        ----------
        sample_type : int, str, list or "all", optional
            Sample type index or name; default follows pprof (``default_sample_type``,
            else the last type). A list (or ``"all"``) gives ``flat:<type>`` and
            ``cum:<type>`` columns for each type, ordered by the first.
        by : {"functions", "filefunctions", "files", "lines", "addresses"}
            pprof's granularity.
        n : int, optional
            Keep only the first ``n`` rows (pprof's ``-nodecount``).
        sort : {"flat", "cum"}
            Order by flat (pprof's default) or cum (``-cum``).
        mean : bool
            Divide by the first (count) sample type, like ``-mean``.
        unit : str, optional
            Display unit (``"minimum"`` default, ``"auto"``, ``"ms"``, ``"MB"`` ...);
            table values stay in the sample type's own unit.
        inline : bool
            Show inlined functions as their own rows (``False`` = ``-noinlines``).

        Returns
        -------
        ReportTable
            Columns ``name, flat, flat%, sum%, cum, cum%, inline``; ``repr`` is pprof's text.
        """
        from ._reports import top

        return top(self, sample_type=sample_type, by=by, n=n, sort=sort, mean=mean, unit=unit, inline=inline)

    def peek(self, regex: str, sample_type: Union[int, str, None] = None, by: str = "functions",
             mean: bool = False, unit: Optional[str] = None, inline: bool = True):
        """Callers and callees of the nodes whose name matches ``regex`` (``re.search``),
        with edge weights, like ``pprof -peek``. Returns a table with columns
        ``focus, kind ("caller"/"node"/"callee"), name, flat, cum, weight, inline``.
        """
        from ._reports_more import peek

        return peek(self, regex, sample_type=sample_type, by=by, mean=mean, unit=unit, inline=inline)

    def traces(self, sample_type: Union[int, str, None] = None, mean: bool = False, unit: Optional[str] = None):
        """Every sample's stack, like ``pprof -traces``: one row per sample x frame
        (``sample, depth, value, name, inline``); ``repr`` is pprof's text."""
        from ._reports_more import traces

        return traces(self, sample_type=sample_type, mean=mean, unit=unit)

    def tags(self, sample_type: Union[int, str, None] = None, unit: Optional[str] = None):
        """Label breakdown like ``pprof -tags``: per key and value, the total of one
        sample type and its share of the key's total (numeric values in their units)."""
        from ._reports_more import tags

        return tags(self, sample_type=sample_type, unit=unit)

    def by_label(self, key: str):
        """Sample count (``num_samples``) and totals of every sample type per value of label ``key``,
        with a row (value ``None``) for samples without the label."""
        from ._reports_more import by_label

        return by_label(self, key)

    def to_folded(self, sample_type: Union[int, str, None] = None, lines: bool = False,
                  labels: Optional[List[str]] = None, inline: bool = True) -> str:
        """Collapsed stacks (Brendan Gregg's folded format): ``root;...;leaf VALUE`` per line.

        One line per distinct stack, sorted; frame names are pprof's function
        names (``lines=True``: ``name file:line``); ``labels`` lists label keys
        written as leading ``key=value`` frames; ``inline=False`` drops inlined
        frames. Read it back with :func:`pprofcore.from_folded`.
        """
        from ._folded import to_folded

        return to_folded(self, sample_type=sample_type, lines=lines, labels=labels, inline=inline)

    def to_pandas(self, kind: str = "samples"):
        """A table of the profile as a ``pandas.DataFrame`` (needs pandas).

        ``kind`` is ``"samples"`` (one row per sample: a column per sample type,
        ``leaf_function``, ``stack_id``, ``depth`` and one column per label key),
        ``"frames"`` (one row per sample x frame, inline frames expanded: ``sample``,
        ``depth`` (0 = leaf), ``location``, ``address``, ``function``, ``file``,
        ``line``, ``inline``), ``"locations"``, ``"functions"`` or ``"mappings"``.
        String columns are ``pd.Categorical`` built from the string table's codes.
        """
        from ._dataframes import to_pandas

        return to_pandas(self, kind)

    def table(self, kind: str = "samples"):
        """The :meth:`to_pandas` table as a :class:`ReportTable` without converting it:
        it speaks the Arrow PyCapsule interface (``polars.DataFrame(p.table())``,
        ``pyarrow.table(p.table("frames"))``, duckdb) and has ``to_pandas``/``to_arrow``."""
        from ._dataframes import table

        return table(self, kind)

    def to_arrow(self, kind: str = "samples"):
        """Like :meth:`to_pandas` but a ``pyarrow.Table`` with dictionary-encoded strings."""
        from ._dataframes import to_arrow

        return to_arrow(self, kind)

    # --------------------------------------------------------------- protocols
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Profile):
            return NotImplemented
        return self._core.equals(other._core)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):
        return (_unpickle, (_PICKLE_VERSION, self.to_bytes(compress=False)))

    def __repr__(self) -> str:
        from ._repr import profile_repr

        return profile_repr(self)

    def _repr_html_(self) -> str:
        from ._repr import profile_html

        return profile_html(self)


def _unpickle(version: int, data: bytes) -> Profile:
    if version != _PICKLE_VERSION:
        raise ValueError(f"unsupported pickled Profile version {version}")
    return Profile._wrap(_core.decode(data, len(data) + 1, "auto"))
