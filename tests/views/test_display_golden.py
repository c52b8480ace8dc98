"""HTML of the rich displays (report tables with bars, flame graphs, diff flame
graphs, call graphs, repair reports) against golden files in tests/data/golden.

Regenerate after an intended change with
    python -m pytest tests/views/test_display_golden.py --update-goldens
and review the diff."""

from __future__ import annotations

from importlib import resources

import pytest

import pprofcore

FOLDED = (
    "main;net/http.(*conn).serve;handler.<lambda>&co;json.Marshal 40\n"
    "main;net/http.(*conn).serve;handler.<lambda>&co;db.Query 25\n"
    "main;runtime.gcBgMarkWorker 20\n"
    "main;std::vector<int>::push_back 10\n"
    "main 5\n"
)
BASE = (
    "main;net/http.(*conn).serve;handler.<lambda>&co;json.Marshal 20\n"
    "main;net/http.(*conn).serve;handler.<lambda>&co;cache.Get 30\n"
    "main;runtime.gcBgMarkWorker 20\n"
)


def _profile(text=FOLDED):
    return pprofcore.from_folded(text, sample_type="cpu/nanoseconds")


CASES = {
    "top_table.html": lambda: _profile().top()._repr_html_(),
    "top_cum_table.html": lambda: _profile().top(sort="cum", n=3)._repr_html_(),
    "flamegraph.html": lambda: _profile().flamegraph(min_fraction=0)._repr_html_(),
    "flamegraph_diff.html": lambda: _profile().flamegraph(base=_profile(BASE), min_fraction=0)._repr_html_(),
    "flamegraph_nodes.html": lambda: _profile().flamegraph(min_fraction=0).nodes()._repr_html_(),
    "repair_report.html": lambda: pprofcore.RepairReport(dangling_location_refs=3, stub_functions=1)._repr_html_(),
    "repair_report_clean.html": lambda: pprofcore.RepairReport()._repr_html_(),
    "flamegraph.svg": lambda: _profile().flamegraph(min_fraction=0).to_svg(width=800),
    "callgraph.dot": lambda: _profile().callgraph(nodefraction=0, edgefraction=0).to_dot(),
}


def _without_assets(text: str) -> str:
    """The page with each inlined asset (the flame graph's script and style)
    replaced by its name: the golden holds what this page adds, and the assets
    are checked where they live (tests/views/test_browser.py draws them)."""
    assets = resources.files("pprofcore.display") / "assets"
    for name in ("flamegraph.js", "flamegraph.css"):
        code = (assets / name).read_text(encoding="utf-8")
        assert text.count(code) <= 1, name
        text = text.replace(code, f"/* inlined: pprofcore/display/assets/{name} */\n")
    return text


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(check_golden, name):
    check_golden(name, _without_assets(CASES[name]()))


def test_flamegraph_page_inlines_its_assets():
    page = CASES["flamegraph.html"]()
    assets = resources.files("pprofcore.display") / "assets"
    for name in ("flamegraph.js", "flamegraph.css"):
        assert (assets / name).read_text(encoding="utf-8") in page, name


def test_names_are_escaped_everywhere():
    for name, fn in CASES.items():
        if name.endswith(".dot"):  # DOT is not markup: Graphviz escapes names when it draws SVG
            continue
        text = fn()
        assert "<lambda>" not in text and "std::vector<int>" not in text, name


def test_top_table_has_bars_for_flat_and_cum():
    h = _profile().top()._repr_html_()
    assert h.count('class="pc-bar"') == 2 * len(_profile().top())


def test_callgraph_html_without_graphviz(check_golden, monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    check_golden("callgraph_no_graphviz.html", _profile().callgraph()._repr_html_())


def test_callgraph_html_inlines_svg():
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("needs Graphviz: apt-get install graphviz")
    h = _profile().callgraph()._repr_html_()
    assert h.startswith('<div class="pprofcore-callgraph"><svg') and "&lt;lambda&gt;" in h
