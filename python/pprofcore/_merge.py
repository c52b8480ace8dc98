"""Merge, compact, delta, diff and scale: google/pprof's semantics at native speed.

The functions here back :func:`pprofcore.merge`, :class:`pprofcore.Merger`,
:func:`pprofcore.merge_files`, :class:`pprofcore.DeltaComputer` and the
``Profile.compact/diff/scale/scale_n/normalize/drop_negative`` methods. All
per-sample work runs in C++ with the GIL released.
"""

from __future__ import annotations

from typing import Callable, Iterable, List, Optional, Sequence

import numpy as np

from . import _args, _core
from ._io import _fspath, _fspaths
from ._profile import Profile

_DEFAULT_MAX = 4 << 30


def _cores(profiles: Iterable[Profile]) -> list:
    out = []
    for p in profiles:
        if not isinstance(p, Profile):
            raise TypeError(f"expected pprofcore.Profile, got {type(p).__name__}")
        out.append(p._core)
    return out


# --------------------------------------------------------------------- units
# pprof's internal/measurement unit tables (name, aliases, factor).
_UNIT_TABLES = [
    [("B", ("b", "byte"), 1.0), ("kB", ("kb", "kbyte", "kilobyte"), float(1 << 10)),
     ("MB", ("mb", "mbyte", "megabyte"), float(1 << 20)), ("GB", ("gb", "gbyte", "gigabyte"), float(1 << 30)),
     ("TB", ("tb", "tbyte", "terabyte"), float(1 << 40)), ("PB", ("pb", "pbyte", "petabyte"), float(1 << 50))],
    [("ns", ("ns", "nanosecond"), 1.0), ("us", ("μs", "us", "microsecond"), 1e3),
     ("ms", ("ms", "millisecond"), 1e6), ("s", ("s", "sec", "second"), 1e9), ("hrs", ("hour", "hr"), 3600e9)],
]


def _sniff(unit: str):
    u = unit.lower()
    for table_index, table in enumerate(_UNIT_TABLES):
        for _name, aliases, factor in table:
            for a in aliases:
                if u == a or u == a + "s":
                    return table_index, factor
    return None


def _unit_ratio(from_unit: str, to_unit: str) -> float:
    a, b = _sniff(from_unit), _sniff(to_unit)
    if a is None or b is None or a[0] != b[0]:
        return 1.0
    return a[1] / b[1]


def harmonize_units(profiles: Sequence[Profile]) -> List[Profile]:
    """Bring every sample type (and the period) to the finest unit used by any
    profile, as ``go tool pprof`` does before merging (``measurement.ScaleProfiles``):
    e.g. one profile in ``milliseconds`` and one in ``nanoseconds`` both end up in
    ``nanoseconds``. Types must have the same count and names (a trailing ``s``
    is ignored, as pprof does)."""
    if len(profiles) <= 1:
        return list(profiles)
    types = [p.sample_types for p in profiles]  # built once: there may be thousands
    n = len(types[0])
    for t in types[1:]:
        if len(t) != n:
            raise ValueError(f"inconsistent sample type count: {n} != {len(t)}")
    target = []
    for i in range(n):
        best = types[0][i]
        for pt in types[1:]:
            t = pt[i]
            if t[0].rstrip("s") != best[0].rstrip("s") or (
                    t[1] != best[1] and not (_sniff(t[1]) and _sniff(best[1]) and _sniff(t[1])[0] == _sniff(best[1])[0])):
                raise ValueError(f"sample types: incompatible types: {best} {t}")
            if _unit_ratio(t[1], best[1]) < 1:
                best = t
        target.append(best[1])
    periods = [p.period_type for p in profiles if p.period_type is not None]
    period_unit = ""
    if len(periods) > 1:
        best = periods[0]
        for t in periods[1:]:
            if _unit_ratio(t[1], best[1]) < 1:
                best = t
        period_unit = best[1]
    out = []
    for p, pt in zip(profiles, types):
        units = [u for _, u in pt]
        ratios = [_unit_ratio(u, target[i]) for i, u in enumerate(units)]
        period = p.period
        pu = ""
        if period_unit and p.period_type is not None:
            period = int(p.period * _unit_ratio(p.period_type[1], period_unit))
            pu = period_unit
        if units == target and (not pu or pu == p.period_type[1]):
            out.append(p)
            continue
        q = p.scale_n(ratios)
        out.append(Profile._wrap(_core.rename_units(q._core, target, pu, period)))
    return out


def _intersect(profiles: Sequence[Profile]) -> List[Profile]:
    # pprof's CompatibilizeSampleTypes: keep the types (by name) common to all, in
    # the first profile's order.
    names = [[t for t, _ in p.sample_types] for p in profiles]
    # First index of each name, as list.index would give; dicts keep this linear.
    firsts = [{} for _ in profiles]
    for first, have in zip(firsts, names):
        for i, t in enumerate(have):
            first.setdefault(t, i)
    common = [t for t in names[0] if all(t in first for first in firsts[1:])]
    if not common:
        raise ValueError("profiles have empty common sample type list")
    out = []
    for p, have, first in zip(profiles, names, firsts):
        idx = [first[t] for t in common]
        out.append(p if idx == list(range(len(have))) else Profile._wrap(_core.select_sample_types(p._core, idx)))
    return out


