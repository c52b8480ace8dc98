"""Collapsed stacks read by `load` (issue 32, item 4): plain folded text,
py-spy's `--format raw` (frames `name (file:line)`) and austin's output with
its `# key: value` header. py-spy (the test extra) records a small program
where it can ptrace; austin-dist's binary needs glibc 2.38, so austin's output
is a fixture under tests/data/producers/ written to its documented format, and
pprofcore's own folded writer is the producer of the round trip."""

from __future__ import annotations

import re

import pytest
from pprof_oracle import compare_top
from pyspy import needs_pyspy, record
from testenv import DATA as DATA_ROOT
from testenv import requires_go

import pprofcore
from pprofcore import DecodeError

DATA = DATA_ROOT / "producers"


def test_pyspy_raw_splits_name_file_and_line():
    p = pprofcore.load(DATA / "pyspy.raw.txt")
    assert p.sample_types == [("samples", "count")]
    assert p.total() == 11
    assert sorted(p.to_folded().splitlines()) == ["<module>;main 1", "<module>;main;idle 3", "<module>;main;work 7"]
    top = p.top(by="lines", nodefraction=0).to_pandas()
    names = set(top["name"])
    assert any("work app.py:2" in n for n in names), names
    assert any("main app.py:6" in n for n in names), names


def test_austin_header_mode_and_labels():
    p = pprofcore.load(DATA / "austin.txt")
    assert p.sample_types == [("wall", "nanoseconds")]
    assert p.total() == 1_250_000
    assert p.period == 100_000 and p.duration_nanos == 1_250_000
    df = p.to_pandas("samples")
    assert list(df["pid"]) == [4242] * 3
    assert list(df["thread"]) == ["0:4243", "0:4243", "0:4250"]
    want = ["<module>;main;idle 300000", "<module>;main;work 700000", "run 250000"]
    assert sorted(p.to_folded().splitlines()) == want
    assert "austin mode: wall" in p.comments


def test_austin_full_mode_gives_three_types():
    text = b"# austin: 3.6.0\n# mode: full\n# interval: 100\n\nP1;T0:1;a.py:f:1;a.py:g:2 10,512,-128\n"
    p = pprofcore.loads(text)
    assert p.sample_types == [("wall", "nanoseconds"), ("alloc", "bytes"), ("dealloc", "bytes")]
    assert [p.total(i) for i in range(3)] == [10_000, 512, -128]


def test_folded_round_trip_through_load(tmp_path):
    src = pprofcore.load(pprofcore.example_path())
    path = tmp_path / "stacks.txt"
    path.write_text(src.to_folded())
    back = pprofcore.load(path)
    assert back.total() == src.total(src.sample_types.index(src.sample_types[-1]))
    assert sorted(back.to_folded().splitlines()) == sorted(src.to_folded().splitlines())


def test_cli_top_reads_collapsed(capsys):
    from pprofcore.cli import main

    assert main(["-top", str(DATA / "pyspy.raw.txt")]) == 0
    assert "work" in capsys.readouterr().out


PYSPY_SCRIPT = """
import time
def leaf(n):
    return sum(i * i % 7 for i in range(n))
def work():
    return leaf(20000)
end = time.time() + 0.6
while time.time() < end:
    work()
"""


@needs_pyspy
def test_real_pyspy_raw(tmp_path):
    """py-spy itself is the oracle: the total is the sample count it reports,
    and the sum of its lines (those without Python frames included)."""
    out = tmp_path / "raw.txt"
    r = record(tmp_path, PYSPY_SCRIPT, "raw", out)
    p = pprofcore.load(out)
    reported = re.search(r"Samples: (\d+)", r.stdout + r.stderr)
    assert p.total() == sum(int(line.rsplit(" ", 1)[1]) for line in out.read_text().splitlines() if line)
    assert reported and p.total() == int(reported.group(1))
    assert "leaf" in p.top(n=5).to_pandas()["name"].tolist()


