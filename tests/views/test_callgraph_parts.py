"""The call graph's partial builds (``_core.call_graph(edges=False)`` for the
first trimming step, ``tags=False`` where no tag is counted) against the full
build, and its label tag counts (summed per sample signature, for the nodes
that end a tagged sample) against a plain walk over the samples written here:
generated profiles (Hypothesis: recursion, string labels, repeated and shared
"bytes" values, dropped nodes, cutoffs) and labelled corpus profiles."""

from __future__ import annotations

from collections import defaultdict

import explorer_data
import numpy as np
import pytest
from graph_reference import reference_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import load_with_samples, one_per_producer

from pprofcore import _core
from pprofcore.display.flamegraph import stack_nodes


def reference_tag_counts(p, table, ti: int, kept, cutoff: int) -> np.ndarray:
    """Per node: its tags (label set; label set and one "bytes" value) whose flat
    is non-zero and whose |flat| or |cum| reaches ``cutoff``, walking each
    sample root first as pprof's graph does."""
    cols = table.columns()
    loc_off, loc_nodes = cols["loc_node_offsets"], cols["loc_nodes"]
    lab, loff = p.labels, p.label_offsets
    sums: dict = defaultdict(lambda: [0, 0])
    for s in range(len(p)):
        w = int(p.values[s, ti])
        if w == 0:
            continue
        rows = range(int(loff[s]), int(loff[s + 1]))
        name = p._core.string
        parts = sorted(f"{name(int(lab.key[r]))}:{name(int(lab.str[r]))}" for r in rows if lab.str[r] >= 0)
        label_set = tuple(parts)
        nums = [int(lab.num[r]) for r in rows if lab.str[r] < 0 and name(int(lab.key[r])) == "bytes"]
        keys = ([(label_set,)] if label_set else []) + [(label_set, b) for b in nums]
        seen, leaf, residual = set(), -1, False
        for loc in p.stack_locations[int(p.stack_offsets[s]) : int(p.stack_offsets[s + 1])][::-1]:
            for n in loc_nodes[int(loc_off[loc]) : int(loc_off[loc + 1])][::-1]:
                n = int(n)
                if kept is not None and not kept[n]:
                    residual = True
                    continue
                if n not in seen:
                    seen.add(n)
                    for k in keys:
                        sums[(n,) + k][1] += w
                leaf, residual = n, False
        if leaf >= 0 and not residual:
            for k in keys:
                sums[(leaf,) + k][0] += w
    counts = np.zeros(len(table), dtype=np.int32)
    for key, (flat, cum) in sums.items():
        if flat != 0 and (abs(flat) >= cutoff or abs(cum) >= cutoff):
            counts[key[0]] += 1
    return counts


def check_parts(p, ti: int, kept, cutoff: int) -> None:
    table = stack_nodes(p, "functions")
    mask = None if kept is None else np.asarray(kept, dtype=np.uint8)
    full = _core.call_graph(p._core, table, ti, mask, cutoff)
    assert np.array_equal(full["tag_count"], reference_tag_counts(p, table, ti, mask, cutoff))
    bare = _core.call_graph(p._core, table, ti, mask, cutoff, edges=False, tags=False)
    for k in ("flat", "cum"):
        assert np.array_equal(bare[k], full[k]), k
    assert len(bare["src"]) == 0 and not bare["tag_count"].any()
    no_tags = _core.call_graph(p._core, table, ti, mask, cutoff, tags=False)
    for k in ("flat", "cum", "src", "dst", "weight", "residual", "inline"):
        assert np.array_equal(no_tags[k], full[k]), k
    for walk_parts in (2, 5):  # the walk split over threads, its parts added in order
        split = _core.call_graph(p._core, table, ti, mask, cutoff, walk_parts=walk_parts)
        for k in full:
            assert np.array_equal(split[k], full[k]), (walk_parts, k)


