"""The Graph view of a name filter's output whose samples were left in its
input (``apply_filters(defer_copy=True)``, what the explorer asks for): its
node table is the input's, its sample paths are derived with no child
(``_core.derived_sample_paths(None, ...)``: they read the input's samples at
the kept rows), and every build reads the input's values and labels, so the
output is never copied. Held to the copying path: the same paths, the same
graph builds (each sample type, kept masks, tags), the same ``CallGraph``
tables and pprof DOT text at every granularity (Hypothesis profiles with
several sample types, inline frames and empty stacks, the bundled examples),
and the explorer's Graph after focus and ignore without a copy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import name_regexes, profile_class, valid_profiles

import pprofcore
from pprofcore import _core
from pprofcore.display.callgraph import derive_sample_paths
from pprofcore.display.flamegraph import stack_nodes
from pprofcore.errors import FilterWarning, ProfileError

EXAMPLES = [pprofcore.__path__[0] + "/data/example-cpu.pb.gz", pprofcore.__path__[0] + "/data/example-heap.pb.gz"]
GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"]


def filtered(p, kwargs, defer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FilterWarning)
        out = p.filter(**kwargs, defer_copy=defer)
    derive_sample_paths(out, p)  # as the explorer's session does
    return out


def is_deferred(p) -> bool:
    return p._own_core is None


def graph_tables(p, ti: int, by: str):
    g = p.callgraph(ti, by=by)
    return g, [g.nodes().to_text(), g.edges().to_text()]


def check(data: bytes, kwargs: dict, by: str, first: str) -> bool:
    """The Graph of the deferred output at ``by`` (after the input's Graph at
    ``first``) equals the copy's; returns whether it stayed uncopied."""
    p = pprofcore.loads(data)
    if not p.sample_types:
        return False
    ti = len(p.sample_types) - 1
    try:
        p.callgraph(ti, by=first)  # the input's paths cached, as after its Graph view
    except ProfileError:  # sums past int64: nothing cached, the outputs refuse alike below
        pass
    lazy = filtered(p, kwargs, True)
    copy = filtered(pprofcore.loads(data), kwargs, False)
    deferred = is_deferred(lazy)
    try:
        want_graph, want = graph_tables(copy, ti, by)
    except ProfileError:
        with pytest.raises(ProfileError):
            graph_tables(lazy, ti, by)
        return False
    got_graph, got = graph_tables(lazy, ti, by)
    assert got == want, (kwargs, by)
    # Paths at the input's granularity are derived without the copy; another
    # granularity is renamed from them or (lines from functions) walked anew,
    # which copies.
    uncopied = deferred and is_deferred(lazy)
    # hide and show fall back to a walk of the copy where a kept location lost some lines
    if deferred and by == first and not {"hide", "show"} & set(kwargs):
        assert uncopied, (kwargs, by)
    assert got_graph.to_pprof_dot() == want_graph.to_pprof_dot(), (kwargs, by)  # (its total may copy)
    return uncopied


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles(), st.data())
def test_deferred_outputs_graph_as_the_copies(msg, data):
    rx = name_regexes(msg)
    kwargs = {o: data.draw(st.sampled_from(rx)) for o in data.draw(st.sets(st.sampled_from(("focus", "ignore"))))}
    first = data.draw(st.sampled_from(GRANULARITIES))
    by = data.draw(st.sampled_from([first, *GRANULARITIES]))
    check(msg.SerializeToString(), kwargs, by, first)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles(), st.data())
def test_deferred_hide_and_show_outputs_graph_as_the_copies(msg, data):
    """Hide and show leave their samples in the input too (their stacks
    without the hidden locations): the Graph reads the input's paths with
    those locations' nodes skipped, or walks the copy where it cannot."""
    rx = name_regexes(msg)
    options = data.draw(st.sets(st.sampled_from(("focus", "ignore", "hide", "show")), min_size=1))
    kwargs = {o: data.draw(st.sampled_from(rx)) for o in options | {data.draw(st.sampled_from(("hide", "show")))}}
    first = data.draw(st.sampled_from(GRANULARITIES))
    by = data.draw(st.sampled_from([first, *GRANULARITIES]))
    check(msg.SerializeToString(), kwargs, by, first)


