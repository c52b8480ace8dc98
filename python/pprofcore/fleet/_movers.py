"""Two windows of a set compared: top movers (the keys whose share of the
total changed most) and :func:`compare` (the statistical compare of
``pprofcore.testing`` on the two windows' per-profile shares, for any ``by``,
label keys included)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Tuple

import numpy as np

from .._optional import require_pandas
from ..testing.statistics import compare_matrix
from ._series import Rows, check_options, concat, set_rows

if TYPE_CHECKING:
    from ._set import ProfileSet


def _side(s: "ProfileSet", spec, name: str):
    if isinstance(spec, type(s)):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2:
        return s.window(*spec)
    raise TypeError(f"{name} must be a (start, end) tuple or a ProfileSet, got {type(spec).__name__}")


def windows(s: "ProfileSet", before, after, what: str) -> Tuple["ProfileSet", "ProfileSet"]:
    """The two sub-sets: two (start, end) windows or sets, or with ``after``
    None a split time (before it against at or after it)."""
    if after is None:
        if isinstance(before, tuple):
            raise TypeError(f"{what}(): give both windows, or one split time")
        a, b = s.window(None, before), s.window(before, None)
    else:
        a, b = _side(s, before, f"{what}(): before"), _side(s, after, f"{what}(): after")
    if not len(a) or not len(b):
        raise ValueError(f"{what}(): a window has no profiles (before: {len(a)}, after: {len(b)})")
    return a, b


def _matrix(ra: Rows, rb: Rows):
    """Both windows' rows as one (profiles x keys) value matrix, the first
    window's profiles first, with the names and per-profile totals."""
    both = concat([ra, rb])
    m = np.zeros((len(both.totals), len(both.cats)), dtype=np.float64)
    np.add.at(m, (both.pos, both.codes), both.vals)
    return both, m


def _type_name(ra: Rows, rb: Rows, what: str) -> Optional[str]:
    types = ra.type_names | rb.type_names
    if len(types) > 1:
        raise ValueError(f"{what}(): the windows use different sample types {sorted(types)}; pass sample_type=")
    return next(iter(types)) if types else None


def _by_text(by) -> str:
    return by if isinstance(by, str) else " and ".join(by)


def movers(
    s: "ProfileSet",
    before,
    after=None,
    *,
    sample_type=None,
    by="functions",
    value: str = "flat",
    n: Optional[int] = 20,
    buckets=None,
    alpha: float = 0.05,
    min_share: float = 0.001,
):
    """Keys whose share changed most between two windows of ``s``.

    Parameters
    ----------
    before, after : (start, end) tuple or ProfileSet
        The two windows (``ProfileSet.window`` bounds) or two sub-sets. With
        ``after=None``, ``before`` is a split time: profiles before it against
        profiles at or after it.
    sample_type, by, value, buckets
        As for :func:`pprofcore.fleet.series` (``by="label:endpoint"`` ranks
        the label's values).
    n : int, optional
        Keep the ``n`` keys with the largest absolute change (None: all).
    alpha, min_share
        As for :func:`pprofcore.testing.compare`, whose test gives the
        ``pvalue``/``qvalue`` columns.

    Returns
    -------
    pandas.DataFrame
        ``name, before, after, change`` (shares of each window's total, as
        fractions; ``change = after - before``), ``value_before``,
        ``value_after`` (summed values), ``profiles_before``,
        ``profiles_after`` (how many profiles of each window hold the key) and
        the statistical compare of the per-profile shares: ``pvalue``,
        ``qvalue`` (Benjamini-Hochberg over all keys; NaN when not tested:
        a window under two profiles, or a mean share under ``min_share``) and
        ``significant`` (``qvalue < alpha``); sorted by ``|change|``
        descending. ``attrs`` holds the two windows' totals and profile counts.

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
    spec = check_options(by, value, None, buckets)
    a, b = windows(s, before, after, "movers")
    ra, rb = set_rows(a, sample_type, spec, value), set_rows(b, sample_type, spec, value)
    type_name = _type_name(ra, rb, "movers")
    both, m = _matrix(ra, rb)
    na = len(ra.totals)
    va, vb = m[:na].sum(axis=0).astype(np.int64), m[na:].sum(axis=0).astype(np.int64)
    ta, tb = int(ra.totals.sum()), int(rb.totals.sum())
    sa = va / ta if ta else np.zeros(len(va))
    sb = vb / tb if tb else np.zeros(len(vb))
    p = np.full(len(both.cats), np.nan)
    q = np.full(len(both.cats), np.nan)
    if na >= 2 and len(rb.totals) >= 2 and len(both.cats):
        t = compare_matrix(
            both.cats,
            m,
            both.totals,
            na,
            sample_type=(type_name or "", ""),
            by=_by_text(by),
            alpha=alpha,
            min_share=min_share,
        )
        at = {name: k for k, name in enumerate(both.cats)}
        idx = np.array([at[x] for x in t["name"]], dtype=np.int64)
        p[idx], q[idx] = np.asarray(t["pvalue"]), np.asarray(t["qvalue"])
    out = pd.DataFrame(
        {
            "name": np.asarray(both.cats, dtype=object),
            "before": sa,
            "after": sb,
            "change": sb - sa,
            "value_before": va,
            "value_after": vb,
            "profiles_before": (m[:na] != 0).sum(axis=0),
            "profiles_after": (m[na:] != 0).sum(axis=0),
            "pvalue": p,
            "qvalue": q,
            "significant": q < alpha,
        }
    )
    order = np.lexsort((np.arange(len(out)), -np.abs(out["change"].to_numpy())))
    out = out.iloc[order].reset_index(drop=True)
    if n is not None:
        out = out.head(n)
    out.attrs.update(
        {
            "total_before": ta,
            "total_after": tb,
            "profiles_before": len(a),
            "profiles_after": len(b),
            "sample_type": type_name,
        }
    )
    return out


def compare(
    s: "ProfileSet",
    window_a,
    window_b=None,
    *,
    sample_type=None,
    by="functions",
    value: str = "flat",
    buckets=None,
    normalize: bool = True,
    test: str = "mannwhitney",
    alpha: float = 0.05,
    min_share: float = 0.001,
):
    """:func:`pprofcore.testing.compare` of two windows of ``s``: per key
    (any ``by`` of :func:`pprofcore.fleet.series`, label keys included), the
    mean share per window, its change with a confidence interval, p- and
    Benjamini-Hochberg q-values. Windows as for :func:`movers`; each needs at
    least two profiles. Returns the :class:`~pprofcore.reports.ReportTable`
    ``compare`` returns.

    Examples
    --------
    Which endpoint's share of CPU moved between the first and the last 20 minutes:

    >>> s = pprofcore.ProfileSet(pprofcore.fleet.example_fleet("shop", n=40))
    >>> t = pprofcore.fleet.compare(s, "2024-05-01 12:20", by="label:endpoint")
    >>> t.to_pandas()["name"].iloc[0]
    '/api/checkout'
    """
    spec = check_options(by, value, None, buckets)
    a, b = windows(s, window_a, window_b, "compare")
    ra, rb = set_rows(a, sample_type, spec, value), set_rows(b, sample_type, spec, value)
    type_name = _type_name(ra, rb, "compare")
    both, m = _matrix(ra, rb)
    return compare_matrix(
        both.cats,
        m,
        both.totals,
        len(ra.totals),
        sample_type=(type_name or "", ""),
        by=_by_text(by),
        cum=value == "cum",
        normalize=normalize,
        test=test,
        alpha=alpha,
        min_share=min_share,
    )
