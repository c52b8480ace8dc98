"""async-profiler's text output (``asprof`` without ``-o``, or ``-o
summary,traces,flat``) read by load: traces as samples, FlameGraph's frame
annotations, the flat table when there are no traces, the summary as
comments. async-profiler is not a Debian or PyPI package, so the fixture is
written to its documented format, and the property test renders random
traces the way async-profiler prints them and checks them against the same
stacks read as collapsed text."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pprof_oracle import compare_top
from testenv import DATA, requires_go

import pprofcore
from pprofcore import DecodeError
from pprofcore._from_collapsed import read_collapsed_bytes
from pprofcore._summary import producer_hints

FIXTURE = DATA / "producers" / "small.async-profiler.txt"


def test_traces_are_samples_with_their_frames():
    p = pprofcore.load(FIXTURE)
    assert p.sample_types == [("samples", "count"), ("cpu", "nanoseconds")]
    assert set(p.to_folded(sample_type=0).splitlines()) == {
        "com.example.Main.main;com.example.Search.find;java.lang.String.indexOf;java.lang.StringLatin1.indexOf 60",
        "com.example.Main.main;java.io.FileInputStream.readBytes;read;ksys_read;copy_user_enhanced_fast_string 30",
        "com.example.Main.main;com.example.Search.find 5",
    }
    assert p.total() == 950_000_000
    assert p.comments[0] == "async-profiler text output, event cpu"
    assert "Total samples: 1000" in p.comments and "GC_active: 8 (0.80%)" in p.comments
    assert "async-profiler printed 95 of the 1000 samples (its traces=N or flat=N limit)" in p.comments
    flat = {r["name"]: r["flat"] for r in p.top(inline=False).rows()}
    assert flat["com.example.Search.find"] == 650_000_000  # the inlined String.indexOf folded in
    assert producer_hints(p)[0] == "async-profiler text output (Java)"


@requires_go
def test_reports_as_pprof(pprof, tmp_path):
    p = pprofcore.load(FIXTURE)
    path = tmp_path / "ap.pb.gz"
    p.save(path)
    for ti in (0, 1):
        compare_top(pprof, path, p, ti)
    compare_top(pprof, path, p, 1, inline=False)


def test_gzip_and_lines_before_the_title():
    data = b"Profiling for 30 seconds\nDone\n" + FIXTURE.read_bytes().split(b"\n", 1)[1]
    p = pprofcore.loads(gzip.compress(data))
    assert p.sample_types[1] == ("time", "nanoseconds")  # no "Started [cpu]" line: the event is unknown
    assert p.total(0) == 95


def test_flat_table_alone_gives_one_frame_samples():
    text = (
        b"--- Execution profile ---\nTotal samples       : 10\n\n"
        b"       bytes  percent  samples  top\n  ----------  -------  -------  ---\n"
        b"        4096   80.00%        8  byte[]\n          64   20.00%        2  java.lang.String\n"
    )
    p = pprofcore.loads(text)
    assert p.sample_types == [("samples", "count"), ("space", "bytes")]
    assert set(p.to_folded().splitlines()) == {"byte[] 4096", "java.lang.String 64"}


def test_units():
    calls = b"--- Execution profile ---\n\n--- 7 calls (100.00%), 7 samples\n  [ 0] a\n  [ 1] main\n"
    assert pprofcore.loads(calls).sample_types[1] == ("calls", "count")


@pytest.mark.parametrize(
    "body,says",
    [
        (b"--- 5 ns (1.00%), 5 samples\n  [ 0] a\n  [ 2] b\n", "line 4"),
        (b"--- 5 ns (1.00%), 5 samples\n  [ 0] a\n\n--- 5 bytes (1.00%), 1 sample\n  [ 0] b\n", "line 5"),
        (b"--- 5 ns (1.00%), 5 samples\n  [ 0] a\nsomething else\n", "line 4"),
        (b"--- 99999999999999999999 ns (1.00%), 5 samples\n  [ 0] a\n", "line 2"),
        (b"Total samples : 3\n", "line 1: no traces"),
    ],
    ids=["frame-skipped", "units-mixed", "junk", "overflow", "empty"],
)
def test_bad_input_names_the_line(body, says):
    with pytest.raises(DecodeError, match="async-profiler text") as e:
        pprofcore.loads(b"--- Execution profile ---\n" + body)
    assert says in str(e.value)


FRAME = st.text(alphabet="abcXYZ./$<>_[]ijk0", min_size=1, max_size=12).filter(lambda f: ";" not in f)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(FRAME, min_size=1, max_size=6), st.integers(1, 10**12)), min_size=1, max_size=8))
def test_traces_read_as_the_same_stacks_in_collapsed_text(traces):
    """Random traces printed as async-profiler prints them read as the same
    profile as their stacks in collapsed text (annotations included)."""
    blocks = []
    for frames, value in traces:
        lines = [f"--- {value} ns (1.00%), 1 sample"] + [f"  [{i:2d}] {f}" for i, f in enumerate(reversed(frames))]
        blocks.append("\n".join(lines))
    text = "--- Execution profile ---\nTotal samples       : 1\n\n" + "\n\n".join(blocks) + "\n"
    ours = pprofcore.loads(text.encode())
    collapsed = "".join(f"{';'.join(frames)} {value}\n" for frames, value in traces)
    same = read_collapsed_bytes(collapsed.encode())  # load needs a ';' to tell collapsed text
    assert ours.to_folded(sample_type=1) == same.to_folded()
    assert list(ours.top(sample_type=1, inline=False).rows()) == list(same.top(inline=False).rows())
