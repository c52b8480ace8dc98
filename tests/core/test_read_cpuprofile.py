"""V8/Chrome `.cpuprofile` input (issue 32, item 2): `load` reads what
`node --cpu-prof` writes (node is the oracle: its JSON's samples, hitCounts and
timeDeltas give the totals) and a small hand-written file exactly."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import node_profiles
import numpy as np
import pytest
from testenv import DATA as DATA_ROOT

import pprofcore

DATA = DATA_ROOT / "producers"
SCRIPT = """
function leaf(n){let s=0;for(let i=0;i<n;i++)s+=Math.sqrt(i);return s}
function mid(n){return leaf(n)+leaf(n/2)}
function other(n){let a=[];for(let i=0;i<n;i++)a.push(i*2);return a.length}
let t=Date.now(); while(Date.now()-t<300){mid(20000);other(5000)}
"""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    return node_profiles.record(tmp_path_factory.mktemp("node"), "cpu", SCRIPT)


def _timestamps(p):
    df = p.to_pandas("samples")
    return df["timestamp_ns"].to_numpy()


def test_node_totals_match_its_json(recorded):
    doc = json.loads(recorded.read_text())
    p = pprofcore.load(recorded)
    assert p.sample_types == [("samples", "count"), ("wall", "nanoseconds")]
    assert p.total("samples") == len(doc["samples"])
    times = doc["startTime"] + np.cumsum(doc["timeDeltas"])
    assert p.total("wall") == (max(doc["endTime"], times[-1]) - times[0]) * 1000
    assert (_timestamps(p) == times * 1000).all()
    assert p.duration_nanos == (doc["endTime"] - doc["startTime"]) * 1000


def test_node_flat_counts_are_its_ticks(recorded):
    """Flat samples per function are the ticks naming its nodes (node's own
    hitCount may miss the last tick, so the samples list is the reference)."""
    doc = json.loads(recorded.read_text())
    name = {n["id"]: n["callFrame"]["functionName"] or "(anonymous)" for n in doc["nodes"]}
    want = Counter(name[i] for i in doc["samples"] if name[i] != "(root)")
    df = pprofcore.load(recorded).to_pandas("samples")
    got = Counter(str(f) for f in df["leaf_function"])
    assert got == dict(want)
    assert "leaf" in got


def test_small_file_exactly():
    p = pprofcore.load(DATA / "small.cpuprofile")
    assert p.total("samples") == 5
    assert p.total("wall") == 5_500_000
    assert list(_timestamps(p)) == [t * 1000 for t in (1000500, 1001500, 1002500, 1004000, 1005000)]
    folded = sorted(p.to_folded(sample_type="wall").splitlines())
    assert folded == sorted(["(idle) 1000000", "main;work 2500000", "main 1000000", "main;(anonymous) 1000000"])


def test_gzip_loads_and_bytes(tmp_path):
    raw = (DATA / "small.cpuprofile").read_bytes()
    gz = tmp_path / "x.cpuprofile.gz"
    gz.write_bytes(gzip.compress(raw))
    assert pprofcore.load(gz).total("wall") == pprofcore.loads(raw).total("wall") == 5_500_000


def test_cli_reports_read_it(capsys):
    from pprofcore.cli import main

    assert main(["-top", str(DATA / "small.cpuprofile")]) == 0
    out = capsys.readouterr().out
    assert "work" in out and "Type: wall" in out


@pytest.mark.parametrize(
    "text, says",
    [
        ('{"nodes": [{"id": 1, "callFrame": {}}], "samples": [1, 9], "timeDeltas": [1, 2]', "invalid JSON"),
        ('{"nodes": [{"id": 1, "callFrame": {}}], "samples": [9], "timeDeltas": [1]}', "names node 9"),
        ('{"nodes": [{"id": 1, "callFrame": {}}], "samples": [1], "timeDeltas": [1, 2]}', "has 1 entries"),
        ('{"nodes": [{"id": "x", "callFrame": {}}], "samples": [], "timeDeltas": []}', "'id' must be a number"),
    ],
    ids=["truncated", "unknown-node", "lengths", "bad-id"],
)
def test_bad_input_is_a_decode_error(text, says, tmp_path):
    node_profiles.assert_refused(tmp_path / "bad.cpuprofile", text, "cpuprofile", says)
