"""Chrome traces (Trace Event JSON) holding V8 CPU profiles: a real trace
recorded by headless chromium (the producer) is read sample for sample as the
``.cpuprofile`` documents its ProfileChunk events spell (assembled here by
hand, read by the ``.cpuprofile`` reader: the oracle), with each profile's
pid, sampled thread and the trace's thread and process names as labels; the
array form, gzip, a chunk whose Profile event is missing, and bad input. Span
traces: exact small cases, clang's -ftime-trace against the union of each
thread's spans, and pprofcore's own export read back."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from chromium import CHROMIUM

import pprofcore
from pprofcore import DecodeError

PAGE = """<html><body><script>
function leaf(n){let s=0;for(let i=0;i<n;i++)s+=Math.sqrt(i);return s}
function mid(n){return leaf(n)+leaf(n/2)}
let t=Date.now(); let s=0; while(Date.now()-t<600){ s+=mid(20000); }
document.title='done'+s;
</script></body></html>"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    if CHROMIUM is None:
        pytest.skip("needs chromium (apt-get install chromium) to record a Chrome trace")
    tmp = tmp_path_factory.mktemp("trace")
    page, out = tmp / "page.html", tmp / "trace.json"
    page.write_text(PAGE)
    cmd = [
        CHROMIUM,
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp / 'profile'}",
        "--trace-startup=v8,disabled-by-default-v8.cpu_profiler",
        "--trace-startup-format=json",
        f"--trace-startup-file={out}",
        "--trace-startup-duration=3",
        "--virtual-time-budget=2500",
        "--dump-dom",
        page.as_uri(),
    ]
    subprocess.run(cmd, capture_output=True, timeout=120)
    if not out.exists() or b"ProfileChunk" not in out.read_bytes():
        pytest.skip("this chromium wrote no CPU profile chunks into its startup trace")
    return out


