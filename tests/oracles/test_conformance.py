"""Other projects' own expectations, run through pprofcore's public API.

``../shared/conformance`` (see its README.md and MANIFEST.tsv) holds inputs and
expected outputs written by other projects: google/pprof's driver report
goldens and its driver/profile/report test tables, dd-trace-go's fastdelta
tests, pprofutils, go-torch, pyroscope and parca. Each case here rebuilds the
input the way the original test does and compares pprofcore's answer with the
expected one: report text line by line (after the profile's own header lines,
which the goldens leave out), samples by values, frames and labels.

pprof's DOT goldens run through ``pprofcore -dot`` and are compared byte for
byte. Cases pprofcore cannot reproduce (goldens made by the test's fake
object tool, pprof's own HTML page) are xfailed with the reason. The whole module skips when the folder is absent (set
``PPROFCORE_CONFORMANCE``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import wirebuild as wb
from cli_run import pprofcore_dot
from goldens import first_difference
from testenv import CORPUS, have_go

import pprofcore

CONF = Path(os.environ.get("PPROFCORE_CONFORMANCE", CORPUS.parent / "conformance"))
PRESENT = (CONF / "MANIFEST.tsv").exists()
pytestmark = pytest.mark.skipif(
    not PRESENT, reason=f"conformance folder not found at {CONF} (set PPROFCORE_CONFORMANCE)"
)
PP = CONF / "google__pprof"
GOLDEN = PP / "internal" / "driver" / "testdata"
DERIVED = PP / "derived"


def _json(path: Path):
    return json.loads(path.read_text())


def _cases(loader, n_args=1):
    """pytest params from ``loader()`` (a list of (id, *values)); when the folder
    is absent, one placeholder (the module is skipped anyway)."""
    if not PRESENT:
        return [pytest.param(*([None] * n_args), id="no-conformance-folder")]
    return [pytest.param(*c[1:], id=c[0]) for c in loader()]


# ------------------------------------------------------------ building inputs
def json_profile(path: Path) -> pprofcore.Profile:
    return pprofcore.loads(wb.profile_from_json(_json(path)))


# ------------------------------------------------------------- reading results
def sample_rows(p: pprofcore.Profile):
    """Per sample: (values, [function names per location, leaf first], sorted labels)."""
    fn_names = [p.strings[c] for c in p.functions.name.tolist()]
    lo, lf = p.locations.line_offsets.tolist(), p.lines.function.tolist()
    so, sl = p.stack_offsets.tolist(), p.stack_locations.tolist()
    lab, lab_off = p.labels, p.label_offsets.tolist()
    out = []
    for i, vals in enumerate(p.values.tolist()):
        stack = [[fn_names[lf[j]] for j in range(lo[loc], lo[loc + 1])] for loc in sl[so[i] : so[i + 1]]]
        labels = []
        for r in range(lab_off[i], lab_off[i + 1]):
            k = p.strings[int(lab.key[r])]
            if lab.str[r] >= 0:
                labels.append((k, p.strings[int(lab.str[r])], 0, ""))
            else:
                labels.append((k, "", int(lab.num[r]), p.strings[int(lab.num_unit[r])]))
        out.append((vals, stack, sorted(labels)))
    return out


def func_strings(p):
    """google/pprof's filter tests' sampleFuncs: "callee ... caller: value[0]"."""
    return [f"{' '.join(n for loc in stack for n in loc)}: {vals[0]}" for vals, stack, _ in sample_rows(p)]


def stack_sums(p, value=0):
    acc = Counter()
    for vals, stack, labels in sample_rows(p):
        acc[(tuple(tuple(loc) for loc in stack), tuple(labels))] += vals[value]
    return acc


def value_multiset(p):
    """{(stack, labels): values summed} without all-zero entries."""
    acc = {}
    for vals, stack, labels in sample_rows(p):
        k = (tuple(tuple(loc) for loc in stack), tuple(labels))
        acc[k] = tuple(a + b for a, b in zip(acc[k], vals)) if k in acc else tuple(vals)
    return {k: v for k, v in acc.items() if any(v)}


# ================================================= google/pprof TestParse goldens
# (golden file, fake profile, report, options, filters). Options: by, sort,
# inline, sample_type, n (nodecount), unit, regex, all_frames, relative.
# pprof's TestParse runs with -nodefraction=0.05 -edgefraction=0.01 -compact_labels.
REPORTS = [
    ("pprof.cpu.flat.functions.text", "cpu", "text", {}, {}),
    ("pprof.cpu.flat.functions.noinlines.text", "cpu", "text", {"inline": False}, {}),
    ("pprof.cpu.flat.filefunctions.noinlines.text", "cpu", "text", {"by": "filefunctions", "inline": False}, {}),
    ("pprof.cpu.flat.addresses.noinlines.text", "cpu", "text", {"by": "addresses", "inline": False}, {}),
    ("pprof.cpusmall.flat.addresses.tree", "cpusmall", "tree", {"by": "addresses", "n": 4}, {}),
    ("pprof.unknown.flat.functions.call_tree.text", "cpu", "text", {"n": 5}, {}),
    ("pprof.heap_alloc.flat.alloc_objects.text", "heap_alloc", "text", {"sample_type": "alloc_objects"}, {}),
    ("pprof.heap.flat.files.text", "heap", "text", {"by": "files"}, {}),
    ("pprof.heap.flat.files.text.focus", "heap", "text", {"by": "files"}, {"focus": "[12]00", "taghide": "[X3]00"}),
    ("pprof.heap.flat.inuse_objects.text", "heap", "text", {"sample_type": "inuse_objects"}, {}),
    (
        "pprof.heap.flat.inuse_objects.text.all_frames",
        "heap",
        "text",
        {"sample_type": "inuse_objects", "all_frames": True},
        {},
    ),
    ("pprof.cpu.cum.lines.text.hide", "cpu", "text", {"by": "lines", "sort": "cum"}, {"hide": "line[X3]0"}),
    ("pprof.cpu.cum.lines.text.show", "cpu", "text", {"by": "lines", "sort": "cum"}, {"show": "[12]00"}),
    (
        "pprof.cpu.cum.lines.text.focus.hide",
        "cpu",
        "text",
        {"by": "lines", "sort": "cum"},
        {"hide": "line[X3]0", "focus": "[12]00"},
    ),
    ("pprof.heap.cum.lines.tree.focus", "heap", "tree", {"by": "lines", "sort": "cum"}, {"focus": "[24]00"}),
    (
        "pprof.heap.cum.relative_percentages.tree.focus",
        "heap",
        "tree",
        {"sort": "cum", "relative": True},
        {"focus": "[24]00"},
    ),
    ("pprof.cpu.cum.lines.tree.show_from", "cpu", "tree", {"by": "lines", "sort": "cum"}, {"show_from": "line2"}),
    ("pprof.heap.comments", "heap", "comments", {}, {}),
    ("pprof.cpu.cum.lines.topproto.hide", "cpu", "topproto", {"by": "lines", "sort": "cum"}, {"hide": "mangled[X3]0"}),
    ("pprof.cpu.lines.topproto", "cpu", "topproto", {"by": "lines"}, {}),
    ("pprof.cpu.callgrind", "cpu", "callgrind", {}, {}),
    ("pprof.cpu.call_tree.callgrind", "cpu", "callgrind", {"call_tree": True}, {}),
    ("pprof.heap.callgrind", "heap", "callgrind", {}, {}),
    ("pprof.cpu.comments", "cpu", "comments", {"add_comment": "some-comment"}, {}),
    ("pprof.cpu.tags", "cpu", "tags", {}, {}),
    ("pprof.cpu.tags.focus.ignore", "cpu", "tags", {}, {"tagignore": "tag[13]", "tagfocus": "key[12]"}),
    ("pprof.heap.tags", "heap", "tags", {}, {}),
    ("pprof.heap.tags.unit", "heap", "tags", {"unit": "bytes"}, {}),
    ("pprof.cpu.traces", "cpu", "traces", {}, {}),
    ("pprof.cpu.addresses.traces", "cpu", "traces", {"by": "addresses"}, {}),
    ("pprof.heap_tags.traces", "heap_tags", "traces", {}, {}),
    ("pprof.cpu.peek", "cpu", "peek", {"regex": "line.*01"}, {}),
    ("pprof.heap_request.tags.focus", "heap_request", "tags", {}, {"tagfocus": "400kb:"}),
    ("pprof.heap_request.tags.focus", "heap_request", "tags", {}, {"tagfocus": "+400kb:"}),
    (
        "pprof.heap_request.relative_percentages.tags.focus",
        "heap_request",
        "tags",
        {"relative": True},
        {"tagfocus": "400kb:"},
    ),
    ("pprof.long_name_funcs.text", "long_name_funcs", "text", {}, {}),
]

# The DOT goldens, through ``pprofcore -dot``: golden -> (fixture, flags), the
# driver test's base flags plus what the golden's name encodes.
DOT_FLAGS = ["-nodecount=20", "-nodefraction=0.05", "-edgefraction=0.01", "-compact_labels", "-unit=minimum"]
DOT_GOLDENS = {
    "pprof.cpu.flat.functions.dot": ("cpu", ["-flat", "-functions"]),
    "pprof.cpu.flat.functions.call_tree.dot": ("cpu", ["-flat", "-functions", "-call_tree"]),
    "pprof.heap.flat.lines.dot.focus": ("heap", ["-flat", "-lines", "-focus=[12]00"]),
    "pprof.heap_sizetags.dot": ("heap_sizetags", []),
    "pprof.contention.flat.addresses.dot.focus.ignore": (
        "contention",
        ["-flat", "-addresses", "-ignore=[X3]002", "-focus=[X1]000"],
    ),
    "pprof.contention.cum.files.dot": ("contention", ["-cum", "-files"]),
    "pprof.heap_alloc.flat.alloc_space.dot.focus": ("heap_alloc", ["-flat", "-alloc_space", "-focus=[234]00"]),
    "pprof.heap_alloc.flat.alloc_space.dot": ("heap_alloc", ["-flat", "-alloc_space", "-tagshow=[2]00"]),
    "pprof.heap_alloc.flat.alloc_space.dot.hide": ("heap_alloc", ["-flat", "-alloc_space", "-hide=line.*1?23?"]),
    "pprof.heap.flat.inuse_space.dot.focus": ("heap", ["-flat", "-inuse_space", "-tagfocus=1mb:2gb"]),
    "pprof.heap.flat.inuse_space.dot.focus.ignore": (
        "heap",
        ["-flat", "-inuse_space", "-tagfocus=30kb:", "-tagignore=1mb:2mb"],
    ),
    "pprof.long_name_funcs.dot": ("long_name_funcs", []),
}

# Goldens pprofcore cannot reproduce: (golden, why).
MISSING = [
    (
        "pprof.cpu.flat.addresses.disasm",
        "the golden's instructions come from the driver test's fake object tool (testObj), which no real "
        "binary gives to objdump; disasm is checked against pprof in tests/reports/test_listing.py",
    ),
    (
        "pprof.cpu.flat.addresses.weblist",
        "pprofcore's -weblist page has its own layout, not pprof's HTML template, and the golden's "
        "instructions come from the fake object tool; its values are -list's (tests/cli/test_cli_weblist.py)",
    ),
]


def _report_id(golden, filters):
    extra = ",".join(f"{k}={v}" for k, v in filters.items())
    return f"{golden}[{extra}]" if extra else golden


def _topproto(source, opt, filters) -> str:
    """TestParse's -topproto cases run pprof twice: -topproto (at address
    granularity, without the test's demangler, so functions carry their system
    names), then -text with the same flags on the profile that wrote."""
    d = _json(DERIVED / "driver" / f"{source}.json")
    for f in d["functions"]:
        f["name"], f["system_name"] = f["system_name"], ""
    p = pprofcore.loads(wb.profile_from_json(d)).remove_uninteresting().filter(warn=False, **filters)
    q = p.top_profile(by="addresses", sort=opt.get("sort", "flat"), nodefraction=0.05)
    assert q.sample_types[0][0] == "cum" and q.sample_types[1][0] == "flat"
    q = q.filter(warn=False, **filters)
    return q.top(by=opt["by"], sort=opt.get("sort", "flat"), n=20, nodefraction=0.05).to_text()


def render(source, report, opt, filters) -> str:
    """The report text pprofcore makes for one TestParse case."""
    if report == "topproto":
        return _topproto(source, opt, filters)
    p = json_profile(DERIVED / "driver" / f"{source}.json")
    if opt.get("add_comment"):
        p = p.add_comment(opt["add_comment"])
    if not opt.get("all_frames"):
        p = p.remove_uninteresting()  # pprof applies drop_frames on load
    p = p.filter(warn=False, **filters)
    common = dict(
        sample_type=opt.get("sample_type"), unit=opt.get("unit"), relative_percentages=opt.get("relative", False)
    )
    by, inline = opt.get("by", "functions"), opt.get("inline", True)
    if report == "text":
        return p.top(
            by=by, inline=inline, n=opt.get("n", 20), sort=opt.get("sort", "flat"), nodefraction=0.05, **common
        ).to_text()
    if report == "tree":
        return p.tree(
            by=by,
            inline=inline,
            sort=opt.get("sort", "flat"),
            nodecount=opt.get("n", 20),
            nodefraction=0.05,
            edgefraction=0.01,
            **common,
        ).to_text()
    if report == "peek":
        return p.peek(opt["regex"], by=by, inline=inline, **common).to_text()
    if report == "tags":
        return p.tags(**common).to_text()
    if report == "traces":
        return p.traces(sample_type=opt.get("sample_type"), unit=opt.get("unit"), by=by).to_text()
    if report == "callgrind":
        return p.to_callgrind(
            sample_type=opt.get("sample_type"), unit=opt.get("unit"), call_tree=opt.get("call_tree", False)
        )
    assert report == "comments"
    return "\n".join(p.comments) + "\n"


def _without_profile_labels(text: str, report: str) -> list:
    """Our lines minus pprof's ProfileLabels header (File, Type, Time, Duration,
    comments), which TestParse leaves out with -compact_labels."""
    lines = text.rstrip("\n").split("\n")
    if report in ("text", "tree", "peek", "topproto"):
        start = next(i for i, ln in enumerate(lines) if ln.startswith(("Active filters:", "Showing nodes")))
        return lines[start:]
    return lines


@pytest.mark.parametrize(
    "golden,source,report,opt,filters",
    _cases(lambda: [(_report_id(g, f), g, s, r, o, f) for g, s, r, o, f in REPORTS], 5),
)
def test_pprof_report_golden(golden, source, report, opt, filters):
    want = (GOLDEN / golden).read_text().rstrip("\n").split("\n")
    got = _without_profile_labels(render(source, report, opt, filters), report)
    if report == "traces":  # the golden keeps the full header: our Time line is local time
        want = [ln for ln in want if not ln.startswith("Time:")]
        got = [ln for ln in got if not ln.startswith("Time:")]
    assert [ln.rstrip() for ln in got] == [ln.rstrip() for ln in want]


@pytest.mark.parametrize("golden", _cases(lambda: [(g, g) for g in sorted(DOT_GOLDENS)]))
def test_pprof_dot_golden(golden, tmp_path):
    fixture, flags = DOT_GOLDENS[golden]
    path = tmp_path / f"{fixture}.pb"
    path.write_bytes(wb.profile_from_json(_json(DERIVED / "driver" / f"{fixture}.json")))
    want = (GOLDEN / golden).read_text()
    # pprof's driver tests use a symbolizer that does nothing: its goldens keep
    # names that `go tool pprof` itself would demangle ("(anonymous namespace)::")
    got = pprofcore_dot(*DOT_FLAGS, *flags, "-symbolize=none", str(path))
    assert got == want, first_difference(want, got)


@pytest.mark.parametrize("golden,why", _cases(lambda: [(g, g, w) for g, w in MISSING], 2))
def test_pprof_report_golden_not_reproduced(golden, why):
    assert (GOLDEN / golden).exists()
    pytest.xfail(f"{why} (golden {golden})")


# ======================================== google/pprof driver: tag filter tables
def _one_sample(labels=(), num_labels=()):
    return pprofcore.loads(
        wb.profile_from_json(
            {
                "sample_types": [["samples", "count"]],
                "period_type": ["samples", "count"],
                "period": 1,
                "mappings": [
                    {
                        "id": 1,
                        "start": 0x1000,
                        "limit": 0x2000,
                        "offset": 0,
                        "file": "bin",
                        "build_id": "",
                        "has_functions": True,
                        "has_filenames": True,
                        "has_line_numbers": True,
                        "has_inline_frames": True,
                    }
                ],
                "functions": [{"id": 1, "name": "main", "system_name": "main", "filename": "main.go", "start_line": 0}],
                "locations": [
                    {
                        "id": 1,
                        "mapping_id": 1,
                        "address": 0x1100,
                        "is_folded": False,
                        "lines": [{"function_id": 1, "line": 1}],
                    }
                ],
                "samples": [{"locations": [1], "values": [1], "labels": list(labels), "num_labels": list(num_labels)}],
            }
        )
    )


def _tag_filter_cases():
    t = _json(DERIVED / "driver" / "tables.json")
    out = []
    for c in t["TestTagFilter"]:
        labels = [(k, v) for k in sorted(c["tags"]) for v in c["tags"][k]]
        out.append((f"TestTagFilter/{c['desc']}", c["value"], labels, [], c["want"]))
    for c in t["TestNumericTagFilter"]:
        units = c.get("identifiedUnits") or {}
        nums = [(k, v, units.get(k, "")) for k in sorted(c["tags"]) for v in c["tags"][k]]
        out.append((f"TestNumericTagFilter/{c['desc']}", c["value"], [], nums, c["want"]))
    return out


@pytest.mark.parametrize("expr,labels,num_labels,want", _cases(_tag_filter_cases, 4))
def test_pprof_driver_tagfocus(expr, labels, num_labels, want):
    p = _one_sample(labels, num_labels)
    assert (len(p.filter(tagfocus=expr, warn=False)) == 1) == want


# ============================================ google/pprof TestFetchWithBase
def _converted(name):
    return pprofcore.load(DERIVED / "driver" / "converted" / (Path(name).name + ".pb.gz"))


def _fetch_cases():
    return [
        (f"TestFetchWithBase/{c['desc']}", c)
        for c in _json(DERIVED / "driver" / "fetch_tables.json")["TestFetchWithBase"]
        if not c["wantParseErrorMsg"]
    ]  # the others test flag parsing only


@pytest.mark.parametrize("case", _cases(_fetch_cases))
def test_pprof_fetch_with_base(case):
    def merged(names):
        ps = [_converted(s) for s in names]
        return pprofcore.merge(ps, compatible="intersect") if len(ps) > 1 else ps[0]

    def run():
        new = merged(case["sources"])
        if case["bases"]:
            return new.diff(merged(case["bases"]), mode="base", normalize=case["normalize"])
        if case["diffBases"]:
            return new.diff(merged(case["diffBases"]), mode="diff_base", normalize=case["normalize"])
        return new

    if case["wantFetchErrorMsg"]:
        with pytest.raises(ValueError):
            run()
        return
    got = [(tuple(v), sorted((k, s) for k, s, _, _ in labels)) for v, _, labels in sample_rows(run())]
    want = [
        (tuple(w["values"]), sorted((k, v) for k, vs in (w["labels"] or {}).items() for v in vs))
        for w in case["wantSamples"] or []
    ]
    assert got == want


# ======================================== google/pprof profile package tables
def _fixture(name):
    return json_profile(DERIVED / "profile" / f"fixture_{name}.json")


def _tables():
    return _json(DERIVED / "profile" / "tables.json")


@pytest.mark.parametrize(
    "case", _cases(lambda: [(f"TestFilterSamplesByName/{c['name']}", c) for c in _tables()["TestFilterSamplesByName"]])
)
def test_pprof_filter_samples_by_name(case):
    p = _fixture(case["profile"]["fixture"])
    q = p.filter(focus=case["focus"], ignore=case["ignore"], hide=case["hide"], show=case["show"], warn=False)
    assert func_strings(q) == (case["wantSampleFuncs"] or [])


@pytest.mark.parametrize("case", _cases(lambda: [(f"TestShowFrom/{c['name']}", c) for c in _tables()["TestShowFrom"]]))
def test_pprof_show_from(case):
    p = _fixture(case["profile"]["fixture"])
    q = p.filter(show_from=case["showFrom"], warn=False)  # None: a no-op
    assert func_strings(q) == (case["wantSampleFuncs"] or [])


@pytest.mark.parametrize(
    "case", _cases(lambda: [(f"TestTagFilter/{i}", c) for i, c in enumerate(_tables()["TestTagFilter"])])
)
def test_pprof_filter_tags_by_name(case):
    q = _fixture("testProfile1").filter(tagshow=case["include"], taghide=case["exclude"], warn=False)
    assert len({q.strings[k] for k in q.labels.key.tolist()}) == case["count"]


def _string_profile_samples(text):
    """(values, [function names per location]) of google/pprof's Profile.String() text."""
    samples, locs, section, cur = [], {}, "", None
    for line in text.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section == "Samples:" and (m := re.match(r"^((?:\s+-?\d+)+): ?(.*)$", line)):
            samples.append(([int(x) for x in m.group(1).split()], [int(x) for x in m.group(2).split()]))
        elif section == "Locations":
            m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(?:\[F\] )?(.*)$", line)
            if m:
                cur = locs.setdefault(int(m.group(1)), [])
                rest = m.group(2)
            else:
                rest = line.strip()
            if rest and rest != "??":  # "name file:line[:column] s=start[(inline)]", name may have spaces
                m = re.match(r"^(.*) \S*:-?\d+(?::-?\d+)? s=-?\d+(?:\(.*\))?$", rest)
                cur.append(m.group(1) if m else rest)
    return [(v, [locs[i] for i in ids]) for v, ids in samples]