def merge(profiles: Iterable[Profile], *, compatible: str = "strict", harmonize_units: bool = False) -> Profile:
    """Merge profiles exactly as google/pprof's ``profile.Merge`` does.

    Samples with equal keys (stack of merged locations, string labels, numeric
    labels with units) have their values summed; all-zero samples are dropped;
    mappings, locations and functions are deduplicated by content. The header
    takes the earliest ``time_nanos`` (pprof's rule: a later zero resets it),
    the summed ``duration_nanos``, the largest ``period``, the deduplicated
    comments, and the first profile's sample types, period type and
    drop/keep frames. The first profile's first mapping stays first.

    Parameters
    ----------
    profiles : iterable of Profile
    compatible : {"strict", "intersect"}
        ``"strict"`` requires identical sample and period types (else
        :class:`ProfileError`); ``"intersect"`` keeps only the sample types
        common to all profiles (pprof's ``CompatibilizeSampleTypes``).
    harmonize_units : bool
        Convert units first (e.g. ``milliseconds`` and ``nanoseconds`` to
        ``nanoseconds``), as ``go tool pprof`` does before merging.

    Returns
    -------
    Profile

    Examples
    --------
    >>> import pprofcore
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> m = pprofcore.merge([p, p])
    >>> m.total("cpu") == 2 * p.total("cpu")
    True
    """
    profiles = list(profiles)
    if not profiles:
        raise ValueError("no profiles to merge")
    if compatible not in ("strict", "intersect"):
        raise ValueError("compatible must be 'strict' or 'intersect'")
    if compatible == "intersect":
        profiles = _intersect(profiles)
    if harmonize_units:
        profiles = globals()["harmonize_units"](profiles)
    return Profile._wrap(_core.merge(_cores(profiles)))


class Merger:
    """Incremental merge: memory grows with the *distinct* content seen, not with
    the number of profiles added.

    Examples
    --------
    >>> import pprofcore
    >>> m = pprofcore.Merger()
    >>> m.add(pprofcore.load(pprofcore.example_path()))
    >>> m.add_file(pprofcore.example_path())
    >>> len(m)
    2
    >>> merged = m.result()
    """

    def __init__(self) -> None:
        self._m = _core.Merger()

    def add(self, profile: Profile) -> None:
        """Merge ``profile`` in (raises :class:`ProfileError` if incompatible)."""
        self._m.add(_cores([profile])[0])

    def add_file(self, path, *, max_decompressed_size: int = _DEFAULT_MAX) -> None:
        """Decode ``path`` and merge it in, without creating a Python Profile.
        Errors and limits as :func:`pprofcore.load`."""
        self._m.add_file(_fspath(path), max_decompressed_size)

    def result(self) -> Profile:
        """The merged profile so far; the Merger stays usable."""
        return Profile._wrap(self._m.result())

    def __len__(self) -> int:
        return self._m.num_inputs

    @property
    def memory_bytes(self) -> int:
        """Approximate bytes held by the merged tables and hash indexes."""
        return self._m.memory_bytes()

    def __repr__(self) -> str:
        return f"<pprofcore.Merger {len(self)} profiles, {self._m.num_samples} distinct samples>"


def merge_files(paths: Iterable, threads: Optional[int] = None, progress: Optional[Callable[[int, int], None]] = None,
                *, max_decompressed_size: int = _DEFAULT_MAX) -> Profile:
    """Decode and merge many files on all cores with the GIL released.

    Worker threads decode ahead (a few files each at most) while the calling
    thread merges in input order, so the result is identical to
    ``merge(load_many(paths))`` for any thread count, and memory stays bounded
    by the distinct content rather than the number of files.

    Ctrl-C, or an exception raised by ``progress``, stops the merge: the
    decoder threads finish the file they hold and are joined, then the
    exception is raised. Each file is read within ``max_decompressed_size``
    as by :func:`pprofcore.load`.

    Parameters
    ----------
    paths : iterable of path-like
        Not a single ``str``: that raises ``TypeError``.
    threads : int, optional
        Decoder threads (default: all cores).
    progress : callable, optional
        ``progress(done, total)`` called after each merged file. Anything but a
        callable or ``None`` raises ``TypeError`` before any work starts.

    Examples
    --------
    >>> import pprofcore
    >>> m = pprofcore.merge_files([pprofcore.example_path()] * 3, threads=2)
    >>> m.total("cpu") == 3 * pprofcore.load(pprofcore.example_path()).total("cpu")
    True
    """
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total) or None, not {type(progress).__name__}")
    paths = _fspaths(paths, "merge_files")
    if not paths:
        raise ValueError("no profiles to merge")
    return Profile._wrap(_core.merge_files(paths, threads or 0, max_decompressed_size, progress))


