"""compare() on a real series: 42 CPU profiles of one Go process
(tests/data/goseries/main.go, committed under tests/data/goseries/series/;
the same steady work, 1,834 to 3,242 samples each: 39 of them hold at least
2,000, three fell short because the kernel's tick-driven CPU timers gave
fewer samples than asked under load). The targets are checked on all 42 and
on the 39 with at least 2,000 samples.

Targets (seeded):
- random splits into two groups of 21: at most one significant function in
  at least nine of ten splits (nothing changed, so any finding is false);
- a +20% change injected into a leaf function holding >= 2% of the total
  (its samples counted 1.2 times in one group) is significant in at least
  nine of ten trials.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from testenv import DATA

import pprofcore
from pprofcore.testing import compare

SERIES = DATA / "goseries" / "series"
SOURCE = DATA / "goseries" / "main.go"


def load_series(directory: Path) -> list:
    return pprofcore.load_many(sorted(str(p) for p in directory.glob("cpu-*.pb.gz")))


@pytest.fixture(scope="session")
def whole_series():
    profiles = load_series(SERIES)
    if len(profiles) < 40:
        pytest.skip(f"the committed series is missing from {SERIES} (regenerate it as its README says)")
    return profiles


@pytest.fixture(params=["all", "2000+"])
def series(request, whole_series):
    """The whole series, or only its profiles with at least 2,000 samples."""
    if request.param == "all":
        return whole_series
    return [p for p in whole_series if int(p.values[:, 0].sum()) >= 2000]


def test_series_is_what_the_targets_ask_for(whole_series):
    counts = sorted(int(p.values[:, 0].sum()) for p in whole_series)
    assert len(whole_series) == 42
    assert counts[0] >= 1800 and sum(c >= 2000 for c in counts) == 39
    series = whole_series
    assert {p.sample_types[1] for p in series} == {("cpu", "nanoseconds")}
    # The same steady work in every profile: the top function is everywhere.
    first = next(series[0].top().rows())["name"]
    assert all(first in p.top()["name"] for p in series)


def _leaf(series) -> str:
    """The injection target: a function that is only ever a leaf (flat ==
    cum) and holds >= 2% of the merged profile, the smallest such."""
    merged = pprofcore.merge(series)
    t = merged.top(sample_type="cpu")
    total = t.meta["total"]
    leaves = [
        (r["flat"], r["name"])
        for r in t.rows()
        if r["flat"] == r["cum"] and r["flat"] >= 0.02 * total and not r["inline"]
    ]
    assert leaves, "no leaf function holds 2% of the series"
    return min(leaves)[1]


def inject(p: pprofcore.Profile, function: str, factor: float) -> pprofcore.Profile:
    """``p`` with the samples of leaf ``function`` counted ``factor`` times."""
    rx = "^" + re.escape(function) + "$"
    return pprofcore.merge([p.ignore(rx), p.focus(rx).scale(factor)])


@pytest.mark.parametrize("test", ["mannwhitney", "welch"])
def test_random_splits_find_at_most_one_function(series, test):
    rng = np.random.default_rng(20261123)
    quiet, found = 0, []
    for _ in range(10):
        order = rng.permutation(len(series))
        half = len(series) // 2
        t = compare([series[i] for i in order[:half]], [series[i] for i in order[half:]], sample_type="cpu", test=test)
        n = int(np.sum(t["significant"]))
        found.append(n)
        quiet += n <= 1
    assert quiet >= 9, f"significant functions per split: {found}"


@pytest.mark.parametrize("test", ["mannwhitney", "welch"])
def test_injected_20_percent_is_found(series, test):
    leaf = _leaf(series)
    rng = np.random.default_rng(7)
    hits = []
    for _ in range(10):
        order = rng.permutation(len(series))
        half = len(series) // 2
        base = [series[i] for i in order[:half]]
        new = [inject(series[i], leaf, 1.2) for i in order[half:]]
        t = compare(base, new, sample_type="cpu", test=test)
        row = list(t["name"]).index(leaf)
        hits.append(bool(t["significant"][row]) and t["delta"][row] > 0)
        assert t["ci_low"][row] <= t["delta"][row] <= t["ci_high"][row]
    assert sum(hits) >= 9, f"{leaf}: found in {sum(hits)} of 10 trials"


def test_injection_counts_the_leaf_samples_again(series):
    p = series[0]
    leaf = _leaf(series)
    q = inject(p, leaf, 1.2)
    before = {r["name"]: r["flat"] for r in p.top(sample_type="cpu").rows()}
    after = {r["name"]: r["flat"] for r in q.top(sample_type="cpu").rows()}
    assert after[leaf] == round(before[leaf] * 1.2)
    assert {k: v for k, v in after.items() if k != leaf} == {k: v for k, v in before.items() if k != leaf}


@pytest.mark.skipif(shutil.which("go") is None, reason="needs `go` (apt-get install golang-go)")
def test_the_generator_still_writes_a_series(tmp_path):
    """The committed series comes from tests/data/goseries/main.go; a short
    run of it (3 profiles, few samples) must still give profiles of the same
    functions."""
    env = dict(os.environ, GO111MODULE="off", GOFLAGS="")
    subprocess.run(
        ["go", "run", str(SOURCE), str(tmp_path), "3", "60", "250", "1"],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    fresh = load_series(tmp_path)
    assert len(fresh) == 3 and all(len(p) > 0 for p in fresh)
    names = {r["name"] for p in fresh for r in p.top().rows()}
    assert {"main.step", "main.work"} <= names or "main.mixLeaf" in names
