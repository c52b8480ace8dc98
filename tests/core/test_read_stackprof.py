"""stackprof's profiles (Ruby): real dumps of a Ruby program in each mode
against stackprof's own numbers (each frame's self and total samples), the
dump and stackprof's JSON of it read alike, stacks rebuilt when the dump has
no raw samples, and hand-made documents for what a run does not show (raw
lines, garbage collector frames, metadata, damage)."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from ruby_runs import record, stackprof_json
from stack_values import stacks_by_name

import pprofcore
from pprofcore import DecodeError


def _frames(doc: dict) -> dict:
    return {int(k): v for k, v in doc["frames"].items()}


def _by_name(p: pprofcore.Profile):
    """(flat, cum) sample counts per function name: cum counts a name once
    per sample, however often it is on the stack."""
    flat, cum = defaultdict(int), defaultdict(int)
    for names, v in stacks_by_name(p, "samples").items():
        flat[names[0]] += v
        for name in set(names):
            cum[name] += v
    return flat, cum


def _stackprof_by_name(doc: dict):
    """stackprof's self samples summed per name, and total samples of the
    names that only one frame carries (two frames of one name can share a
    sample, so their totals do not add)."""
    frames = _frames(doc)
    flat, ids = defaultdict(int), defaultdict(list)
    for fid, f in frames.items():
        flat[f["name"]] += f["samples"]
        ids[f["name"]].append(fid)
    cum = {name: frames[fid[0]]["total_samples"] for name, fid in ids.items() if len(fid) == 1}
    return flat, cum


@pytest.mark.parametrize("mode", ["cpu", "wall", "object"])
def test_raw_dump_gives_stackprof_numbers(tmp_path, mode):
    dump = record(tmp_path, mode, raw=True)
    doc = json.loads(stackprof_json(dump))
    p = pprofcore.load(dump)
    kind = {"cpu": ("cpu", "nanoseconds"), "wall": ("wall", "nanoseconds"), "object": ("objects", "count")}[mode]
    assert p.sample_types == [("samples", "count"), kind]
    assert int(p.values[:, 0].sum()) == doc["samples"]
    scale = doc["interval"] * (1000 if mode != "object" else 1)
    np.testing.assert_array_equal(p.values[:, 1], p.values[:, 0] * scale)
    flat, cum = _by_name(p)
    want_flat, want_cum = _stackprof_by_name(doc)
    assert {k: v for k, v in flat.items() if v} == {k: v for k, v in want_flat.items() if v}
    for name, total in want_cum.items():
        assert cum[name] == total, name
    # Recursion and depth are in the stacks (fib allocates nothing: no object samples).
    assert cum["Object#allocate"] > 0 if mode == "object" else cum["Object#fib"] > 0 and cum["Object#middle"] > 0
    # Every sample has its timestamp (stackprof's microseconds, as nanoseconds).
    stamps = p.timestamps
    assert len(stamps) == len(p) and (stamps > 0).all()
    assert sorted(stamps.tolist()) == sorted(t * 1000 for t in doc["raw_sample_timestamps"])


def test_dump_and_its_json_read_alike(tmp_path):
    dump = record(tmp_path, "cpu", raw=True)
    a, b = pprofcore.load(dump), pprofcore.loads(stackprof_json(dump))
    assert stacks_by_name(a, "cpu") == stacks_by_name(b, "cpu")
    assert a.comments == b.comments


def test_aggregate_dump_rebuilds_stacks_with_exact_flat(tmp_path):
    """Without raw samples (stackprof's default), each frame's self samples
    are exact; the stacks are rebuilt from the calls (a function reached
    only through a frame already on the path, as Class#new under a block's
    re-entry, may have no path of its own), and the comment says so."""
    dump = record(tmp_path, "cpu", raw=False)
    doc = json.loads(stackprof_json(dump))
    assert "raw" not in doc
    p = pprofcore.load(dump)
    flat, cum = _by_name(p)
    want_flat, _ = _stackprof_by_name(doc)
    assert {k: v for k, v in flat.items() if v} == {k: v for k, v in want_flat.items() if v}
    assert int(p.values[:, 0].sum()) == sum(f["samples"] for f in doc["frames"].values())
    assert cum["Object#middle"] > 0 and cum["Object#top_a"] > 0  # callers, from the rebuilt stacks
    assert any("rebuilt" in c for c in p.comments)


def _doc(**over):
    """A small stackprof document: main -> a -> b (3 samples, then 2),
    main -> a (1), a garbage collection (1)."""
    doc = {
        "version": 1.2,
        "mode": "cpu",
        "interval": 1000,
        "samples": 7,
        "gc_samples": 1,
        "missed_samples": 0,
        "metadata": {"path": "/orders"},
        "frames": {
            "1": {"name": "<main>", "file": "app.rb", "line": 1, "total_samples": 6, "samples": 0},
            "2": {"name": "A#a", "file": "app.rb", "line": 5, "total_samples": 6, "samples": 1},
            "3": {"name": "B.b", "file": "b.rb", "line": 9, "total_samples": 5, "samples": 5},
            "4": {"name": "(garbage collection)", "file": "", "total_samples": 1, "samples": 0},
            "5": {"name": "(marking)", "file": "", "total_samples": 1, "samples": 1},
        },
        "raw": [3, 1, 2, 3, 3, 2, 1, 2, 1, 3, 1, 2, 3, 2, 2, 4, 5, 1],
        "raw_sample_timestamps": [10, 20, 30, 40, 50, 60, 70],
    }
    doc.update(over)
    return json.dumps(doc).encode()


def test_hand_made_document():
    p = pprofcore.loads(_doc())
    assert stacks_by_name(p, "samples") == {
        ("B.b", "A#a", "<main>"): 5,
        ("A#a", "<main>"): 1,
        ("(marking)", "(garbage collection)"): 1,
    }
    assert p.values[:, 1].sum() == 7 * 1000 * 1000
    assert (p.period_type, p.period) == (("cpu", "nanoseconds"), 1_000_000)
    assert sorted(p.timestamps.tolist()) == [t * 1000 for t in (10, 20, 30, 40, 50, 60, 70)]
    assert "path: /orders" in p.comments and "gc_samples: 1" in p.comments
    assert _leaf_lines(p, "B.b") == {9: 5}  # the frame's own line


def _leaf_lines(p: pprofcore.Profile, name: str) -> dict:
    """{line: samples} of the samples whose leaf is function ``name``."""
    out: dict = {}
    for i in range(len(p)):
        k = p.locations.line_offsets[p.stack(i)[0]]
        if p.strings[p.functions.name[p.lines.function[k]]] == name:
            line = int(p.lines.line[k])
            out[line] = out.get(line, 0) + int(p.values[i, 0])
    return out


def test_raw_lines_give_each_entry_its_line():
    """Newer stackprof writes raw_lines beside raw: the line each frame was
    at in that stack (entry 3 is B.b in the first run, entry 12 in the third)."""
    lines = [0] * 18
    lines[3], lines[12], lines[2], lines[11] = 12, 14, 6, 7
    p = pprofcore.loads(_doc(raw_lines=lines))
    assert _leaf_lines(p, "B.b") == {12: 3, 14: 2}
    assert stacks_by_name(p, "samples")[("B.b", "A#a", "<main>")] == 5


def test_timestamps_that_do_not_add_up_are_left_out():
    p = pprofcore.loads(_doc(raw_sample_timestamps=[1, 2]))
    assert stacks_by_name(p, "samples")[("B.b", "A#a", "<main>")] == 5
    assert p.timestamps is None


def test_custom_mode_has_one_sample_type():
    p = pprofcore.loads(_doc(mode="custom", interval=1))
    assert p.sample_types == [("samples", "count")]


@pytest.mark.parametrize(
    "damage, place",
    [
        ({"raw": [3, 1, 2]}, "raw[0]"),
        ({"raw": [1, 99, 1]}, "99"),
        ({"raw": [1, [1], 1]}, "raw[0]"),
        ({"interval": -5}, "'interval'"),
        ({"frames": []}, "'frames'"),
        ({"mode": 3}, "'mode'"),
    ],
)
def test_damage_names_the_place(damage, place):
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(_doc(**damage))
    assert place in str(info.value) and "stackprof" in str(info.value)


def test_damaged_dump_names_the_byte_offset(tmp_path):
    data = record(tmp_path, "cpu", raw=True).read_bytes()
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(data[: len(data) // 2])
    assert "byte offset" in str(info.value) and "Marshal" in str(info.value)


def test_no_samples_is_an_empty_profile():
    """A recording that took no samples (``raw`` empty, or runs of none with
    no timestamps) is a profile without samples, not an error."""
    for raw, stamps in (([], []), ([0, 0], [])):
        p = pprofcore.loads(_doc(raw=raw, raw_sample_timestamps=stamps))
        assert len(p) == 0 and p.sample_types[0] == ("samples", "count")
