"""Two groups of repeated runs compared key by key, with statistics.

Owns :func:`compare` (per key: mean share or value per group, delta, Welch's
confidence interval, a two-sided p-value, Benjamini-Hochberg q-value) and
:func:`assert_no_significant_regression`, and the two-sample tests behind
them, vectorised over columns in NumPy without SciPy (rows = observations,
one column per key): Mann-Whitney U (average ranks, tie correction, normal
approximation with continuity correction), Welch's t-test and its interval,
and Benjamini-Hochberg q-values. The special functions they need (erfc,
log-gamma, the regularised incomplete beta, Student's t quantile) are small
approximations accurate to about 1e-7 relative, far below what the decisions
depend on. Not supported: exact small-sample Mann-Whitney distributions and
one-sided alternatives. One run per side is :mod:`.regressions`' job.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..reports.table import ReportTable
from . import _format, _keys

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


# ---------------------------------------------------------------- comparison
TESTS = ("mannwhitney", "welch")


def compare(
    base: Sequence["Profile"],
    new: Sequence["Profile"],
    *,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    cum: bool = False,
    normalize: bool = True,
    test: str = "mannwhitney",
    alpha: float = 0.05,
    min_share: float = 0.001,
) -> ReportTable:
    """Compare two groups of repeated profiles key by key, with statistics.

    For every key (pprof's report node at granularity ``by``) holding a value
    in some profile: the mean per group of its share of each profile's total
    (``normalize=True``) or of its value, ``delta = new - base``, the
    ``(1 - alpha)`` confidence interval of ``delta`` (Welch's t interval), a
    two-sided p-value from ``test`` (``"mannwhitney"``: Mann-Whitney U with
    tie correction, normal approximation; ``"welch"``: Welch's t-test), the
    Benjamini-Hochberg q-value over all keys, and ``significant = q < alpha``
    (the false discovery rate is held at ``alpha``).

    Keys whose mean share over all profiles of both groups is below
    ``min_share`` (default 0.1%) are listed but not tested (``pvalue``,
    ``qvalue`` NaN): a handful of samples cannot show a change, and leaving
    them out of the Benjamini-Hochberg family keeps the power for the keys
    that can. The filter does not look at the groups, so the false
    discovery rate still holds (independent filtering).

    Both groups need at least two profiles. Returns a :class:`ReportTable`
    with columns ``name, base, new, delta, ci_low, ci_high, pvalue, qvalue,
    significant``, most significant first. Everything after the C++
    aggregation is vectorised over keys in NumPy.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> slower = pprofcore.merge([p, p.focus("sha256").scale(0.5)])
    >>> result = pprofcore.compare([p, p, p], [slower, slower, slower])
    >>> print(result)  # doctest: +ELLIPSIS
    3 base vs 3 new profiles, flat cpu share per functions; ...
    """
    base, new = list(base), list(new)
    if len(base) < 2 or len(new) < 2:
        raise ValueError(f"compare needs at least two profiles per group (got {len(base)} and {len(new)})")
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha} is not between 0 and 1")
    if not 0 <= min_share <= 1:
        raise ValueError(f"min_share={min_share} is not a fraction between 0 and 1")
    _keys.check_by(by)
    name, unit, idx = _keys.resolve_type(base + new, sample_type)
    keys, m, totals = _keys.key_matrix(base + new, idx, by, cum)
    return compare_matrix(
        keys,
        m,
        totals,
        len(base),
        sample_type=(name, unit),
        by=by,
        cum=cum,
        normalize=normalize,
        test=test,
        alpha=alpha,
        min_share=min_share,
    )


def compare_matrix(
    keys: Sequence[str],
    m: np.ndarray,
    totals: np.ndarray,
    n_base: int,
    *,
    sample_type: Tuple[str, str],
    by: str,
    cum: bool = False,
    normalize: bool = True,
    test: str = "mannwhitney",
    alpha: float = 0.05,
    min_share: float = 0.001,
) -> ReportTable:
    """:func:`compare` of a value matrix already built: ``m`` has one row per
    profile (the ``n_base`` base profiles first) and one column per key of
    ``keys``, ``totals`` each profile's total; ``sample_type`` is the
    ``(type, unit)`` pair and ``by`` what the keys are (for the header). The
    fleet's label compare builds its matrix from a series."""
    if n_base < 2 or len(m) - n_base < 2:
        raise ValueError(f"compare needs at least two profiles per group (got {n_base} and {len(m) - n_base})")
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    name, unit = sample_type
    base, new = range(n_base), range(n_base, len(m))
    keep = np.flatnonzero(m.any(axis=0))
    m = m[:, keep]
    vals = _keys.as_shares(m, totals) if normalize else m
    a, b = vals[: len(base)], vals[len(base) :]
    mean_a, mean_b = a.mean(axis=0), b.mean(axis=0)
    delta = mean_b - mean_a
    low, high = welch_interval(a, b, alpha)
    shares = _keys.as_shares(m, totals) if not normalize else vals
    tested = np.flatnonzero(shares.mean(axis=0) >= min_share)
    p = np.full(len(keep), np.nan)
    q = np.full(len(keep), np.nan)
    if len(tested):
        if test == "mannwhitney":
            p[tested] = mannwhitney(a[:, tested], b[:, tested])[1]
        else:
            p[tested] = welch(a[:, tested], b[:, tested])[3]
        q[tested] = bh_qvalues(p[tested])
    sig = q < alpha  # NaN (untested) compares False
    names = [keys[i] for i in keep.tolist()]
    order = np.lexsort((np.arange(len(names)), -np.abs(delta), q))
    columns = {
        "name": [names[i] for i in order.tolist()],
        "base": mean_a[order],
        "new": mean_b[order],
        "delta": delta[order],
        "ci_low": low[order],
        "ci_high": high[order],
        "pvalue": p[order],
        "qvalue": q[order],
        "significant": sig[order],
    }
    label = {"mannwhitney": "Mann-Whitney U", "welch": "Welch's t"}[test]
    header = [
        f"{len(base)} base vs {len(new)} new profiles, {'cum' if cum else 'flat'} {name}"
        f"{' share' if normalize else f' ({unit})'} per {by}; {label}, Benjamini-Hochberg at {alpha:g}:"
        f" {int(sig.sum())} significant of {len(tested)} tested ({len(names) - len(tested)} below"
        f" {_format.fmt_share(min_share)} not tested)"
    ]
    meta = {
        "sample_type": name,
        "sample_unit": unit,
        "normalize": normalize,
        "granularity": by,
        "test": test,
        "alpha": alpha,
        "cum": cum,
        "n_base": len(base),
        "n_new": len(new),
        "min_share": min_share,
    }
    return ReportTable(columns, header, _compare_text, meta)


def _compare_text(t: ReportTable, n: Optional[int]) -> str:
    fmt = _format.value_format(t, 3)

    def row(i: int) -> List[str]:
        return [
            t["name"][i],
            fmt(t["base"][i]),
            fmt(t["new"][i]),
            fmt(t["delta"][i], True),
            fmt(t["ci_low"][i], True),
            fmt(t["ci_high"][i], True),
            _fmt_p(t["pvalue"][i]),
            _fmt_p(t["qvalue"][i]),
            "*" if t["significant"][i] else "",
        ]

    return _format.table_text(
        t, n, ["name", "base", "new", "delta", "ci_low", "ci_high", "pvalue", "qvalue", "sig"], row
    )


def _fmt_p(p: float) -> str:
    return "-" if p != p else f"{p:.3g}"


def assert_no_significant_regression(
    base: Sequence["Profile"],
    new: Sequence["Profile"],
    *,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    cum: bool = False,
    normalize: bool = True,
    test: str = "mannwhitney",
    alpha: float = 0.05,
    min_delta: float = 0.0,
    min_share: float = 0.001,
) -> ReportTable:
    """Assert that :func:`compare` finds no key that grew significantly from
    the ``base`` runs to the ``new`` runs (``significant`` and ``delta >
    min_delta``; ``min_delta`` is a share when ``normalize``; ``min_share``
    as in :func:`compare`). Returns the
    comparison on success; the failure message is its table of offenders.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> slower = pprofcore.merge([p, p.focus("sha256").scale(0.5)])  # more time in sha256
    >>> result = pprofcore.testing.assert_no_significant_regression([p, p, p], [p, p, p])
    >>> pprofcore.testing.assert_no_significant_regression([p, p, p], [slower, slower, slower])
    Traceback (most recent call last):
        ...
    AssertionError: ...
    """
    __tracebackhide__ = True
    t = compare(
        base,
        new,
        by=by,
        sample_type=sample_type,
        cum=cum,
        normalize=normalize,
        test=test,
        alpha=alpha,
        min_share=min_share,
    )
    bad = np.flatnonzero(np.asarray(t["significant"]) & (np.asarray(t["delta"]) > min_delta))
    if len(bad):
        sub = ReportTable(
            {c: ([t[c][i] for i in bad.tolist()] if isinstance(t[c], list) else t[c][bad]) for c in t.columns},
            list(t.header),
            _compare_text,
            t.meta,
        )
        _format.raise_assertion_error(f"{len(bad)} {by} grew significantly", [sub.to_text()])
    return t


# ------------------------------------------------------------ special functions
def _erfc(x: np.ndarray) -> np.ndarray:
    """Complementary error function; relative error below 1.2e-7 everywhere
    (Chebyshev fit from Numerical Recipes, section 6.2)."""
    x = np.asarray(x, dtype=np.float64)
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -1.26551223 + t * (
        1.00002368
        + t
        * (
            0.37409196
            + t
            * (
                0.09678418
                + t
                * (
                    -0.18628806
                    + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))
                )
            )
        )
    )
    r = t * np.exp(-z * z + poly)
    return np.where(x >= 0, r, 2.0 - r)


def normal_sf(z: np.ndarray) -> np.ndarray:
    """P(Z > z) for a standard normal Z, elementwise."""
    return 0.5 * _erfc(np.asarray(z, dtype=np.float64) / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """The standard normal quantile of ``p`` (0 < p < 1), by bisection on
    :func:`math.erfc` (a scalar: it is only needed for the level)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {p}")
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


_LANCZOS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)


def _lgamma(x: np.ndarray) -> np.ndarray:
    """log Gamma(x) for x >= 0.5 (Lanczos, g = 7)."""
    x = np.asarray(x, dtype=np.float64) - 1.0
    a = np.full_like(x, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        a = a + c / (x + i)
    t = x + 7.5
    return 0.5 * math.log(2 * math.pi) + (x + 0.5) * np.log(t) - t + np.log(a)


def _betacf(a: np.ndarray, b: np.ndarray, x: np.ndarray, iters: int = 300) -> np.ndarray:
    """Continued fraction of the incomplete beta function (modified Lentz),
    run for all elements together until every one has converged."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1.0 / d
    h = d.copy()
    for m in range(1, iters + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        h = h * d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        step = d * c
        h = h * step
        if np.all(np.abs(step - 1.0) < 1e-14):
            break
    return h


def _betainc(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Regularised incomplete beta I_x(a, b), elementwise (a, b >= 0.5)."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, x)))
    x = np.clip(x, 0.0, 1.0)
    # The continued fraction converges fast below (a+1)/(a+b+2); above it use
    # the symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
    swap = x > (a + 1.0) / (a + b + 2.0)
    aa, bb, xx = np.where(swap, b, a), np.where(swap, a, b), np.where(swap, 1.0 - x, x)
    with np.errstate(divide="ignore", invalid="ignore"):
        lbt = _lgamma(aa + bb) - _lgamma(aa) - _lgamma(bb) + aa * np.log(xx) + bb * np.log1p(-xx)
        front = np.exp(lbt) / aa
        r = front * _betacf(aa, bb, xx)
    r = np.where(xx <= 0.0, 0.0, r)
    return np.where(swap, 1.0 - r, r)


def t_sf(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    """P(T > t) for Student's t with ``df`` degrees of freedom (df >= 1, real)."""
    t = np.asarray(t, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    # A huge t (two samples without spread) overflows t * t: x is then 0, as it should be.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = df / (df + t * t)
    tail = 0.5 * _betainc(0.5 * df, np.full_like(x, 0.5), x)
    return np.where(t >= 0, tail, 1.0 - tail)


def _t_pdf(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    lnorm = _lgamma((df + 1) / 2) - _lgamma(df / 2) - 0.5 * np.log(df * math.pi)
    return np.exp(lnorm - (df + 1) / 2 * np.log1p(t * t / df))


def t_quantile(p: float, df: np.ndarray) -> np.ndarray:
    """Student's t quantile of ``p`` (0.5 <= p < 1) for each ``df`` (>= 1):
    a Cornish-Fisher start refined by Newton steps on :func:`t_sf`."""
    df = np.asarray(df, dtype=np.float64)
    z = normal_quantile(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    t = z + g1 / df + g2 / df**2 + g3 / df**3
    # Cornish-Fisher overshoots for df near 1; Cauchy's exact value bounds it.
    t = np.minimum(t, math.tan(math.pi * (p - 0.5)))
    for _ in range(8):
        err = (1.0 - t_sf(t, df)) - p
        t = t - err / np.maximum(_t_pdf(t, df), 1e-300)
        if np.all(np.abs(err) < 1e-13):
            break
    return t


# ------------------------------------------------------------------- the tests
def _ranks_and_ties(x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) of every column of ``x``, and per column
    sum(t**3 - t) over its groups of ties."""
    # Work on rows (one per column of x) so that sorting runs on contiguous memory.
    r = np.ascontiguousarray(x.T)
    k, n = r.shape
    order = np.argsort(r, axis=1, kind="stable")
    s = np.take_along_axis(r, order, axis=1)
    idx = np.broadcast_to(np.arange(n), (k, n))
    new_run = np.empty((k, n), dtype=bool)
    new_run[:, 0] = True
    np.not_equal(s[:, 1:], s[:, :-1], out=new_run[:, 1:])
    start = np.maximum.accumulate(np.where(new_run, idx, 0), axis=1)
    end_run = np.empty((k, n), dtype=bool)
    end_run[:, -1] = True
    end_run[:, :-1] = new_run[:, 1:]
    end = np.minimum.accumulate(np.where(end_run, idx, n - 1)[:, ::-1], axis=1)[:, ::-1]
    avg = (start + end) * 0.5 + 1.0
    ranks = np.empty((k, n))
    np.put_along_axis(ranks, order, avg, axis=1)
    size = (end - start + 1).astype(np.float64)
    ties = (size * size - 1.0).sum(axis=1)  # each run of t adds t*(t^2-1)
    return ranks.T, ties


def mannwhitney(a: np.ndarray, b: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Two-sided Mann-Whitney U test of every column of ``a`` against the same
    column of ``b``: returns (U of ``a``, p-value), normal approximation with
    tie and continuity correction (SciPy's ``method="asymptotic"``). A column
    that is constant across both groups gets p = 1."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n1, n2 = a.shape[0], b.shape[0]
    if n1 == 0 or n2 == 0:
        raise ValueError("mannwhitney needs at least one observation in each group")
    ranks, ties = _ranks_and_ties(np.concatenate([a, b], axis=0))
    n = n1 + n2
    u1 = ranks[:n1].sum(axis=0) - n1 * (n1 + 1) / 2.0
    mu = n1 * n2 / 2.0
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else np.zeros_like(u1)
    sd = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (np.abs(u1 - mu) - 0.5) / sd
    p = np.where(sd > 0, np.minimum(1.0, 2.0 * normal_sf(z)), 1.0)
    return u1, p


def welch(a: np.ndarray, b: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Welch's two-sided t-test of mean(b) - mean(a), per column: returns
    (t, df, standard error of the difference, p-value). Needs two or more
    rows per group. A column with zero variance in both groups gets p = 1 when
    the means agree and p = 0 when they differ."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n1, n2 = a.shape[0], b.shape[0]
    if n1 < 2 or n2 < 2:
        raise ValueError("Welch's t-test needs at least two observations in each group")
    v1, v2 = a.var(axis=0, ddof=1) / n1, b.var(axis=0, ddof=1) / n2
    se = np.sqrt(v1 + v2)
    diff = b.mean(axis=0) - a.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / se
        df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    degenerate = ~(se > 0)
    df = np.where(degenerate | ~np.isfinite(df), float(n1 + n2 - 2), np.maximum(df, 1.0))
    p = np.where(degenerate, np.where(diff == 0, 1.0, 0.0), np.minimum(1.0, 2.0 * t_sf(np.abs(np.nan_to_num(t)), df)))
    return np.nan_to_num(t), df, se, p


def welch_interval(a: np.ndarray, b: np.ndarray, alpha: float) -> Tuple[np.ndarray, np.ndarray]:
    """The (1 - alpha) confidence interval of mean(b) - mean(a) per column,
    Welch's t interval (a point when both groups are constant)."""
    _, df, se, _ = welch(a, b)
    diff = np.asarray(b, dtype=np.float64).mean(axis=0) - np.asarray(a, dtype=np.float64).mean(axis=0)
    half = t_quantile(1.0 - alpha / 2.0, df) * se
    return diff - half, diff + half


def bh_qvalues(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values) of a 1-D array."""
    p = np.asarray(p, dtype=np.float64)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    q = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(q, 1.0)
    return out
