"""The explorer's Graph view of the loaded profile's other sample types, built
on a background thread after its first answer (``keep_graph_types``): a
switch then reads the view cache, and what it reads equals the view computed
on its own in a session with no background work. The interpreter's exit
waits for such a thread, which would otherwise end the process inside a C++
call (std::terminate) when it takes the GIL back."""

from __future__ import annotations

import subprocess
import sys

import pytest
import testenv

import pprofcore

HEAP = pprofcore.__path__[0] + "/data/example-heap.pb.gz"


def deferred_session():
    """A session on the example heap profile whose background work is kept for
    the test to run (or never run)."""
    pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn httpx")
    from pprofcore.web import Session

    class DeferredSession(Session):
        def in_background(self, key, work):
            self.deferred.setdefault(key, work)

    session = DeferredSession([("heap", pprofcore.load(HEAP))])
    session.deferred = {}
    return session


def test_graph_of_every_sample_type_is_built_after_the_first_answer():
    from pprofcore.web import State
    from pprofcore.web._views import graph_types_key, view, view_state

    session, alone = deferred_session(), deferred_session()
    first = view(session, "graph", State())
    assert list(session.deferred) == [graph_types_key(State())]
    session.deferred[graph_types_key(State())]()  # the build ends
    types = [t for t, _ in session.profiles[0][1].sample_types]
    default = types[session.profiles[0][1].sample_type_index(None)]
    for t in types:
        state = State.from_query({"si": t})
        cached = session.views.items.get(("graph", view_state("graph", state)))
        assert (cached is None) == (t == default), t  # every other type's view is cached
        assert view(session, "graph", state) == view(alone, "graph", state), t
    assert list(session.deferred) == [graph_types_key(State())]  # a switch starts no other work
    assert first["graph"] == view(alone, "graph", State())["graph"]
    view(session, "graph", State.from_query({"f": "main"}))  # a refined profile: no work ahead
    view(session, "graph", State.from_query({"g": "files"}))  # the profile's later graphs: none either
    assert list(session.deferred) == [graph_types_key(State())]


def test_lines_paths_are_walked_after_the_first_answer():
    """The same background work walks the loaded profile's paths at lines
    (from a coarser first Graph), so a change to lines only builds; its view
    equals one computed with nothing ahead."""
    from pprofcore.display.callgraph import sample_paths
    from pprofcore.web import State
    from pprofcore.web._views import graph_types_key, view

    session, alone = deferred_session(), deferred_session()
    loaded = session.profiles[0][1]
    view(session, "graph", State())
    assert ("lines", True) not in loaded._derived.sample_paths
    session.deferred[graph_types_key(State())]()
    ahead = loaded._derived.sample_paths[("lines", True)]
    lines = State.from_query({"g": "lines"})
    assert view(session, "graph", lines) == view(alone, "graph", lines)
    assert sample_paths(loaded, "lines") is ahead  # read, not walked again
    at_lines = deferred_session()
    view(at_lines, "graph", lines)  # the first Graph at lines: its own paths, nothing more
    at_lines.deferred[graph_types_key(lines)]()
    assert [k for k, _ in at_lines.profiles[0][1]._derived.sample_paths] == ["lines"]


def test_exit_waits_for_background_work_inside_a_cpp_call():
    pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn httpx")
    script = (
        "import pprofcore\n"
        "from pprofcore import _core\n"
        "from pprofcore.display.flamegraph import stack_nodes\n"
        "from pprofcore.web import Session\n"
        f"p = pprofcore.load({HEAP!r})\n"
        "t = stack_nodes(p, 'functions')\n"
        "Session([('p', p)]).in_background('k', lambda: [_core.sample_paths(p._core, t) for _ in range(400)])\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", script], env=testenv.pprofcore_env(), capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