def test_hide_of_some_lines_graphs_the_outputs_own_nodes():
    """A hide that takes one line out of a location (hiding no location) gives
    the output its own tables over the input's stacks: its Graph's nodes are
    those tables', not the input's (the input's ``"\\x00"`` node once leaked
    in, and its legend dropped a node the copy never had)."""
    m = profile_class()()
    for _ in range(3):
        m.sample_type.add()
    for loc, v in ((1, 399), (2, 1)):
        s = m.sample.add()
        s.location_id.append(loc)
        s.value.extend([0, 0, v])
    m.sample.add().value.extend([0, 0, 0])
    m.mapping.add().id = 1
    m.mapping.add().id = 2
    m.location.add().id = 1
    loc2 = m.location.add()
    loc2.id = 2
    for f in (1, 1, 2):
        loc2.line.add().function_id = f
    m.function.add().id = 1
    f2 = m.function.add()
    f2.id, f2.name = 2, 1
    m.string_table.extend([b"", b"\x00"])
    for first in ("functions", None):
        data = m.SerializeToString()
        p = pprofcore.loads(data)
        if first:
            p.callgraph(2, by=first)
        check(data, {"hide": "."}, "functions", first or "functions")
        lazy = filtered(pprofcore.loads(data), {"hide": "."}, True)
        assert (
            lazy.callgraph(2).nodes().to_text()
            == filtered(pprofcore.loads(data), {"hide": "."}, False).callgraph(2).nodes().to_text()
        )
        assert "Dropped" not in lazy.callgraph(2).to_pprof_dot()


@pytest.mark.parametrize("path", EXAMPLES, ids=["cpu", "heap"])
@pytest.mark.parametrize(("first", "by"), [("functions", "functions"), ("lines", "lines"), ("lines", "files")])
@pytest.mark.parametrize(
    "kwargs", [{"ignore": "sha256"}, {"focus": "main"}, {"focus": "runtime", "ignore": "gc"}], ids=str
)
def test_examples(path, first, by, kwargs):
    with open(path, "rb") as f:
        data = f.read()
    assert check(data, kwargs, by, first)  # these keep their samples in the input throughout


def test_paths_read_in_the_input_equal_the_copys():
    """``derived_sample_paths(None, ...)`` gives the copy's paths, and every
    build over them with the input's samples gives the copy's graph; the input
    given to a build over them stands whatever profile is named."""
    p = pprofcore.load(EXAMPLES[1])
    table = stack_nodes(p, "functions")
    parent_paths = _core.sample_paths(p._core, table)
    lazy = filtered(p, {"ignore": "runtime"}, True)
    kept = lazy._sample_source()[1]
    assert kept is not None
    copy = filtered(pprofcore.load(EXAMPLES[1]), {"ignore": "runtime"}, False)
    copy_table = stack_nodes(copy, "functions")
    want = _core.sample_paths(copy._core, copy_table)
    got = _core.derived_sample_paths(None, table, p._core, table, parent_paths, kept)
    assert got == want
    n = len(table.printable_names())
    for ti in range(len(p.sample_types)):
        for mask in (None, (np.arange(n) % 3 != 1).astype(np.uint8)):
            for cutoff in (0, 2):
                a = _core.call_graph(p._core, table, ti, mask, cutoff, paths=got)
                b = _core.call_graph(copy._core, copy_table, ti, mask, cutoff, paths=want)
                for key in b:
                    assert np.array_equal(a[key], b[key]), (ti, key)
    files = _core.mapped_sample_paths(p._core, stack_nodes(p, "files"), table, got)
    assert files == _core.sample_paths(copy._core, stack_nodes(copy, "files"))
    with pytest.raises(RuntimeError, match="kept mask"):
        _core.derived_sample_paths(None, table, p._core, table, parent_paths)
    assert is_deferred(lazy)


def test_the_explorers_graph_after_focus_and_ignore_copies_nothing():
    from pprofcore.web import Session
    from pprofcore.web._state import State
    from pprofcore.web._views import view

    p = pprofcore.load(EXAMPLES[0])
    session = Session([("cpu", p)])
    view(session, "graph", State())
    for query, kwargs in (({"i": "sha256"}, {"ignore": "sha256"}), ({"f": "main"}, {"focus": "main"})):
        state = State.from_query(query)
        data = view(session, "graph", state)
        assert is_deferred(session.refined(state)[0]), kwargs
        want = pprofcore.load(EXAMPLES[0]).filter(**kwargs).callgraph(by="functions").nodes()
        assert [n["name"] for n in data["graph"]["nodes"]] == list(want["name"])
        assert [n["cum"] for n in data["graph"]["nodes"]] == [int(c) for c in want["cum"]]


def test_the_explorers_graph_after_hide_copies_nothing():
    """Hiding frames whose locations have one line each (sha256, runtime in
    the bundled CPU profile): the Graph derives its paths from the input's and
    reads the input's samples, so the output is never copied."""
    from pprofcore.web import Session
    from pprofcore.web._state import State
    from pprofcore.web._views import view

    p = pprofcore.load(EXAMPLES[0])
    session = Session([("cpu", p)])
    view(session, "graph", State())
    for name in ("sha256", "runtime"):
        state = State.from_query({"h": name})
        data = view(session, "graph", state)
        assert is_deferred(session.refined(state)[0]), name
        want = pprofcore.load(EXAMPLES[0]).filter(hide=name).callgraph(by="functions").nodes()
        assert [n["name"] for n in data["graph"]["nodes"]] == list(want["name"])
        assert [n["cum"] for n in data["graph"]["nodes"]] == [int(c) for c in want["cum"]]
