"""The command line speaks pprof: pprof's flag spellings, several files merged
into one report, and the same text as `go tool pprof` (headers, "Active
filters", node trimming and "Dropped N nodes" lines included). Also the Python
side of the same behaviour: percentages of the unfiltered total unless
relative_percentages, and ReportTable equality by content."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import CORPUS, corpus_manifest, parses_with_pprof, requires_go

import pprofcore
from pprofcore.cli import _pprof_flags
from pprofcore.cli import main as cli_main

CPU = pprofcore.example_path("cpu")
HEAP = pprofcore.example_path("heap")
COMMANDS = ["top", "tree", "peek", "traces", "tags", "filter"]


# ------------------------------------------------------------ flag translation
@pytest.mark.parametrize(
    "argv,want",
    [
        (["-top", "-nodecount=10", "F"], ["top", "--nodecount=10", "F"]),
        (["top", "-nodecount=10", "F"], ["top", "--nodecount=10", "F"]),
        (["-text", "-lines", "-cum", "F"], ["top", "--granularity=lines", "--cum", "F"]),
        (["-peek=sort\\.", "-sample_index=alloc_space", "F"], ["peek", "sort\\.", "--sample_index=alloc_space", "F"]),
        (["-tree", "-show_from=main", "-prune_from", "x", "F"], ["tree", "--show-from=main", "--prune-from", "x", "F"]),
        (
            ["-tags", "-relative_percentages", "-tagfocus=k=v", "F"],
            ["tags", "--relative_percentages", "--tagfocus=k=v", "F"],
        ),
        (["-top", "-mean=false", "-cum=true", "-base=B", "F"], ["top", "--cum", "--base=B", "F"]),
        (["top", "--nodecount", "5", "-o", "F"], ["top", "--nodecount", "5", "-o", "F"]),  # ours pass through
        (["-top", "-bogus", "F"], ["top", "-bogus", "F"]),  # argparse will name it
    ],
)
def test_translate_pprof_flags(argv, want):
    assert _pprof_flags.translate(argv, COMMANDS) == want


def test_bad_boolean_and_bare_peek_are_errors():
    with pytest.raises(SystemExit):
        _pprof_flags.translate(["-top", "-cum=maybe", "F"], COMMANDS)
    with pytest.raises(SystemExit):
        _pprof_flags.translate(["-peek", "F"], COMMANDS)


def test_base_and_diff_base_together_is_an_error(capsys):
    assert cli_main(["-top", f"-base={CPU}", f"-diff_base={CPU}", CPU]) == 2
    assert "-base and -diff_base" in capsys.readouterr().err


# --------------------------------------------------------- against go tool pprof
def _ours(capsys, args):
    capsys.readouterr()
    assert cli_main(list(args)) == 0
    return capsys.readouterr().out


# Reports whose text must equal Debian's pprof (-tags is left out: its format
# changed upstream since that snapshot; see docs/conformance.md).
CASES = [
    ("-top", CPU),
    ("-top -nodecount=10", CPU),
    ("-text -lines -cum", CPU),
    ("-top -files", CPU),
    ("-top -addresses -noinlines", CPU),
    ("-top -focus=sort", CPU),
    ("-top -hide=runtime -nodefraction=0.05", CPU),
    ("-top -focus=sort -relative_percentages", CPU),
    ("-top -tagfocus=endpoint=/api/hash -nodecount=5", CPU),
    ("-top -show_from=main.handle -cum", CPU),
    ("-top -ignore=sort -unit=ms", CPU),
    ("-tree", CPU),
    ("-tree -cum -nodecount=5", CPU),
    ("-tree -focus=sort -lines", CPU),
    ("-tree -nodefraction=0.1 -edgefraction=0.05", CPU),
    ("-peek=sort\\.partition", CPU),
    ("-peek=sort -focus=pdqsort", CPU),
    ("-traces -tagfocus=endpoint=/api/render", CPU),
    ("-top -sample_index=alloc_space", HEAP),
    ("-top -sample_index=inuse_objects -mean", HEAP),
    ("-tree -sample_index=alloc_space -files", HEAP),
    ("-top", HEAP, HEAP),
    ("-comments -add_comment=hello", CPU),
    ("-callgrind", CPU),
    ("-callgrind -sample_index=alloc_space", HEAP),
    ("-callgrind -focus=sort", CPU),
    ("-traces -addresses -focus=sha256", CPU),
    (f"-top -base={HEAP}", HEAP),
    (f"-top -diff_base={CPU}", CPU),
]


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize(
    "case", [pytest.param(c, id=" ".join([c[0]] + [f.rsplit("/", 1)[-1] for f in c[1:]])) for c in CASES]
)
def test_cli_prints_what_pprof_prints(pprof, capsys, case):
    flags, files = case[0].split(), list(case[1:])
    want, err = pprof.run(*flags, *files)
    assert err is None, err
    assert _ours(capsys, flags + files).rstrip("\n") == want.rstrip("\n")


def _small_corpus(k=12, max_bytes=300_000):
    rows = [r for r in corpus_manifest() if parses_with_pprof(r) and int(r["uncompressed_bytes"]) <= max_bytes]
    return [pytest.param(r, id=r["file"]) for r in rows[::k]] or [
        pytest.param(None, marks=pytest.mark.skip(reason=f"corpus not found at {CORPUS}"), id="no-corpus")
    ]


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize("row", _small_corpus())
def test_default_trimming_matches_pprof_on_corpus(pprof, capsys, row):
    """pprof's defaults (nodefraction 0.005 for -top; nodecount 80, nodefraction
    0.005, edgefraction 0.001 for -tree), with its "Dropped"/"Showing top" lines."""
    path = str(CORPUS / row["file"])
    for flags in (["-top"], ["-tree"]):
        want, err = pprof.run(*flags, path)
        if err is not None:
            pytest.skip(f"pprof refused: {err}")
        # the helper runs pprof with -symbolize=none: a corpus file's mappings may name binaries here
        assert _ours(capsys, ["-symbolize=none", *flags, path]).rstrip("\n") == want.rstrip("\n"), flags


def _node_samples(p):
    """(values, function name, file, line, address) per sample of a -topproto profile."""
    out = []
    for i, vals in enumerate(p.values.tolist()):
        loc = int(p.stack_locations[p.stack_offsets[i]])
        ln = int(p.locations.line_offsets[loc])
        fn = int(p.lines.function[ln])
        out.append(
            (
                vals,
                p.strings[int(p.functions.name[fn])],
                p.strings[int(p.functions.filename[fn])],
                int(p.lines.line[ln]),
                int(p.locations.address[loc]),
            )
        )
    return out


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize(
    "flags",
    [
        ["-topproto"],
        ["-topproto", "-lines", "-cum"],
        ["-topproto", "-addresses"],
        ["-topproto", "-sample_index=alloc_space", "-files"],
        ["-topproto", "-nodecount=7"],  # pprof's topproto is trimmed as -top is
        ["-topproto", "-nodecount=3", "-cum", "-sample_index=alloc_space", "-lines"],
    ],
)
def test_topproto_matches_pprof(tmp_path, flags):
    from testenv import go_pprof

    src = HEAP if any("alloc" in f for f in flags) else CPU
    theirs, ours = tmp_path / "theirs.pb.gz", tmp_path / "ours.pb.gz"
    go_pprof(*flags, "-symbolize=none", f"-output={theirs}", src)
    assert cli_main([*flags, f"-output={ours}", src]) == 0
    a, b = pprofcore.load(ours), pprofcore.load(theirs)
    assert a.sample_types == b.sample_types
    assert (a.time_nanos, a.duration_nanos, a.period, a.period_type) == (
        b.time_nanos,
        b.duration_nanos,
        b.period,
        b.period_type,
    )
    assert _node_samples(a) == _node_samples(b)


# ------------------------------------------------- percentages and active filters
def test_filtered_profile_reports_against_the_unfiltered_total():
    p = pprofcore.load(CPU)
    q = p.filter(focus="sort", hide="runtime")
    full, left = p.top().meta["total"], q.top(relative_percentages=True).meta["total"]
    assert left < full
    t = q.top()
    assert t.meta["total"] == full
    i = t.header.index("Active filters:")
    assert t.header[i + 1 : i + 4] == ["   focus=sort", "   hide=runtime", t.header[i + 3]]
    assert t.header[i + 3].startswith("Showing nodes accounting for") and t.header[i + 3].endswith(
        f"of {pprofcore._units.scaled_label(full, 'nanoseconds', t.meta['unit'])} total"
    )
    assert "Active filters:" not in p.top().header
    # Chained filters keep the first profile's total and list every filter.
    r = q.ignore("partition")
    assert r.top().meta["total"] == full
    assert "   ignore=partition" in r.top().header
    # Other transforms start afresh.
    assert q.scale(2).top().meta["total"] == 2 * q.total(q.sample_type_index())


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_percent_base_property(data):
    p = pprofcore.load(CPU)
    names = sorted({p.strings[c] for c in p.functions.name.tolist()})
    picked = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
    rx = "|".join(re.escape(n) for n in picked)
    option = data.draw(st.sampled_from(["focus", "ignore", "hide", "show"]))
    q = p.filter(warn=False, **{option: rx})
    ti = p.sample_type_index()
    for report in (lambda x, **kw: x.top(**kw), lambda x, **kw: x.tree(**kw)):
        assert report(q).meta["total"] == p.top().meta["total"]
        assert report(q, relative_percentages=True).meta["total"] == pprofcore.loads(q.to_bytes()).top().meta["total"]
    shares = q.tags().to_pandas()
    if len(shares):
        np.testing.assert_allclose(shares["share"], np.abs(shares["total"]) / p.total(ti) * 100)


def test_add_comment_keeps_everything_else():
    p = pprofcore.load(HEAP)
    q = p.add_comment(["first", "second é"]).add_comment("third")
    assert q.comments == p.comments + ["first", "second é", "third"]
    tq, tp = q.top(), p.top()
    assert [h for h in tq.header if h not in ("first", "second é", "third")] == tp.header  # pprof lists comments
    assert tq["name"] == tp["name"] and len(q) == len(p)
    assert q.values.tolist() == p.values.tolist()


# ---------------------------------------------------------- ReportTable equality
def test_report_table_equality_is_by_content():
    p = pprofcore.load(CPU)
    assert p.top() == pprofcore.load(CPU).top()
    assert p.top(n=5) != p.top(n=6)
    assert p.top(sort="cum") != p.top()
    assert p.tags() == p.tags() and p.peek("sort") == p.peek("sort")
    assert p.top() != p.tags()
    assert (p.top() == "text") is False
    with pytest.raises(TypeError):
        hash(p.top())


# ------------------------------------- flags a report takes and does not act on
# pprof's flags are global: `go tool pprof -tags -lines -nodecount=5 FILE` runs,
# and these reports print what they print without them.
IGNORED_BY_REPORT = ["-lines", "-noinlines", "-mean", "-nodecount=3", "-nodefraction=0.5", "-edgefraction=0.5", "-cum"]


@pytest.mark.parametrize("report", ["-tags", "-comments"])
def test_reports_take_the_flags_pprof_ignores_with_them(report):
    from cli_run import run_cli

    plain = run_cli(report, CPU)
    assert plain[0] == 0
    assert run_cli(report, *IGNORED_BY_REPORT, CPU) == plain


@pytest.mark.parametrize("report", ["-list=sort", "-weblist=sort", "-disasm=sort"])
def test_listings_refuse_mean_by_name(report):
    from cli_run import run_cli

    rc, out, err = run_cli(report, "-mean", CPU)
    assert (rc, out) == (2, b"")
    assert f"-mean is not supported with {report.split('=')[0]}" in err
