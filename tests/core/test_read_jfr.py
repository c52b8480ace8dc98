"""Java Flight Recorder input (issue 32, item 1). The JDK is the producer
(one recording per module, with allocation, monitor and park events enabled)
and `jfr print --json` the oracle: every event pprofcore turns into a sample
is compared with jfr's own decoding of it (stack, thread, start time, weight),
and `jfr summary`'s counts with the sample counts of `load_all`."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest
from testenv import DATA as DATA_ROOT

import pprofcore
from pprofcore import DecodeError

SPIN = """
import java.util.*;
import java.util.concurrent.locks.LockSupport;
public class Spin {
  static volatile long sink;
  static long leaf(int n){long s=0;for(int i=0;i<n;i++)s+=i*(long)i%7;return s;}
  static long mid(int n){return leaf(n)+leaf(n/2);}
  static List<int[]> alloc(){List<int[]> l=new ArrayList<>();for(int i=0;i<2000;i++)l.add(new int[64+i%50]);return l;}
  static final Object lock=new Object();
  public static void main(String[] a) throws Exception {
    Thread t=new Thread(() -> { long end=System.nanoTime()+500_000_000L;
      while(System.nanoTime()<end){ synchronized(lock){ sink+=mid(20000);} } }, "worker");
    t.start();
    long end=System.nanoTime()+500_000_000L;
    while(System.nanoTime()<end){ synchronized(lock){ sink+=mid(20000); } sink+=alloc().size(); }
    Thread p=new Thread(() -> { for(int i=0;i<5;i++) LockSupport.parkNanos(30_000_000L); }, "parker");
    p.start(); p.join(); t.join();
  }
}
"""
EVENTS = {
    "jdk.ExecutionSample": "cpu",
    "jdk.NativeMethodSample": "wall",
    "jdk.ObjectAllocationInNewTLAB": "alloc",
    "jdk.ObjectAllocationOutsideTLAB": "alloc",
    "jdk.ObjectAllocationSample": "alloc",
    "jdk.JavaMonitorEnter": "lock",
    "jdk.ThreadPark": "lock",
}


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    if not (shutil.which("java") and shutil.which("jfr")):
        pytest.skip("java and jfr are not installed (Debian package openjdk-17-jdk-headless)")
    tmp = tmp_path_factory.mktemp("jfr")
    (tmp / "Spin.java").write_text(SPIN)
    flags = "filename=rec.jfr,settings=profile,jdk.ObjectAllocationInNewTLAB#enabled=true"
    flags += ",jdk.ObjectAllocationOutsideTLAB#enabled=true"
    r = subprocess.run(
        ["java", f"-XX:StartFlightRecording={flags}", "Spin.java"], cwd=tmp, capture_output=True, timeout=120
    )
    if r.returncode != 0 or not (tmp / "rec.jfr").exists():
        pytest.skip(f"java could not record: {r.stderr.decode()[-300:]}")
    printed = subprocess.run(
        ["jfr", "print", "--json", "--stack-depth", "2048", "--events", ",".join(EVENTS), "rec.jfr"],
        cwd=tmp,
        capture_output=True,
        check=True,
        timeout=120,
    ).stdout
    return tmp / "rec.jfr", json.loads(printed)["recording"]["events"]


def _epoch_ns(iso: str) -> int:
    m = re.fullmatch(r"(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z", iso)
    assert m, iso
    seconds = datetime.fromisoformat(m.group(1)).replace(tzinfo=timezone.utc).timestamp()
    return int(seconds) * 10**9 + int((m.group(2) or "").ljust(9, "0")[:9])


def _duration_ns(iso: str) -> int:
    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?", iso)
    assert m, iso
    h, mi, s, frac = m.groups()
    return ((int(h or 0) * 60 + int(mi or 0)) * 60 + int(s or 0)) * 10**9 + int((frac or "").ljust(9, "0")[:9])


def _oracle_stack(st) -> tuple:
    if not st:
        return ()
    out = [
        (f["method"]["type"]["name"].replace("/", ".") + "." + f["method"]["name"], max(f["lineNumber"], 0))
        for f in st["frames"]
    ]
    if st.get("truncated"):
        out.append(("[truncated]", 0))
    return tuple(out)


def _oracle(events, kind):
    rows = Counter()
    for e in events:
        if EVENTS[e["type"]] != kind:
            continue
        v = e["values"]
        thread = v.get("sampledThread") or v.get("eventThread") or {}
        name = thread.get("javaName") or thread.get("osName") or ""
        if kind == "alloc":
            w = (
                v["tlabSize"]
                if e["type"] == "jdk.ObjectAllocationInNewTLAB"
                else v.get("allocationSize", v.get("weight"))
            )
            value = int(w)
        elif kind == "lock":
            value = _duration_ns(v["duration"])
        else:
            value = 1
        rows[(_oracle_stack(v.get("stackTrace")), name, _epoch_ns(v["startTime"]), value)] += 1
    return rows


def _ours(p):
    df = p.to_pandas("samples")
    lo = p.locations.line_offsets
    fn, ln = p.lines["function"], p.lines["line"]
    names = p.functions["name"]
    rows = Counter()
    value = df[p.sample_types[-1][0]]
    for i in range(len(df)):
        frames = []
        for loc in p.stack(i):
            frames += [(p.strings[names[fn[j]]], int(ln[j])) for j in range(lo[loc], lo[loc + 1])]
        thread = df["thread"][i] if "thread" in df else ""
        rows[(tuple(frames), thread if isinstance(thread, str) else "", int(df["timestamp_ns"][i]), int(value[i]))] += 1
    return rows


@pytest.mark.parametrize("kind", ["cpu", "alloc", "lock"])
def test_every_sample_is_what_jfr_print_decodes(recording, kind):
    path, events = recording
    profiles = pprofcore.load_all(path)
    want = _oracle(events, kind)
    if not want:
        pytest.skip(f"the recording has no {kind} events")
    assert _ours(profiles[kind]) == want


def test_load_gives_all_kinds_side_by_side(recording):
    path, events = recording
    p = pprofcore.load(path)
    counts = Counter(EVENTS[e["type"]] for e in events)
    names = [t for t, _ in p.sample_types]
    assert names[0] == "cpu_samples" and p.default_sample_type == "cpu_samples"
    assert p.total("cpu_samples") == counts["cpu"]
    assert p.total("alloc_objects") == counts["alloc"]
    assert p.total("contentions") == counts["lock"]
    parts = pprofcore.load_all(path)
    assert sum(q.values.shape[0] for q in parts.values()) == p.values.shape[0]
    df = p.to_pandas("samples")
    assert {"thread", "thread_id", "timestamp_ns"} <= set(df.columns)
    assert "parker" in set(parts["lock"].to_pandas("samples")["thread"])


def test_cli_reports_each_sample_type(recording, capsys, tmp_path):
    from pprofcore.cli import main

    path, _ = recording
    assert main(["-top", str(path)]) == 0
    assert "Spin.leaf" in capsys.readouterr().out
    assert main(["-top", "-sample_index=alloc_space", str(path)]) == 0
    assert "Spin.alloc" in capsys.readouterr().out
    out = tmp_path / "fg.html"
    assert main(["flamegraph", "-o", str(out), str(path)]) == 0
    assert "Spin.mid" in out.read_text()


def test_gzip_recording_reads_the_same(recording, tmp_path):
    path, _ = recording
    gz = tmp_path / "rec.jfr.gz"
    gz.write_bytes(gzip.compress(path.read_bytes(), 1))
    assert pprofcore.load(gz).values.tolist() == pprofcore.load(path).values.tolist()


def test_async_profiler_recording_from_pyroscope():
    """An async-profiler recording (grafana/pyroscope's test data, gzip); jfr
    summary counts 2188 jdk.ExecutionSample events in it."""
    import os

    from testenv import CORPUS

    conf = Path(os.environ.get("PPROFCORE_CONFORMANCE", CORPUS.parent / "conformance"))
    path = conf / "grafana__pyroscope/pkg/og/convert/jfr/testdata/dump1.jfr.gz"
    if not path.exists():
        pytest.skip(f"shared conformance files not found at {conf} (set PPROFCORE_CONFORMANCE)")
    p = pprofcore.load(path)
    assert p.sample_types == [("cpu_samples", "count")]
    assert p.total() == 2188
    assert "App.fib" in p.top(n=3).to_pandas()["name"].tolist()


@pytest.mark.parametrize("cut", [10, 70, 2000, -100])
def test_truncated_recording_is_a_decode_error(recording, cut):
    path, _ = recording
    data = path.read_bytes()
    with pytest.raises(DecodeError, match="JFR"):
        pprofcore.loads(data[:cut])


def test_corrupt_sizes_are_decode_errors(recording):
    path, _ = recording
    data = bytearray(path.read_bytes())
    data[68] = 0x00  # the first event's size: zero
    with pytest.raises(DecodeError, match=r"JFR: event size 0 is outside the chunk at byte offset 68"):
        pprofcore.loads(bytes(data))


# A hand-made recording (tests/helpers/jfrwriter.py): every field known, no JDK needed.


@pytest.mark.parametrize("compressed", [True, False], ids=["varint", "fixed"])
def test_written_recording_exactly(compressed):
    import jfrwriter

    p = pprofcore.loads(jfrwriter.recording(compressed))
    assert p.sample_types == [("cpu_samples", "count"), ("alloc_objects", "count"), ("alloc_space", "bytes")]
    assert sorted(p.to_folded(sample_type="cpu_samples").splitlines()) == [
        "[truncated];com.example.A.main 1",
        "com.example.A.main;com.example.A.mid;com.example.A.leaf 2",
    ]
    df = p.to_pandas("samples")
    step = 10**9 // jfrwriter.TICKS_PER_SECOND
    assert list(df["timestamp_ns"]) == [jfrwriter.START_NANOS + k * 1000 * step for k in (1, 2, 3, 4)]
    assert list(df["thread"]) == ["main", "main", "w-os", "main"]  # the OS name when the Java name is null
    assert list(df["thread_id"]) == [1, 1, 7, 1]
    assert df["class"][3] == "java.lang.String" and df["allocation"][3] == "sample"
    assert p.total("alloc_space") == 1024
    # A.leaf was inlined into A.mid: one location with two lines, innermost first.
    lo = p.locations.line_offsets
    sizes = [int(lo[i + 1] - lo[i]) for i in range(len(lo) - 1)]
    assert sorted(sizes) == [1, 1, 1, 2]
    two = sizes.index(2)
    names = [p.strings[p.functions["name"][p.lines["function"][j]]] for j in range(lo[two], lo[two + 1])]
    assert names == ["com.example.A.leaf", "com.example.A.mid"]
    assert p.strings[p.functions["system_name"][p.lines["function"][lo[two]]]] == "com.example.A.leaf()V"


def test_committed_fixture_and_load_all():
    path = DATA_ROOT / "producers" / "small.jfr"
    parts = pprofcore.load_all(path)
    assert list(parts) == ["cpu", "alloc"]
    assert parts["cpu"].sample_types == [("cpu_samples", "count")] and parts["cpu"].total() == 3
    assert parts["alloc"].total("alloc_objects") == 1 and parts["alloc"].values.shape[0] == 1
    assert pprofcore.load_all(pprofcore.example_path()).keys() == {""}


def test_damaged_written_recordings_raise_decode_errors():
    """Truncations and byte flips of a small recording: a DecodeError or a
    profile, never another exception."""
    import random

    import jfrwriter

    data = jfrwriter.recording(True)
    rng = random.Random(7)
    for _ in range(150):
        d = bytearray(data)
        if rng.random() < 0.3:
            d = d[: rng.randrange(len(d))]
        else:
            for _ in range(rng.randint(1, 6)):
                d[rng.randrange(len(d))] = rng.randrange(256)
        try:
            pprofcore.loads(bytes(d))
        except DecodeError:
            pass


@pytest.mark.parametrize("compressed", [True, False], ids=["varint", "fixed"])
def test_async_profiler_and_cpu_time_events_exactly(compressed):
    """async-profiler's own events (wall clock with its sample counts, native
    malloc, live objects, native locks) and the JDK 25 CPU-time sampler's,
    as written by tests/helpers/jfrwriter.py with the fields their producers
    declare."""
    import jfrwriter

    data = jfrwriter.recording(compressed, jfrwriter.async_profiler_events())
    p = pprofcore.loads(data)
    assert p.sample_types == [
        ("wall_samples", "count"),
        ("contentions", "count"),
        ("delay", "nanoseconds"),
        ("cpu_time_samples", "count"),
        ("cpu_time", "nanoseconds"),
        ("malloc_objects", "count"),
        ("malloc_space", "bytes"),
        ("live_objects", "count"),
        ("live_space", "bytes"),
    ]
    tick = 10**9 // jfrwriter.TICKS_PER_SECOND
    assert p.total("wall_samples") == 4  # 3 + 1: an event stands for its `samples`
    assert p.total("delay") == 7000 * tick and p.total("contentions") == 1
    assert p.total("cpu_time_samples") == 2 and p.total("cpu_time") == 2 * 20_000 * tick
    assert p.total("malloc_space") == 4096 and p.total("live_space") == 48
    df = p.to_pandas("samples")
    live = df[df["live_objects"] == 1]
    assert list(live["class"]) == ["java.lang.String"]
    assert list(df[df["contentions"] == 1]["event"]) == ["profiler.NativeLock"]
    # Wall-clock samples carry their thread's state; no other kind does.
    assert list(df[df["wall_samples"] > 0]["state"]) == ["STATE_RUNNABLE", "STATE_SLEEPING"]
    assert df[df["wall_samples"] == 0]["state"].isna().all()
    parts = pprofcore.load_all(data)
    assert list(parts) == ["wall", "lock", "cpu_time", "malloc", "live"]
    assert parts["cpu_time"].sample_types == [("cpu_time_samples", "count"), ("cpu_time", "nanoseconds")]
    assert len(parts["wall"].values) == 2 and parts["wall"].total() == 4