_frames = st.sampled_from(["main", "a", "b", "c", "leaf"])
_labels = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["tenant", "op"]), st.sampled_from(["x", "y"]), st.just("")),
        st.tuples(st.just("bytes"), st.sampled_from([8, 64, 4096]), st.just("bytes")),
    ),
    max_size=3,
)
_samples = st.lists(
    st.tuples(st.lists(_frames, min_size=1, max_size=6), st.integers(-50, 200), _labels), min_size=1, max_size=25
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_samples, st.lists(st.booleans(), min_size=5, max_size=5), st.sampled_from([0, 1, 40, 400]))
def test_parts_and_tags_on_generated_profiles(samples, keep, cutoff):
    p = explorer_data.build([(names, (v, 2 * v)) for names, v, _ in samples], labels=[lab for _, _, lab in samples])
    table = stack_nodes(p, "functions")
    kept = [keep[i % len(keep)] for i in range(len(table))]
    for ti in (0, 1):
        check_parts(p, ti, None, cutoff)
        check_parts(p, ti, kept, cutoff)


def _labelled(row) -> bool:
    small = row.get("n_samples", "").isdigit() and 50 <= int(row["n_samples"]) <= 3000
    return small and row.get("labels", "none") not in ("none", "")


@pytest.mark.parametrize("row", one_per_producer(_labelled, 5))
def test_parts_and_tags_on_corpus_profiles(row):
    p = load_with_samples(row)
    ti = p.sample_type_index()
    table = stack_nodes(p, "functions")
    total = int(np.abs(p.values[:, ti]).sum())
    kept = np.arange(len(table)) % 3 != 1
    check_parts(p, ti, None, total // 200)
    check_parts(p, ti, kept, total // 200)


@pytest.mark.parametrize("by", ["functions", "lines", "files", "addresses"])
def test_builds_over_sample_paths_equal_the_location_walk(cpu, by):
    """The explorer's builds walk each sample's nodes (``_core.sample_paths``);
    every part of every build (kept masks, residual and inline flags, tags)
    equals the walk over the locations."""
    table = stack_nodes(cpu, by, True)
    paths = _core.sample_paths(cpu._core, table)
    n = len(table.printable_names())
    masks = [None, (np.arange(n) % 3 != 0).astype(np.uint8)]
    for ti in range(len(cpu.sample_types)):
        for mask in masks:
            want = _core.call_graph(cpu._core, table, ti, mask, 0)
            got = _core.call_graph(cpu._core, table, ti, mask, 0, paths=paths)
            for key in want:
                assert np.array_equal(want[key], got[key]), f"{by}, type {ti}: {key} differs"


def test_sample_paths_of_another_node_table_are_refused(cpu):
    paths = _core.sample_paths(cpu._core, stack_nodes(cpu, "lines", True))
    with pytest.raises(RuntimeError, match="another profile or node table"):
        _core.call_graph(cpu._core, stack_nodes(cpu, "files", True), 0, paths=paths)


_types = [("t%d" % i, "count") for i in range(5)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 5),
    st.lists(st.tuples(st.lists(_frames, min_size=1, max_size=6), st.integers(-50, 200)), max_size=25),
)
def test_sums_found_with_the_paths_equal_the_walk(num_types, samples):
    """Every build's flat and cum (of the kept nodes) come from the sums
    ``_core.sample_paths`` adds for every sample type while it builds the
    paths (its walk unrolled for 1, 2 and 4 types); each equals pprof's walk
    of that type (``graph_reference``), which skips samples of value 0."""
    stacks = [(names, [v * (k + 1) if (v + k) % 3 else 0 for k in range(num_types)]) for names, v in samples]
    p = explorer_data.build(stacks, sample_types=_types[:num_types])
    table = stack_nodes(p, "functions")
    paths = _core.sample_paths(p._core, table)
    every = np.ones(len(table), dtype=np.uint8)
    for ti in range(num_types):
        want = reference_graph(p, table, ti, every)
        sums = _core.call_graph(p._core, table, ti, None, 0, edges=False, tags=False, paths=paths)
        for k in ("flat", "cum"):
            assert np.array_equal(sums[k], want[k]), (ti, k)


@pytest.mark.parametrize("by", ["functions", "lines", "files"])
def test_sums_found_with_the_paths_on_inlined_frames(heap, by):
    table = stack_nodes(heap, by, True)
    paths = _core.sample_paths(heap._core, table)
    every = np.ones(len(table), dtype=np.uint8)
    for ti in range(len(heap.sample_types)):
        want = reference_graph(heap, table, ti, every)
        sums = _core.call_graph(heap._core, table, ti, None, 0, edges=False, tags=False, paths=paths)
        for k in ("flat", "cum"):
            assert np.array_equal(sums[k], want[k]), (by, ti, k)
