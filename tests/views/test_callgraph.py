"""Profile.callgraph against `go tool pprof -dot` (node set and order, flat/cum,
edge set, weights, residual edges) for pprof's default and other trimming flags,
plus DOT/SVG output and errors."""

from __future__ import annotations

import re
import shutil
from xml.etree import ElementTree

import pytest
from pprof_oracle import UNIT_SCALE
from testenv import corpus_files, corpus_manifest, parses_with_pprof, reportable_corpus_profile, requires_go

import pprofcore

CPU = pprofcore.example_path("cpu")
HEAP = pprofcore.example_path("heap")

_NODE = re.compile(r'^N(\d+) \[label="(.*?)" id="node\d+".*? tooltip="(.*) \((.*?)\)" color=')
_EDGE = re.compile(r'^N(\d+) -> N(\d+) \[label=" (.*?)(?:\\n \(inline\))?"(.*?) tooltip="(.*?)" labeltooltip')


def _value(text: str):
    """(value in the sample unit's base, half of the last printed digit)."""
    m = re.fullmatch(r"(-?[\d.]+(?:e[+-]\d+)?)([a-zA-Z\u00b5]*)", text.strip())
    assert m, f"unparsable value {text!r}"
    num, unit = m.groups()
    decimals = len(num.split(".")[1]) if "." in num and "e" not in num else 0
    mult = UNIT_SCALE[unit]
    return float(num) * mult, 0.5 * 10**-decimals * mult + 1e-6


def _close(ours: int, theirs: str) -> bool:
    v, tol = _value(theirs)
    return abs(ours - v) <= tol


def parse_dot(text: str):
    """pprof -dot output: [(name, flat_text, cum_text)] in order and {(src, dst): (weight_text, residual)}."""
    nodes, edges, ids = [], {}, {}
    for line in text.splitlines():
        m = _NODE.match(line)
        if m:
            nid, label, name, cum = m.groups()
            parts = label.split("\\n")
            last = parts[-1]
            if last.startswith("of "):
                flat = parts[-2].rsplit(" (", 1)[0]
                cum_text = last[3:].rsplit(" (", 1)[0]
            elif " of " in last:
                flat, cum_text = "0", last.split(" of ", 1)[1].rsplit(" (", 1)[0]
            else:
                flat = cum_text = last.rsplit(" (", 1)[0]
            assert cum_text == cum
            ids[nid] = re.sub(r"\\(.)", r"\1", name)  # undo pprof's escapeForDot
            nodes.append((ids[nid], flat, cum))
            continue
        m = _EDGE.match(line)
        if m:
            a, b, w, attrs, tooltip = m.groups()
            edges[(ids[a], ids[b])] = (w, 'style="dotted"' in line)
    return nodes, edges


def _compare(pprof, path, p, ti, flags=(), **kw):
    # pprof's default granularity for -dot depends on the profile; name it
    text, err = pprof.run("-dot", f"-sample_index={ti}", f"-{kw.get('by', 'functions')}", *flags, str(path))
    if err is not None:
        pytest.skip(f"pprof refused: {err}")
    want_nodes, want_edges = parse_dot(text)
    g = p.callgraph(ti, **kw)
    nodes, edges = g.nodes(), g.edges()
    if any("\n" in n for n in nodes["name"]):
        pytest.skip("a name holds a newline, which pprof writes unescaped: DOT lines cannot be parsed")
    got_names = list(nodes["name"])
    assert got_names == [n for n, _, _ in want_nodes], "node set or order differs from pprof -dot"
    for (name, flat, cum), f, c in zip(want_nodes, nodes["flat"], nodes["cum"]):
        assert _close(int(f), flat) and _close(int(c), cum), f"{name}: flat {f} cum {c} vs pprof {flat} of {cum}"
    got_edges = {
        (a, b): (int(w), bool(r))
        for a, b, w, r in zip(edges["caller"], edges["callee"], edges["weight"], edges["residual"])
    }
    assert set(got_edges) == set(want_edges), (
        f"edges only here: {sorted(set(got_edges) - set(want_edges))[:5]}, "
        f"only in pprof: {sorted(set(want_edges) - set(got_edges))[:5]}"
    )
    for k, (w, res) in want_edges.items():
        assert _close(got_edges[k][0], w), f"edge {k}: {got_edges[k][0]} vs pprof {w}"
        assert got_edges[k][1] == res, f"edge {k}: residual {got_edges[k][1]} vs pprof {res}"


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize(
    "path,flags,kw",
    [
        pytest.param(CPU, (), {}, id="cpu-defaults"),
        pytest.param(CPU, ("-nodecount=20",), {"nodecount": 20}, id="cpu-nodecount20"),
        pytest.param(
            CPU,
            ("-nodecount=0", "-nodefraction=0.05", "-edgefraction=0.02"),
            {"nodecount": 0, "nodefraction": 0.05, "edgefraction": 0.02},
            id="cpu-fractions",
        ),
        pytest.param(CPU, ("-nodecount=30",), {"by": "lines", "nodecount": 30}, id="cpu-lines"),
        pytest.param(HEAP, (), {}, id="heap-defaults"),
        pytest.param(HEAP, ("-nodecount=15",), {"nodecount": 15}, id="heap-nodecount15"),
    ],
)
def test_example_matches_pprof_dot(pprof, path, flags, kw):
    p = pprofcore.load(path).remove_uninteresting()
    _compare(pprof, path, p, p.sample_type_index(), flags, **kw)


def _corpus_rows():
    units = ("nanoseconds", "bytes", "count")
    rows = [
        r
        for r in corpus_manifest()
        if parses_with_pprof(r)
        and int(r["uncompressed_bytes"]) <= 1_500_000
        and r["sample_types"].split(",")[-1].split("/")[-1] in units
    ]
    return [pytest.param(r, id=r["file"]) for r in rows[::10]] or corpus_files(parses_with_pprof)


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize("row", _corpus_rows())
def test_corpus_matches_pprof_dot(pprof, row):
    path, p = reportable_corpus_profile(row)
    ti = p.sample_type_index()
    if p.sample_types[ti][1] not in ("nanoseconds", "bytes", "count"):
        pytest.skip(f"unit {p.sample_types[ti][1]} not parsed by this test")
    _compare(pprof, path, p, ti)


def test_dot_is_deterministic_and_escaped():
    p = pprofcore.from_folded('main;a"b\\c;std::vector<int>&x 5\nmain;d 1\n')
    g = p.callgraph(nodefraction=0, edgefraction=0)
    dot = g.to_dot()
    assert dot == p.callgraph(nodefraction=0, edgefraction=0).to_dot()
    assert 'a\\"b\\\\c' in dot
    assert len(re.findall(r"^N\d+ -> N\d+ ", dot, re.M)) == len(g.edges())


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz: apt-get install graphviz")
def test_svg_via_graphviz(tmp_path):
    g = pprofcore.load(CPU).callgraph(nodecount=10)
    svg = g._repr_svg_()
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    assert "main.handle" in svg
    g.save(tmp_path / "g.svg")
    g.save(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


def test_missing_graphviz_names_the_package(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        pprofcore.load(CPU).callgraph().to_svg()


def test_bad_arguments():
    p = pprofcore.load(CPU)
    with pytest.raises(ValueError, match="nodefraction"):
        p.callgraph(nodefraction=2)
    with pytest.raises(ValueError, match="nodecount"):
        p.callgraph(nodecount=-1)
    with pytest.raises(ValueError, match="granularity"):
        p.callgraph(by="bogus")