@pytest.mark.parametrize("case", _cases(lambda: [(f"TestPrune/{c['in']}", c) for c in _tables()["TestPrune"]]))
def test_pprof_prune(case):
    p = _fixture(case["in"]).remove_uninteresting()
    assert [(v, s) for v, s, _ in sample_rows(p)] == _string_profile_samples(case["want"])


@pytest.mark.parametrize("case", _cases(lambda: [(f"TestScale/{c['desc']}", c) for c in _tables()["TestScale"]]))
def test_pprof_scale(case):
    assert _fixture(case["p"]["fixture"]).scale(case["ratio"]).values.tolist() == case["wantSamples"]


@pytest.mark.parametrize(
    "case", _cases(lambda: [(f"TestNumLabelMerge/{c['name']}", c) for c in _tables()["TestNumLabelMerge"]])
)
def test_pprof_num_label_merge(case):
    m = pprofcore.merge([_fixture(x["fixture"]) for x in case["profs"]])
    got = [sorted((k, n, u) for k, _, n, u in labels) for _, _, labels in sample_rows(m)]
    want = [
        sorted((k, n, u) for k in wl for n, u in zip(wl[k], case["wantNumUnits"][i][k]))
        for i, wl in enumerate(case["wantNumLabels"])
    ]
    assert got == want


