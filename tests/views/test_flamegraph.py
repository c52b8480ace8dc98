"""Flame graphs: the call tree against google/pprof's -top (flat = self summed per
function, cum = total once per path) and against a pure-Python tree built from
folded stacks (Hypothesis), min_fraction merging, diff trees, and the exports
(HTML escaping, SVG, speedscope)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from xml.etree import ElementTree

import pytest
from _pb import profile as pb_profile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pprof_oracle import parse_top
from testenv import CORPUS, corpus_files, corpus_manifest, parses_with_pprof, reportable_corpus_profile, requires_go

import pprofcore

EXAMPLE = pprofcore.load(pprofcore.__path__[0] + "/data/example-cpu.pb.gz")


def _tree(fg):
    """{path tuple: (self, total)} of a flame graph's nodes (root = ())."""
    t = fg.nodes()
    names, parent = t["name"], t["parent"]
    paths = {}
    out = {}
    for i in range(len(t)):
        paths[i] = () if parent[i] < 0 else paths[int(parent[i])] + (names[i],)
        out[paths[i]] = (int(t["self"][i]), int(t["total"][i]))
    return out


def _reference(folded: str, inverted=False):
    """The expected tree from folded stacks, one trie insertion per line."""
    out = defaultdict(lambda: [0, 0])
    for line in folded.splitlines():
        stack, v = line.rsplit(" ", 1)
        frames = stack.split(";") if stack else []  # an empty stack ends at the root
        if inverted:
            frames = frames[::-1]
        v = int(v)
        out[()][1] += v
        for k in range(1, len(frames) + 1):
            out[tuple(frames[:k])][1] += v
        out[tuple(frames)][0] += v
    return {k: tuple(v) for k, v in out.items()}


# ---------------------------------------------------------------- oracles
def _oracle_rows(k):
    rows = [r for r in corpus_manifest() if parses_with_pprof(r) and int(r["uncompressed_bytes"]) <= 1_500_000]
    # One file per producer directory keeps the sweep short and varied.
    seen, picked = set(), []
    for r in rows:
        d = r["file"].split("/")[0]
        if d not in seen:
            seen.add(d)
            picked.append(r)
    picked += rows[::k]
    return [pytest.param(r, id=r["file"]) for r in picked] or corpus_files(parses_with_pprof)


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize("row", _oracle_rows(40))
def test_self_and_total_per_function_match_pprof_top(pprof, row):
    path, p = reportable_corpus_profile(row)
    ti = p.sample_type_index()
    fg = p.flamegraph(ti, min_fraction=0)
    assert fg.total == p.total(ti)
    t = fg.nodes()
    self_sum = defaultdict(int)
    for name, s in zip(t["name"][1:], t["self"][1:]):
        self_sum[name] += int(s)
    total = dict(zip(fg.functions()["name"], (int(x) for x in fg.functions()["total"])))
    text, err = pprof.run(
        "-top", "-nodecount=0", "-nodefraction=0", "-edgefraction=0", f"-sample_index={ti}", "-functions", str(path)
    )
    if err is not None:
        pytest.skip(f"pprof refused: {err}")
    _, want = parse_top(text)
    top = p.top(ti, nodefraction=0, edgefraction=0)  # its unit is pprof's (checked in test_reports_top)
    unit, su = top.meta["unit"], top.meta["sample_unit"]
    from pprofcore._units import scaled_label

    assert want or not any(self_sum.values()), "pprof printed no rows"
    for flat, _, _, cum, _, name in want:
        name = re.sub(r" \((partial-)?inline\)$", "", name)
        assert scaled_label(self_sum.get(name, 0), su, unit) == flat, f"self of {name}"
        assert scaled_label(total.get(name, 0), su, unit) == cum, f"total of {name}"
    # Exactly, against top's raw values.
    flat = dict(zip(top["name"], (int(x) for x in top["flat"])))
    cum = dict(zip(top["name"], (int(x) for x in top["cum"])))
    assert {k: v for k, v in self_sum.items() if v} == {k: v for k, v in flat.items() if v}
    assert {k: v for k, v in total.items() if v} == {k: v for k, v in cum.items() if v}


