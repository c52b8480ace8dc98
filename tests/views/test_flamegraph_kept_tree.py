"""The flame graph's kept trees (``_core.kept_tree``: every sample type's trimmed
tree from one split, what the explorer keeps so a sample type switch reads the
tree off it) and the ones a filtered profile derives from them
(``_core.derive_kept_tree``: the parent's less the dropped samples, for focus,
ignore and label filters, and with the hidden frames spliced out for hide and
show), against the tree built from scratch on
``Profile.filter(...)``'s result: every column equal, on generated profiles
(Hypothesis: several sample types, signed values, inline frames, empty
stacks, both directions), a heap profile and the explorer's flame graph view.
A deferred filter output (``defer_copy``: its tables alone, its samples left
in the parent) derives the same trees as its copy, without the copy."""

from __future__ import annotations

import re
import warnings
from urllib.parse import parse_qsl

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import valid_profiles

import pprofcore
from pprofcore import _core
from pprofcore._filter import filter_masks_from, samples_kept_from
from pprofcore.display.flamegraph import derive_call_trees, hidden_locations_from, keep_call_trees, stack_nodes
from pprofcore.errors import FilterWarning, ProfileError

HEAP = pprofcore.__path__[0] + "/data/example-heap.pb.gz"
FRACTIONS = (0.0005, 0.05, 0.3)


def assert_same_tree(a: dict, b: dict, what) -> None:
    assert a.keys() == b.keys(), what
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert np.array_equal(a[k], b[k]), (what, k)
        else:
            assert a[k] == b[k], (what, k)


def assert_trees_read_off(p, kept, by: str, inverted: bool) -> int:
    """Every type's tree with ``kept`` equals the one built from scratch; returns
    how many were read off the kept tree (not split from its sums)."""
    nodes = stack_nodes(p, by)
    covered = 0
    for ti in range(len(p.sample_types)):
        for frac in FRACTIONS:
            kwargs = dict(inverted=inverted, min_fraction=frac)
            want = _core.call_tree(p._core, nodes, ti, **kwargs)
            assert_same_tree(want, _core.call_tree(p._core, nodes, ti, kept=kept, **kwargs), (ti, frac))
            covered += kept.covers(ti, frac)
    return covered


def filtered(p, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FilterWarning)
        return p.filter(**kwargs)


