"""pprof's output flags on pprofcore's command line, compared with
``go tool pprof``: ``-raw``, ``-proto``, ``-topproto`` on stdout, ``-output``
for text and binary reports, ``-svg``/``-png``/``-pdf`` through Graphviz,
``-trim=false``, the legacy sample-type flags, flags pprof accepts and ignores,
and pprof's refusal of a flag it does not define."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from xml.etree import ElementTree

import pytest
from cli_run import CPU, HEAP, pprofcore_dot, run_cli
from testenv import go_pprof, requires_go

import pprofcore

needs_graphviz = pytest.mark.skipif(
    shutil.which("dot") is None, reason="needs Graphviz's dot (apt-get install graphviz)"
)


def ours(*argv: str) -> bytes:
    rc, out, err = run_cli(*argv)
    assert rc == 0, err
    return out


@requires_go
@pytest.mark.parametrize("flags", [[], ["-focus=main", "-tagignore=acme"]], ids=["plain", "filtered"])
@pytest.mark.parametrize("path", [CPU, HEAP], ids=["cpu", "heap"])
def test_raw_matches_go(path, flags):
    assert ours("-raw", *flags, path).decode() == go_pprof("-raw", *flags, path)


@requires_go
def test_proto_is_the_profile_pprof_writes(tmp_path):
    mine, theirs = tmp_path / "mine.pb.gz", tmp_path / "theirs.pb.gz"
    mine.write_bytes(ours("-proto", "-focus=main", CPU))
    go_pprof("-proto", "-focus=main", f"-output={theirs}", CPU)
    assert mine.read_bytes()[:2] == b"\x1f\x8b"  # gzipped, as pprof's
    assert go_pprof("-raw", str(mine)) == go_pprof("-raw", str(theirs))


@requires_go
def test_topproto_on_stdout_and_output(tmp_path):
    theirs = tmp_path / "theirs.pb.gz"
    go_pprof("-topproto", f"-output={theirs}", CPU)
    stdout = tmp_path / "stdout.pb.gz"
    stdout.write_bytes(ours("-topproto", CPU))
    rc, out, err = run_cli("-topproto", f"-output={tmp_path / 'file.pb.gz'}", CPU)
    assert rc == 0 and out == b"" and err == f"Generating report in {tmp_path / 'file.pb.gz'}\n"
    want = go_pprof("-raw", str(theirs))
    assert go_pprof("-raw", str(stdout)) == want
    assert go_pprof("-raw", str(tmp_path / "file.pb.gz")) == want


@requires_go
@pytest.mark.parametrize("report", ["-top", "-tree", "-traces", "-tags", "-dot", "-raw", "-callgrind"])
def test_output_file_holds_the_report(tmp_path, report):
    target = tmp_path / "report.out"
    rc, out, err = run_cli(report, f"-output={target}", HEAP)
    assert rc == 0 and out == b"", err
    assert err == f"Generating report in {target}\n"
    assert target.read_bytes() == ours(report, HEAP)
    if report != "-tags":  # Debian's 2021 pprof writes -tags in an older layout (see docs/conformance.md)
        assert target.read_text() == go_pprof(report, HEAP)


def test_failed_report_writes_no_file(tmp_path):
    target = tmp_path / "never.txt"
    rc, _, err = run_cli("-top", "-sample_index=no_such_type", f"-output={target}", CPU)
    assert rc != 0 and "Generating report" not in err
    assert not target.exists()


def _no_scripts(svg: str) -> str:
    return re.sub(r"<script.*?</script>", "", svg, flags=re.S)


@requires_go
@needs_graphviz
@pytest.mark.parametrize("flags", [["-nodecount=15"], ["-mean", "-nodecount=15"]], ids=["sums", "mean"])
def test_svg_is_pprofs_drawing(flags):
    want = go_pprof("-svg", *flags, CPU)
    got = ours("-svg", *flags, CPU).decode()
    # pprof's pan/zoom script is its own; everything else is the same bytes
    assert _no_scripts(got) == _no_scripts(want)
    assert '<g id="viewport" transform="scale(0.5,0.5) translate(0,0)">' in got
    assert "<script" in got
    ElementTree.fromstring(got.encode())  # well-formed, script included


@needs_graphviz
@pytest.mark.parametrize("fmt,magic", [("png", b"\x89PNG"), ("pdf", b"%PDF"), ("gif", b"GIF8"), ("ps", b"%!PS")])
def test_binary_graph_formats(tmp_path, fmt, magic):
    assert ours(f"-{fmt}", "-nodecount=5", HEAP).startswith(magic)
    target = tmp_path / f"g.{fmt}"
    rc, out, err = run_cli(f"-{fmt}", "-nodecount=5", f"-output={target}", HEAP)
    assert rc == 0 and out == b"" and target.read_bytes().startswith(magic)


def test_graph_without_graphviz_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` there
    rc, out, err = run_cli("-svg", HEAP)
    assert rc != 0 and out == b""
    assert "Is Graphviz installed?" in err and "apt-get install graphviz" in err
    # the DOT text needs no Graphviz
    assert pprofcore_dot(HEAP).startswith('digraph "')


@requires_go
@pytest.mark.parametrize(
    "flags",
    [
        ["-top", "-trim=false", "-nodecount=5"],
        ["-top", "-inuse_objects"],
        ["-top", "-alloc_space", "-nodecount=8"],
        ["-top", "-symbolize=none", "-intel_syntax", "-call_tree", "-nodecount=6"],
        ["-tree", "-drop_negative", "-nodecount=4"],
        ["-top", "-trim=0", "-nodecount=3", "-nodefraction=0.5"],
    ],
    ids=lambda f: " ".join(f),
)
def test_accepted_flags_match_go(flags):
    assert ours(*flags, HEAP).decode() == go_pprof(*flags, HEAP)


@requires_go
def test_undefined_flag_fails_as_pprof_does():
    env = dict(os.environ, HOME=os.environ.get("HOME", "/tmp"))
    go = subprocess.run(["go", "tool", "pprof", "-bogus_flag", CPU], capture_output=True, text=True, env=env)
    rc, out, err = run_cli("-bogus_flag", CPU)
    assert (rc, out.decode(), err) == (go.returncode, go.stdout, go.stderr)
    assert err.startswith("flag provided but not defined: -bogus_flag\nusage:\n")


@pytest.mark.parametrize("flag", ["-web", "-eog", "-evince", "-gv", "-kcachegrind", "-buildid=abc"])
def test_viewers_and_buildid_are_refused_with_a_way_round(flag):
    with pytest.raises(SystemExit, match=r"pprofcore: -(web|eog|evince|gv|kcachegrind|buildid)"):
        run_cli("-top", flag, CPU)


def test_zero_divisor_is_refused():
    rc, _, err = run_cli("-dot", "-divide_by=0", HEAP)
    assert rc != 0 and "zero divisor specified" in err


def test_divide_by_scales_the_dot_values():
    plain = pprofcore_dot("-nodecount=3", HEAP)
    divided = pprofcore_dot("-nodecount=3", "-divide_by=1024", HEAP)
    assert plain != divided
    total = pprofcore.load(HEAP).total()
    assert "Total" not in plain or str(total) not in divided


@pytest.mark.parametrize("report", ["-proto", "-callgrind", "-topproto"])
def test_divide_by_is_refused_where_pprof_means_more(report):
    rc, out, err = run_cli(report, "-divide_by=2", HEAP)
    assert rc != 0 and out == b"" and "-divide_by is not supported" in err


@requires_go
@needs_graphviz
def test_shell_dot_and_svg_are_pprofs(tmp_path):
    import sys

    from testenv import pprofcore_env

    session = "dot 10 main\ngranularity=lines\ndot 5\ncallgrind\nsvg 8\nquit\n"
    env = dict(os.environ, HOME=os.environ.get("HOME", "/tmp"))
    runs = {}
    for who, argv, e in (
        ("go", ["go", "tool", "pprof", CPU], env),
        ("mine", [sys.executable, "-m", "pprofcore", CPU], pprofcore_env()),
    ):
        (tmp_path / who).mkdir()
        r = subprocess.run(argv, input=session, capture_output=True, text=True, env=e, cwd=tmp_path / who)
        runs[who] = r
    assert runs["mine"].stdout == runs["go"].stdout
    # the shell writes the image to a new profileNNN.svg and says so, as pprof's
    assert (
        runs["mine"].stderr.splitlines()[-1]
        == runs["go"].stderr.splitlines()[-1]
        == ("Generating report in profile001.svg")
    )
    svg = {who: (tmp_path / who / "profile001.svg").read_text() for who in runs}
    assert _no_scripts(svg["mine"]) == _no_scripts(svg["go"])
    cg = {who: (tmp_path / who / "profile001.callgraph.out").read_text() for who in runs}
    assert cg["mine"] == cg["go"]