class DeltaComputer:
    """Turn a series of cumulative profiles into deltas (Datadog fastdelta's semantics).

    The first profile passes through unchanged. For each later profile,
    duplicate samples (equal merge keys) are aggregated, the values of the
    named sample types have the previous profile's values subtracted, other
    types (e.g. a Go heap profile's ``inuse_*``) pass through, and samples whose
    values are then all zero are dropped. As fastdelta's, a delta keeps only the
    locations, functions, mappings and strings its samples reference (ids kept),
    its ``time_nanos`` is the current profile's and its ``duration_nanos`` the
    time since the previous profile. The state kept between calls is one
    row per distinct sample; once a series is in steady state the C++ core
    allocates nothing per call.

    Parameters
    ----------
    sample_types : sequence of str
        Sample type names to subtract, e.g. ``["alloc_objects", "alloc_space"]``
        for Go heap profiles or ``["contentions", "delay"]`` for mutex/block.
        Empty means all types.

    Examples
    --------
    >>> import pprofcore
    >>> dc = pprofcore.DeltaComputer(["alloc_objects", "alloc_space"])
    >>> heap = pprofcore.load(pprofcore.example_path("heap"))
    >>> first = dc.delta(heap)          # passes through
    >>> second = dc.delta(heap)         # allocations since `first`: none
    >>> second.total("alloc_space")
    0
    """

    #: fastdelta's defaults for Go's cumulative profiles.
    GO_HEAP = ("alloc_objects", "alloc_space")
    GO_MUTEX = ("contentions", "delay")
    GO_BLOCK = ("contentions", "delay")

    def __init__(self, sample_types: Sequence[str] = ()) -> None:
        if isinstance(sample_types, str):
            sample_types = [sample_types]
        self.sample_types = list(sample_types)
        self._d = _core.DeltaComputer(self.sample_types)

    def delta(self, profile: Profile) -> Profile:
        """Delta of ``profile`` against the previous one (the first passes through)."""
        return Profile._wrap(self._d.delta(_cores([profile])[0]))

    def delta_bytes(self, data, *, compress: bool = True, level: Optional[int] = None,
                    max_decompressed_size: int = _DEFAULT_MAX) -> bytes:
        """Like :meth:`delta` on serialized profiles: bytes in, pprof bytes out
        (gzip-compressed unless ``compress=False``), ready to save or upload.
        No Python Profile is created."""
        return self._d.delta_bytes(data, compress, _args.check_level(level), max_decompressed_size)

    @property
    def num_states(self) -> int:
        """Distinct samples remembered between calls."""
        return self._d.num_states

    @property
    def memory_bytes(self) -> int:
        return self._d.memory_bytes()

    def __repr__(self) -> str:
        return f"<pprofcore.DeltaComputer types={self.sample_types} calls={self._d.num_calls} states={self.num_states}>"


# --------------------------------------------------------- Profile methods
def compact(p: Profile) -> Profile:
    return Profile._wrap(_core.compact(p._core))


def scale_n(p: Profile, ratios: Sequence[float]) -> Profile:
    return Profile._wrap(_core.scale_n(p._core, [float(r) for r in ratios]))


def scale(p: Profile, ratio: float) -> Profile:
    if ratio == 1:
        return p
    return scale_n(p, [float(ratio)] * len(p.sample_types))


def _check_base(base) -> None:
    if not isinstance(base, Profile):
        raise TypeError(f"base must be a pprofcore.Profile, not {type(base).__name__}")


def normalize(p: Profile, base: Profile) -> Profile:
    _check_base(base)
    if p.sample_types != base.sample_types or p.period_type != base.period_type:
        raise _core.ProfileError(f"incompatible sample types {p.sample_types} and {base.sample_types}")
    bv = base.values.sum(axis=0, dtype=np.int64) if len(base) else np.zeros(len(p.sample_types), np.int64)
    sv = p.values.sum(axis=0, dtype=np.int64) if len(p) else np.zeros(len(p.sample_types), np.int64)
    ratios = [0.0 if s == 0 else float(b) / float(s) for b, s in zip(bv.tolist(), sv.tolist())]
    return scale_n(p, ratios)


def diff(p: Profile, base: Profile, mode: str = "diff_base", normalize_: bool = False) -> Profile:
    _check_base(base)
    if mode not in ("diff_base", "base"):
        raise ValueError("mode must be 'diff_base' or 'base'")
    # go tool pprof merges each side on its own first (fetch.go chunkedGrab), so
    # duplicates are summed before -normalize rounds them.
    p, base = compact(p), compact(base)
    if mode == "diff_base":
        base = Profile._wrap(_core.set_label(base._core, "pprof::base", ["true"]))
    if normalize_:
        p = normalize(p, base)
    base = scale(base, -1)
    p, base = harmonize_units([p, base])
    return Profile._wrap(_core.merge([p._core, base._core]))


def drop_negative(p: Profile, sample_type=None) -> Profile:
    v = p.values
    if len(p) == 0:
        return p
    if sample_type is None:
        keep = ~(v < 0).any(axis=1)
    else:
        keep = v[:, p.sample_type_index(sample_type)] >= 0
    return Profile._wrap(_core.keep_samples(p._core, keep.astype(np.uint8)))
