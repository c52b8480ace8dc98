"""Profile.explore(): the explorer as a Jupyter widget (anywidget). The kernel
side answers the page's requests with the server's data, its state is
readable and settable from Python, and a static HTML fallback goes with it
for notebooks shown without a kernel. The widget's script is driven in a
browser by test_explorer_browser.py."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("anywidget", reason="Profile.explore() needs anywidget: pip install anywidget")

import explorer_data as ed  # noqa: E402

from pprofcore.web import State  # noqa: E402


@pytest.fixture(scope="module")
def plain():
    return ed.plain()


def _ask(w, view, query, seq=1):
    w.request = {"view": view, "query": query, "seq": seq}
    msg = json.loads(w.payload)
    assert msg["seq"] == seq
    return msg


def test_explore_answers_requests_with_the_servers_data(plain):
    w = plain.explore("top", focus="work")
    assert w.view == "top" and w.state == State(focus="work") and w.query == "f=work"
    msg = _ask(w, "top", "f=work&si=samples")
    assert msg["data"]["total"] == plain.filter(focus="work").total("samples")
    assert [r["name"] for r in msg["data"]["rows"]] == list(plain.filter(focus="work").top("samples")["name"])
    assert "error" in _ask(w, "top", "g=bogus", seq=2)  # a bad state is an error message, not an exception
    meta = json.loads(w.meta)
    assert meta["sample_types"] == ["samples", "cpu"]


def test_state_is_settable_and_profile_is_refined(plain):
    w = plain.explore()
    assert w.view == "flamegraph" and w.profile.total() == plain.total()
    w.state = State(hide="^work$", si="samples")
    assert w.query == "si=samples&h=%5Ework%24"
    assert w.profile.total() == plain.filter(hide="^work$").total()
    with pytest.raises(TypeError):
        w.state = "f=x"
    with pytest.raises(ValueError):
        plain.explore("nope")


def test_diff_against_a_base(plain):
    w = plain.explore("top", base=plain.scale(0.5))
    d = _ask(w, "top", "")["data"]
    assert d["diff"] and d["total"] == plain.diff(plain.scale(0.5)).total()


def test_static_fallback_without_a_kernel(plain):
    w = plain.explore(focus="work")
    data, _ = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    html = data["text/html"]
    assert "pprofcore-flame" in html and "Showing nodes" in html


def test_hostile_names_in_the_fallback():
    w = ed.hostile().explore()
    html = w._repr_mimebundle_()[0]["text/html"]
    assert "<script>window.__pwned" not in html and "<img src=x" not in html