def _cpuprofiles(trace: dict) -> dict:
    """The oracle's assembly: per (pid, id), the .cpuprofile its chunks spell."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    docs, tids = {}, {}
    for e in events:
        if e.get("name") == "Profile":
            docs[(e["pid"], e["id"])] = {
                "nodes": [],
                "samples": [],
                "timeDeltas": [],
                "startTime": e["args"]["data"]["startTime"],
            }
            tids[(e["pid"], e["id"])] = e["tid"]
    for e in sorted((e for e in events if e.get("name") == "ProfileChunk"), key=lambda e: e["ts"]):
        d = docs[(e["pid"], e["id"])]
        cpu = e["args"]["data"].get("cpuProfile", {})
        d["nodes"] += cpu.get("nodes", [])
        d["samples"] += cpu.get("samples", [])
        d["timeDeltas"] += e["args"]["data"].get("timeDeltas", [])
    return {k: (d, tids[k]) for k, d in docs.items() if d["samples"]}


def _flat(p: pprofcore.Profile, **where) -> Counter:
    df = p.to_pandas("samples")
    for k, v in where.items():
        df = df[df[k] == v]
    return Counter({str(f): int(n) for f, n in df.groupby("leaf_function", observed=True)["samples"].sum().items()})


def test_real_trace_reads_as_its_cpuprofiles(recorded, tmp_path):
    trace = json.loads(recorded.read_text())
    p = pprofcore.load(recorded)
    assert p.sample_types == [("samples", "count"), ("wall", "nanoseconds")]
    oracle = _cpuprofiles(trace)
    assert oracle
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"}
    total = 0
    for i, ((pid, _), (doc, tid)) in enumerate(sorted(oracle.items())):
        path = tmp_path / f"p{i}.cpuprofile"
        path.write_text(json.dumps(doc))
        one = pprofcore.load(path)
        got = _flat(p, pid=pid, tid=tid)
        assert got == _flat(one), (pid, tid)
        df = p.to_pandas("samples")
        mine = df[(df["pid"] == pid) & (df["tid"] == tid)]
        assert set(mine["thread"].astype(str)) == {names[(pid, tid)]}
        assert (mine["timestamp_ns"].to_numpy() == one.to_pandas("samples")["timestamp_ns"].to_numpy()).all()
        total += len(doc["samples"])
    assert p.total("samples") == total
    assert "leaf" in _flat(p)


def test_array_form_and_gzip_read_the_same(recorded, tmp_path):
    trace = json.loads(recorded.read_text())
    want = pprofcore.load(recorded)
    arr = tmp_path / "array.json"
    arr.write_text(json.dumps(trace["traceEvents"]))
    gz = tmp_path / "trace.json.gz"
    gz.write_bytes(gzip.compress(recorded.read_bytes()))
    for path in (arr, gz):
        got = pprofcore.load(path)
        assert got.total("samples") == want.total("samples") and _flat(got) == _flat(want)


def _chunk(pid, tid, ts, nodes, samples, deltas, id_="0x1"):
    data = {"cpuProfile": {"nodes": nodes, "samples": samples}, "timeDeltas": deltas}
    return {"name": "ProfileChunk", "ph": "P", "pid": pid, "tid": tid, "ts": ts, "id": id_, "args": {"data": data}}


def _node(i, name, parent=None, line=0):
    url = "" if name == "(root)" else "app.js"
    n = {"id": i, "callFrame": {"functionName": name, "url": url, "lineNumber": line, "columnNumber": 0}}
    if parent is not None:
        n["parent"] = parent
    return n


SMALL = {
    "traceEvents": [
        {"name": "thread_name", "ph": "M", "pid": 7, "tid": 8, "args": {"name": "Main"}},
        {"name": "process_name", "ph": "M", "pid": 7, "tid": 0, "args": {"name": "Renderer"}},
        {
            "name": "Profile",
            "ph": "P",
            "pid": 7,
            "tid": 8,
            "ts": 100,
            "id": "0x1",
            "args": {"data": {"startTime": 100}},
        },
        # chunks out of order in the file: read by ts
        _chunk(7, 99, 300, [_node(4, "c", 2, 5)], [4, 2], [10, 10]),
        _chunk(7, 99, 200, [_node(1, "(root)"), _node(2, "a", 1, 1), _node(3, "b", 2, 2)], [2, 3, 3], [5, 5, 5]),
    ]
}


def test_small_trace_exactly():
    p = pprofcore.loads(json.dumps(SMALL).encode())
    df = p.to_pandas("samples")
    assert list(df["leaf_function"].astype(str)) == ["a", "b", "b", "c", "a"]
    assert list(df["timestamp_ns"]) == [105_000, 110_000, 115_000, 125_000, 135_000]
    assert list(df["wall"]) == [5_000, 5_000, 10_000, 10_000, 0]
    assert set(df["thread"].astype(str)) == {"Main"} and set(df["process"].astype(str)) == {"Renderer"}
    assert set(df["pid"]) == {7} and set(df["tid"]) == {8}  # the sampled thread, not the chunks' writer
    folded = p.to_folded(sample_type="samples")
    assert sorted(folded.strip().splitlines()) == ["a 2", "a;b 2", "a;c 1"]


def test_chunk_without_its_profile_event_still_reads():
    events = [e for e in SMALL["traceEvents"] if e["name"] != "Profile"]
    p = pprofcore.loads(json.dumps(events).encode())
    assert p.total("samples") == 5
    assert set(p.to_pandas("samples")["tid"]) == {99}  # only the chunks' thread is known


def test_trace_without_cpu_profile_names_the_category():
    doc = {"traceEvents": [{"name": "n", "ph": "C", "pid": 1, "tid": 1, "ts": 1, "args": {"v": 2}}]}
    with pytest.raises(DecodeError, match="no spans .*disabled-by-default-v8.cpu_profiler"):
        pprofcore.loads(json.dumps(doc).encode())
    doc = {"traceEvents": [{"name": "x", "ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 0}]}
    with pytest.raises(DecodeError, match="spans cover no time"):
        pprofcore.loads(json.dumps(doc).encode())


@pytest.mark.parametrize(
    "mutate, says",
    [
        (lambda d: d["traceEvents"][3]["args"]["data"].__setitem__("timeDeltas", [1]), "2 samples but 1 timeDeltas"),
        (lambda d: d["traceEvents"][3]["args"]["data"]["cpuProfile"].__setitem__("samples", [4, 77]), "node 77"),
        (lambda d: d["traceEvents"][2]["args"]["data"].__setitem__("startTime", "soon"), "startTime"),
        (lambda d: d.__setitem__("traceEvents", {"a": 1}), "must be a list"),
    ],
)
def test_bad_traces_raise_decode_error_naming_the_place(mutate, says):
    doc = json.loads(json.dumps(SMALL))
    mutate(doc)
    with pytest.raises(DecodeError, match="Chrome trace") as e:
        pprofcore.loads(json.dumps(doc).encode())
    assert says in str(e.value)


# ------------------------------------------------------------------ spans


def _x(name, ts, dur, tid=1, **args):
    e = {"name": name, "ph": "X", "pid": 1, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def _folded(p) -> dict:
    return dict(line.rsplit(" ", 1) for line in p.to_folded().strip().splitlines())


def test_spans_read_as_wall_time_of_the_open_spans():
    events = [
        _x("main", 0, 100),
        _x("parse", 10, 30),  # inside main
        _x("lex", 10, 30),  # same start and length as parse, written after it: its child
        _x("emit", 60, 20, detail="out.o"),
        {"name": "io", "ph": "B", "pid": 1, "tid": 2, "ts": 5},
        {"name": "read", "ph": "B", "pid": 1, "tid": 2, "ts": 7},
        {"name": "read", "ph": "E", "pid": 1, "tid": 2, "ts": 9},
        {"name": "io", "ph": "E", "pid": 1, "tid": 2, "ts": 15},
        {"name": "stray", "ph": "E", "pid": 1, "tid": 2, "ts": 20},  # no B: ignored
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "io-thread"}},
        {"name": "counter", "ph": "C", "pid": 1, "tid": 1, "ts": 3, "args": {"v": 1}},  # not a span
    ]
    p = pprofcore.loads(json.dumps({"traceEvents": events}).encode())
    assert p.sample_types == [("wall", "nanoseconds")]
    assert _folded(p) == {
        "main": str(50_000),
        "main;parse;lex": str(30_000),
        "main;emit (out.o)": str(20_000),
        "io": str(8_000),
        "io;read": str(2_000),
    }
    df = p.to_pandas("samples")
    assert set(df[df["tid"] == 2]["thread"].astype(str)) == {"io-thread"}
    assert df["timestamp_ns"].min() == 0 and p.duration_nanos == 100_000


def test_overlapping_spans_close_what_they_enclose():
    # "b" starts inside "a" but ends after it: a's end closes b too (as the viewers nest them).
    p = pprofcore.loads(json.dumps([_x("a", 0, 10), _x("b", 5, 10)]).encode())
    assert _folded(p) == {"a": "5000", "a;b": "5000"}


def test_pprofcore_chrome_trace_export_reads_back():
    """A profile written by to_chrome_trace reads back as the time between
    each sample and the next on its stack (the last one lasting the tail the
    export gives it: a hundredth of the span)."""
    src = pprofcore.loads(json.dumps(SMALL).encode())
    back = pprofcore.loads(json.dumps(src.to_chrome_trace()).encode())
    # SMALL's ticks: a, b, b, c, a at 0, 5, 10, 20, 30 us after the first
    assert _folded(back) == {"a": str(5_000 + 300), "a;b": str(15_000), "a;c": str(10_000)}


def test_clang_time_trace_lanes_cover_their_spans(tmp_path):
    clang = shutil.which("clang++")
    if clang is None:
        pytest.skip("needs clang++ (apt-get install clang) to write a -ftime-trace")
    src = tmp_path / "t.cpp"
    src.write_text(
        "#include <map>\n#include <vector>\nint main(){std::map<int,std::vector<int>> m; return m.size();}\n"
    )
    subprocess.run([clang, "-ftime-trace", "-c", str(src), "-o", str(tmp_path / "t.o")], check=True, cwd=tmp_path)
    trace_path = tmp_path / "t.json"
    events = json.loads(trace_path.read_text())["traceEvents"]
    p = pprofcore.load(trace_path)
    df = p.to_pandas("samples")
    for tid in {e["tid"] for e in events if e["ph"] == "X"}:
        assert int(df[df["tid"] == tid]["wall"].sum()) == _union_ns(events, tid), tid
    assert any(str(f).startswith("Source (") for f in df["leaf_function"])


def _union_ns(events, tid) -> int:
    """The measure of the union of a thread's X spans, in nanoseconds (computed independently)."""
    spans = sorted(
        (round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000))
        for e in events
        if e["ph"] == "X" and e["tid"] == tid
    )
    covered, reach = 0, None
    for a, b in spans:
        if reach is None or a > reach:
            covered += b - a
            reach = b
        elif b > reach:
            covered += b - reach
            reach = b
    return covered


