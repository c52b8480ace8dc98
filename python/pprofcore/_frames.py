"""A profile's rows as columns: samples, frames, locations, functions and
mappings, label columns and stack ids, built from the NumPy views (no per-row
Python loops). String columns are :class:`~pprofcore._tabular.Codes` over the
string table; :mod:`._tabular` turns them into pandas or Arrow tables.

Kinds: ``samples`` (one row per sample), ``frames`` (one row per sample x frame,
inline frames expanded), ``locations``, ``functions``, ``mappings``."""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

import numpy as np

from . import _core, _timestamps
from ._columns import Table
from ._tabular import Codes, LabelColumn, to_arrow_columns, to_pandas_columns

if TYPE_CHECKING:
    from ._profile import Profile

KINDS = ("samples", "frames", "locations", "functions", "mappings")


class Derived:
    """What a Profile computes once and keeps (``Profile._derived``; a profile
    is immutable, so nothing goes stale). Each field has one owner, the only
    code that fills it."""

    __slots__ = (
        "tables",
        "categories",
        "stack_ids",
        "nodes",
        "stack_nodes",
        "kept_trees",
        "sample_paths",
        "paths_parent",
        "filter_origin",
        "location_sums",
        "used_locations",
        "report_totals",
        "num_label_units",
        "label_rows",
    )

    def __init__(self) -> None:
        #: Profile's column tables by name ("labels", "locations", ...): ``Profile._table``
        self.tables: Dict[str, Table] = {}
        #: unique strings and the code -> category remap: :func:`_dedup`
        self.categories: Optional[Tuple[List[str], Optional[np.ndarray]]] = None
        #: per sample, a dense stack id: :func:`stack_ids`
        self.stack_ids: Optional[np.ndarray] = None
        #: the C++ report nodes by (by, inline, label_type, divisor): ``reports._nodes.nodes``
        self.nodes: Dict[Tuple[str, bool, int, int], Any] = {}
        #: the report nodes without sums, by granularity: ``display.flamegraph.stack_nodes``
        self.stack_nodes: Dict[Any, Any] = {}
        #: every sample type's trimmed call tree by (by, inverted): ``display.flamegraph.keep_call_trees``
        #: (or ``derive_call_trees``, from a filter's input)
        self.kept_trees: Dict[Tuple[str, bool], Any] = {}
        #: each sample's report nodes (``_core.sample_paths``) by granularity: ``display.callgraph.sample_paths``
        self.sample_paths: Dict[Any, Any] = {}
        #: a profile whose samples hold this one's (a filter's input), whose sample
        #: paths this one's are copied from: ``display.callgraph.derive_sample_paths``
        self.paths_parent: Any = None
        #: (weak reference to the input profile, kept samples, hidden locations
        #: or None) of a name filter, from which node tables are derived:
        #: ``_filter.filter_by_name``, read by ``reports._nodes.nodes``
        self.filter_origin: Optional[Tuple[Any, np.ndarray, Optional[np.ndarray]]] = None
        #: every sample type's flat and cum per location (``_core.location_sums``), from
        #: which node tables of another granularity are built: ``reports._nodes.located_nodes``
        self.location_sums: Any = None
        #: per location, 1 when a sample's stack holds it: ``_filter.used_locations``
        self.used_locations: Optional[np.ndarray] = None
        #: per sample type, the report totals (plain, mean) a filtered copy keeps: ``_report_base.carry``
        self.report_totals: Optional[Tuple[Tuple[int, int], ...]] = None
        #: numeric label key -> unit: :func:`num_label_units`
        self.num_label_units: Optional[Dict[str, str]] = None
        #: the samples' label rows (read in a deferred filter output's input): :func:`label_rows`
        self.label_rows: Optional["LabelRows"] = None


def _dedup(profile: "Profile") -> Tuple[List[str], Optional[np.ndarray]]:
    """Unique categories of the string table and the code -> category remap
    (string tables may repeat a string; categories must be unique)."""
    cached = profile._derived.categories
    if cached is None:
        strings = list(profile.strings)
        first: Dict[str, int] = {}
        remap = np.empty(len(strings) + 1, dtype=np.int32)
        cats: List[str] = []
        for i, s in enumerate(strings):
            j = first.get(s)
            if j is None:
                j = first[s] = len(cats)
                cats.append(s)
            remap[i] = j
        remap[len(strings)] = -1  # index -1 (missing) maps to -1
        identity = len(cats) == len(strings)
        cached = (cats, None if identity else remap)
        profile._derived.categories = cached
    return cached


