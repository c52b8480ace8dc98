"""Totals past int64 raise instead of wrapping (issue 27, item 19): top(),
flamegraph(), callgraph() and to_folded() of a sample type whose values' sum of
magnitudes leaves int64 raise ProfileError naming the type; below that, every
total equals the exact (Python integer) sum."""

from __future__ import annotations

import pytest
import wirebuild as wb
from hypothesis import given, settings
from hypothesis import strategies as st

import pprofcore

MAX = (1 << 63) - 1


def two_type_profile(stacks):
    """Sample types samples/count (values as given) and cpu/nanoseconds (1 each)."""
    ids = {n: i + 1 for i, n in enumerate(dict.fromkeys(n for names, _ in stacks for n in names))}
    return pprofcore.loads(
        wb.profile(
            sample_types=[wb.value_type(1, 2), wb.value_type(3, 4)],
            samples=[wb.sample([ids[n] for n in reversed(names)], [v, 1]) for names, v in stacks],
            locations=[wb.location(i, 0, 0x1000 * i, [wb.line(i, 1)]) for i in ids.values()],
            functions=[wb.function(i, 4 + k, 4 + k) for k, i in enumerate(ids.values())],
            strings=["", "samples", "count", "cpu", "nanoseconds", *ids],
        )
    )


VIEWS = {
    "top": lambda p, t: p.top(sample_type=t),
    "flamegraph": lambda p, t: p.flamegraph(sample_type=t),
    "callgraph": lambda p, t: p.callgraph(sample_type=t),
    "to_folded": lambda p, t: p.to_folded(sample_type=t),
}


@pytest.mark.parametrize("view", VIEWS)
def test_sum_past_int64_raises_naming_the_type(view):
    half = (1 << 62) + 1
    p = two_type_profile([(["main", "a"], half), (["main", "b"], half)])  # 2**63 + 2
    with pytest.raises(pprofcore.ProfileError, match="'samples/count'.*int64"):
        VIEWS[view](p, "samples")
    VIEWS[view](p, "cpu")  # the other type stays usable


@pytest.mark.parametrize("view", VIEWS)
def test_sum_at_int64_max_is_exact(view):
    p = two_type_profile([(["main", "a"], MAX - 5), (["main", "b"], 5)])
    assert p.flamegraph(sample_type="samples").total == MAX
    VIEWS[view](p, "samples")


VALUES = st.one_of(st.integers(-MAX - 1, MAX), st.integers(MAX - 1000, MAX), st.integers(1, 1000))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(["main", "a", "b", "c"]), min_size=1, max_size=4), VALUES),
                min_size=1, max_size=6))  # fmt: skip
def test_totals_are_exact_or_raise(stacks):
    p = two_type_profile(stacks)
    magnitude = sum(abs(v) for _, v in stacks)
    if magnitude > MAX:
        for view in VIEWS.values():
            with pytest.raises(pprofcore.ProfileError, match="samples/count"):
                view(p, "samples")
        return
    exact = sum(v for _, v in stacks)
    fg = p.flamegraph(sample_type="samples", min_fraction=0)
    assert fg.total == exact
    top = p.top(sample_type="samples", nodefraction=0)
    assert sum(int(x) for x in top["flat"]) == exact  # every sample has a leaf
    cg = p.callgraph(sample_type="samples", nodecount=0, nodefraction=0, edgefraction=0)
    assert sum(int(x) for x in cg.nodes()["flat"]) == exact
    folded = p.to_folded(sample_type="samples")
    assert sum(int(line.rsplit(" ", 1)[1]) for line in folded.splitlines()) == exact
