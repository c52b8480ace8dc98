"""``pprofcore -dot`` against ``go tool pprof -dot``: the same bytes.

Three sources of cases, each compared byte for byte:
- the bundled example profiles with many flag sets (granularities, -cum,
  focus/ignore/hide, tag filters, nodecount and fractions, -sample_index, the
  legacy sample-type flags, -noinlines, -unit, -divide_by, -trim=false, a
  -diff_base that makes negative values (green colours));
- a profile built here with C++, Java and versioned Go names (label splitting)
  and string and ``bytes`` labels (tag sub-nodes, numeric ranges);
- a few corpus files (``../shared/corpus``, skipped when absent).

google/pprof's own DOT driver goldens run in ``tests/oracles/test_conformance.py``.

Go's pprof runs as an oracle; without Go those cases skip with the reason.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from xml.etree import ElementTree

import pytest
import wirebuild as wb
from cli_run import CPU, HEAP, pprofcore_dot
from goldens import first_difference
from testenv import CORPUS, go_pprof, requires_go
from tie_order import dot_without_ids

import pprofcore


def assert_same_dot(flags, path, ours=None):
    want = go_pprof("-dot", *flags, path)
    got = pprofcore_dot(*(flags if ours is None else ours), path)
    assert got == want, first_difference(want, got)


EXAMPLE_FLAGS = {
    "cpu": [
        [],
        ["-lines"],
        ["-files"],
        ["-addresses", "-nodecount=30"],
        ["-filefunctions", "-compact_labels"],
        ["-cum", "-nodecount=10"],
        ["-focus=main", "-ignore=mallocgc", "-hide=fmt"],
        ["-tagfocus=acme"],
        ["-sample_index=samples", "-nodefraction=0.1", "-edgefraction=0.05"],
        ["-noinlines"],
        ["-unit=ms"],
        ["-divide_by=3"],
        ["-nodecount=0", "-nodefraction=0", "-edgefraction=0"],
    ],
    "heap": [
        [],
        ["-sample_index=alloc_space"],
        ["-inuse_objects", "-lines"],
        ["-relative_percentages", "-focus=main"],
        ["-show=runtime", "-nodecount=5"],
    ],
}


@requires_go
@pytest.mark.parametrize(
    "kind,flags",
    [pytest.param(k, f, id=f"{k}:{' '.join(f) or 'defaults'}") for k, fs in EXAMPLE_FLAGS.items() for f in fs],
)
def test_examples_match_go(kind, flags):
    assert_same_dot(flags, CPU if kind == "cpu" else HEAP)


@requires_go
def test_trim_false_and_notrim_match_go():
    want = go_pprof("-dot", "-trim=false", HEAP)
    assert pprofcore_dot("-trim=false", HEAP) == want
    assert pprofcore_dot("-notrim", HEAP) == want


@requires_go
def test_negative_values_are_green(tmp_path):
    # base = 2 x the profile: every value of the diff is negative
    base = tmp_path / "base.pb.gz"
    pprofcore.load(CPU).scale(2.0).save(base)
    want = go_pprof("-dot", f"-diff_base={base}", CPU)
    assert re.search(r'color="#[0-9a-f]{2}b2', want)  # pprof's own green, so the case means something
    got = pprofcore_dot(f"-diff_base={base}", CPU)
    assert got == want, first_difference(want, got)


@requires_go
def test_drop_negative_matches_go(tmp_path):
    # a base larger than the profile on the json paths only: both signs in the diff
    base = tmp_path / "mixed.pb.gz"
    pprofcore.load(CPU).scale(1.5).filter(focus="json", warn=False).save(base)
    for flags in ([f"-diff_base={base}"], [f"-diff_base={base}", "-drop_negative"]):
        want = go_pprof("-dot", *flags, CPU)
        got = pprofcore_dot(*flags, CPU)
        # edges of weights w and -w compare equal in pprof's sort, whose input
        # comes from a map: their order changes from run to run of pprof itself
        assert sorted(got.splitlines()) == sorted(want.splitlines())


def _built_profile() -> bytes:
    """C++, Java and Go names (generic ones too) with string and bytes labels, built byte by byte."""
    strings = {"": 0}

    def s(x: str) -> int:
        return strings.setdefault(x, len(strings))

    names = [
        "std::vector<int>::push_back",
        "(anonymous namespace)::Parser::Parse",
        "com.example.app.Server.handle(java.lang.String)",
        "github.com/acme/lib/v2/store.(*DB).Get",
        "main.main",
        'odd"name\\with\\quotes',
        "main.mul[...]",  # Go generics: pprof's label keeps "[…]" whole
        "github.com/acme/lib.(*Matrix[...]).At",
    ]
    # a system name other than the name: pprof's demangler leaves such names alone
    functions = [wb.function(i + 1, s(n), s("_Z" + n), s(f"/src/file{i}.cc"), 10 * i) for i, n in enumerate(names)]
    locations = [wb.location(i + 1, 1, 0x1000 + 16 * i, [wb.line(i + 1, 100 + i)]) for i in range(len(names))]
    mappings = [wb.mapping(1, 0x1000, 0x9000, 0, s("/usr/bin/server"), s("abc123"), True, True, True, False)]
    samples = []
    stacks = [[1, 2, 5], [3, 5], [4, 2, 5], [6, 5], [1, 4, 5], [2, 5], [8, 7, 5]]
    for k in range(60):
        stack = stacks[k % len(stacks)]
        labels = [wb.label(s("bytes"), 0, 1 << (k % 20), s("bytes"))]
        if k % 3 == 0:
            labels.append(wb.label(s("tenant"), s(f"t{k % 4}")))
        if k % 5 == 0:
            labels.append(wb.label(s("phase"), s("load")))
        samples.append(wb.sample(stack, [k % 7 + 1, (k % 7 + 1) * 1000], labels))
    sample_types = [wb.value_type(s("alloc_objects"), s("count")), wb.value_type(s("alloc_space"), s("bytes"))]
    period_type = wb.value_type(s("space"), s("bytes"))
    comments = [s("built by test_cli_dot")]
    return wb.profile(  # the string table last: every s() above has added its string
        sample_types=sample_types,
        samples=samples,
        mappings=mappings,
        locations=locations,
        functions=functions,
        period_type=period_type,
        period=1,
        comments=comments,
        strings=list(strings),
    )


@requires_go
@pytest.mark.parametrize(
    "flags",
    [[], ["-lines"], ["-addresses"], ["-sample_index=alloc_objects"], ["-nodecount=3"], ["-tagfocus=t1"], ["-unit=kB"]],
    ids=lambda f: " ".join(f) or "defaults",
)
def test_built_profile_matches_go(tmp_path, flags):
    path = tmp_path / "built.pb"
    path.write_bytes(_built_profile())
    assert_same_dot(flags, str(path))


@requires_go
@pytest.mark.parametrize(
    "kind,flags",
    [("cpu", []), ("cpu", ["-lines"]), ("cpu", ["-nodecount=10"]), ("heap", []), ("heap", ["-focus=main"])],
    ids=lambda x: " ".join(x) if isinstance(x, list) else x,
)
def test_call_tree_matches_go(kind, flags):
    path = CPU if kind == "cpu" else HEAP
    want = go_pprof("-dot", "-call_tree", *flags, path)
    got = pprofcore_dot("-call_tree", *flags, path)
    assert got.splitlines()[:3] == want.splitlines()[:3]  # the legend, byte for byte
    assert dot_without_ids(got) == dot_without_ids(want)


def _corpus_sample(n: int = 6):
    """A spread of small profile.proto files of the shared corpus google/pprof reads."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no corpus at {CORPUS}"), id="no-corpus")]
    lines = manifest.read_text().splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, ln.split("\t"))) for ln in lines[1:]]
    files = sorted(
        r["file"]
        for r in rows
        if r.get("parses_with_google_pprof") == "yes"
        and r.get("format") == "profile.proto"
        and r.get("bytes", "").isdigit()
        and int(r["bytes"]) < 300_000
    )
    step = max(1, len(files) // n)
    return [pytest.param(f, id=f) for f in files[::step][:n]]


@requires_go
@pytest.mark.parametrize("name", _corpus_sample())
def test_corpus_files_match_go(name):
    path = str(CORPUS / name)
    try:
        want = go_pprof("-dot", path)
    except RuntimeError as e:
        pytest.skip(f"go tool pprof refuses {name}: {e}")
    got = pprofcore_dot(path)
    assert got == want, first_difference(want, got)


def test_callgraph_api_writes_the_same_dot():
    """``CallGraph.to_pprof_dot()`` is the text of ``pprofcore -dot`` (no Go needed)."""
    p = pprofcore.load(HEAP)
    assert p.callgraph().to_pprof_dot() == pprofcore_dot(HEAP)
    g = p.callgraph("alloc_space", by="lines", nodecount=12)
    assert g.to_pprof_dot() == pprofcore_dot("-sample_index=alloc_space", "-lines", "-nodecount=12", HEAP)


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot (apt-get install graphviz)")
def test_hostile_names_keep_the_dot_valid(tmp_path):
    """Quotes, backslashes, newlines, NUL and markup in names and labels: the
    DOT still parses and Graphviz's SVG is well-formed (pprof leaves tag names
    unescaped, so its own DOT of this profile does not parse)."""
    strings = {"": 0}

    def s(x: str) -> int:
        return strings.setdefault(x, len(strings))

    names = ['a"b\\c', "line\nbreak", "nul\x00x", "tmpl<int&>::f", "tag\\n"]
    functions = [wb.function(i + 1, s(n), s(f"sys{i}"), s("f.go")) for i, n in enumerate(names)]
    locations = [wb.location(i + 1, 0, 0, [wb.line(i + 1, 1)]) for i in range(len(names))]
    sample_types = [wb.value_type(s("samples"), s("count"))]
    samples = [
        wb.sample([i + 1, 1] if i else [1], [10 + i], [wb.label(s('k"ey'), s('v\\al"'))]) for i in range(len(names))
    ]
    path = tmp_path / "hostile.pb"
    path.write_bytes(
        wb.profile(
            sample_types=sample_types, samples=samples, locations=locations, functions=functions, strings=list(strings)
        )
    )
    text = pprofcore_dot(str(path))
    svg = subprocess.run(["dot", "-Tsvg"], input=text.encode(), capture_output=True, check=True).stdout
    ElementTree.fromstring(svg)