@pytest.mark.parametrize("row", _oracle_rows(80))
def test_tree_matches_folded_stacks(row):
    if row is None:
        pytest.skip("no corpus")
    p = pprofcore.load(CORPUS / row["file"])
    ti = p.sample_type_index()
    fg = p.flamegraph(ti, min_fraction=0)
    if any(";" in n for n in fg.functions()["name"]):
        pytest.skip("frame names contain ';', which folded stacks cannot carry")
    ref = _reference(p.to_folded(ti))
    got = {k: v for k, v in _tree(fg).items() if v != (0, 0)}
    assert ref.get((), (0, 0))[1] == p.total(ti)
    assert got == {k: v for k, v in ref.items() if v != (0, 0)}


# --------------------------------------------------------------- properties
_frames = st.sampled_from(["main", "a", "b", "c", "d<int>", "e&f", "root"])
_stacks = st.lists(st.tuples(st.lists(_frames, min_size=1, max_size=6), st.integers(1, 1000)), min_size=1, max_size=25)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_stacks, st.booleans())
def test_tree_equals_python_reference(stacks, inverted):
    folded = "".join(f"{';'.join(s)} {v}\n" for s, v in stacks)
    p = pprofcore.from_folded(folded)
    fg = p.flamegraph(min_fraction=0, inverted=inverted)
    assert _tree(fg) == _reference(p.to_folded(), inverted)
    # pre-order: parents first, a subtree is a contiguous range with depth > its root's
    t = fg.nodes()
    par, depth = t["parent"], t["depth"]
    assert par[0] == -1 and t["name"][0] == "root" and all(par[i] < i for i in range(1, len(t)))
    assert all(depth[i] == depth[par[i]] + 1 for i in range(1, len(t)))


@settings(max_examples=80, deadline=None)
@given(_stacks, st.sampled_from([0.01, 0.05, 0.2, 0.5]))
def test_min_fraction_merges_and_keeps_totals(stacks, frac):
    folded = "".join(f"{';'.join(s)} {v}\n" for s, v in stacks)
    p = pprofcore.from_folded(folded)
    full = _tree(p.flamegraph(min_fraction=0))
    fg = p.flamegraph(min_fraction=frac)
    t = fg.nodes()
    thr = frac * fg.total
    kids = defaultdict(list)
    for i in range(1, len(t)):
        kids[int(t["parent"][i])].append(i)
    trimmed = _tree(fg)
    for path, (s, tot) in trimmed.items():
        if path and path[-1] == "..." and path not in full:
            continue
        assert full[path] == (s, tot)  # kept nodes keep their values
        assert not path or tot >= thr
    for par, ks in kids.items():
        dots = [i for i in ks if t["name"][i] == "..." and _tree_path(t, i) not in full]
        assert len(dots) <= 1
        # children (merged or not) account for everything below the parent
        assert int(t["total"][par]) == int(t["self"][par]) + sum(int(t["total"][i]) for i in ks)


def _tree_path(t, i):
    out = []
    while i > 0:
        out.append(t["name"][i])
        i = int(t["parent"][i])
    return tuple(out[::-1])


# ---------------------------------------------------------- inline frames
def test_inline_frames_are_frames():
    strings = ["", "samples", "count", "main", "inlined", "leaf"]
    data = pb_profile(
        strings=strings,
        sample_types=[(1, 2)],
        samples=[([2, 1], [5]), ([1], [2])],
        locations=[(1, 0, [3]), (2, 0, [5, 4])],  # location 2: leaf inlined into `inlined`
        functions=[(3, 3), (4, 4), (5, 5)],
    )
    p = pprofcore.loads(data)
    tree = _tree(p.flamegraph(min_fraction=0))
    assert tree[("main", "inlined", "leaf")] == (5, 5)
    assert tree[("main",)] == (2, 7)
    # by="lines" and "files" follow top's keying
    assert len(p.flamegraph(by="files", min_fraction=0)) >= 2


@pytest.mark.parametrize("by", ["functions", "filefunctions", "files", "lines", "addresses"])
def test_granularities_sum_to_top(by):
    fg = EXAMPLE.flamegraph(by=by, min_fraction=0)
    top = EXAMPLE.top(by=by, nodefraction=0, edgefraction=0)
    flat = dict(zip(top["name"], (int(x) for x in top["flat"])))
    got = defaultdict(int)
    t = fg.nodes()
    for n, s in zip(t["name"][1:], t["self"][1:]):
        got[n] += int(s)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in flat.items() if v}