def _codes(profile: "Profile", codes: np.ndarray, missing_empty: bool = False) -> Codes:
    cats, remap = _dedup(profile)
    if remap is None:  # no repeated strings: codes are category codes already
        c = np.asarray(codes)
        c = c if c.dtype == np.int32 else c.astype(np.int32)
    else:
        c = remap[np.asarray(codes, dtype=np.int64)]
    if missing_empty:
        c = np.where(np.asarray(codes) == 0, -1, c).astype(np.int32)
    return Codes(c, cats)


def stack_ids(profile: "Profile") -> np.ndarray:
    """Per sample, a dense id of its stack (cached: the profile is immutable)."""
    ids = profile._derived.stack_ids
    if ids is None:
        ids = _core.stack_ids(profile._core)
        ids.flags.writeable = False
        profile._derived.stack_ids = ids
    return ids


def value_names(profile: "Profile") -> List[str]:
    types = profile.sample_types
    names = [t for t, _ in types]
    out = []
    for t, u in types:
        out.append(t if names.count(t) == 1 else f"{t}/{u}")
    return out


def _sample_of_rows(offsets: np.ndarray) -> np.ndarray:
    n = len(offsets) - 1
    return np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))


def _leaf_function(profile: "Profile") -> np.ndarray:
    """Function row of each sample's leaf frame (innermost line of the first location), -1 if none."""
    so = profile.stack_offsets
    n = len(so) - 1
    out = np.full(n, -1, dtype=np.int64)
    has = so[1:] > so[:-1]
    if not has.any():
        return out
    leaf_loc = profile.stack_locations[so[:-1][has]]
    lo = profile.locations.line_offsets
    has_line = lo[leaf_loc + 1] > lo[leaf_loc]
    f = np.full(len(leaf_loc), -1, dtype=np.int64)
    f[has_line] = profile.lines.function[lo[leaf_loc[has_line]]]
    out[has] = f
    return out


class LabelRows:
    """Every label row of a profile's samples (:func:`label_rows`): its
    ``key``, ``str`` (-1 for numeric), ``num`` and ``num_unit``; ``sample``,
    the row of ``values`` holding its sample's values."""

    __slots__ = ("key", "str", "num", "num_unit", "sample", "values", "_cols", "_on_stack", "_pair_source", "_pairs")

    def __init__(self, core: Any, cols: Dict[str, np.ndarray], kept: Optional[np.ndarray]) -> None:
        sample = _sample_of_rows(cols["label_offsets"])
        rows = [cols["labels." + c] for c in ("key", "str", "num", "num_unit")] + [sample]
        at = None
        if kept is not None:
            at = kept.view(np.bool_)[sample]
            rows = [c[at] for c in rows]
        self._pair_source = (core, cols, at)
        self._pairs: "Optional[Tuple[np.ndarray, LabelPairs]]" = None
        self.key, self.str, self.num, self.num_unit, self.sample = rows
        self.values = cols["values"]
        self._cols = cols
        self._on_stack: Optional[np.ndarray] = None

    def on_stack(self) -> np.ndarray:
        """Per row: whether its sample has a location; found once, read by
        every sample type's tags report. A name filter keeps only samples
        with a location it did not hide (cpp filter ``mark_kept``), so rows
        read in a filter's input answer from the input's stacks."""
        if self._on_stack is None:
            self._on_stack = (np.diff(self._cols["stack_offsets"]) > 0)[self.sample]
        return self._on_stack

    def pairs(self) -> "Tuple[np.ndarray, LabelPairs]":
        """``(index, pairs)``: the distinct (key, value) pairs of the profile
        whose columns these rows were read from (found once per C++ profile,
        so every filter of one input shares them) and each row's pair."""
        if self._pairs is None:
            core, cols, at = self._pair_source
            found = label_pairs(core, cols)
            self._pairs = (found.index if at is None else found.index[at], found)
        return self._pairs