@pytest.mark.parametrize(
    "text, says",
    [
        (b"a;b 1\n" * 24 + b"not a sample line\n", "line 25: expected 'frame;frame;... count'"),
        (b"a;b 1\na;c 2,3\n", "line 2: 2 values where earlier lines have 1"),
        (b"a;b 1\na;c 99999999999999999999\n", "line 2: value outside the int64 range"),
    ],
    ids=["junk", "width", "overflow"],
)
def test_bad_lines_name_the_line(text, says):
    """Detection reads the first 20 lines; a bad line after them is named."""
    with pytest.raises(DecodeError, match="collapsed stacks") as e:
        pprofcore.loads(text)
    assert says in str(e.value)


def test_python_and_native_frames_keep_their_names():
    """A frame in a Python file gets no system name, so pprof's demangler
    heuristics (which cut ``<...>`` as C++ template arguments) leave
    ``<module>`` whole; a frame without a source file keeps its name as
    its system name, and C++'s templates are simplified in reports as pprof
    does."""
    p = pprofcore.load(DATA / "austin.txt")
    s, f = p.strings, p.functions
    system = {s[n]: s[m] for n, m in zip(f.name, f.system_name)}
    assert system["<module>"] == "" and system["main"] == ""
    top = str(p.top())
    assert "<module>" in top and "<unknown>" not in top
    native = pprofcore.loads(b"main;std::vector<int>::push_back 10\n")
    s, f = native.strings, native.functions
    assert {s[n] for n in f.name} == {s[m] for m in f.system_name}  # pprof's rules for C++ names


ANNOTATED = (
    b"start_thread;JavaThread::run;java/lang/Thread.run_[j];com/example/App.work_[j];"
    b"java/lang/String.indexOf_[i];java/lang/StringLatin1.indexOf_[i] 30\n"
    b"start_thread;JavaThread::run;java/lang/Thread.run_[j];com/example/App.work_[0] 5\n"
    b"start_thread;JavaThread::run;java/lang/Thread.run_[j];com/example/App.work_[1];write_[k];ksys_write_[k] 7\n"
)


def _lines_of(p):
    """Each location's frames as names, innermost first."""
    names = [p.strings[n] for n in p.functions.name]
    fn, offsets = p.lines.function, p.locations.line_offsets
    return {tuple(names[fn[k]] for k in range(offsets[i], offsets[i + 1])) for i in range(len(offsets) - 1)}


def test_annotated_frames_name_the_function_and_inline_into_their_caller():
    """async-profiler's and FlameGraph's kind suffixes leave the function's
    name; inlined frames (``_[i]``) become inline lines of their caller's
    location; the annotated text stays as the system name."""
    p = pprofcore.loads(ANNOTATED)
    locations = _lines_of(p)
    assert ("java/lang/StringLatin1.indexOf", "java/lang/String.indexOf", "com/example/App.work") in locations
    assert ("ksys_write",) in locations and ("com/example/App.work",) in locations
    s, f = p.strings, p.functions
    system = {s[m] for m in f.system_name}
    assert {"com/example/App.work_[j]", "com/example/App.work_[0]", "com/example/App.work_[1]"} <= system
    assert not any(s[n].endswith("]") for n in f.name)
    flat = {r["name"]: r["flat"] for r in p.top(inline=False).rows()}
    assert flat["com/example/App.work"] == 35 and flat["ksys_write"] == 7
    assert p.total() == 42


@requires_go
def test_annotated_frames_report_as_pprof(pprof, tmp_path):
    """pprof's -top, with and without inlined frames, of the encoded profile."""
    p = pprofcore.loads(ANNOTATED)
    path = tmp_path / "annotated.pb.gz"
    p.save(path)
    compare_top(pprof, path, p, 0)
    compare_top(pprof, path, p, 0, inline=False)
    compare_top(pprof, path, p, 0, by="lines", inline=False)


@pytest.mark.parametrize(
    "text,folded",
    [
        (b"a;b_[2] 1\n", "a;b_[2] 1\n"),  # not a kind FlameGraph writes
        (b"a;b_[j]x 1\n", "a;b_[j]x 1\n"),  # not at the end
        (b"a_[i];b 1\n", "a;b 1\n"),  # inlined into nothing: a frame of its own
    ],
    ids=["other-digit", "inside", "inlined-root"],
)
def test_text_that_is_not_an_annotation_stays(text, folded):
    assert pprofcore.loads(text).to_folded() == folded
