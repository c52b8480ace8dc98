"""pprofcore.compare and the statistics behind it (pprofcore.testing.statistics).

The tests of the statistics are written from their definitions in NumPy; SciPy, when
installed, is the oracle: Mann-Whitney U (asymptotic, tie and continuity
corrected), Welch's t-test and interval, Student's t and the normal
distribution, Benjamini-Hochberg. compare() itself is checked against the
same tests run column by column on the share matrix built from Profile.top.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pprofcore
from pprofcore.testing import assert_no_significant_regression, compare
from pprofcore.testing import statistics as stats

try:  # SciPy is an optional oracle
    import scipy.stats as scipy_stats
except ImportError:  # pragma: no cover - depends on the environment
    scipy_stats = None

needs_scipy = pytest.mark.skipif(scipy_stats is None, reason="SciPy (the oracle) is not installed")

STACKS = [
    "main;serve;parse",
    "main;serve;parse;alloc",
    "main;serve;render",
    "main;serve;render;alloc",
    "main;serve;hash",
    "main;gc",
    "main;serve;log",
]
WEIGHTS = np.array([10, 3, 8, 2, 12, 4, 1], dtype=np.float64)


def runs(rng, n, samples=2000, boost=None, factor=1.0):
    """``n`` profiles of one synthetic process: multinomial draws over STACKS,
    with the weight of stack ``boost`` multiplied by ``factor``."""
    w = WEIGHTS.copy()
    if boost is not None:
        w[boost] *= factor
    out = []
    for _ in range(n):
        counts = rng.multinomial(samples, w / w.sum())
        text = "".join(f"{s} {c}\n" for s, c in zip(STACKS, counts) if c)
        out.append(pprofcore.from_folded(text, sample_type="cpu/nanoseconds"))
    return out


# -------------------------------------------------------------- the tests
matrices = st.tuples(st.integers(2, 12), st.integers(2, 12), st.integers(1, 6)).flatmap(
    lambda s: st.tuples(
        hnp.arrays(np.float64, (s[0], s[2]), elements=st.integers(0, 4).map(float)),
        hnp.arrays(np.float64, (s[1], s[2]), elements=st.integers(0, 6).map(float)),
    )
)


@needs_scipy
@settings(max_examples=80, deadline=None)
@given(matrices)
def test_mannwhitney_matches_scipy(ab):
    a, b = ab
    u, p = stats.mannwhitney(a, b)
    for j in range(a.shape[1]):
        if np.ptp(np.concatenate([a[:, j], b[:, j]])) == 0:
            assert p[j] == 1.0  # SciPy answers NaN for a constant column
            continue
        r = scipy_stats.mannwhitneyu(a[:, j], b[:, j], method="asymptotic")
        assert u[j] == r.statistic
        assert p[j] == pytest.approx(r.pvalue, rel=1e-6, abs=1e-12)


@needs_scipy
@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")
@settings(max_examples=80, deadline=None)
@given(matrices)
def test_welch_matches_scipy(ab):
    a, b = ab
    t, df, se, p = stats.welch(a, b)
    lo, hi = stats.welch_interval(a, b, 0.1)
    for j in range(a.shape[1]):
        if se[j] == 0:
            assert p[j] == (1.0 if b[:, j].mean() == a[:, j].mean() else 0.0)
            continue
        r = scipy_stats.ttest_ind(b[:, j], a[:, j], equal_var=False)
        assert t[j] == pytest.approx(r.statistic, rel=1e-9)
        assert p[j] == pytest.approx(r.pvalue, rel=1e-6, abs=1e-12)
        ci = r.confidence_interval(0.9)
        assert (lo[j], hi[j]) == pytest.approx((ci.low, ci.high), rel=1e-7, abs=1e-12)


@needs_scipy
@pytest.mark.parametrize("df", [1, 1.3, 2, 3.7, 8, 30, 250, 1e5])
def test_t_distribution_matches_scipy(df):
    t = np.array([-30, -3, -1, 0, 0.5, 2, 5, 40.0])
    assert stats.t_sf(t, np.full_like(t, df)) == pytest.approx(scipy_stats.t.sf(t, df), rel=1e-7, abs=1e-300)
    for p in (0.5, 0.8, 0.95, 0.975, 0.995, 0.9999):
        assert stats.t_quantile(p, np.array([df]))[0] == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-6, abs=1e-12)


@needs_scipy
def test_normal_and_bh_match_scipy():
    z = np.linspace(-8, 37, 400)
    assert stats.normal_sf(z) == pytest.approx(scipy_stats.norm.sf(z), rel=3e-7)
    for p in (0.001, 0.025, 0.5, 0.9, 0.975):
        assert stats.normal_quantile(p) == pytest.approx(scipy_stats.norm.ppf(p), abs=1e-12)
    rng = np.random.default_rng(3)
    for size in (1, 5, 200):
        p = rng.random(size) ** 3
        p[: size // 3] = p[0]  # ties
        assert stats.bh_qvalues(p) == pytest.approx(scipy_stats.false_discovery_control(p), rel=1e-12)


def test_bh_by_hand():
    # Sorted p 0.01, 0.02, 0.03, 0.5 with m = 4: 0.04, 0.04, 0.04, 0.5.
    assert stats.bh_qvalues(np.array([0.5, 0.03, 0.01, 0.02])).tolist() == pytest.approx([0.5, 0.04, 0.04, 0.04])
    assert stats.bh_qvalues(np.array([])).size == 0


def test_ranks_by_hand():
    a = np.array([[1.0], [2.0], [2.0]])
    b = np.array([[2.0], [3.0]])
    u, _ = stats.mannwhitney(a, b)
    # ranks 1, 3, 3 | 3, 5: U_a = 7 - 6 = 1.
    assert u.tolist() == [1.0]


def test_stats_reject_small_groups():
    with pytest.raises(ValueError, match="at least two"):
        stats.welch(np.zeros((1, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="at least one"):
        stats.mannwhitney(np.zeros((0, 2)), np.zeros((3, 2)))


# ------------------------------------------------------------------ compare
COLUMNS = ["name", "base", "new", "delta", "ci_low", "ci_high", "pvalue", "qvalue", "significant"]


def _shares(profiles, name):
    out = []
    for p in profiles:
        rows = {r["name"]: r["flat"] for r in p.top().rows()}
        out.append(rows.get(name, 0) / p.total())
    return np.array(out)


@pytest.mark.parametrize("test", ["mannwhitney", "welch"])
def test_compare_columns_and_numbers(test):
    rng = np.random.default_rng(7)
    base, new = runs(rng, 8), runs(rng, 9, boost=4, factor=1.3)
    t = compare(base, new, test=test, alpha=0.05)
    assert t.columns == COLUMNS
    assert sorted(t["name"]) == sorted({s.rsplit(";", 1)[1] for s in STACKS})
    for i, name in enumerate(t["name"]):
        a, b = _shares(base, name), _shares(new, name)
        assert t["base"][i] == pytest.approx(a.mean()) and t["new"][i] == pytest.approx(b.mean())
        assert t["delta"][i] == pytest.approx(b.mean() - a.mean())
        assert t["ci_low"][i] <= t["delta"][i] <= t["ci_high"][i]
        if scipy_stats is not None:
            if test == "mannwhitney":
                want = scipy_stats.mannwhitneyu(a, b, method="asymptotic").pvalue
            else:
                want = scipy_stats.ttest_ind(b, a, equal_var=False).pvalue
            assert t["pvalue"][i] == pytest.approx(want, rel=1e-6)
    assert np.all(t["qvalue"] >= t["pvalue"])
    assert list(t["significant"]) == list(t["qvalue"] < 0.05)
    assert t["name"][0] == "hash" and t["significant"][0] and t["delta"][0] > 0
    assert "hash" in repr(t) and "Benjamini-Hochberg" in t.header[0]


def test_compare_by_and_cum_and_raw_values():
    rng = np.random.default_rng(8)
    base, new = runs(rng, 5), runs(rng, 5)
    t = compare(base, new, cum=True)
    assert "serve" in t["name"] and "main" in t["name"]
    row = list(t["name"]).index("main")
    assert t["base"][row] == pytest.approx(1.0) and t["pvalue"][row] == 1.0  # main is in every sample
    raw = compare(base, new, normalize=False)
    row = list(raw["name"]).index("hash")
    assert raw["base"][row] == pytest.approx(
        np.mean([dict((r["name"], r["flat"]) for r in p.top().rows())["hash"] for p in base])
    )


def test_compare_finds_an_injected_change_and_nothing_else():
    rng = np.random.default_rng(11)
    found = 0
    false = 0
    for _ in range(5):
        base, new = runs(rng, 10), runs(rng, 10, boost=5, factor=1.25)  # "gc", 10% of samples
        t = compare(base, new)
        grew = [n for n, s, d in zip(t["name"], t["significant"], t["delta"]) if s and d > 0]
        found += "gc" in grew
        # The other shares did shrink (shares sum to one): only growth is false.
        false += len([n for n in grew if n != "gc"])
    assert found >= 4 and false <= 1


def test_assert_no_significant_regression():
    rng = np.random.default_rng(12)
    base = runs(rng, 10)
    t = assert_no_significant_regression(base, runs(rng, 10))
    assert t.columns == COLUMNS
    slower = runs(rng, 10, boost=6, factor=3.0)  # "log": 2.5% -> 7%
    assert_no_significant_regression(base, slower, min_delta=0.06)
    with pytest.raises(AssertionError) as e:
        assert_no_significant_regression(base, slower)
    lines = str(e.value).splitlines()
    assert lines[0] == "1 functions grew significantly"
    assert lines[3].split()[0] == "log" and lines[3].rstrip().endswith("*")
    assert len(lines) == 4


def test_keys_below_min_share_are_listed_but_not_tested():
    rng = np.random.default_rng(9)
    base, new = runs(rng, 6, samples=3000), runs(rng, 6, samples=3000)
    t = compare(base, new, min_share=0.05)  # "log" holds 2.5%
    row = list(t["name"]).index("log")
    assert np.isnan(t["pvalue"][row]) and np.isnan(t["qvalue"][row]) and not t["significant"][row]
    assert t["name"][-1] == "log"  # untested rows come last
    tested = ~np.isnan(t["pvalue"])
    assert tested.sum() == len(t) - 1 and "5 tested (1 below 5.00% not tested)" in t.header[0]
    assert " -  " in t.to_text() or t.to_text().rstrip().endswith("-")
    # Untested keys do not count in the Benjamini-Hochberg family.
    everything = compare(base, new, min_share=0)
    assert not np.isnan(everything["pvalue"]).any()
    assert len(everything) == len(t)
    assert t["qvalue"][tested] == pytest.approx(stats.bh_qvalues(t["pvalue"][tested]))
    p_all = dict(zip(everything["name"], everything["pvalue"]))
    assert all(p_all[n] == p for n, p in zip(t["name"], t["pvalue"]) if n != "log")


def test_compare_argument_errors():
    rng = np.random.default_rng(1)
    a = runs(rng, 2)
    with pytest.raises(ValueError, match="at least two profiles per group"):
        compare(a[:1], a)
    with pytest.raises(ValueError, match="unknown test"):
        compare(a, a, test="ttest")
    with pytest.raises(ValueError, match="alpha"):
        compare(a, a, alpha=1.5)
    heap = pprofcore.load(pprofcore.example_path("heap"))
    with pytest.raises(ValueError, match="profile 2: no sample_type 'cpu'; have "):
        compare(a, [heap, heap])