class LabelPairs:
    """The distinct (key, value) pairs of a profile's label rows: ``key``,
    ``value`` (a string code, or the number of a numeric label) and
    ``is_str`` per pair, string pairs first, each kind ordered by key then
    value; ``index``, the pair of each label row."""

    __slots__ = ("index", "key", "value", "is_str")

    def __init__(self, key: np.ndarray, str_: np.ndarray, num: np.ndarray) -> None:
        is_str = str_ >= 0
        self.index = np.empty(len(key), dtype=np.int64)
        keys, values, kinds = [np.empty(0, np.int64)], [np.empty(0, np.int64)], [np.empty(0, bool)]
        n = 0
        for rows, vals, kind in ((is_str, str_, True), (~is_str, num, False)):
            if not rows.any():
                continue
            uk, ik = dense_codes(key[rows])
            uv, iv = dense_codes(vals[rows])
            width = max(len(uv), 1)
            found, inv = dense_codes(ik * width + iv)  # a pair is one int64: no row-wise sort
            self.index[rows] = inv + n
            keys.append(uk[found // width])
            values.append(uv[found % width])
            kinds.append(np.full(len(found), kind))
            n += len(found)
        self.key, self.value, self.is_str = np.concatenate(keys), np.concatenate(values), np.concatenate(kinds)


_PAIRS: "weakref.WeakKeyDictionary[Any, LabelPairs]" = weakref.WeakKeyDictionary()
_PAIRS_LOCK = threading.Lock()


def label_pairs(core: Any, cols: Dict[str, np.ndarray]) -> LabelPairs:
    """The :class:`LabelPairs` of C++ profile ``core`` (``cols`` its columns),
    kept while it lives: the explorer's Refine outputs read their input's."""
    with _PAIRS_LOCK:
        found = _PAIRS.get(core)
    if found is None:
        found = LabelPairs(cols["labels.key"], cols["labels.str"], cols["labels.num"])
        with _PAIRS_LOCK:
            found = _PAIRS.setdefault(core, found)
    return found


def dense_codes(x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(values, index)``: the distinct values of ``x`` in order and each
    element's index among them (int64). Small non-negative values (string
    codes, the pairs' numbers) are counted in a table instead of sorted."""
    x = np.asarray(x, dtype=np.int64)
    if len(x) and int(x.min()) >= 0 and int(x.max()) <= 4 * len(x) + 1024:
        seen = np.zeros(int(x.max()) + 1, dtype=bool)
        seen[x] = True
        return np.flatnonzero(seen), (np.cumsum(seen) - 1)[x]
    values, index = np.unique(x, return_inverse=True)
    return values, index.reshape(-1).astype(np.int64, copy=False)


def label_rows(profile: "Profile") -> LabelRows:
    """The label rows of ``profile``'s samples, read where they are: a name
    filter's output whose samples were left in its input (the explorer's
    Refine) gives its kept samples' rows of the input's columns, and is not
    copied. Label rows and values are the same in the copy; string codes
    index its string table, which is the input's. Kept on the profile: the
    Labels view, the tags report and the numeric label units each read them."""
    rows = profile._derived.label_rows
    if rows is None:
        source, kept, _ = profile._stack_source()
        rows = profile._derived.label_rows = LabelRows(
            source, profile._cols if kept is None else source.columns(), kept
        )
    return rows


def label_columns(profile: "Profile") -> Dict[str, LabelColumn]:
    """One column per label key: string labels as Codes, numeric as (values, mask).
    A sample with several values for a key gets the first."""
    lab = profile.labels
    if len(lab.key) == 0:
        return {}
    n = len(profile)
    sample = _sample_of_rows(profile.label_offsets)
    out: Dict[str, LabelColumn] = {}
    keys = np.unique(lab.key)
    for k in keys:
        name = profile.strings[int(k)]
        m = lab.key == k
        rows = sample[m][::-1]  # reversed so the first value wins on assignment
        is_str = lab.str[m][::-1] >= 0
        if is_str.any():
            codes = np.full(n, -1, dtype=np.int64)
            codes[rows[is_str]] = lab.str[m][::-1][is_str]
            out[name] = _codes(profile, codes)
        if (~is_str).any():
            vals = np.zeros(n, dtype=np.int64)
            mask = np.ones(n, dtype=bool)
            vals[rows[~is_str]] = lab.num[m][::-1][~is_str]
            mask[rows[~is_str]] = False
            out[name if not is_str.any() else name + "#num"] = (vals, mask)
    return out


def columns(profile: "Profile", kind: str) -> Dict[str, object]:
    """Columns of one table kind: NumPy arrays, :class:`Codes`, or (values, mask) pairs."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    fn = profile.functions
    if kind == "samples":
        cols: Dict[str, object] = {}
        v = profile.values
        for i, name in enumerate(value_names(profile)):
            cols[name] = v[:, i]
        leaf = _leaf_function(profile)
        fname = np.where(leaf >= 0, fn.name[np.maximum(leaf, 0)] if len(fn) else -1, -1)
        cols["leaf_function"] = _codes(profile, fname)
        cols["stack_id"] = stack_ids(profile)
        cols["depth"] = np.diff(profile.stack_offsets)
        ts = _timestamps.timestamps(profile)
        if ts is not None:  # the sample's time (Profile.timestamps), NaT where it has none
            cols["time"] = _timestamps.as_datetime(ts)
        for k, c in label_columns(profile).items():
            if k in cols:
                k = "label:" + k
            cols[k] = c
        return cols
    if kind == "frames":
        f = _core.frame_columns(profile._core)
        return {
            "sample": f["sample"],
            "depth": f["depth"],
            "location": f["location"],
            "address": f["address"],
            "function": _codes(profile, f["name"]),
            "file": _codes(profile, f["file"]),
            "line": f["line"],
            "inline": f["inline"],
        }
    if kind == "locations":
        loc = profile.locations
        lo = loc.line_offsets
        nl = np.diff(lo)
        has = nl > 0
        first = np.where(has, lo[:-1], 0)
        func = np.where(has, profile.lines.function[first] if len(profile.lines.function) else -1, -1)
        sf = np.maximum(func, 0)
        m = profile.mappings
        return {
            "id": loc.id,
            "mapping_id": np.where(loc.mapping >= 0, m.id[np.maximum(loc.mapping, 0)] if len(m) else 0, 0),
            "address": loc.address,
            "is_folded": loc.is_folded.astype(bool),
            "num_lines": nl,
            "function": _codes(profile, np.where(func >= 0, fn.name[sf] if len(fn) else 0, -1)),
            "file": _codes(profile, np.where(func >= 0, fn.filename[sf] if len(fn) else 0, -1)),
            "line": np.where(has, profile.lines.line[first] if len(profile.lines.line) else 0, 0),
        }
    if kind == "functions":
        return {
            "id": fn.id,
            "name": _codes(profile, fn.name),
            "system_name": _codes(profile, fn.system_name),
            "filename": _codes(profile, fn.filename),
            "start_line": fn.start_line,
        }
    m = profile.mappings
    return {
        "id": m.id,
        "memory_start": m.memory_start,
        "memory_limit": m.memory_limit,
        "file_offset": m.file_offset,
        "filename": _codes(profile, m.filename),
        "build_id": _codes(profile, m.build_id),
        "has_functions": m.has_functions.astype(bool),
        "has_filenames": m.has_filenames.astype(bool),
        "has_line_numbers": m.has_line_numbers.astype(bool),
        "has_inline_frames": m.has_inline_frames.astype(bool),
    }


def to_pandas(profile: "Profile", kind: str = "samples"):
    return to_pandas_columns(columns(profile, kind))


def to_arrow(profile: "Profile", kind: str = "samples"):
    return to_arrow_columns(columns(profile, kind))


def num_label_units(p: "Profile") -> Dict[str, str]:
    """pprof's ``NumLabelUnits``: the unit of each numeric label key (the first
    unit seen; ``"bytes"`` for ``alignment``/``request`` and the key itself
    when no label of the key has a unit). Kept on the profile: the explorer
    filters one profile by numeric labels many times."""
    cached = p._derived.num_label_units
    if cached is None:
        cached = p._derived.num_label_units = _num_label_units(p)
    return dict(cached)


def _num_label_units(p: "Profile") -> Dict[str, str]:
    lab = label_rows(p)  # a deferred filter output's without its copy
    numeric = lab.str < 0
    # Keys are string codes: counting them finds the few distinct ones without a sort.
    keys = np.flatnonzero(np.bincount(lab.key[numeric], minlength=1))
    with_unit = numeric & (lab.num_unit != 0)
    unit_keys, unit_codes = lab.key[with_unit], lab.num_unit[with_unit]
    out = {}
    for key in keys.tolist():
        name = p._s(key)
        at = np.flatnonzero(unit_keys == key)
        if len(at):
            out[name] = p._s(int(unit_codes[at[0]]))
        else:
            out[name] = "bytes" if name in ("alignment", "request") else name
    return out
