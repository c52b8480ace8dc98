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
import wirebuild as wb

import pprofcore
from pprofcore import DecodeError

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


@pytest.mark.parametrize(
    "fn", [_repair, _decode, _delta, _gunzip_gzip], ids=["loads-repair", "loads", "delta_bytes", "gzip-gunzip"]
)
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

N_DISTINCT = 150_000


def _distinct_samples() -> pprofcore.Profile:
    """N_DISTINCT samples that all differ (a numeric label each): adding it to a
    Merger or DeltaComputer takes long enough to be caught in the middle."""
    one = wb.packed(1, [1]) + wb.packed(2, [1])
    samples = [one + wb.ld(3, wb.label(4, num=i + 1)) for i in range(N_DISTINCT)]
    return pprofcore.loads(
        wb.profile(
            sample_types=[wb.value_type(1, 2)],
            samples=samples,
            locations=[wb.location(1, 0, 0, [wb.line(1, 3)])],
            functions=[wb.function(1, 3)],
            strings=("", "samples", "count", "main", "i"),
        )
    )


# (count, samples) as two locked reads can see them: before, after, or the
# operation finishing between the two reads. A half-done one shows other sample
# counts.
WHOLE = {(0, 0), (0, N_DISTINCT), (1, N_DISTINCT)}


def _pairs_during(work, read) -> list:
    """Runs `work` on another thread and calls `read` until it is done."""
    t = threading.Thread(target=work)
    seen = []
    t.start()
    while t.is_alive():
        seen.append(read())
    t.join()
    seen.append(read())
    return seen


def test_merger_reads_never_see_an_add_half_done():
    # Without the lock, len() (counted when add starts) and num_samples (growing
    # during add) were read mid-add: (1, 73012).
    p = _distinct_samples()
    m = pprofcore.Merger()
    seen = _pairs_during(lambda: m.add(p), lambda: (len(m), m._m.num_samples, m.memory_bytes > 0, repr(m)))
    assert {(n, s) for n, s, _, _ in seen} <= WHOLE, sorted({(n, s) for n, s, _, _ in seen})[:5]
    assert seen[-1][:2] == (1, N_DISTINCT)


def test_delta_reads_never_see_a_delta_half_done():
    p = _distinct_samples()
    dc = pprofcore.DeltaComputer()
    seen = _pairs_during(lambda: dc.delta(p), lambda: (dc._d.num_calls, dc.num_states, dc.memory_bytes, repr(dc)))
    assert {(c, s) for c, s, _, _ in seen} <= WHOLE, sorted({(c, s) for c, s, _, _ in seen})[:5]
    data = p.to_bytes()
    seen = _pairs_during(lambda: dc.delta_bytes(data), lambda: (dc._d.num_calls, dc.num_states))
    assert set(seen) <= {(1, N_DISTINCT), (2, N_DISTINCT)}
