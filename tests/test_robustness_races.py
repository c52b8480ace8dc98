"""Races with the GIL released: a buffer that another thread rewrites while it
is being decoded, and property reads of a Merger / DeltaComputer while another
thread is adding to it.

The first kind once read out of bounds in repair mode (the repair rescanned the
input and trusted the second read); now writable buffers are copied before the
GIL is released, so every call sees one consistent snapshot.
"""

from __future__ import annotations

import threading

import pytest

import pprofcore
from pprofcore import DecodeError

import wirebuild as wb

N_SAMPLES = 20_000
CALLS = 25


def _same_length_profiles() -> tuple:
    """Two profiles of equal length that differ only inside the samples: in A
    every sample has 2 values (valid), in B every sample has 4 (repair drops
    them all). A mixture of the two is neither."""
    a_sample = wb.packed(2, [1, 2]) + wb.vint(15, 1) + wb.packed(1, [1])
    b_sample = wb.packed(2, [1, 2, 3, 4]) + wb.packed(1, [1])
    assert len(a_sample) == len(b_sample)
    common = dict(
        sample_types=[wb.value_type(1, 2), wb.value_type(3, 2)],
        locations=[wb.location(1, 0, 0, [wb.line(1, 3)])],
        functions=[wb.function(1, 4)],
        strings=("", "samples", "count", "cpu", "main"),
    )
    a = wb.profile(samples=[a_sample] * N_SAMPLES, **common)
    b = wb.profile(samples=[b_sample] * N_SAMPLES, **common)
    assert len(a) == len(b)
    return a, b


def _outcome(fn, data):
    """What a call gives: its result, or the message of the error it raised."""
    try:
        return ("ok", fn(data))
    except DecodeError as e:
        return ("error", str(e))


def _repair(data):
    p, report = pprofcore.loads(data, repair=True)
    return p.to_bytes(compress=False), report.value_count_mismatch


def _decode(data):
    return pprofcore.loads(data).to_bytes(compress=False)


def _delta(data):
    return pprofcore.DeltaComputer().delta_bytes(data, compress=False)


def _gunzip_gzip(data):
    return pprofcore._core.gunzip(pprofcore._core.gzip(data, 1))


@pytest.mark.parametrize("fn", [_repair, _decode, _delta, _gunzip_gzip], ids=["loads-repair", "loads", "delta_bytes",
                                                                               "gzip-gunzip"])
def test_buffer_rewritten_during_call_gives_one_snapshot(fn):
    a, b = _same_length_profiles()
    allowed = [_outcome(fn, a), _outcome(fn, b)]
    assert allowed[0] != allowed[1]
    buf = bytearray(a)
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            buf[:] = b
            buf[:] = a

    t = threading.Thread(target=flip)
    t.start()
    try:
        seen = [_outcome(fn, buf) for _ in range(CALLS)]
        seen += [_outcome(fn, memoryview(buf)) for _ in range(CALLS)]
    finally:
        stop.set()
        t.join()
    for outcome in seen:
        assert outcome in allowed, outcome if outcome[0] == "error" else "a result that is neither input's"


def test_readonly_buffers_are_not_copied_and_still_decode():
    a, _ = _same_length_profiles()
    assert _decode(memoryview(a)) == _decode(a) == _decode(bytearray(a))


# ------------------------------------------------------------ property reads


def _reader_while_writing(read, write, seconds_of_writes: int = 40):
    """Calls `read` in a loop while another thread calls `write` repeatedly;
    returns the values read (the calls must neither crash nor deadlock)."""
    done = threading.Event()
    values = []

    def reader():
        while not done.is_set():
            values.append(read())

    t = threading.Thread(target=reader)
    t.start()
    try:
        for _ in range(seconds_of_writes):
            write()
    finally:
        done.set()
        t.join(timeout=60)
    assert not t.is_alive(), "property read deadlocked"
    return values


def test_merger_properties_while_adding():
    p = pprofcore.load(pprofcore.example_path("cpu"))
    m = pprofcore.Merger()
    values = _reader_while_writing(lambda: (len(m), m.memory_bytes, repr(m)), lambda: m.add(p))
    counts = [v[0] for v in values]
    assert counts == sorted(counts), "len(merger) went backwards"
    assert len(m) == 40


def test_delta_properties_while_computing():
    p = pprofcore.load(pprofcore.example_path("heap"))
    dc = pprofcore.DeltaComputer(pprofcore.DeltaComputer.GO_HEAP)
    data = p.to_bytes()
    values = _reader_while_writing(lambda: (dc.num_states, dc.memory_bytes, repr(dc)), lambda: dc.delta_bytes(data))
    assert all(v[0] >= 0 for v in values)
