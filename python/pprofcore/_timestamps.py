"""Time inside a profile: one timestamp per sample, read from a numeric label.

Owns the label convention every reader follows (``timestamp_ns``, a numeric
label in nanoseconds since the Unix epoch; Datadog's ``end_timestamp_ns`` as
the fallback), :func:`timestamps` (the column), :func:`window` (the samples of
a time range) and the conversion of bounds (int nanoseconds, ``datetime``,
``numpy.datetime64``, pandas ``Timestamp``). A sample without the label has
``NaT`` (the smallest int64) as its time. Not here: time series across
profiles (see :mod:`.fleet`).
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from . import _core
from ._units import unit_ratio

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

#: The label readers put each sample's time in (num_unit "nanoseconds").
TIMESTAMP_LABEL = "timestamp_ns"
#: Labels :func:`timestamps` reads when none is named, first match wins.
DEFAULT_LABELS = (TIMESTAMP_LABEL, "end_timestamp_ns")
#: The missing time: NumPy's NaT as int64, so ``.view("datetime64[ns]")`` shows NaT.
NAT = np.iinfo(np.int64).min


def _label_rows(p: "Profile", key: str) -> np.ndarray:
    """Rows of the labels table that are numeric labels named ``key``."""
    lab = p.labels
    numeric = lab.str < 0
    # Only the distinct keys of numeric labels are read as strings, not the
    # whole string table (np.unique would import numpy.ma on first use).
    keys = np.sort(lab.key[numeric])
    distinct = keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if len(keys) else keys
    codes = [c for c in distinct.tolist() if p._core.string(c) == key]
    if not codes:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.isin(lab.key, codes) & numeric)


def timestamps(p: "Profile", label: Optional[str] = None) -> Optional[np.ndarray]:
    """Per sample, its time in int64 nanoseconds since the epoch (``NAT``
    where the sample has no such label), or None when no sample has one.

    ``label`` names the numeric label to read; by default ``timestamp_ns``,
    else ``end_timestamp_ns``. A label in another time unit (its num_unit:
    ``milliseconds``, ``seconds``, ...) is converted; no unit means nanoseconds.
    """
    keys: Sequence[str] = DEFAULT_LABELS if label is None else (label,)
    for key in keys:
        rows = _label_rows(p, key)
        if len(rows) == 0:
            continue
        lab = p.labels
        strs = p._core.string_list()
        units = lab.num_unit[rows]
        ratio = np.array([unit_ratio(strs[u], "nanoseconds") if u else 1.0 for u in units.tolist()])
        values = lab.num[rows]
        if np.any(ratio != 1.0):
            values = np.round(values * ratio).astype(np.int64)
        sample = np.searchsorted(p.label_offsets, rows, side="right") - 1
        out = np.full(len(p), NAT, dtype=np.int64)
        out[sample] = values  # a sample with two such labels keeps the last
        return out
    return None


def to_nanoseconds(t) -> Optional[int]:
    """A time bound as int nanoseconds since the epoch (None stays None)."""
    if t is None:
        return None
    if isinstance(t, (bool, np.bool_)):
        raise TypeError("a time bound is int nanoseconds, datetime, numpy.datetime64 or pandas.Timestamp, not bool")
    if isinstance(t, (int, np.integer)):
        return int(t)
    if isinstance(t, np.datetime64):
        return int(t.astype("datetime64[ns]").astype(np.int64))
    if hasattr(t, "value") and hasattr(t, "tz_localize"):  # pandas.Timestamp
        return int(t.value)
    if isinstance(t, _dt.datetime):
        if t.tzinfo is None:
            t = t.replace(tzinfo=_dt.timezone.utc)  # naive times are UTC, as in the profiles
        delta = t - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
        return (delta.days * 86400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    raise TypeError(
        f"a time bound is int nanoseconds, datetime, numpy.datetime64 or pandas.Timestamp, not {type(t).__name__}"
    )


def window(p: "Profile", start=None, end=None, label: Optional[str] = None) -> "Profile":
    """The samples whose time is in ``[start, end)`` (either bound may be None);
    samples without a time are dropped. Raises ValueError when the profile has
    no timestamps."""
    ts = timestamps(p, label)
    if ts is None:
        named = repr(label) if label is not None else " or ".join(repr(k) for k in DEFAULT_LABELS)
        raise ValueError(f"the profile has no timestamps: no sample has a numeric label {named}")
    lo, hi = to_nanoseconds(start), to_nanoseconds(end)
    keep = ts != NAT
    if lo is not None:
        keep &= ts >= lo
    if hi is not None:
        keep &= ts < hi
    return p._derive(_core.keep_samples(p._core, keep.astype(np.uint8)))


def as_datetime(ts: np.ndarray) -> np.ndarray:
    """int64 nanoseconds as ``datetime64[ns]`` (``NAT`` becomes NaT)."""
    return ts.view("datetime64[ns]")
