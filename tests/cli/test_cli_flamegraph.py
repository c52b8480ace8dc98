"""`pprofcore flamegraph` and `pprofcore callgraph`: formats by
extension, diff with --base, filter flags, and clear errors."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pprofcore
from pprofcore.cli import main

CPU = pprofcore.example_path("cpu")


def test_html_svg_and_speedscope(tmp_path, capsys):
    for ext in ("html", "svg", "json"):
        out = tmp_path / f"fg.{ext}"
        assert main(["flamegraph", CPU, "-o", str(out)]) == 0
        assert f"wrote {out}" in capsys.readouterr().err
    assert (tmp_path / "fg.html").read_text().startswith("<!DOCTYPE html>")
    ElementTree.fromstring((tmp_path / "fg.svg").read_text())
    doc = json.loads((tmp_path / "fg.json").read_text())
    assert sum(doc["profiles"][0]["weights"]) == pprofcore.load(CPU).total()


def test_filters_and_options_reach_the_graph(tmp_path):
    out = tmp_path / "fg.json"
    assert main(["flamegraph", CPU, "--focus", "sort", "--min-fraction", "0", "-o", str(out)]) == 0
    want = pprofcore.load(CPU).remove_uninteresting().filter(focus="sort").flamegraph(min_fraction=0)
    assert sum(json.loads(out.read_text())["profiles"][0]["weights"]) == want.total
    assert (
        main(
            [
                "flamegraph",
                CPU,
                "--sample-index",
                "samples",
                "--inverted",
                "--granularity",
                "files",
                "--title",
                "T<1>",
                "-o",
                str(tmp_path / "x.html"),
            ]
        )
        == 0
    )
    assert "T&lt;1&gt;" in (tmp_path / "x.html").read_text()


def test_diff_with_base(tmp_path, capsys):
    out = tmp_path / "diff.html"
    assert main(["flamegraph", CPU, "--base", CPU, "-o", str(out)]) == 0
    assert '"diff":true' in out.read_text()


def test_stdout_and_errors(tmp_path, capsys):
    assert main(["flamegraph", CPU, "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("<!DOCTYPE html>")
    assert main(["flamegraph", CPU, "-o", str(tmp_path / "x.png")]) == 2
    assert "cannot tell the format" in capsys.readouterr().err
    assert main(["flamegraph", str(tmp_path / "missing.pb.gz")]) == 2
    assert (
        main(["flamegraph", CPU, "--granularity", "files", "--min-fraction", "3", "-o", str(tmp_path / "a.html")]) == 2
    )
    assert "min_fraction" in capsys.readouterr().err


def test_callgraph_dot_and_svg(tmp_path, capsys):
    import shutil

    out = tmp_path / "g.dot"
    assert main(["callgraph", CPU, "--nodecount", "12", "-o", str(out)]) == 0
    dot = out.read_text()
    assert (
        dot.startswith("digraph") and dot == pprofcore.load(CPU).remove_uninteresting().callgraph(nodecount=12).to_dot()
    )
    assert main(["callgraph", CPU, "--focus", "sort", "-o", "-"]) == 0
    assert "sort" in capsys.readouterr().out
    if shutil.which("dot"):
        assert main(["callgraph", CPU, "-o", str(tmp_path / "g.svg")]) == 0
        ElementTree.fromstring((tmp_path / "g.svg").read_text())
    assert main(["callgraph", CPU, "-o", str(tmp_path / "g.png")]) == 2