@pytest.mark.parametrize(
    "case",
    _cases(
        lambda: [(f"TestCompatibilizeSampleTypes/{c['desc']}", c) for c in _tables()["TestCompatibilizeSampleTypes"]]
    ),
)
def test_pprof_compatibilize_sample_types(case):
    ps = [pprofcore.loads(wb.profile_from_json(x["inline"])) for x in case["ps"]]
    if case["wantError"]:
        with pytest.raises(ValueError):
            pprofcore.merge(ps, compatible="intersect")
        return
    m = pprofcore.merge(ps, compatible="intersect")
    want = [x["inline"] for x in case["want"]]
    types = [tuple(t) for t in want[0]["sample_types"]]
    assert [tuple(t) for t in m.sample_types] == types
    assert [m.total(i) for i in range(len(types))] == [
        sum(s["values"][i] for w in want for s in w["samples"]) for i in range(len(types))
    ]


def _with_comments(p, comments):
    """p re-encoded with extra comments (through pprofcore's own encoder and a wire edit)."""
    raw = p.to_bytes(compress=False)
    n = len(p.strings)
    return pprofcore.loads(
        raw + b"".join(wb.text(6, c) for c in comments) + wb.unpacked(13, range(n, n + len(comments)))
    )


def test_pprof_merge_cancels_and_keeps_one_comment():
    """TestMerge: p + p - 2p is zero for every stack; equal comments are kept once."""
    p = _with_comments(_fixture("testProfile1"), ["comment1"])
    m = pprofcore.merge([pprofcore.merge([p, p]), p.scale(-2)])
    assert m.comments == ["comment1"]
    assert not {k: v for k, v in stack_sums(m).items() if v}


