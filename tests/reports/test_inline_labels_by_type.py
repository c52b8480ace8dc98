"""The inline labels of every label type from one aggregation (the node table's
``inline_labels_by_type``, what Top reads after a sample type switch) against
the node table aggregated for each label type on its own (the reference): generated profiles (Hypothesis:
inline frames, recursion, zero values in some sample types) at every
granularity, and corpus profiles; and Top of each sample type against a Top
whose node table was aggregated for that type alone."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import wirebuild as wb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import load_with_samples, one_per_producer

import pprofcore
from pprofcore import _core

NAMES = ["main", "run", "inl", "leaf", "util"]
GRANULARITIES = ("functions", "filefunctions", "files", "lines", "addresses")


def generated(locations, samples):
    """A profile of three sample types; ``locations``: function indexes per
    location, innermost first (more than one: inline frames)."""
    strings = ["", "a", "count", "b", "bytes", "c", "nanoseconds", "x.go", "y.go"] + NAMES
    funcs = [wb.function(i + 1, 9 + i, 9 + i, 7 + i % 2, 1) for i in range(len(NAMES))]
    locs = [
        wb.location(k + 1, 0, 0x100 * (k + 1), [wb.line(f + 1, 10 + j) for j, f in enumerate(fs)])
        for k, fs in enumerate(locations)
    ]
    smp = [wb.sample([1 + i % len(locations) for i in stack], values) for stack, values in samples]
    st_ = [wb.value_type(1, 2), wb.value_type(3, 4), wb.value_type(5, 6)]
    return pprofcore.loads(wb.profile(sample_types=st_, samples=smp, locations=locs, functions=funcs, strings=strings))


def assert_all_types_match(p, by: str, inline: bool = True) -> None:
    nt = len(p.sample_types)
    table = _core.aggregate(p._core, by, inline, -1, -1)
    got = table.columns()["inline_labels_by_type"]
    assert got.shape == (len(table), 2 * nt + 1)
    assert np.array_equal(got[:, 0], table.columns()["inline_label"])
    for label_type in range(-1, nt):
        for mean in (False, True):
            ref = _core.aggregate(p._core, by, inline, label_type, 0 if mean else -1).columns()["inline_label"]
            col = 0 if label_type < 0 else 1 + label_type + (nt if mean else 0)
            assert np.array_equal(got[:, col], ref), (by, inline, label_type, mean)


_values = st.tuples(st.sampled_from([0, 0, 1, 7]), st.sampled_from([0, 5, -3]), st.sampled_from([0, 100]))
_locations = st.lists(st.lists(st.integers(0, len(NAMES) - 1), min_size=1, max_size=3), min_size=1, max_size=6)
_samples = st.lists(st.tuples(st.lists(st.integers(0, 20), min_size=1, max_size=6), _values), min_size=1, max_size=20)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_locations, _samples)
def test_generated_profiles(locations, samples):
    p = generated(locations, samples)
    for by in GRANULARITIES:
        assert_all_types_match(p, by)
    assert_all_types_match(p, "functions", inline=False)


def _sized(row) -> bool:
    return row.get("n_samples", "").isdigit() and 100 <= int(row["n_samples"]) <= 20000


@pytest.mark.parametrize("row", one_per_producer(_sized, 6))
def test_corpus_profiles(row):
    p = load_with_samples(row)
    if len(p.sample_types) > _core.MAX_INLINE_LABEL_TYPES:
        pytest.skip("more sample types than one aggregation labels by type")
    assert_all_types_match(p, "functions")
    assert_all_types_match(p, "lines")


def test_top_of_every_sample_type_equals_top_from_its_own_table(monkeypatch):
    p = pprofcore.load(pprofcore.example_path())
    for q in (p, p.diff(p.scale(0.5))):
        got = [q.top(sample_type=ti, n=20).to_text() for ti in range(len(q.sample_types))]
        # the reference: each Top reads a table aggregated for its sample type alone
        with monkeypatch.context() as m:
            m.setattr(
                importlib.import_module("pprofcore.reports.top"),
                "node_inline_labels",
                lambda prof, by, inline, ti, mean: (
                    _core.aggregate(prof._core, by, inline, ti, 0 if mean else -1).columns()["inline_label"].copy()
                ),
            )
            ref = [q.top(sample_type=ti, n=20).to_text() for ti in range(len(q.sample_types))]
        assert got == ref


def test_sums_only_tables_have_no_labels_by_type():
    p = pprofcore.load(pprofcore.example_path())
    t = _core.aggregate(p._core, "functions", True, -1, -1, False)
    assert t.columns()["inline_labels_by_type"].shape[0] == 0
