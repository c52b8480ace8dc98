"""Exports for timeline viewers: the Chrome trace event format
(Profile.to_chrome_trace) and the Firefox Profiler's processed format
(Profile.to_firefox_profiler). Each is checked by a structural validator
written from the format's public documentation (Google's "Trace Event Format"
document; the profiler's docs-developer/processed-profile-format.md and
src/types/profile.ts at format version 58), and summed back: the events' or
samples' weights per function give Profile.top()'s flat and cum of the timed
samples. Profiles without timestamps are refused."""

from __future__ import annotations

import gzip
import json
from collections import defaultdict

import numpy as np
import pytest
from timedprofile import BASE, timed_profile, top_of

import pprofcore

# ------------------------------------------------------------------ Chrome trace
PHASES = set("BEXIiCbneSTpFsftPONDMRc(),")
# Times are float microseconds: an event ending where the next begins may overlap it by a rounding.
EPS = 1e-3


def _end(e: dict) -> float:
    return e["ts"] + e["dur"]


def _inside(e: dict, parent: dict) -> bool:
    return parent["ts"] - EPS <= e["ts"] < _end(parent) - EPS and _end(e) <= _end(parent) + EPS


def check_chrome_trace(doc: dict) -> None:
    """The JSON object form: ``traceEvents`` with well-formed events, and complete
    events of each thread properly nested (what a flame chart needs)."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    by_thread = defaultdict(list)
    for e in doc["traceEvents"]:
        assert e["ph"] in PHASES and isinstance(e["name"], str)
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        if e["ph"] == "M":
            assert e["name"] in (
                "process_name",
                "process_labels",
                "process_sort_index",
                "thread_name",
                "thread_sort_index",
            )
            assert isinstance(e["args"], dict)
        elif e["ph"] == "X":
            assert isinstance(e["ts"], (int, float)) and isinstance(e["dur"], (int, float)) and e["dur"] >= 0
            by_thread[(e["pid"], e["tid"])].append(e)
    for events in by_thread.values():
        ts = [e["ts"] for e in events]
        assert ts == sorted(ts)  # in time order
        stack: list = []
        for e in events:
            while stack and e["ts"] >= _end(stack[-1]) - EPS:
                stack.pop()
            assert not stack or _inside(e, stack[-1])  # starts inside the open event: ends inside it
            stack.append(e)


def chrome_sums(doc: dict) -> dict:
    """name -> (flat, cum) from the events' args: flat sums ``self``; cum sums
    ``value`` of each event not inside an event of the same name."""
    out: dict = defaultdict(lambda: [0, 0])
    open_: dict = defaultdict(list)  # per thread, the events enclosing the current one
    for e in doc["traceEvents"]:
        if e["ph"] != "X":
            continue
        stack = open_[e["tid"]]
        while stack and not _inside(e, stack[-1]):
            stack.pop()
        out[e["name"]][0] += e["args"]["self"]
        if all(o["name"] != e["name"] for o in stack):
            out[e["name"]][1] += e["args"]["value"]
        stack.append(e)
    return {k: tuple(v) for k, v in out.items() if v != [0, 0]}


@pytest.mark.parametrize("threads,untimed", [(3, 0), (0, 0), (2, 5)])
def test_chrome_trace_structure_and_sums(threads, untimed):
    p = timed_profile(threads=threads, untimed=untimed)
    doc = p.to_chrome_trace(title="t")
    check_chrome_trace(doc)
    json.dumps(doc)
    names = [e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "thread_name"]
    assert names == ([f"thread=t{k}" for k in range(threads)] if threads else ["samples"])
    assert doc["otherData"]["start_time_ns"] == str(int(p.timestamps[p.timestamps != np.iinfo(np.int64).min].min()))
    assert chrome_sums(doc) == top_of(p.window())


def test_chrome_trace_merges_a_frame_across_samples():
    doc = timed_profile(n=200, threads=1).to_chrome_trace()
    mains = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["name"] == "main"]
    assert len(mains) == 1  # main is on every stack: one event from the first sample to the end


# ------------------------------------------------------------- Firefox Profiler
def _table(t: dict, columns) -> int:
    n = t["length"]
    assert isinstance(n, int) and n >= 0
    for c in columns:
        assert isinstance(t[c], list) and len(t[c]) == n, c
    return n


def _index(v, n, nullable=False) -> bool:
    return (nullable and v is None) or (isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n)


def check_firefox(doc: dict) -> None:
    """The processed profile (version 58) as src/types/profile.ts types it: meta,
    libs, shared strings and sources, threads with their tables, every index in range."""
    meta = doc["meta"]
    assert meta["preprocessedProfileVersion"] == 58 and isinstance(meta["version"], int)
    for k, kind in (("interval", (int, float)), ("startTime", (int, float)), ("processType", int), ("product", str)):
        assert isinstance(meta[k], kind), k
    assert meta["stackwalk"] in (0, 1) and isinstance(meta["markerSchema"], list)
    cats = meta["categories"]
    assert any(c["color"] == "grey" for c in cats) and all(c["subcategories"] for c in cats)
    assert isinstance(doc["libs"], list)
    strings = doc["shared"]["stringArray"]
    assert all(isinstance(s, str) for s in strings)
    sources = doc["shared"]["sources"]
    n_sources = _table(sources, ("uuid", "filename"))
    assert all(_index(f, len(strings)) for f in sources["filename"])
    assert doc["threads"]
    for th in doc["threads"]:
        assert isinstance(th["name"], str) and isinstance(th["pid"], str) and isinstance(th["isMainThread"], bool)
        assert th["processType"] and isinstance(th["pausedRanges"], list)
        funcs = th["funcTable"]
        n_funcs = _table(funcs, ("name", "isJS", "relevantForJS", "resource", "source", "lineNumber", "columnNumber"))
        assert all(_index(v, len(strings)) for v in funcs["name"])
        assert all(_index(v, n_sources, nullable=True) for v in funcs["source"])
        frames = th["frameTable"]
        frame_cols = ("address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol")
        n_frames = _table(frames, frame_cols + ("innerWindowID", "line", "column"))
        assert all(_index(v, n_funcs) for v in frames["func"])
        assert all(_index(v, len(cats), nullable=True) for v in frames["category"])
        stacks = th["stackTable"]
        n_stacks = _table(stacks, ("frame", "prefix"))
        assert all(_index(v, n_frames) for v in stacks["frame"])
        assert all(p is None or _index(p, k) for k, p in enumerate(stacks["prefix"]))  # a prefix comes first
        samples = th["samples"]
        _table(samples, ("stack", "time", "weight"))
        assert samples["weightType"] in ("samples", "tracing-ms", "bytes")
        assert all(_index(v, n_stacks, nullable=True) for v in samples["stack"])
        assert samples["time"] == sorted(samples["time"])
        _table(th["markers"], ("data", "name", "startTime", "endTime", "phase", "category"))
        _table(th["resourceTable"], ("lib", "name", "host", "type"))
        _table(th["nativeSymbols"], ("libIndex", "address", "name", "functionSize"))


def firefox_sums(doc: dict, scale: float) -> dict:
    """name -> (flat, cum) from the samples' weights times ``scale``."""
    strings = doc["shared"]["stringArray"]
    out: dict = defaultdict(lambda: [0.0, 0.0])
    for th in doc["threads"]:
        st, fr, fn = th["stackTable"], th["frameTable"], th["funcTable"]
        for s, w in zip(th["samples"]["stack"], th["samples"]["weight"]):
            names = []
            while s is not None:
                names.append(strings[fn["name"][fr["func"][st["frame"][s]]]])
                s = st["prefix"][s]
            if names:
                out[names[0]][0] += w * scale
            for name in set(names):
                out[name][1] += w * scale
    return {k: (round(v[0]), round(v[1])) for k, v in out.items() if v != [0.0, 0.0]}