def assert_deferred_derives_the_copys_tree(p, kept, kwargs: dict, by: str, inverted: bool, used=None) -> None:
    """The tree derived for ``p.filter(**kwargs, defer_copy=True)`` from its
    tables (``deferred=True``) reads off the same trees as the one derived
    for the copied output, covers the same ones, refuses the others, and
    leaves the output's samples uncopied."""
    copy, lazy = filtered(p, **kwargs), filtered(p, **kwargs, defer_copy=True)
    masks = filter_masks_from(lazy, p)
    if masks is None or lazy._pending is None:  # nothing to filter: the input itself
        return
    tables, nodes, copy_nodes = lazy._tables_core, stack_nodes(lazy, by), stack_nodes(copy, by)
    try:
        want = _core.derive_kept_tree(copy._core, copy_nodes, kept, masks[0], hidden=masks[1], used=used)
    except ProfileError:
        return
    got = _core.derive_kept_tree(tables, nodes, kept, masks[0], hidden=masks[1], used=used, deferred=True)
    assert (got is None) == (want is None)
    if got is None:
        return
    for ti in range(len(p.sample_types)):
        for frac in FRACTIONS:
            kwargs_tree = dict(inverted=inverted, min_fraction=frac)
            assert got.covers(ti, frac) == want.covers(ti, frac)
            if got.covers(ti, frac):
                fresh = _core.call_tree(copy._core, copy_nodes, ti, **kwargs_tree)
                assert_same_tree(_core.call_tree(tables, nodes, ti, kept=got, **kwargs_tree), fresh, (ti, frac))
            else:  # its samples are not in its tables: nothing is split from them
                with pytest.raises(RuntimeError, match="does not cover"):
                    _core.call_tree(tables, nodes, ti, kept=got, **kwargs_tree)
    assert lazy._pending is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    valid_profiles(),
    st.booleans(),
    st.sampled_from(["functions", "lines"]),
    st.sampled_from(["ignore", "focus", "hide", "show"]),
    st.integers(0, 10),
)
def test_kept_and_derived_trees_equal_trees_built_from_scratch(msg, inverted, by, kind, pick):
    p = pprofcore.loads(msg.SerializeToString())
    try:
        kept = _core.kept_tree(p._core, stack_nodes(p, by), inverted, 0.0005)
    except (ValueError, ProfileError):  # no sample type, or sums past int64: refused alike
        with pytest.raises((ValueError, ProfileError)):
            for ti in range(max(1, len(p.sample_types))):
                _core.call_tree(p._core, stack_nodes(p, by), ti, min_fraction=0.0005)
        return
    assert len(kept) >= 1
    assert_trees_read_off(p, kept, by, inverted)
    names = sorted({p.strings[int(c)] for c in p.functions.name} - {""})
    if not names:
        return
    child = filtered(p, **{kind: "^" + re.escape(names[pick % len(names)]) + "$"})
    # The filter's own record of the samples it kept, and the samples matched
    # again by stack and values, must give the same trees.
    mask = samples_kept_from(child, p)
    assert (mask is None) == (child._derived.filter_origin[2] is not None)  # None: a location left every stack
    for given_mask in (None, mask) if mask is not None else (None,):
        try:
            sub = _core.derive_kept_tree(child._core, stack_nodes(child, by), kept, given_mask)
        except ProfileError:
            return
        if sub is not None:  # None: a child that hid frames, or one split anew more cheaply
            assert_trees_read_off(child, sub, by, inverted)
    masks = hidden_locations_from(child, p)
    if masks is not None:  # hide or show took locations out: the parent's tree with them spliced out
        sub = _core.derive_kept_tree(child._core, stack_nodes(child, by), kept, masks[0], hidden=masks[1])
        if sub is not None:  # None: not exact from the parent's tree, built anew
            assert_trees_read_off(child, sub, by, inverted)
    rx = "^" + re.escape(names[pick % len(names)]) + "$"
    assert_deferred_derives_the_copys_tree(p, kept, {kind: rx}, by, inverted)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.lists(st.integers(0, 6), min_size=1, max_size=7), st.integers(-20, 40), st.integers(0, 40)),
        min_size=1,
        max_size=60,
    ),
    st.booleans(),
    st.sampled_from(["hide", "show"]),
    st.sets(st.integers(0, 5), min_size=1, max_size=3),
    st.sampled_from([0.0005, 0.05, 0.2]),
    st.sampled_from([0.5, 0.25, 1.0]),
)
def test_spliced_trees_equal_trees_built_from_scratch(stacks, inverted, kind, names, fraction, slack):
    """Profiles of few functions (so hidden frames meet kept ones: merges,
    recursion, paths leaving the tree by a hidden frame; trimmed coarsely so
    rests are common; signed values in one type), every type's tree of the
    hide/show child read off the spliced tree, or built from its sums,
    equals a fresh build."""
    from pprofcore._build import ProfileBuilder

    b = ProfileBuilder([("a", "count"), ("b", "bytes")])
    locs = [b.frame(f"f{i}") for i in range(6)]
    locs.append(b.location_lines([(b.function("f4"), 0), (b.function("f5"), 0)]))  # f4 inlined into f5
    for frames, x, y in stacks:
        b.add([locs[i] for i in frames], [x, y])
    p = b.build()
    kept = _core.kept_tree(p._core, stack_nodes(p, "functions"), inverted, fraction, slack)
    child = filtered(p, **{kind: "^f(" + "|".join(str(n) for n in sorted(names)) + ")$"})
    masks = hidden_locations_from(child, p)
    if masks is None:
        return
    nodes = stack_nodes(child, "functions")
    for used in (None, _core.used_locations(p._core)):
        sub = _core.derive_kept_tree(child._core, nodes, kept, masks[0], hidden=masks[1], used=used)
        if sub is not None:
            assert_trees_read_off(child, sub, "functions", inverted)
        rx = "^f(" + "|".join(str(n) for n in sorted(names)) + ")$"
        assert_deferred_derives_the_copys_tree(p, kept, {kind: rx}, "functions", inverted, used)


def test_heap_profile_every_type_is_read_off():
    p = pprofcore.load(HEAP)
    kept = _core.kept_tree(p._core, stack_nodes(p, "functions"), False, 0.0005)
    assert assert_trees_read_off(p, kept, "functions", False) == len(p.sample_types) * len(FRACTIONS)


