"""The flame graph's pruned build (nodes below min_fraction never built) against
the reference build (the whole trie, then trimmed): every column equal, on
generated profiles (Hypothesis: signed values as a diff has, recursion, empty
stacks, inverted, with a base) and on corpus profiles of every producer."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import load_with_samples, one_per_producer

import pprofcore
from pprofcore import _core
from pprofcore.display.flamegraph import stack_nodes

EXAMPLE = pprofcore.load(pprofcore.__path__[0] + "/data/example-cpu.pb.gz")
FRACTIONS = (0.0, 0.0005, 0.01, 0.1, 0.5)


def _both(p, ti=0, base=None, by="functions", **kwargs):
    """(reference tree, pruned tree) of ``p``'s sample type ``ti`` (and of a
    base's same type)."""
    extra = {}
    if base is not None:
        extra = dict(base=base._core, base_nodes=stack_nodes(base, by), base_type=ti)
    args = (p._core, stack_nodes(p, by), ti)
    return (
        _core.call_tree(*args, method="trie", **extra, **kwargs),
        _core.call_tree(*args, method="pruned", **extra, **kwargs),
    )


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert np.array_equal(a[k], b[k]), k
        else:
            assert a[k] == b[k], k


_frames = st.sampled_from(["main", "a", "b", "c", "d<int>", "root", "..."])
_stacks = st.lists(st.tuples(st.lists(_frames, min_size=0, max_size=7), st.integers(1, 1000)), min_size=1, max_size=30)


def _folded(stacks) -> str:
    return "".join(f"{';'.join(s)} {v}\n" for s, v in stacks if s)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_stacks, _stacks, st.sampled_from(FRACTIONS), st.booleans())
def test_pruned_equals_trie_on_generated_profiles(new, old, frac, inverted):
    p, q = pprofcore.from_folded(_folded(new) or "main 1\n"), pprofcore.from_folded(_folded(old) or "main 1\n")
    _assert_same(*_both(p, inverted=inverted, min_fraction=frac))
    # a diff profile: values of both signs, nodes whose children outweigh them
    _assert_same(*_both(p.diff(q), inverted=inverted, min_fraction=frac))
    # a base profile: nodes kept for either side
    _assert_same(*_both(p, base=q, inverted=inverted, min_fraction=frac))


@pytest.mark.parametrize("by", ["functions", "lines", "addresses"])
def test_pruned_equals_trie_on_the_example(by):
    half = EXAMPLE.scale(0.5)
    for frac in FRACTIONS:
        for ti in range(len(EXAMPLE.sample_types)):
            _assert_same(*_both(EXAMPLE, ti, by=by, min_fraction=frac))
            _assert_same(*_both(EXAMPLE, ti, by=by, min_fraction=frac, inverted=True))
        _assert_same(*_both(EXAMPLE.diff(half), 1, by=by, min_fraction=frac))


@pytest.mark.parametrize("row", one_per_producer(lambda r: 100_000 <= int(r["uncompressed_bytes"]) <= 3_000_000, 8))
def test_pruned_equals_trie_on_corpus_profiles(row):
    p = load_with_samples(row)
    ti = p.sample_type_index()
    for frac in (0.0005, 0.02):
        _assert_same(*_both(p, ti, min_fraction=frac))
    _assert_same(*_both(p, ti, min_fraction=0.0005, inverted=True))
    _assert_same(*_both(p.diff(p.scale(0.5)), ti, min_fraction=0.0005))


def test_method_is_checked():
    with pytest.raises(ValueError, match="method"):
        _core.call_tree(EXAMPLE._core, stack_nodes(EXAMPLE, "functions"), 0, method="fast")
