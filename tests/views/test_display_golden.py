"""HTML of the rich displays (report tables with bars, flame graphs, diff flame
graphs, call graphs, repair reports) against golden files in tests/data/golden.

Regenerate after an intended change with
    PPROFCORE_UPDATE_GOLDEN=1 python -m pytest tests/test_display_golden.py
and review the diff."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import pprofcore

GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
UPDATE = os.environ.get("PPROFCORE_UPDATE_GOLDEN") == "1"

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


def _check(name: str, text: str):
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"{path} is missing: run PPROFCORE_UPDATE_GOLDEN=1 python -m pytest {__file__}")
    want = path.read_text(encoding="utf-8")
    assert text == want, (
        f"{name} differs from its golden file; if the change is intended, run "
        f"PPROFCORE_UPDATE_GOLDEN=1 python -m pytest {Path(__file__).name} and review the diff"
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


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    _check(name, CASES[name]())


def test_names_are_escaped_everywhere():
    for name, fn in CASES.items():
        if name.endswith(".dot"):  # DOT is not markup: Graphviz escapes names when it draws SVG
            continue
        text = fn()
        assert "<lambda>" not in text and "std::vector<int>" not in text, name


def test_top_table_has_bars_for_flat_and_cum():
    h = _profile().top()._repr_html_()
    assert h.count('class="pc-bar"') == 2 * len(_profile().top())


def test_callgraph_html_without_graphviz(monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    _check("callgraph_no_graphviz.html", _profile().callgraph()._repr_html_())


def test_callgraph_html_inlines_svg():
    import shutil

    if shutil.which("dot") is None:
        pytest.skip("needs Graphviz: apt-get install graphviz")
    h = _profile().callgraph()._repr_html_()
    assert h.startswith('<div class="pprofcore-callgraph"><svg') and "&lt;lambda&gt;" in h