@pytest.mark.parametrize("kwargs", [{"ignore": "compress"}, {"focus": "main"}, {"tagfocus": "bytes=:1MB"}])
def test_filtered_heap_profile_derives_its_trees(kwargs):
    p = pprofcore.load(HEAP)
    keep_call_trees(p, "functions")
    child = filtered(p, **kwargs)
    assert child._derived is not p._derived and len(child) < len(p)
    derive_call_trees(child, p, "functions")
    sub = child._derived.kept_trees.get(("functions", False))
    fresh = filtered(pprofcore.load(HEAP), **kwargs)  # nothing kept: every tree built from scratch
    for ti in range(len(p.sample_types)):
        assert_same_tree(child.flamegraph(ti)._tree, fresh.flamegraph(ti)._tree, ti)
    assert sub is not None and all(sub.covers(ti, 0.0005) for ti in range(len(p.sample_types)))
    assert_trees_read_off(child, sub, "functions", False)


@pytest.mark.parametrize(
    "kwargs", [{"hide": "runtime"}, {"show": "main"}, {"hide": "compress"}, {"show": "^main|flate"}]
)
def test_hide_and_show_splice_the_parents_trees(kwargs):
    p = pprofcore.load(HEAP)
    keep_call_trees(p, "functions")
    child = filtered(p, **kwargs)
    derive_call_trees(child, p, "functions")
    sub = child._derived.kept_trees.get(("functions", False))
    fresh = filtered(pprofcore.load(HEAP), **kwargs)
    for ti in range(len(p.sample_types)):
        assert_same_tree(child.flamegraph(ti)._tree, fresh.flamegraph(ti)._tree, ti)
    if sub is not None:
        assert_trees_read_off(child, sub, "functions", False)


@pytest.mark.parametrize(
    "kwargs",
    [{"ignore": "compress"}, {"focus": "main"}, {"hide": "runtime"}, {"show": "main"}, {"show": "^main|flate"}],
)
def test_deferred_outputs_derive_their_trees_without_a_copy(kwargs):
    p = pprofcore.load(HEAP)
    keep_call_trees(p, "functions")
    kept = p._derived.kept_trees[("functions", False)]
    assert_deferred_derives_the_copys_tree(p, kept, kwargs, "functions", False)
    lazy = filtered(p, **kwargs, defer_copy=True)
    derive_call_trees(lazy, p, "functions")
    fresh = filtered(pprofcore.load(HEAP), **kwargs)
    for ti in range(len(p.sample_types)):
        for frac in FRACTIONS:
            want = fresh.flamegraph(ti, min_fraction=frac)._tree
            assert_same_tree(lazy.flamegraph(ti, min_fraction=frac)._tree, want, (ti, frac))
    sub = lazy._derived.kept_trees[("functions", False)]
    if sub is not None and all(sub.covers(ti, f) for ti in range(len(p.sample_types)) for f in FRACTIONS):
        assert lazy._pending is not None  # every tree read off the derived one
    lazy._core  # copied now: the tree derived for its tables still serves what it covers
    assert_same_tree(lazy.flamegraph(0)._tree, fresh.flamegraph(0)._tree, "after the copy")


@pytest.mark.parametrize("kwargs", [{"hide": "compress"}, {"ignore": "compress"}], ids=["hide", "ignore"])
def test_a_deferred_outputs_tree_finer_than_its_derived_one_copies_the_samples(kwargs):
    p = pprofcore.load(HEAP)
    keep_call_trees(p, "functions")
    lazy = filtered(p, **kwargs, defer_copy=True)
    derive_call_trees(lazy, p, "functions")
    sub = lazy._derived.kept_trees[("functions", False)]
    assert sub is not None and sub.covers(0, 0.0005) and not sub.covers(0, 0.0)
    fresh = filtered(pprofcore.load(HEAP), **kwargs)
    assert_same_tree(lazy.flamegraph(0)._tree, fresh.flamegraph(0)._tree, "read off the derived tree")
    assert lazy._pending is not None
    want = fresh.flamegraph(0, min_fraction=0.0)._tree
    assert_same_tree(lazy.flamegraph(0, min_fraction=0.0)._tree, want, "untrimmed")
    assert lazy._pending is None  # split from its own samples, copied for it


def test_a_kept_mask_that_does_not_fit_is_refused():
    p = pprofcore.load(HEAP)
    kept = _core.kept_tree(p._core, stack_nodes(p, "functions"), False, 0.0005)
    child = filtered(p, ignore="compress")
    mask = samples_kept_from(child, p)
    assert mask is not None and int(mask.sum()) == len(child)
    with pytest.raises(RuntimeError, match="kept mask"):
        _core.derive_kept_tree(child._core, stack_nodes(child, "functions"), kept, mask[1:])


