"""Sentry's sampled profiles: a real profile of the Python SDK (sentry-sdk,
captured by a transport of the test's own, no server), a hand-made document
read exactly (tests/data/producers/small.sentry.json: two threads, a gap in
the samples), the continuous profiling chunk (version 2), native frames,
and damage that names the place."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from stack_values import stacks_by_name
from testenv import DATA

import pprofcore
from pprofcore import DecodeError

CAPTURE = r"""
import sys, time
import sentry_sdk
from sentry_sdk.transport import Transport

got = []

class Capture(Transport):
    def capture_envelope(self, envelope):
        got.extend(i.payload.get_bytes() for i in envelope.items if i.headers.get("type") == "profile")

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def work():
    t = time.time()
    while time.time() - t < 0.4:
        fib(14)

sentry_sdk.init(dsn="http://public@127.0.0.1:9/1", transport=Capture, traces_sample_rate=1.0, profiles_sample_rate=1.0)
with sentry_sdk.start_transaction(name="nightly-job"):
    work()
sentry_sdk.flush()
sys.stdout.buffer.write(got[0])
"""


@pytest.fixture(scope="module")
def real_profile() -> bytes:
    pytest.importorskip("sentry_sdk", reason="needs sentry-sdk (the test extra) to record a real profile")
    r = subprocess.run([sys.executable, "-c", CAPTURE], capture_output=True, timeout=120)
    assert r.returncode == 0 and r.stdout, r.stderr.decode()
    return r.stdout


def _label(p: pprofcore.Profile, key: str) -> list:
    """Each sample's string label ``key`` (None where absent)."""
    col = p.to_pandas()[key]
    return [None if isinstance(v, float) else str(v) for v in col]


def test_real_sdk_profile(real_profile):
    doc = json.loads(real_profile)
    p = pprofcore.loads(real_profile)
    prof = doc["profile"]
    assert len(p) == len(prof["samples"])
    assert p.values[:, 0].sum() == len(prof["samples"])
    # Each sample's stack is the SDK's, leaf first.
    names = [f["function"] for f in prof["frames"]]
    want: dict = {}
    for s in prof["samples"]:
        key = tuple(names[i] for i in prof["stacks"][s["stack_id"]])
        want[key] = want.get(key, 0) + 1
    assert stacks_by_name(p, "samples") == want
    main = [k for k in want if k[0] == "fib"]
    assert main and all("work" in k and k.index("work") > k.index("fib") for k in main)
    # Threads by name; each thread's wall time spans its samples.
    threads = {str(k): v["name"] for k, v in prof["thread_metadata"].items()}
    tid, thread = _label(p, "tid"), _label(p, "thread")
    for i, s in enumerate(prof["samples"]):
        assert tid[i] == s["thread_id"] and thread[i] == threads.get(s["thread_id"])
    # Times: the transaction's start plus each sample's offset.
    start = np.datetime64(doc["timestamp"].rstrip("Z"), "ns").astype(np.int64)
    np.testing.assert_array_equal(p.timestamps, [start + int(s["elapsed_since_start_ns"]) for s in prof["samples"]])
    assert p.time_nanos == start
    assert "transaction: nightly-job" in p.comments and "platform: python" in p.comments
    # Names keep Python's <locals> and <module> through pprof-style reports.
    top = str(p.top(sample_type="samples"))
    assert "<module>" in top or "<locals>" in top


def test_hand_made_profile():
    p = pprofcore.load(DATA / "producers" / "small.sentry.json")
    assert stacks_by_name(p, "wall") == {
        ("price.<locals>.tax", "checkout", "<module>"): 30_000_000,  # 0 -> 10 -> 20 ms, then 40 ms
        ("checkout", "<module>"): 20_000_000,  # the gap to the next sample
        ("poll", "Thread.run"): 20_000_000,  # its last sample: the median gap
    }
    assert p.time_nanos == np.datetime64("2026-11-29T08:00:00", "ns").astype(np.int64)
    assert p.duration_nanos == 40_000_000
    assert sorted(set(_label(p, "thread"))) == ["MainThread", "poller"]
    f = p.functions
    names = {p.strings[n]: p.strings[s] for n, s in zip(f.name, f.system_name)}
    assert names["<module>"] == ""  # no system name: pprof's demangler leaves the name alone


