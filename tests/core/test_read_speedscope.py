"""speedscope JSON input (issue 32, item 4): sampled and evented profiles, read
by `load` from their content. pprofcore's own speedscope writer is the
producer of the round trip; a hand-written file pins the mapping exactly;
py-spy's `--format speedscope` is the real producer where it can ptrace."""

from __future__ import annotations

import json
import re

import pytest
from pyspy import needs_pyspy, record
from testenv import DATA as DATA_ROOT

import pprofcore
from pprofcore import DecodeError

DATA = DATA_ROOT / "producers"


def test_small_file_exactly():
    p = pprofcore.load(DATA / "small.speedscope.json")
    assert p.sample_types == [("wall", "nanoseconds")]
    assert p.total() == 6_080_000
    folded = dict(line.rsplit(" ", 1) for line in p.to_folded().splitlines())
    assert folded == {"main;work": "3040000", "main;idle": "2000000", "main": "1040000"}
    df = p.to_pandas("samples")
    assert list(df["timestamp_ns"]) == [0, 2_000_000, 3_000_000, 5_000_000, 100_000, 110_000, 150_000]
    assert list(df["profile"]) == ['Thread 1 "MainThread"'] * 4 + ["worker"] * 3
    assert "exporter: hand-written" in p.comments


def test_round_trip_through_pprofcores_writer(tmp_path):
    src = pprofcore.load(pprofcore.example_path())
    path = tmp_path / "fg.json"
    path.write_text(src.flamegraph(min_fraction=0).to_speedscope())
    back = pprofcore.load(path)
    assert back.total() == src.total()
    assert sorted(back.to_folded().splitlines()) == sorted(src.to_folded().splitlines())


def test_units_give_sample_types():
    doc = {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": "a"}]},
        "profiles": [
            {"type": "sampled", "unit": "bytes", "samples": [[0]], "weights": [64]},
            {"type": "sampled", "unit": "none", "samples": [[0], [0]], "weights": [1, 1]},
        ],
    }
    p = pprofcore.loads(json.dumps(doc).encode())
    assert p.sample_types == [("space", "bytes"), ("samples", "count")]
    assert p.total("space") == 64 and p.total("samples") == 2


def test_cli_and_flamegraph(tmp_path, capsys):
    from pprofcore.cli import main

    assert main(["-top", str(DATA / "small.speedscope.json")]) == 0
    assert "work" in capsys.readouterr().out
    out = tmp_path / "fg.html"
    assert main(["flamegraph", "-o", str(out), str(DATA / "small.speedscope.json")]) == 0
    assert "work" in out.read_text()


def _doc(**profile):
    base = {"type": "sampled", "unit": "none", "samples": [[0]], "weights": [1]}
    base.update(profile)
    return {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": "a"}]},
        "profiles": [base],
    }


@pytest.mark.parametrize(
    "doc, says",
    [
        (_doc(samples=[[3]]), "frame index 3 is not in shared.frames"),
        (_doc(weights=[1, 2]), "same length"),
        (_doc(unit="furlongs"), "unknown unit"),
        (_doc(type="flamegraph"), "neither 'sampled' nor 'evented'"),
        (_doc(weights=[1e300], unit="seconds"), "outside the int64 range"),
        (
            _doc(type="evented", events=[{"type": "O", "frame": 0, "at": 5}, {"type": "C", "frame": 0, "at": 1}]),
            "back in time",
        ),
        (_doc(type="evented", events=[{"type": "C", "frame": 0, "at": 5}]), "not the innermost open one"),
    ],
    ids=["frame", "lengths", "unit", "type", "overflow", "time", "close"],
)
def test_bad_input_is_a_decode_error(doc, says):
    with pytest.raises(DecodeError, match="speedscope") as e:
        pprofcore.loads(json.dumps(doc).encode())
    assert says in str(e.value)


def test_truncated_json_names_the_offset():
    data = (DATA / "small.speedscope.json").read_bytes()[:300]
    with pytest.raises(DecodeError, match=r"speedscope at byte offset \d+: invalid JSON"):
        pprofcore.loads(data)


SCRIPT = """
import time
def leaf(n):
    return sum(i * i % 7 for i in range(n))
end = time.time() + 0.6
while time.time() < end:
    leaf(20000)
"""


@needs_pyspy
def test_real_pyspy_speedscope(tmp_path):
    """py-spy's file against its own JSON and its own sample count: one
    sample per entry, the weights (seconds) as nanoseconds."""
    out = tmp_path / "ss.json"
    r = record(tmp_path, SCRIPT, "speedscope", out)
    doc = json.loads(out.read_text())
    p = pprofcore.load(out)
    reported = re.search(r"Samples: (\d+)", r.stdout + r.stderr)
    assert reported and p.values.shape[0] == int(reported.group(1)) == sum(len(q["samples"]) for q in doc["profiles"])
    seconds = sum(sum(q["weights"]) for q in doc["profiles"])
    assert p.sample_types == [("wall", "nanoseconds")]
    assert abs(p.total() - seconds * 1e9) <= len(doc["profiles"]) * 1000
    assert "leaf" in p.top(n=5).to_pandas()["name"].tolist()
