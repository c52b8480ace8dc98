"""Top movers: the keys whose share of the total changed most between two windows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

from .._optional import require_pandas
from ._series import series

if TYPE_CHECKING:
    from ._set import ProfileSet


def _side(s: "ProfileSet", spec, name: str):
    if isinstance(spec, type(s)):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2:
        return s.window(*spec)
    raise TypeError(f"movers(): {name} must be a (start, end) tuple or a ProfileSet, got {type(spec).__name__}")


def _shares(side: "ProfileSet", sample_type, by: str, value: str):
    df = series(side, sample_type, by=by, value=value)
    total = df.attrs["total"]
    sums = df.groupby("name", observed=True)["value"].sum()
    return sums, total, df.attrs["sample_type"]


def movers(
    s: "ProfileSet",
    before,
    after=None,
    *,
    sample_type=None,
    by: str = "functions",
    value: str = "flat",
    n: Optional[int] = 20,
):
    """Keys whose share changed most between two windows of ``s``.

    Parameters
    ----------
    before, after : (start, end) tuple or ProfileSet
        The two windows (``ProfileSet.window`` bounds) or two sub-sets. With
        ``after=None``, ``before`` is a split time: profiles before it against
        profiles at or after it.
    sample_type, by, value
        As for :func:`pprofcore.fleet.series`.
    n : int, optional
        Keep the ``n`` keys with the largest absolute change (None: all).

    Returns
    -------
    pandas.DataFrame
        ``name, before, after, change`` (shares of each window's total, as
        fractions; ``change = after - before``) and ``value_before``,
        ``value_after`` (summed values), sorted by ``|change|`` descending.
        ``attrs`` holds the two windows' totals and profile counts.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> slower = pprofcore.merge([p, p.focus("sha256").scale(0.5)])  # more time in sha256
    >>> slower.save("slower.pb.gz")
    >>> base, new = pprofcore.ProfileSet([pprofcore.example_path()]), pprofcore.ProfileSet(["slower.pb.gz"])
    >>> m = pprofcore.fleet.movers(base, base, new, n=1)
    >>> m["name"].tolist()
    ['crypto/sha256.block']
    """
    pd = require_pandas()
    if after is None:
        if isinstance(before, tuple):
            raise TypeError("movers(): give both windows, or one split time")
        a, b = s.window(None, before), s.window(before, None)
    else:
        a, b = _side(s, before, "before"), _side(s, after, "after")
    if not len(a) or not len(b):
        raise ValueError(f"movers(): a window has no profiles (before: {len(a)}, after: {len(b)})")
    va, ta, na = _shares(a, sample_type, by, value)
    vb, tb, nb = _shares(b, sample_type, by, value)
    if na is not None and nb is not None and na != nb:
        raise ValueError(f"movers(): the windows use different sample types ({na!r}, {nb!r})")
    names = va.index.union(vb.index)
    va = va.reindex(names, fill_value=0).astype(np.int64)
    vb = vb.reindex(names, fill_value=0).astype(np.int64)
    sa = va.to_numpy() / ta if ta else np.zeros(len(names))
    sb = vb.to_numpy() / tb if tb else np.zeros(len(names))
    out = pd.DataFrame(
        {
            "name": np.asarray(names, dtype=object),
            "before": sa,
            "after": sb,
            "change": sb - sa,
            "value_before": va.to_numpy(),
            "value_after": vb.to_numpy(),
        }
    )
    order = np.argsort(-np.abs(out["change"].to_numpy()), kind="stable")
    out = out.iloc[order].reset_index(drop=True)
    if n is not None:
        out = out.head(n)
    out.attrs.update(
        {
            "total_before": ta,
            "total_after": tb,
            "profiles_before": len(a),
            "profiles_after": len(b),
            "sample_type": na or nb,
        }
    )
    return out