def _chunk(**over):
    """A continuous profiling chunk (version 2): absolute times in seconds,
    native frames with addresses."""
    doc = {
        "version": "2",
        "platform": "cocoa",
        "profiler_id": "p1",
        "chunk_id": "c1",
        "profile": {
            "frames": [
                {"function": "-[Cart total]", "package": "Shop", "instruction_addr": "0x100ab0"},
                {"instruction_addr": "0x7fff2040"},
                {"function": "main", "package": "Shop", "instruction_addr": "0x100a00"},
            ],
            "stacks": [[0, 2], [1, 0, 2]],
            "samples": [
                {"timestamp": 1764403200.0, "thread_id": 259, "stack_id": 0},
                {"timestamp": 1764403200.005, "thread_id": 259, "stack_id": 1},
            ],
            "thread_metadata": {"259": {"name": "main"}},
        },
    }
    doc.update(over)
    return json.dumps(doc).encode()


def test_continuous_chunk_with_native_frames():
    p = pprofcore.loads(_chunk())
    assert stacks_by_name(p, "samples") == {("-[Cart total]", "main"): 1, ("0x7fff2040", "-[Cart total]", "main"): 1}
    assert sorted(p.timestamps.tolist()) == [1764403200_000_000_000, 1764403200_005_000_000]
    assert sorted(p.locations.address.tolist()) == [0x100A00, 0x100AB0, 0x7FFF2040]
    assert set(_label(p, "thread")) == {"main"}


def test_bare_profile_object():
    inner = json.loads(_chunk())["profile"]
    p = pprofcore.loads(json.dumps(inner).encode())
    assert len(p) == 2 and p.comments[0].startswith("Sentry profile")


@pytest.mark.parametrize(
    "profile, place",
    [
        ({"stacks": [[0]], "samples": [{"stack_id": 3, "timestamp": 1.0}]}, "profile.samples[0].stack_id"),
        ({"stacks": [[7]], "samples": [{"stack_id": 0, "timestamp": 1.0}]}, "profile.stacks[0][0]"),
        ({"stacks": [[0]], "samples": [{"stack_id": 0, "timestamp": "soon"}]}, "profile.samples[0].timestamp"),
        ({"stacks": [[0]], "samples": [{"stack_id": 0, "elapsed_since_start_ns": "-5"}]}, "elapsed_since_start_ns"),
        ({"stacks": {}, "samples": []}, "profile.stacks"),
    ],
)
def test_damage_names_the_place(profile, place):
    doc = {"version": "2", "profile": {"frames": [{"function": "f"}], "thread_metadata": {}, **profile}}
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(json.dumps(doc).encode())
    assert place in str(info.value) and "Sentry profile" in str(info.value)


def test_bad_timestamp_names_it():
    doc = json.loads((DATA / "producers" / "small.sentry.json").read_bytes())
    doc["timestamp"] = "yesterday"
    with pytest.raises(DecodeError, match="timestamp = 'yesterday'"):
        pprofcore.loads(json.dumps(doc).encode())


def test_frames_that_fill_the_head_are_recognised():
    """The frames come first in the SDKs' JSON: with thousands of them the
    stacks and samples lie past the first 64 KiB that detection reads."""
    doc = json.loads((DATA / "producers" / "small.sentry.json").read_bytes())
    frames = doc["profile"]["frames"]
    frames += [dict(frames[0], function=f"handler_{i}", lineno=i) for i in range(2000)]
    data = json.dumps(doc).encode()
    assert data.index(b'"stacks"') > 64 << 10
    p = pprofcore.loads(data)
    assert stacks_by_name(p, "samples")[("price.<locals>.tax", "checkout", "<module>")] == 3