def test_pprof_merge_all_and_main_mapping():
    """TestMergeAll (10 copies give 10x) and TestMergeMain (the main binary stays first)."""
    p = _fixture("testProfile1")
    m = pprofcore.merge([p] * 10)
    assert stack_sums(m) == Counter({k: 10 * v for k, v in stack_sums(p).items()})
    assert m.strings[int(m.mappings.filename[0])] == "/bin/main"


@pytest.mark.parametrize(
    "both_folded,want",
    [pytest.param(False, 7, id="folded-and-unfolded-kept-apart"), pytest.param(True, 5, id="identical-folded-merged")],
)
def test_pprof_is_folded_merge(both_folded, want):
    d = _json(DERIVED / "profile" / "fixture_testProfile1.json")
    folded = json.loads(json.dumps(d))
    for loc in folded["locations"][:2]:
        loc["is_folded"] = True
    p, q = pprofcore.loads(wb.profile_from_json(d)), pprofcore.loads(wb.profile_from_json(folded))
    m = pprofcore.merge([q, q] if both_folded else [p, q])
    assert len(m.locations.address) == want


def test_pprof_empty_mapping_merge():
    p1, p2 = _fixture("testProfile1"), _fixture("testProfile1NoMapping")
    m = pprofcore.merge([pprofcore.merge([p2, p1]), p2.scale(-2)])
    acc = Counter()
    for vals, stack, _ in sample_rows(m):
        acc[tuple(n for loc in stack for n in loc)] += vals[0]
    assert not {k: v for k, v in acc.items() if v}


