"""ProfileSet: many profiles (files or Profiles) as one thing with a timeline.

Files are decoded in chunks with :func:`pprofcore.load_many` (C++ threads, GIL
released), so at most one chunk of profiles is in memory at once. The
per-profile facts (time, duration, totals) are read on first use and cached in
the :attr:`ProfileSet.profiles` DataFrame; sub-sets share the sources."""

from __future__ import annotations

import glob as _glob
import os
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._io import load_many
from .._merge import Merger, merge_files
from .._optional import require_pandas
from .._profile import Profile
from ..display.fleet import set_html
from ._label_shares import label_shares
from ._movers import compare, movers
from ._prepare import Prepare
from ._series import series as series_of_set
from ._store import REBUILD_BATCH, Store, write_store

#: Profiles decoded per chunk when streaming (per worker thread).
CHUNK_PER_THREAD = 8


class _Source:
    """Where profile ``i`` comes from: a path, a Profile, or a reader callable
    (``read(keys) -> list of Profile``) for profiles rebuilt from a store; and
    what is done to each as it is read (``prepare``: symbolize, repairs)."""

    __slots__ = ("items", "reader", "chunk", "prepare")

    def __init__(
        self,
        items: list,
        reader: Optional[Callable[[list], List[Profile]]] = None,
        chunk: Optional[int] = None,
        prepare: Optional[Prepare] = None,
    ) -> None:
        self.items = items
        self.reader = reader
        self.chunk = chunk  # profiles per read, when the reader prefers its own batch size
        self.prepare = prepare if prepare else None  # None when it does nothing


def _label(item: Any) -> Optional[str]:
    if isinstance(item, Profile):
        return None
    return os.fspath(item) if not isinstance(item, (int, np.integer)) else str(item)


