"""The explorer session's bound on the Graph view's sample paths: each refined
profile caches its samples' node lists (tens of MB for a big profile) and the
session keeps many refined profiles, so the least recently used ones lose
their paths once the rest pass the session's byte budget."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn httpx")
pytest.importorskip("httpx", reason="the Starlette test client needs httpx")

import explorer_data as ed

with warnings.catch_warnings():  # Starlette >= 0.47 would rather have httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from pprofcore.display.callgraph import sample_paths, sample_paths_nbytes  # noqa: E402
from pprofcore.web import Session, create_app  # noqa: E402

# Graph states, each a new refined profile or granularity: seven profiles.
QUERIES = ["", "f=main", "i=io", "h=hash", "s=work", "g=lines", "g=files", "f=work&g=lines", "si=cpu&i=hash"]


def held(session: Session) -> list:
    """Bytes of sample paths per cached profile, most recently used first."""
    return [sample_paths_nbytes(p) for p in session.cached_profiles()]


@pytest.mark.parametrize("budget_in_profiles", [0, 1.5, 100])
def test_the_session_keeps_paths_within_its_budget(budget_in_profiles):
    plain = ed.plain()
    one = sample_paths(plain, "functions").nbytes  # about what each state's profile caches
    budget = int(one * budget_in_profiles)
    session = Session([("plain", plain)], paths_budget=budget)
    client = TestClient(create_app(session, hosts=["testserver"]))
    most = 0
    for query in QUERIES:
        graph = client.get("/ui/data/graph?" + query).json()
        assert "error" not in graph, graph.get("error")
        sizes = held(session)
        assert sizes[0] > 0, "the profile just drawn keeps its paths"
        assert sum(sizes) <= max(budget, sizes[0]), (query, sizes)
        most = max(most, sum(1 for s in sizes if s))
    if budget_in_profiles == 100:  # nothing to drop: every state's paths stay
        assert most == 7
    else:
        assert most <= 2


def test_a_graph_after_its_paths_were_dropped_is_the_same():
    """A state asked for again after its profile lost its paths builds them
    again and draws the same graph as a session that never dropped any."""
    plain = ed.plain()
    tight = TestClient(create_app(Session([("plain", plain)], paths_budget=0), hosts=["testserver"]))
    roomy = TestClient(create_app(Session([("plain", ed.plain())]), hosts=["testserver"]))
    for query in QUERIES + ["f=main&nf=0.0"]:
        assert tight.get("/ui/data/graph?" + query).json() == roomy.get("/ui/data/graph?" + query).json()