@pytest.mark.parametrize(
    "base,want",
    [
        pytest.param("same", None, id="TestNormalizeBySameProfile"),
        pytest.param(
            "testProfile2", [[20, 1000], [2, 100], [199, 10000], [0, 1]], id="TestNormalizeByDifferentProfile"
        ),
        pytest.param("10x", "10x", id="TestNormalizeByMultipleOfSameProfile"),
    ],
)
def test_pprof_normalize(base, want):
    p = _fixture("testProfile1")
    b = p if base == "same" else p.scale(10) if base == "10x" else _fixture(base)
    if want is None:
        want = p.values.tolist()
    elif want == "10x":
        want = (p.values * 10).tolist()
    got = p.normalize(b).values.tolist()
    assert got == want[: len(got)]  # as the Go test: sample i equals want[i]


def test_pprof_normalize_incompatible():
    with pytest.raises(ValueError):
        _fixture("testProfile1").normalize(_fixture("testProfile3"))


# ================================================ google/pprof internal/report
def _report_fixture(rows):
    d = dict(_json(DERIVED / "report" / "fixture_testProfile.json"))
    d["samples"] = [
        {"locations": [i + 1 for i in locs], "values": vals, "labels": labels} for locs, vals, labels in rows
    ]
    return pprofcore.loads(wb.profile_from_json(d))


_BASE = [("pprof::base", "true")]
_P1 = [([0], [1, 1], []), ([2, 1, 0], [1, 10], []), ([4, 2, 0], [1, 100], [])]
_P2 = [([0], [1, 1], []), ([2, 1, 0], [1, -10], []), ([4, 2, 0], [1, 100], [])]
_P3 = [
    ([0], [10000, 1], []),
    ([2, 1, 0], [-10, 3], _BASE),
    ([2, 1, 0], [1000, -10], []),
    ([2, 1, 0], [-9000, 3], _BASE),
    ([2, 1, 0], [-1, 3], _BASE),
    ([4, 2, 0], [100, 100], []),
    ([2, 1, 0], [100, 3], _BASE),
]


@pytest.mark.parametrize(
    "rows,index,want",
    [
        pytest.param(_P1, 0, 3, id="no-diff-base-all-positive-index-1"),
        pytest.param(_P1, 1, 111, id="no-diff-base-all-positive-index-2"),
        pytest.param(_P2, 1, 111, id="no-diff-base-some-negative"),
        pytest.param(_P3, 0, 9111, id="diff-base-some-negative"),
    ],
)
def test_pprof_report_compute_total(rows, index, want):
    assert _report_fixture(rows).top(sample_type=index).meta["total"] == want


def test_pprof_report_peek_matching_nothing_raises():
    p = json_profile(DERIVED / "report" / "fixture_testProfile.json")
    with pytest.raises(ValueError, match="no matches found for regexp: doesNotExist"):
        p.peek("doesNotExist", sample_type=1)


@pytest.mark.parametrize("fmt", ["list", "disasm"])
def test_pprof_report_listing(fmt):
    """TestFilter: a -list/-disasm whose regexp matches nothing is an error naming it."""
    p = json_profile(DERIVED / "report" / "fixture_testProfile.json")
    if fmt == "disasm" and not (shutil.which("objdump") and shutil.which("nm")):
        pytest.skip("disasm needs objdump and nm (binutils)")
    with pytest.raises(ValueError, match="no matches found for regexp: doesNotExist"):
        getattr(p, fmt)("doesNotExist", sample_type=1)