class ProfileSet:
    """An ordered set of profiles, read lazily and in parallel.

    Parameters
    ----------
    paths_or_profiles : iterable of path-like or Profile
        Files (gzip or raw ``profile.proto``) and/or already decoded profiles.
    metadata : DataFrame or callable, optional
        Extra per-profile columns for :attr:`profiles`: a DataFrame with one row
        per input (in order), or ``metadata(path) -> dict`` called once per file
        (``path`` is None for in-memory profiles), e.g. host and service parsed
        from the file name.
    threads : int, optional
        Decoder threads (default: all cores).
    repairs : str or list of str, optional
        Go repairs applied to each profile as it is read: ``"truncated"``
        (:meth:`Profile.repair_truncated_stacks`) and/or ``"typeparams"``
        (:meth:`Profile.drop_type_params`); each profile's report becomes
        columns ``repair_<name>_<field>`` of :attr:`profiles`.
    symbolize : bool or dict, optional
        Symbolize each profile as it is read (True, or a dict of
        :func:`pprofcore.symbolize.symbolize` keywords: ``binaries``,
        ``search_path``, ``tool``, ``demangle``, ``force``), before the repairs.
        One :attr:`symbol_cache` serves the whole set: each distinct mapping
        (build id, else file and size) is located once and each address
        resolved once. :attr:`profiles` gets ``symbolize_resolved`` and
        ``symbolize_missing`` columns.

    Examples
    --------
    >>> import pprofcore
    >>> s = pprofcore.ProfileSet([pprofcore.example_path()] * 3)
    >>> len(s)
    3
    >>> s.merge().total("cpu") == 3 * pprofcore.load(pprofcore.example_path()).total("cpu")
    True
    """

    def __init__(
        self,
        paths_or_profiles: Union[Sequence[Any], Any] = (),
        *,
        metadata=None,
        threads: Optional[int] = None,
        repairs=None,
        symbolize=None,
    ) -> None:
        if isinstance(paths_or_profiles, (str, bytes, os.PathLike, Profile)):
            paths_or_profiles = [paths_or_profiles]
        items = list(paths_or_profiles)
        for i, it in enumerate(items):
            if not isinstance(it, (Profile, str, os.PathLike)):
                raise TypeError(f"ProfileSet item {i}: expected a path or pprofcore.Profile, got {type(it).__name__}")
        self._source = _Source(items, prepare=Prepare(repairs, symbolize))
        self._rows = np.arange(len(items), dtype=np.int64)
        self._threads = threads
        self._metadata = metadata
        self._table = None  # the cached `profiles` DataFrame of the full source
        if metadata is not None and not callable(metadata):
            pd = require_pandas()
            if not isinstance(metadata, pd.DataFrame):
                raise TypeError("metadata must be a pandas DataFrame or a callable(path) -> dict")
            if len(metadata) != len(items):
                raise ValueError(f"metadata has {len(metadata)} rows for {len(items)} profiles")

    @classmethod
    def from_glob(
        cls, pattern: str, *, metadata=None, threads: Optional[int] = None, repairs=None, symbolize=None
    ) -> "ProfileSet":
        """The files matching ``pattern`` (``**`` recurses), in sorted order
        (the other arguments as for :class:`ProfileSet`).

        Raises ``FileNotFoundError`` when nothing matches."""
        paths = sorted(_glob.glob(os.fspath(pattern), recursive=True))
        paths = [p for p in paths if os.path.isfile(p)]
        if not paths:
            raise FileNotFoundError(f"no files match {pattern!r}")
        return cls(paths, metadata=metadata, threads=threads, repairs=repairs, symbolize=symbolize)

    @classmethod
    def from_store(cls, store: Store, where: Optional[str] = None, *, repairs=None, symbolize=None) -> "ProfileSet":
        """The profiles of the Parquet ``store`` matching the SQL condition
        ``where`` (see :meth:`Store.profile_set`), rebuilt from its tables
        ``REBUILD_BATCH`` profiles at a time (``repairs``, ``symbolize``: as
        for :class:`ProfileSet`, applied as they are rebuilt)."""
        keys, reader, facts = store.selection(where)
        return cls._from_reader(keys, reader, facts, chunk=REBUILD_BATCH, prepare=Prepare(repairs, symbolize))

    @classmethod
    def _from_reader(
        cls,
        keys: list,
        reader: Callable[[list], List[Profile]],
        table,
        threads=None,
        chunk: Optional[int] = None,
        prepare: Optional[Prepare] = None,
    ) -> "ProfileSet":
        s = cls([], threads=threads)
        s._source = _Source(list(keys), reader, chunk, prepare)
        s._rows = np.arange(len(keys), dtype=np.int64)
        s._table = table
        return s

    def _subset(self, rows: np.ndarray) -> "ProfileSet":
        s = object.__new__(ProfileSet)
        s._source, s._threads, s._metadata = self._source, self._threads, self._metadata
        s._table = self._full_table()
        s._rows = np.asarray(rows, dtype=np.int64)
        return s

    # ------------------------------------------------------------- reading
    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"<pprofcore.ProfileSet {len(self)} profiles>"

    def _repr_html_(self) -> str:
        return set_html(self)

    @property
    def paths(self) -> List[Optional[str]]:
        """The file of each profile (None for in-memory profiles)."""
        return [_label(self._source.items[r]) if self._source.reader is None else None for r in self._rows]

    def _chunk_size(self) -> int:
        if self._source.chunk:
            return self._source.chunk
        return max(1, (self._threads or os.cpu_count() or 1)) * CHUNK_PER_THREAD

    def _read(self, rows: np.ndarray) -> List[Profile]:
        src = self._source
        items = [src.items[int(r)] for r in rows]
        out: List[Any]
        if src.reader is not None:
            out = src.reader(items)
        else:
            out = [it if isinstance(it, Profile) else None for it in items]
            todo = [i for i, p in enumerate(out) if p is None]
            if todo:
                for i, p in zip(todo, load_many([items[i] for i in todo], self._threads)):
                    out[i] = p  # errors='raise': only profiles
        if src.prepare is not None:
            out = [src.prepare(int(r), p) for r, p in zip(rows, out)]
        return out

    def chunks(self, size: Optional[int] = None) -> Iterator[Tuple[np.ndarray, List[Profile]]]:
        """Yield ``(positions, profiles)`` a chunk at a time (positions in this set).

        The next chunk is decoded on a background thread while the caller works
        on the current one, so at most two chunks are in memory (default size:
        8 profiles per thread), however many profiles the set has."""
        size = size or self._chunk_size()
        starts = list(range(0, len(self._rows), size))
        if not starts:
            return
        positions = [np.arange(a, min(a + size, len(self._rows))) for a in starts]
        from concurrent.futures import ThreadPoolExecutor  # on use: slow to import at start-up

        with ThreadPoolExecutor(1) as ahead:
            pending = ahead.submit(self._read, self._rows[positions[0]])
            for k, pos in enumerate(positions):
                profiles = pending.result()
                if k + 1 < len(positions):
                    pending = ahead.submit(self._read, self._rows[positions[k + 1]])
                yield pos, profiles
                del profiles

    def map(self, fn: Callable[[Profile], Any]) -> Iterator[Tuple[int, Any]]:
        """Yield ``(position, fn(profile))`` for every profile, in order.

        ``fn`` runs on a thread pool (``threads`` workers): it gains from
        threads when its work is pprofcore's C++ (which releases the GIL)."""
        workers = max(1, self._threads or os.cpu_count() or 1)
        from concurrent.futures import ThreadPoolExecutor  # on use, as in chunks()

        with ThreadPoolExecutor(workers) as pool:
            for pos, profiles in self.chunks():
                yield from zip(pos.tolist(), pool.map(fn, profiles))

    def __iter__(self) -> Iterator[Profile]:
        for _, profiles in self.chunks():
            yield from profiles

    def __getitem__(self, i: int) -> Profile:
        if not isinstance(i, (int, np.integer)):
            raise TypeError("ProfileSet index must be an int; use where()/window() for sub-sets")
        n = len(self._rows)
        if not -n <= i < n:
            raise IndexError(f"profile {i} out of range for a set of {n}")
        return self._read(self._rows[[i % n]])[0]

    # --------------------------------------------------------- the table
    def _full_table(self):
        if self._table is None:
            self._table = _facts(self)
        if self._source.prepare is not None and not self._table.attrs.get("reports"):
            self._table = _with_reports(self, self._table)
        return self._table

    @property
    def symbol_cache(self):
        """The :class:`~pprofcore.symbolize.SymbolCache` of a set made with
        ``symbolize=`` (None otherwise): what was found for each distinct
        mapping, and how many symbolizer runs it took."""
        prep = self._source.prepare
        return prep.cache if prep is not None else None

    def report_totals(self) -> dict:
        """The columns of :meth:`reports` summed over the profiles read so
        far (nothing is read; a depth is the largest, not a sum); empty
        without ``repairs=``/``symbolize=``."""
        prep = self._source.prepare
        out: dict = {}
        for r in prep.reports.values() if prep is not None else ():
            for k, v in r.items():
                out[k] = max(out.get(k, 0), v) if k.endswith("_depth") else out.get(k, 0) + v
        return dict(sorted(out.items()))

    def reports(self):
        """What ``repairs=`` and ``symbolize=`` did to each profile, as a
        DataFrame (one row per profile of this set; empty columns when the set
        has neither). Reads every profile not read yet."""
        cols = [c for c in self._full_table().columns if c.startswith(("repair_", "symbolize_"))]
        return self.profiles[cols]

    @property
    def profiles(self):
        """One row per profile: ``path``, ``time`` (UTC), ``duration``,
        ``sample_types``, ``total_<type>`` per sample type, and the metadata
        columns. Reading it decodes every profile once (in chunks)."""
        t = self._full_table().iloc[self._rows].reset_index(drop=True)
        return t

    def where(self, condition=None, **equals) -> "ProfileSet":
        """The sub-set of profiles matching ``condition`` and ``equals``.

        ``condition`` is a boolean array (one per profile), a callable taking
        :attr:`profiles` and returning one, or a :meth:`pandas.DataFrame.query`
        string over the columns of :attr:`profiles`; ``equals`` are column ==
        value tests (a list/tuple/set value means "is in"). Order is kept.
        """
        t = self.profiles
        mask = np.ones(len(t), dtype=bool)
        if condition is not None:
            if isinstance(condition, str):
                hit = t.query(condition).index.to_numpy()
                m = np.zeros(len(t), dtype=bool)
                m[hit] = True
            elif callable(condition):
                m = np.asarray(condition(t), dtype=bool)
            else:
                m = np.asarray(condition, dtype=bool)
            if m.shape != (len(t),):
                raise ValueError(f"where(): condition gives {m.shape} values for {len(t)} profiles")
            mask &= m
        for col, value in equals.items():
            if col not in t.columns:
                raise KeyError(f"where(): no column {col!r}; have {', '.join(map(str, t.columns))}")
            if isinstance(value, (list, tuple, set, frozenset)):
                mask &= t[col].isin(list(value)).to_numpy()
            else:
                mask &= (t[col] == value).to_numpy()
        return self._subset(self._rows[mask])

    def window(self, start=None, end=None) -> "ProfileSet":
        """Profiles with ``start <= time < end`` (either bound may be None).
        Bounds are anything :func:`pandas.Timestamp` takes; naive ones are UTC."""
        pd = require_pandas()
        times = self.profiles["time"]
        mask = times.notna().to_numpy().copy()
        if start is not None:
            mask &= (times >= _utc(pd, start)).to_numpy()
        if end is not None:
            mask &= (times < _utc(pd, end)).to_numpy()
        return self._subset(self._rows[mask])

    # ------------------------------------------------------------ results
    def merge(self, progress: Optional[Callable[[int, int], None]] = None) -> Profile:
        """All profiles merged into one, as :func:`pprofcore.merge_files` does
        (files are decoded ahead on threads; memory grows with distinct content)."""
        if not len(self):
            raise ValueError("no profiles to merge")
        src = self._source
        plain_files = src.reader is None and src.prepare is None
        if plain_files and all(not isinstance(src.items[int(r)], Profile) for r in self._rows):
            return merge_files([src.items[int(r)] for r in self._rows], self._threads, progress)
        m = Merger()
        done = 0
        for _, profiles in self.chunks():
            for p in profiles:
                m.add(p)
            done += len(profiles)
            if progress is not None:
                progress(done, len(self))
        return m.result()

    def top(self, sample_type=None, by: str = "functions", n: Optional[int] = 20, **kwargs):
        """``pprof -top`` of the merged set (see :meth:`Profile.top`)."""
        return self.merge().top(sample_type, by=by, n=n, **kwargs)

    # s.series(...) is pprofcore.fleet.series(s, ...): one signature, one docstring.
    series = series_of_set

    def movers(
        self,
        before,
        after=None,
        *,
        sample_type=None,
        by: Union[str, Sequence[str]] = "functions",
        value: str = "flat",
        n: Optional[int] = 20,
        buckets=None,
        alpha: float = 0.05,
        min_share: float = 0.001,
    ):
        """Keys (functions, label values...) whose share changed most between
        two windows, with profile counts and the statistical compare's q-values.

        See :func:`pprofcore.fleet.movers`."""
        return movers(
            self,
            before,
            after,
            sample_type=sample_type,
            by=by,
            value=value,
            n=n,
            buckets=buckets,
            alpha=alpha,
            min_share=min_share,
        )

    def compare(self, window_a, window_b=None, **kwargs):
        """:func:`pprofcore.testing.compare` of two windows (or sub-sets) of
        this set, for any ``by`` including label keys. See
        :func:`pprofcore.fleet.compare` for the parameters."""
        return compare(self, window_a, window_b, **kwargs)

    def labels(self, sample_type=None, *, keys: Optional[Sequence[str]] = None, freq=None, buckets=None):
        """Label keys, values and their share of each profile (or ``freq``
        bucket), as a tidy table. See :func:`pprofcore.fleet.label_shares`."""
        return label_shares(self, sample_type, keys=keys, freq=freq, buckets=buckets)

    def to_parquet(
        self, directory, *, progress: Optional[Callable[[int, int], None]] = None, repairs=None, symbolize=None
    ) -> Store:
        """Write (or append) these profiles to a Parquet store; returns the
        :class:`~pprofcore.fleet.Store`. See docs/fleet.md for the layout.

        ``repairs`` and ``symbolize`` (as for :class:`ProfileSet`) apply at
        ingest, on top of the set's own: the store keeps the repaired,
        symbolized profiles and each one's report columns in ``profiles``."""
        s = self
        if repairs is not None or symbolize is not None:
            s = self.prepared(repairs=repairs, symbolize=symbolize)
        return write_store(s, directory, progress=progress)

    def prepared(self, *, repairs=None, symbolize=None) -> "ProfileSet":
        """This set with ``repairs`` and ``symbolize`` (as for
        :class:`ProfileSet`) applied as profiles are read; the set's own,
        if any, are replaced."""
        src = self._source
        s = object.__new__(ProfileSet)
        s._source = _Source(src.items, src.reader, src.chunk, Prepare(repairs, symbolize))
        s._threads, s._metadata, s._rows = self._threads, self._metadata, self._rows
        s._table = None
        if src.reader is not None and self._table is not None:  # a store's facts: kept, reports redone
            s._table = self._table.copy()
            s._table.attrs.pop("reports", None)
        return s