def test_only_the_first_granularity_is_kept():
    p = pprofcore.load(HEAP)
    keep_call_trees(p, "functions")
    keep_call_trees(p, "lines")
    assert list(p._derived.kept_trees) == [("functions", False)]
    assert p._derived.kept_trees[("functions", False)].nbytes > 0


def test_a_kept_tree_of_another_profile_or_direction_is_refused():
    p, other = pprofcore.load(HEAP), pprofcore.load(pprofcore.example_path())
    nodes = stack_nodes(p, "functions")
    kept = _core.kept_tree(p._core, nodes, False, 0.0005)
    with pytest.raises(ValueError, match="another profile"):
        _core.call_tree(other._core, stack_nodes(other, "functions"), 0, min_fraction=0.01, kept=kept)
    with pytest.raises(ValueError, match="direction"):
        _core.call_tree(p._core, nodes, 0, inverted=True, min_fraction=0.01, kept=kept)
    with pytest.raises(ProfileError, match="slack"):
        _core.kept_tree(p._core, nodes, False, 0.0005, 0.0)


def explorer_session(deferred: bool):
    """A session on the example heap profile; ``deferred``: its background work
    is kept for the test to run when it chooses (a build that has not ended yet)."""
    pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn httpx")
    from pprofcore.web import Session

    class DeferredSession(Session):
        def in_background(self, key, work):
            self.deferred.setdefault(key, work)

    session = (DeferredSession if deferred else Session)([("heap", pprofcore.load(HEAP))])
    session.deferred = {}
    return session, session.profiles[0][1]


def test_explorer_first_page_leaves_the_kept_trees_to_the_background(monkeypatch):
    from pprofcore.display.html import flamegraph_data
    from pprofcore.web import State
    from pprofcore.web._views import kept_trees_key, view

    fresh = pprofcore.load(HEAP)
    want = {t: flamegraph_data(fresh.flamegraph(t)) for t, _ in fresh.sample_types}
    session, p = explorer_session(deferred=True)
    kept_passed = []  # the kept tree each call_tree was given
    call_tree = _core.call_tree
    monkeypatch.setattr(_core, "call_tree", lambda *a, **kw: kept_passed.append(kw.get("kept")) or call_tree(*a, **kw))
    first = view(session, "flamegraph", State())
    assert not p._derived.kept_trees and kept_passed == [None]  # one type's tree, no split
    assert list(session.deferred) == [kept_trees_key(State())]
    early = State.from_query({"si": "alloc_space"})  # a switch before the build ends: its own tree
    assert view(session, "flamegraph", early)["flame"] == want["alloc_space"]
    assert kept_passed[-1] is None and not p._derived.kept_trees
    session.deferred[kept_trees_key(State())]()  # the build ends
    kept = p._derived.kept_trees[("functions", False)]
    late = State.from_query({"si": "alloc_objects"})  # a switch after it: read off the kept tree
    assert view(session, "flamegraph", late)["flame"] == want["alloc_objects"]
    assert kept_passed[-1] is kept
    assert first["flame"] == want[fresh.sample_types[fresh.sample_type_index(None)][0]]


def test_explorer_flamegraph_after_filters_equals_a_fresh_build():
    pytest.importorskip("httpx", reason="the Starlette test client needs httpx")
    from pprofcore.display.html import flamegraph_data
    from pprofcore.web import State
    from pprofcore.web._views import kept_trees_key, view

    session, p = explorer_session(deferred=False)
    first = view(session, "flamegraph", State())
    assert session.background_started(kept_trees_key(State())) and session.wait_background(60)
    assert p._derived.kept_trees  # every type's tree, kept by the background build
    for query in ["si=alloc_space", "i=compress", "f=main&si=alloc_objects", "h=runtime", "s=main", "tf=bytes%3D:1MB"]:
        state = State.from_query(dict(parse_qsl(query)))
        got = view(session, "flamegraph", state)["flame"]
        want = filtered(pprofcore.load(HEAP), **state.filters()).flamegraph(state.sample_type(), by="functions")
        assert got == flamegraph_data(want), query
        if query.startswith(("i=", "tf=")):  # kept samples unchanged: the tree was derived
            assert session.refined(state)[0]._derived.kept_trees[("functions", False)] is not None
    assert first["flame"]["total"][0] == p.flamegraph().total