# ============================================= decode goldens (Profile.String())
def _decode_cases():
    cases = [
        (
            "go-torch/pprof.1.pb.gz",
            CONF / "uber-archive__go-torch/pprof/testdata/pprof.1.pb.gz",
            CONF / "uber-archive__go-torch/pprof/testdata/pprof.raw.txt",
        ),
        (
            "pprofutils/raw.in.pprof",
            CONF / "felixge__pprofutils/examples/raw.in.pprof",
            CONF / "felixge__pprofutils/examples/raw.out.txt",
        ),
    ]
    for f in sorted(CONF.glob("*/derived/decode/*.pprof2021.*")):
        src = f.name.rsplit(".pprof2021.", 1)[0].replace("__", "/")
        cases.append((f"pyroscope/{Path(src).name}", f.parent.parent.parent / src, f))
    return cases


@pytest.mark.parametrize("source,golden", _cases(_decode_cases, 2))
def test_decode_matches_profile_string(source, golden):
    p = pprofcore.load(source)
    assert [(v, s) for v, s, _ in sample_rows(p)] == _string_profile_samples(golden.read_text())


# ============================== legacy formats (pprof's TestParse goldens; jemalloc's against jeprof)
def _legacy_cases():
    files = [f for f in sorted((PP / "profile" / "testdata").iterdir()) if not f.name.endswith(".string")]
    files += [GOLDEN / n for n in ("cppbench.cpu", "cppbench.contention", "cppbench.small.contention", "go.crc32.cpu")]
    files += [
        CONF / "felixge__pprofutils/internal/legacy/test-fixtures/jemalloc.heap",
        CONF / "grafana__pyroscope/pkg/og/convert/jfr/testdata/dump1.jfr.gz",
    ]
    return [(str(f.relative_to(CONF)), f) for f in files]


@pytest.mark.parametrize("path", _cases(_legacy_cases))
def test_legacy_format_input(path, tmp_path):
    if "jfr" in path.name:  # read since issue 32; its events are compared with jfr print in test_read_jfr.py
        p = pprofcore.load(path)
        p._core.check_invariants()
        assert len(p) > 0 and p.total() > 0
        return
    if "jemalloc" in path.name:  # pprof cannot read it; tests/core/test_legacy_jemalloc.py compares it with jeprof
        p = pprofcore.load(path)
        p._core.check_invariants()
        text = path.read_text()
        assert p.sample_types == [("inuse_objects", "count"), ("inuse_space", "bytes")] and p.period == 1048576
        assert len(p) == text.count("\n@ ") and p.total("inuse_objects") >= sum(
            int(n) for n in re.findall(r"^@ .*\n  t\*: (\d+):", text, re.M)
        )  # one sample per stack; unsampling only adds
        return
    p = pprofcore.load(path)
    p._core.check_invariants()
    golden = path.with_name(path.name + ".string")
    if not golden.exists():  # driver test inputs: the same files as profile/testdata's, without a golden
        golden = PP / "profile" / "testdata" / (path.name + ".string")
    if not golden.exists():  # no golden: google/pprof's own dump is the reference
        if not have_go():
            pytest.skip("no Profile.String() golden and no Go for google/pprof's dump")
        from pprof_oracle import assert_same_as_pprof

        assert_same_as_pprof([path], tmp_path)
        return
    assert [(v, s) for v, s, _ in sample_rows(p)] == _string_profile_samples(golden.read_text())


# =========================================================== dd-trace-go fastdelta
FD = CONF / "DataDog__dd-trace-go/profiler/internal/fastdelta/testdata"
FD_GOLDEN = CONF / "DataDog__dd-trace-go/derived/fastdelta"
HEAP_T, BLOCK_T = ["alloc_objects", "alloc_space"], ["contentions", "delay"]
FD_PAIRS = [
    ("heap", HEAP_T, 5960465000),
    ("block", BLOCK_T, 1144928000),
    ("stress-failure", HEAP_T, None),
    ("stress-failure.2", HEAP_T, None),
    ("stress-failure.3", HEAP_T, None),
]


def _pair_delta(name, types):
    dc = pprofcore.DeltaComputer(types)
    dc.delta(pprofcore.load(FD / f"{name}.before.pprof"))
    return dc.delta(pprofcore.load(FD / f"{name}.after.pprof"))


@pytest.mark.parametrize("name,types,duration", _cases(lambda: [(n, n, t, d) for n, t, d in FD_PAIRS], 3))
def test_fastdelta_pair(name, types, duration):
    d = _pair_delta(name, types)
    d._core.check_invariants()
    want = value_multiset(pprofcore.load(FD_GOLDEN / f"{name}.golden-delta.pb.gz"))
    assert value_multiset(d) == want
    after, before = pprofcore.load(FD / f"{name}.after.pprof"), pprofcore.load(FD / f"{name}.before.pprof")
    assert d.time_nanos == after.time_nanos
    if duration is not None:
        assert d.duration_nanos == duration == after.time_nanos - before.time_nanos


def test_fastdelta_duration_and_time():
    """TestDurationAndTime: the first profile keeps its duration; each delta
    lasts from the previous profile's time to its own."""
    raw = (FD / "big-heap.pprof").read_bytes()
    first = pprofcore.loads(raw)
    dc = pprofcore.DeltaComputer(HEAP_T)
    t0 = first.time_nanos
    got = []
    for t in (t0, t0 + 10, t0 + 30):
        d = dc.delta(pprofcore.loads(_with_time(first, t)))
        got.append((d.duration_nanos, d.time_nanos))
    assert got == [(first.duration_nanos, t0), (10, t0 + 10), (20, t0 + 30)]


def _with_time(p, time_nanos):
    raw = p.to_bytes(compress=False)
    return b"".join(raw[a:b] for f, a, b in _fields(raw) if f != 9) + wb.vint(9, time_nanos)