def test_bad_arguments_raise_clearly():
    with pytest.raises(ValueError, match="granularity"):
        EXAMPLE.flamegraph(by="modules")
    with pytest.raises(ValueError, match="min_fraction"):
        EXAMPLE.flamegraph(min_fraction=1.5)
    with pytest.raises(ValueError, match="no sample.type"):
        EXAMPLE.flamegraph("bogus")
    heap = pprofcore.load(pprofcore.__path__[0] + "/data/example-heap.pb.gz")
    with pytest.raises(ValueError, match="base profile: no sample_type 'cpu'; have "):
        EXAMPLE.flamegraph(base=heap)


# -------------------------------------------------------------------- diff
def test_diff_tree_has_base_columns_and_vanished_nodes():
    new = pprofcore.from_folded("main;a 30\nmain;b 10\n")
    old = pprofcore.from_folded("main;a 10\nmain;c 20\n")
    fg = new.flamegraph(base=old, normalize=False, min_fraction=0)
    t = fg.nodes()
    assert fg.is_diff and "base_total" in t.columns
    row = {n: i for i, n in enumerate(t["name"])}
    assert (t["total"][row["c"]], t["base_total"][row["c"]]) == (0, 20)  # vanished, still there
    assert (t["total"][row["b"]], t["base_total"][row["b"]]) == (10, 0)
    assert (t["total"][0], t["base_total"][0]) == (40, 30)
    w = fg._layout_width()
    assert w[row["c"]] == 20 and w[row["main"]] == 60  # room for the vanished node
    norm = new.flamegraph(base=old, min_fraction=0).nodes()
    assert norm["base_total"][0] == 40  # scaled to the new total
    assert norm["base_total"][row["a"]] == round(10 * 40 / 30)


# ------------------------------------------------------------------ exports
def test_html_is_self_contained_and_escaped():
    p = pprofcore.from_folded("main;</script><b>x&y 5\nmain;ok 1\n")
    h = p.flamegraph(min_fraction=0, title="<t>").to_html()
    assert "</script><b>" not in h and "&lt;t&gt;" in h
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", h)  # nothing from the network
    data = re.search(r'<script type="application/json" class="pprofcore-flame-data">(.*?)</script>', h, re.S)
    assert "</script><b>x&y" in json.loads(data.group(1))["names"]
    assert p.flamegraph()._repr_html_().startswith('<div class="pprofcore-flame"')


def test_svg_parses_and_has_every_wide_node():
    fg = EXAMPLE.flamegraph()
    svg = fg.to_svg(width=1000)
    root = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    titles = [g.find(ns + "title").text for g in root.iter(ns + "g")]
    t = fg.nodes()
    wide = [t["name"][i] for i in range(len(t)) if abs(t["total"][i]) * 1000 / fg.total >= 1]
    assert len(titles) == len(wide)
    assert titles[0].startswith("root")
    evil = pprofcore.from_folded("a<b>&c 3\n").flamegraph(min_fraction=0).to_svg()
    ElementTree.fromstring(evil)


def test_speedscope_file_format(tmp_path):
    fg = EXAMPLE.flamegraph(min_fraction=0)
    doc = json.loads(fg.to_speedscope())
    assert doc["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    prof = doc["profiles"][0]
    assert prof["type"] == "sampled" and prof["unit"] == "nanoseconds"
    assert sum(prof["weights"]) == prof["endValue"] == fg.total
    frames = doc["shared"]["frames"]
    # Every sample is a root-first path of frame indices; re-folding gives to_folded.
    folded = defaultdict(int)
    for s, w in zip(prof["samples"], prof["weights"]):
        folded[";".join(frames[i]["name"] for i in s)] += w
    want = {}
    for line in EXAMPLE.to_folded().splitlines():
        k, v = line.rsplit(" ", 1)
        want[k] = int(v)
    assert dict(folded) == want
    fg.save_speedscope(tmp_path / "x.json")
    assert json.loads((tmp_path / "x.json").read_text()) == doc


def test_save_picks_format_by_extension(tmp_path):
    fg = EXAMPLE.flamegraph()
    for ext, start in ((".html", "<!DOCTYPE html>"), (".svg", "<svg"), (".json", "{")):
        fg.save(tmp_path / f"fg{ext}")
        assert (tmp_path / f"fg{ext}").read_text().startswith(start)
    with pytest.raises(ValueError, match="cannot tell the format"):
        fg.save(tmp_path / "fg.png")


def test_repr_says_what_it_is():
    assert repr(EXAMPLE.flamegraph()).startswith("<pprofcore.FlameGraph flame graph of cpu: ")