# The store's profile_set builds this class (fleet._store cannot import it: this module imports the store).
Store.set_class = ProfileSet


def _utc(pd, t):
    ts = pd.Timestamp(t)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def _type_names(p: Profile) -> List[str]:
    return [t for t, _ in p.sample_types]


def _with_reports(s: ProfileSet, table):
    """``table`` with the set's per-profile report columns (every profile
    not read yet is read once, in chunks)."""
    prep = s._source.prepare
    assert prep is not None  # only sets with repairs or symbolize have reports
    full = ProfileSet.__new__(ProfileSet)
    full._source, full._threads, full._metadata = s._source, s._threads, s._metadata
    full._rows = np.array([i for i in range(len(s._source.items)) if i not in prep.reports], dtype=np.int64)
    for _ in full.chunks():
        pass
    table = table.copy()
    names = sorted({k for r in prep.reports.values() for k in r})
    for name in names:
        table[name] = np.array([prep.reports[i].get(name, 0) for i in range(len(table))], dtype=np.int64)
    table.attrs["reports"] = True
    return table


def _facts(s: ProfileSet):
    """The `profiles` table of the whole source (every profile read once)."""
    pd = require_pandas()
    full = ProfileSet.__new__(ProfileSet)
    full._source, full._threads, full._metadata = s._source, s._threads, s._metadata
    full._rows = np.arange(len(s._source.items), dtype=np.int64)
    n = len(full._rows)
    times = np.zeros(n, dtype=np.int64)
    durs = np.zeros(n, dtype=np.int64)
    types: List[str] = [""] * n
    totals: dict = {}
    for pos, profiles in full.chunks():
        for i, p in zip(pos.tolist(), profiles):
            times[i], durs[i] = p.time_nanos, p.duration_nanos
            types[i] = ",".join(f"{t}/{u}" for t, u in p.sample_types)
            v = p.values.sum(axis=0, dtype=np.int64) if len(p) else np.zeros(len(p.sample_types), np.int64)
            for name, tot in zip(_type_names(p), v.tolist()):
                totals.setdefault(name, np.zeros(n, dtype=np.int64))[i] = tot
    time = pd.to_datetime(np.where(times == 0, np.iinfo(np.int64).min, times), unit="ns", utc=True)
    cols = {
        "path": [_label(it) if s._source.reader is None else it for it in s._source.items],
        "time": time,
        "duration": pd.to_timedelta(durs, unit="ns"),
        "sample_types": types,
    }
    for name, col in totals.items():
        cols[f"total_{name}"] = col
    t = pd.DataFrame(cols)
    md = s._metadata
    if md is not None:
        if callable(md):
            extra = pd.DataFrame([dict(md(path) or {}) for path in cols["path"]], index=t.index)
        else:
            extra = md.reset_index(drop=True)
        for c in extra.columns:
            t[c] = extra[c].to_numpy()
    return t