def test_fastdelta_label_order_is_not_identity():
    """TestSampleHashingConsistency: the same labels in another order are the same sample."""

    def prof(*labels):
        strings = ["", "type", "unit", *labels]
        lab = [wb.label(3 + i, 4 + i) for i in range(0, len(labels), 2)]
        return pprofcore.loads(
            wb.profile(
                sample_types=[wb.value_type(1, 2)],
                period_type=wb.value_type(1, 2),
                period=1,
                time_nanos=1,
                samples=[wb.sample([1], [1], lab)],
                mappings=[wb.mapping(1)],
                locations=[wb.location(1, 1, 0x42)],
                strings=strings,
            )
        )

    dc = pprofcore.DeltaComputer(["type"])
    dc.delta(prof("foo", "bar", "abc", "123"))
    assert len(dc.delta(prof("abc", "123", "foo", "bar"))) == 0


def _compaction_inputs():
    """TestCompaction's inputs: big-heap with extra header strings, then the same
    profile with inuse values zeroed and one alloc_objects value raised by 42."""
    p = pprofcore.load(FD / "big-heap.pprof")
    n = len(p.strings)
    extra = ["hello", "world", "inuse_objects", "drop 'em", "keep 'em"]
    header = b"".join(wb.text(6, s) for s in extra) + wb.unpacked(13, [n, n + 1])
    header += wb.vint(14, n + 2) + wb.vint(7, n + 3) + wb.vint(8, n + 4)
    first = pprofcore.loads(p.to_bytes(compress=False) + header)
    v = first.values.copy()
    v[:, 2:] = 0
    v[0, 0] += 42
    second = pprofcore.loads(_with_values(first, v))
    return first, second


def _with_values(p, values):
    """p with new sample values, rebuilt from its columns through wirebuild."""
    so, sl, loc_id = p.stack_offsets, p.stack_locations, p.locations.id
    lo, lab = p.label_offsets, p.labels
    samples = []
    for i in range(len(p)):
        labels = [
            wb.label(int(lab.key[r]), max(int(lab.str[r]), 0), int(lab.num[r]), int(lab.num_unit[r]))
            for r in range(lo[i], lo[i + 1])
        ]
        samples.append(wb.sample([int(loc_id[j]) for j in sl[so[i] : so[i + 1]]], [int(x) for x in values[i]], labels))
    raw = p.to_bytes(compress=False)
    # Keep every other field of p: drop its samples (field 2) and append ours.
    kept = b"".join(raw[a:b] for f, a, b in _fields(raw) if f != 2)
    return kept + b"".join(wb.ld(2, x) for x in samples)


def _fields(raw):
    i = 0
    while i < len(raw):
        start = i
        k, i = wb.read_varint(raw, i)
        f, t = k >> 3, k & 7
        if t == 0:
            _, i = wb.read_varint(raw, i)
        elif t == 2:
            n, i = wb.read_varint(raw, i)
            i += n
        else:
            raise AssertionError(f"unexpected wire type {t}")
        yield f, start, i


def test_fastdelta_compaction():
    first, second = _compaction_inputs()
    dc = pprofcore.DeltaComputer(HEAP_T)
    dc.delta_bytes(first.to_bytes(compress=False), compress=False)
    out = dc.delta_bytes(second.to_bytes(compress=False), compress=False)
    d = pprofcore.loads(out)
    assert (len(d), len(d.mappings.id), len(d.locations.id), len(d.functions.id)) == (1, 1, 3, 3)
    assert len(out) < 3720  # fastdelta's bound: no unreferenced strings either
    used = set(d.functions.name.tolist()) | set(d.functions.filename.tolist())
    assert len(d.strings) <= len(used) + 16
    assert d.comments == ["hello", "world"]
    assert (d.default_sample_type, d.drop_frames, d.keep_frames) == ("inuse_objects", "drop 'em", "keep 'em")
    assert d.values.tolist() == [[42, 0, 0, 0]]
    assert any(d.strings[k] == "bytes" for k in d.labels.key.tolist())


@pytest.mark.parametrize(
    "seed", _cases(lambda: [(f.name[:12], f) for f in sorted((FD / "fuzz" / "FuzzDelta").iterdir())])
)
def test_fastdelta_fuzz_seed(seed):
    m = re.search(r'\[\]byte\("(.*)"\)', seed.read_text().split("\n", 1)[1], re.S)
    data = m.group(1).encode().decode("unicode_escape").encode("latin-1") if m else b""
    dc = pprofcore.DeltaComputer()
    for _ in range(2):
        try:
            dc.delta_bytes(data)
        except ValueError:  # DecodeError, ProfileError: a clean rejection
            pass


# ================================================================== pprofutils
PU = CONF / "felixge__pprofutils"


def _folded_counter(text, n_values=1):
    c = Counter()
    for ln in text.strip().splitlines():
        if ln.strip():
            parts = ln.rsplit(" ", n_values)
            c[(parts[0], tuple(int(x) for x in parts[1:]))] += 1
    return c


def _pu_tests(kind):
    return [(c["name"], c) for c in _json(PU / "derived" / "legacy_tests.json")[kind]]


@pytest.mark.parametrize("case", _cases(lambda: _pu_tests("protobuf_test.go")))
def test_pprofutils_protobuf_to_folded(case):
    got = pprofcore.load(PU / case["input"]).to_folded(sample_type=0, lines=case["line_numbers"])
    if case["line_numbers"]:  # pprofcore writes "name file:line", pprofutils "name:line"
        got = "\n".join(
            ";".join(re.sub(r"^(.*) \S*:(\d+)$", r"\1:\2", fr) for fr in ln.rsplit(" ", 1)[0].split(";"))
            + " "
            + ln.rsplit(" ", 1)[1]
            for ln in got.strip().splitlines()
        )
    assert _folded_counter(got) == _folded_counter(case["want"])


