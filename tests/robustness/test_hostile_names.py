"""SVG and DOT of profiles with hostile function names (control characters,
U+FFFE, markup, newlines): SVG stays well-formed XML and DOT goes through
Graphviz (issue 27, item 8)."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from hostile import NAMES, STACKS, named_profile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


# ---------------------------------------------------------------- SVG, DOT
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STACKS, NAMES)
def test_flamegraph_svg_is_well_formed(stacks, title):
    fg = named_profile(stacks).flamegraph(title=title, min_fraction=0)
    svg = fg.to_svg(width=4000)
    root = ET.fromstring(svg)  # expat rejects NUL, ESC, U+FFFE ... even as references
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_svg_shows_forbidden_characters_as_escapes():
    fg = named_profile([(["a\x00b\x1bc\ufffe"], 5)]).flamegraph(title="t\x01")
    root = ET.fromstring(fg.to_svg())
    texts = "".join(root.itertext())
    assert "a\\x00b\\x1bc\\ufffe" in texts and "t\\x01" in texts


@given(st.lists(NAMES, min_size=1, max_size=6, unique=True))
@settings(max_examples=50, deadline=None)
def test_heatmap_svg_is_well_formed(names):
    pd = pytest.importorskip("pandas")
    from pprofcore import fleet

    n = len(names)
    df = pd.DataFrame(
        {"time": pd.to_datetime(list(range(n)), unit="s", utc=True), "name": names, "value": list(range(1, n + 1))}
    )
    ET.fromstring(fleet.heatmap(df).svg)
    ET.fromstring(fleet.lines(df, names=names[:3]).svg)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STACKS, NAMES)
def test_dot_has_no_character_graphviz_or_xml_refuses(stacks, title):
    dot = named_profile(stacks).callgraph(title=title, nodefraction=0, edgefraction=0).to_dot()
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", dot)
    dot.encode("utf-8")


DOT = shutil.which("dot")


@pytest.mark.skipif(DOT is None, reason="needs Graphviz: apt-get install graphviz")
def test_graphviz_draws_hostile_names():
    names = ["a\x00b", "\x1b[31mred", "x\x01\ufffe", 'q"uo\\te\n', "<T&U>", "\uffff;\r"]
    cg = named_profile([(names, 7), (names[::-1], 3)]).callgraph(title="ti\x00tle")
    r = subprocess.run([DOT, "-Tsvg"], input=cg.to_dot().encode("utf-8"), capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    root = ET.fromstring(cg.to_svg())
    assert "a\\x00b" in "".join(root.itertext())
