"""``ProfileSet.labels``: which label keys and values a set has, and each
value's share of every profile (or time bucket), as one tidy table. The keys
are found in the profiles' label tables; the shares come from one label
series over all keys (``fleet._series``), summed per key."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

import numpy as np

from .._optional import require_pandas
from ._series import LABEL_PREFIX, bucket, check_options, finish, set_rows

if TYPE_CHECKING:
    from ._set import ProfileSet


def label_keys(s: "ProfileSet") -> List[str]:
    """Every label key of the profiles of ``s``, sorted (each profile read once)."""
    keys: set = set()
    for _, profiles in s.chunks():
        for p in profiles:
            codes = np.unique(np.asarray(p.labels["key"]))
            keys.update(p.strings[int(c)] for c in codes.tolist())
    return sorted(keys)


def label_shares(
    s: "ProfileSet",
    sample_type=None,
    *,
    keys: Optional[Sequence[str]] = None,
    freq=None,
    buckets=None,
):
    """Label keys, values and their share over time, one row per profile (or
    ``freq`` bucket), key and value: ``profile`` (not with ``freq``),
    ``time``, ``key``, ``label`` (the value; numbers bucketed as ``buckets``
    says, see :func:`pprofcore.fleet.series`; NaN for samples without the
    key), ``value`` (summed sample value) and ``share`` (of the profile's or
    bucket's total). ``keys``: the keys to list (default: all the set has,
    found by reading every profile once more).

    Examples
    --------
    >>> s = pprofcore.ProfileSet(pprofcore.fleet.example_fleet("shop", n=40))
    >>> shares = pprofcore.fleet.label_shares(s, keys=["version"])
    >>> shares.columns.tolist()
    ['profile', 'time', 'key', 'label', 'value', 'share']
    >>> sorted(shares["label"].dropna().unique())
    ['v1.4', 'v1.5']
    """
    pd = require_pandas()
    keys = label_keys(s) if keys is None else list(keys)
    key_col = "profile" if freq is None else "time"
    columns = ([key_col] if freq is None else []) + ["time", "key", "label", "value", "share"]
    if not keys:
        return pd.DataFrame({c: [] for c in columns})
    by = [LABEL_PREFIX + k for k in keys]
    rows = set_rows(s, sample_type, check_options(by, "flat", None, buckets), "flat")
    if freq is not None:
        rows = bucket(rows, freq)
    df = finish(rows, by=by, value="flat", normalize=None, bucketed=freq is not None, buckets=buckets)
    if freq is None:
        denom = pd.Series(rows.totals.astype(np.float64))
    else:
        denom = pd.Series(rows.totals.astype(np.float64), index=pd.to_datetime(rows.time_ns, unit="ns", utc=True))
    group = ["profile", "time"] if freq is None else ["time"]
    frames = []
    for key, column in zip(keys, _columns(df, keys)):
        g = df.groupby(group + [column], observed=True, dropna=False, sort=False)
        part = g["value"].sum().reset_index().rename(columns={column: "label"})
        part.insert(len(group), "key", key)
        frames.append(part)
    out = pd.concat(frames, ignore_index=True)
    out["label"] = out["label"].astype(object).where(out["label"].notna(), None)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["share"] = out["value"].to_numpy() / out[key_col].map(denom).to_numpy(dtype=np.float64)
    out = out[out["value"] != 0]
    out = out.sort_values([key_col, "key", "label"], na_position="first", kind="stable").reset_index(drop=True)
    out.attrs.update({k: df.attrs[k] for k in ("sample_type", "total")})
    return out[columns]


def _columns(df, keys: List[str]) -> List[str]:
    return [LABEL_PREFIX + k if LABEL_PREFIX + k in df.columns else k for k in keys]
