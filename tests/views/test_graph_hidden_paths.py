"""The sample paths of a hide or show output read from its parent's with the
hidden locations' nodes skipped (``_core.hidden_sample_paths``, what the
explorer's Graph does after hide and show) against the paths walked anew on
the output: the same paths, sums and repeat marks, and every build of the
call graph over them (each sample type, kept masks, edges, tags) the same;
also when the output's samples are read in the parent (no child given, as
for an output whose samples were left in its input). Refused (None) where
the node tables do not allow it: a location kept with some of its lines
hidden. Generated profiles (Hypothesis: recursion, zero and negative values,
labels; protobuf profiles with inline frames and empty stacks) under hide and
show with and without focus and ignore, at every granularity, and such
paths renamed to the other granularities (``_core.mapped_sample_paths``
composes the maps) against walks anew there."""

from __future__ import annotations

import re
import warnings

import explorer_data
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import name_regexes, stacks_with_labels, valid_profiles

import pprofcore
from pprofcore import _core
from pprofcore._filter import hidden_locations_from
from pprofcore.display.callgraph import sample_paths
from pprofcore.display.flamegraph import stack_nodes
from pprofcore.errors import FilterWarning, ProfileError

EXAMPLES = [pprofcore.__path__[0] + "/data/example-cpu.pb.gz", pprofcore.__path__[0] + "/data/example-heap.pb.gz"]
GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"]

_samples = stacks_with_labels
_filters = st.sampled_from(
    [
        {"hide": "b"},
        {"hide": "leaf"},
        {"hide": "^main$|c"},
        {"show": "a|main"},
        {"show": "leaf|b"},
        {"hide": "a", "focus": "b"},
        {"show": "main|b|c", "ignore": "leaf"},
    ]
)


def graphs(core, table, paths, n_types: int) -> list:
    n = len(table.printable_names())
    out = []
    for ti in range(n_types):
        for mask in (None, (np.arange(n) % 3 != 1).astype(np.uint8)):
            try:
                out.append(_core.call_graph(core, table, ti, mask, 2, paths=paths))
                out.append(_core.call_graph(core, table, ti, mask, 0, edges=False, tags=False, paths=paths))
            except ProfileError as e:  # sums past int64: refused alike
                out.append(str(e))
    return out


def check(parent, filters: dict, by: str) -> bool:
    """Returns whether the paths were derived (not refused)."""
    try:
        parent_paths = sample_paths(parent, by)
    except ProfileError:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FilterWarning)
        child = parent.filter(**filters)
    masks = hidden_locations_from(child, parent)
    if masks is None:  # nothing hidden: derived_sample_paths' case
        return False
    table, parent_table = stack_nodes(child, by), stack_nodes(parent, by)
    got = _core.hidden_sample_paths(child._core, table, parent._core, parent_table, parent_paths, *masks)
    if got is None:
        return False
    want = _core.sample_paths(child._core, table)
    assert got == want, (filters, by)
    assert len(got) == len(want)
    n_types = len(parent.sample_types)
    assert_same_graphs(graphs(child._core, table, got, n_types), graphs(child._core, table, want, n_types))
    # The same read in the parent (an output whose samples were left there).
    left = _core.hidden_sample_paths(None, table, parent._core, parent_table, parent_paths, *masks)
    assert left == want
    assert_same_graphs(graphs(parent._core, table, left, n_types), graphs(child._core, table, want, n_types))
    # Renamed to the other granularities where their nodes map one for one
    # (the map composed, the store still the parent's).
    for other in GRANULARITIES:
        other_table = stack_nodes(child, other)
        walked = _core.sample_paths(child._core, other_table)
        for source, paths in ((child._core, got), (parent._core, left)):
            renamed = _core.mapped_sample_paths(source, other_table, table, paths)
            if renamed is None:
                continue
            assert renamed == walked, (filters, by, other)
            assert_same_graphs(
                graphs(source, other_table, renamed, n_types), graphs(child._core, other_table, walked, n_types)
            )
    return True