@pytest.mark.parametrize(
    "threads,untimed,unit,kind,scale",
    [(3, 0, "nanoseconds", "tracing-ms", 1e6), (0, 4, "bytes", "bytes", 1), (2, 0, "count", "samples", 1)],
)
def test_firefox_structure_and_sums(threads, untimed, unit, kind, scale):
    p = timed_profile(threads=threads, untimed=untimed, unit=unit)
    doc = p.to_firefox_profiler()
    check_firefox(doc)
    json.dumps(doc, allow_nan=False)
    assert {th["samples"]["weightType"] for th in doc["threads"]} == {kind}
    assert [th["name"] for th in doc["threads"]] == (
        [f"thread=t{k}" for k in range(threads)] if threads else ["samples"]
    )
    assert firefox_sums(doc, scale) == top_of(p.window())
    # Times: ms since meta.startTime (ms since the epoch), in order per thread.
    ts = p.timestamps
    got = sorted(
        round((doc["meta"]["startTime"] + t) * 1e6 - BASE) for th in doc["threads"] for t in th["samples"]["time"]
    )
    want = sorted(int(t) - BASE for t in ts[ts != np.iinfo(np.int64).min])
    assert np.allclose(got, want, atol=1e3)  # float ms since the epoch: microsecond precision


# ---------------------------------------------------------------- save, refuse
@pytest.mark.parametrize("fmt,key", [("chrome-trace", "traceEvents"), ("firefox", "threads")])
def test_save_writes_json(tmp_path, fmt, key):
    p = timed_profile(n=10)
    p.save(tmp_path / "a.json", format=fmt)
    assert key in json.loads((tmp_path / "a.json").read_bytes())
    p.save(tmp_path / "a.json.gz", format=fmt, compress=True)
    assert key in json.loads(gzip.decompress((tmp_path / "a.json.gz").read_bytes()))


def test_profiles_without_timestamps_are_refused(tmp_path):
    p = pprofcore.load(pprofcore.example_path())
    for call in (p.to_chrome_trace, p.to_firefox_profiler):
        with pytest.raises(ValueError, match="no timestamps"):
            call()
    with pytest.raises(ValueError, match="no timestamps"):
        p.save(tmp_path / "x.json", format="firefox")
    assert not (tmp_path / "x.json").exists()
    with pytest.raises(ValueError, match="chrome-trace"):
        p.save(tmp_path / "x.json", format="speedscope")


def test_cli_writes_trace_formats(tmp_path):
    from pprofcore.cli import main

    src = tmp_path / "in.pb.gz"
    p = timed_profile(n=20)
    p.save(src)
    assert main(["-proto", f"-output={tmp_path / 'out.trace.json'}", str(src)]) == 0
    assert json.loads((tmp_path / "out.trace.json").read_bytes()) == json.loads(json.dumps(p.to_chrome_trace()))
    assert main(["merge", "-o", str(tmp_path / "m.firefox.json.gz"), str(src)]) == 0
    check_firefox(json.loads(gzip.decompress((tmp_path / "m.firefox.json.gz").read_bytes())))
    assert main(["filter", "--format", "chrome-trace", "--focus", "^b$", "-o", str(tmp_path / "f.json"), str(src)]) == 0
    doc = json.loads((tmp_path / "f.json").read_bytes())
    assert chrome_sums(doc) == top_of(p.filter(focus="^b$"))
    assert main(["filter", "--format", "firefox", "-o", str(tmp_path / "x.json"), pprofcore.example_path()]) != 0