@pytest.mark.parametrize("case", _cases(lambda: _pu_tests("text_test.go")))
def test_pprofutils_folded_round_trip(case):
    p = pprofcore.from_folded(case["text"])
    types, rows = _folded_types_rows(case["text"], case["header"])
    assert p.sample_types == types
    for i in range(len(types)):  # one folded text per value column
        want = Counter((stack, (vals[i],)) for stack, vals in rows)
        assert _folded_counter(p.to_folded(sample_type=i)) == want


def _folded_types_rows(text, header):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    types = [tuple(t.split("/")) for t in lines.pop(0).split()] if header else [("samples", "count")]
    return types, [(ln.rsplit(" ", len(types))[0], [int(x) for x in ln.rsplit(" ", len(types))[1:]]) for ln in lines]


def _pprofutils_profile(text, header):
    """A profile as pprofutils' Text.Convert builds it: one location and function per frame."""
    types, rows = _folded_types_rows(text, header)
    d = {
        "sample_types": [list(t) for t in types],
        "functions": [],
        "locations": [],
        "samples": [],
        "mappings": [
            {
                "id": 1,
                "start": 0,
                "limit": 0,
                "offset": 0,
                "file": "",
                "build_id": "",
                "has_functions": True,
                "has_filenames": False,
                "has_line_numbers": False,
                "has_inline_frames": False,
            }
        ],
    }
    for stack, vals in rows:
        locs = []
        for frame in reversed(stack.split(";")):
            i = len(d["functions"]) + 1
            d["functions"].append({"id": i, "name": frame, "system_name": "", "filename": "", "start_line": 0})
            d["locations"].append(
                {"id": i, "mapping_id": 1, "address": 0, "is_folded": False, "lines": [{"function_id": i, "line": 0}]}
            )
            locs.append(i)
        d["samples"].append({"locations": locs, "values": vals})
    return pprofcore.loads(wb.profile_from_json(d))


@pytest.mark.parametrize("case", _cases(lambda: _pu_tests("delta_test.go")))
def test_pprofutils_delta(case):
    a, b = _pprofutils_profile(case["a"], case["header"]), _pprofutils_profile(case["b"], case["header"])
    dc = pprofcore.DeltaComputer([t for t, _ in case["sample_types"]])
    dc.delta(a)
    d = dc.delta(b)
    cols = [
        dict((ln.rsplit(" ", 1)[0], int(ln.rsplit(" ", 1)[1])) for ln in d.to_folded(sample_type=i).splitlines())
        for i in range(len(d.sample_types))
    ]
    got = Counter()
    for stack in dict.fromkeys(k for c in cols for k in c):
        vals = tuple(c.get(stack, 0) for c in cols)
        if any(vals):
            got[(stack, vals)] += 1
    want_text = case["want"].split("\n", 1)[1] if case["header"] else case["want"]
    assert got == _folded_counter(want_text, len(d.sample_types))


def test_pprofutils_folded_examples():
    p = pprofcore.load(PU / "examples/folded.out.pprof")
    assert _folded_counter(p.to_folded(sample_type=0)) == _folded_counter((PU / "examples/folded.out.txt").read_text())
    q = pprofcore.from_folded((PU / "examples/folded.in.txt").read_text())
    want = pprofcore.load(PU / "examples/folded.in.pprof")
    assert _folded_counter(q.to_folded()) == _folded_counter(want.to_folded(sample_type=0))
    assert q.sample_types == want.sample_types


# ========================================================== pyroscope and parca
PYRO = CONF / "grafana__pyroscope/pkg/pprof/testdata/go.cpu.labels.pprof"


def test_pyroscope_merge_single_self_and_halves():
    p = pprofcore.load(PYRO)
    assert value_multiset(pprofcore.merge([p])) == value_multiset(p)
    m = pprofcore.merge([p, p])
    assert value_multiset(m) == {k: tuple(2 * x for x in v) for k, v in value_multiset(p).items()}
    assert m.duration_nanos == 2 * p.duration_nanos
    half = len(p) // 2
    mask = np.zeros(len(p), dtype=bool)
    mask[:half] = True
    a = pprofcore.loads(_select(p, mask))
    b = pprofcore.loads(_select(p, ~mask))
    mm = pprofcore.merge([a, b])
    assert value_multiset(mm) == value_multiset(p)
    assert mm.duration_nanos == 2 * p.duration_nanos


def _select(p, mask):
    """p's bytes with only the samples selected by ``mask`` (other fields as they are)."""
    raw = p.to_bytes(compress=False)
    out, i = [], 0
    for f, a, b in _fields(raw):
        if f == 2:
            if mask[i]:
                out.append(raw[a:b])
            i += 1
        else:
            out.append(raw[a:b])
    return b"".join(out)


PARCA = CONF / "parca-dev__parca/pkg/query/testdata/alloc_objects.pb.gz"


def test_parca_top_table():
    """parca's TestGenerateTopTable / TestGenerateTable: total and one function's flat and cum."""
    p = pprofcore.load(PARCA)
    assert p.total(0) == 310797348
    t = p.top(sample_type=0, nodefraction=0).to_pandas()
    r = t[t["name"] == "encoding/json.Unmarshal"]
    assert [(int(a), int(b)) for a, b in zip(r["flat"], r["cum"])] == [(1251322, 3135531)]


def test_parca_aggregate_flat_by_address():
    locs = [{"id": i, "mapping_id": 0, "address": i, "is_folded": False, "lines": []} for i in (1, 2, 3, 4)]
    p = pprofcore.loads(
        wb.profile_from_json(
            {
                "sample_types": [["samples", "count"]],
                "locations": locs,
                "samples": [{"locations": [1, x], "values": [1]} for x in (2, 3, 4)],
            }
        )
    )
    t = p.top(by="addresses", nodefraction=0)
    got = [(n.split()[0], int(f), int(c)) for n, f, c in zip(t["name"], t["flat"], t["cum"])]
    assert got == [
        ("0000000000000001", 3, 3),
        ("0000000000000002", 0, 1),
        ("0000000000000003", 0, 1),
        ("0000000000000004", 0, 1),
    ]