def assert_same_graphs(got: list, want: list) -> None:
    for g, w in zip(got, want):
        if isinstance(w, str):
            assert g == w
            continue
        for key in w:
            assert np.array_equal(g[key], w[key]), key


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_samples, _filters, st.sampled_from(GRANULARITIES), st.booleans())
def test_hidden_paths_equal_paths_walked_anew(samples, filters, by, signs):
    parent = explorer_data.build(
        [(names, (v, 3 * v if signs else -v)) for names, v, _ in samples],
        labels=[lab for _, _, lab in samples],
    )
    check(parent, filters, by)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles(), st.data())
def test_hidden_paths_of_protobuf_profiles(msg, data):
    rx = name_regexes(msg)
    options = data.draw(st.sets(st.sampled_from(("focus", "ignore", "hide", "show")), min_size=1))
    filters = {o: data.draw(st.sampled_from(rx)) for o in options}
    parent = pprofcore.loads(msg.SerializeToString())
    if parent.sample_types:
        check(parent, filters, data.draw(st.sampled_from(GRANULARITIES)))


def test_examples_derive_and_refuse():
    """The bundled profiles: hides of whole locations derive; a filter that
    takes some lines out of an inlined location is refused (here show, and
    hide of runtime in the heap profile)."""
    derived = {}
    for path in EXAMPLES:
        for filters in ({"hide": "runtime"}, {"show": "main|crypto"}, {"hide": "sha256"}):
            for by in GRANULARITIES:
                derived[path[-11:-6], str(filters), by] = check(pprofcore.load(path), filters, by)
    assert all(derived["e-cpu", str({"hide": "sha256"}), by] for by in GRANULARITIES)
    assert derived["e-cpu", str({"hide": "runtime"}), "functions"]
    assert not any(derived["e-cpu", str({"show": "main|crypto"}), by] for by in GRANULARITIES)
    p = pprofcore.load(EXAMPLES[0])
    inlined = [int(i) for i in np.flatnonzero(np.diff(p.locations.line_offsets) > 1)]
    if inlined:  # hide the innermost line of an inlined location only
        fn = int(p.lines.function[p.locations.line_offsets[inlined[0]]])
        name = p.strings[int(p.functions.name[fn])]
        table = stack_nodes(p, "functions")
        paths = sample_paths(p, "functions")
        child = p.filter(hide="^" + re.escape(name) + "$")
        masks = hidden_locations_from(child, p)
        if masks is not None:
            got = _core.hidden_sample_paths(child._core, stack_nodes(child, "functions"), p._core, table, paths, *masks)
            assert got is None or got == _core.sample_paths(child._core, stack_nodes(child, "functions"))


def test_the_explorers_graph_after_hide_and_show_equals_the_copys(monkeypatch):
    """The explorer's Graph after hide and show derives its paths from the
    loaded profile's (no walk anew) and shows the copy's graph."""
    from pprofcore.web import Session
    from pprofcore.web._state import State
    from pprofcore.web._views import view

    derived: list = []
    hidden_sample_paths = _core.hidden_sample_paths

    def counted(*args):
        out = hidden_sample_paths(*args)
        derived.append(out is not None)
        return out

    monkeypatch.setattr(_core, "hidden_sample_paths", counted)
    p = pprofcore.load(EXAMPLES[0])
    session = Session([("cpu", p)])
    view(session, "graph", State())
    cases = [({"h": "runtime"}, {"hide": "runtime"}, True), ({"h": "sha256"}, {"hide": "sha256"}, True)]
    cases.append(({"s": "main|crypto"}, {"show": "main|crypto"}, False))  # some inlined lines hidden: walked anew
    for query, kwargs, derives in cases:
        derived.clear()
        data = view(session, "graph", State.from_query(query))
        assert derived == [derives], query
        want = pprofcore.load(EXAMPLES[0]).filter(**kwargs).callgraph(by="functions").nodes()
        assert [n["name"] for n in data["graph"]["nodes"]] == list(want["name"])
        assert [n["cum"] for n in data["graph"]["nodes"]] == [int(c) for c in want["cum"]]