VIZ_SCRIPT = """
import threading
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def mid():
    return leaf(3000) + leaf(1000)
def work():
    for _ in range(200):
        mid()
th = threading.Thread(target=work, name="worker")
th.start()
work()
th.join()
"""


def test_viztracer_trace_reads_with_functions_files_and_lines(tmp_path):
    pytest.importorskip("viztracer", reason="needs viztracer (pip install viztracer)")
    script, out = tmp_path / "work.py", tmp_path / "trace.json"
    script.write_text(VIZ_SCRIPT)
    cmd = [sys.executable, "-m", "viztracer", "--quiet", "-o", str(out), str(script)]
    subprocess.run(cmd, check=True, capture_output=True, cwd=tmp_path, timeout=120)
    events = json.loads(out.read_text())["traceEvents"]
    p = pprofcore.load(out)
    df = p.to_pandas("samples")
    tids = {e["tid"] for e in events if e["ph"] == "X"}
    assert len(tids) == 2 and "worker" in set(df["thread"].astype(str))
    for tid in tids:  # viztracer's times are fractional microseconds: a nanosecond of rounding per span
        spans = sum(1 for e in events if e["ph"] == "X" and e["tid"] == tid)
        assert abs(int(df[df["tid"] == tid]["wall"].sum()) - _union_ns(events, tid)) <= 2 * spans, tid
    # viztracer names a span "leaf (path:line)": function, file and line apart
    fn = p.functions
    names = [p.strings[i] for i in fn["name"]]
    leaf = names.index("leaf")
    assert p.strings[fn["filename"][leaf]] == str(script)
    assert "leaf" in set(df["leaf_function"].astype(str))
