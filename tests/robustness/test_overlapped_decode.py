"""The overlapped gzip decode (inflate on one thread, decode on this one,
through a window that is compacted as the decoder moves on) against the plain
decode of the same bytes, on profiles that span several windows: any field
order, field sizes up to and beyond a window, stacks of any length."""

from __future__ import annotations

import gzip
import random

import pytest
import wirebuild as w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pprofcore
from pprofcore import _core

pytestmark = pytest.mark.skipif(not _core.have_isal(), reason="this build has no ISA-L")

WINDOW = 2 << 20  # the window (decode_overlap.cpp): the stream, up to 2 MiB


def build(seed: int, n_samples: int, n_locations: int, big_strings: list, order: str) -> bytes:
    """A valid profile of a few MiB; ``order`` puts the tables before or after
    the samples, or interleaves them, as producers do."""
    rnd = random.Random(seed)
    strings = ["", "samples", "count", "cpu", "nanoseconds"]
    strings += [f"fn{i}" * rnd.randint(1, 4) for i in range(n_locations)]
    strings += ["x" * n for n in big_strings]  # long strings: fields near or past the window
    functions = [w.function(i + 1, name=5 + i, filename=5 + (i * 7) % n_locations) for i in range(n_locations)]
    locations = [
        w.location(i + 1, address=0x400000 + rnd.getrandbits(rnd.choice((8, 24, 40))), lines=[w.line(i + 1, i)])
        for i in range(n_locations)
    ]
    ids = [w.varint(i) for i in range(n_locations + 1)]  # encoded once: Python is slow per varint
    label = w.ld(3, w.label(1, 2))
    samples = []
    for _ in range(n_samples):
        depth = rnd.choice((1, 3, 20, 64, 300))
        stack = b"".join([ids[rnd.randint(1, n_locations)] for _ in range(depth)])
        values = w.varint(rnd.randint(1, 9)) + w.varint(rnd.getrandbits(rnd.choice((4, 20, 40))))
        samples.append(w.ld(1, stack) + w.ld(2, values) + (label if rnd.random() < 0.3 else b""))
    head = b"".join(w.ld(1, m) for m in (w.value_type(1, 2), w.value_type(3, 4)))
    tables = b"".join(w.ld(4, m) for m in locations) + b"".join(w.ld(5, m) for m in functions)
    if order == "interleaved":
        tables = b"".join(w.ld(4, a) + w.ld(5, b) for a, b in zip(locations, functions))
    body = b"".join(w.ld(2, s) for s in samples)
    text = b"".join(w.text(6, s) for s in strings)
    parts = [body, tables] if order == "samples-first" else [tables, body]
    return head + b"".join(parts) + text + w.vint(9, 1_700_000_000_000_000_000)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n_samples=st.integers(30_000, 50_000),
    n_locations=st.sampled_from([100, 20_000, 40_000]),
    big_strings=st.lists(st.sampled_from([1, 100_000, WINDOW // 2, WINDOW - 40, WINDOW + 1]), max_size=3),
    order=st.sampled_from(["tables-first", "samples-first", "interleaved"]),
)
def test_overlapped_decode_equals_plain_decode(seed, n_samples, n_locations, big_strings, order):
    raw = build(seed, n_samples, n_locations, big_strings, order)
    assert len(raw) > WINDOW  # several windows, or one large field
    gz = gzip.compress(raw, compresslevel=1)
    plain = pprofcore.loads(raw)
    overlapped = pprofcore.loads(gz, inflater="isal")
    assert overlapped == plain
    assert overlapped.to_bytes(compress=False) == plain.to_bytes(compress=False)


def test_overlapped_decode_error_is_the_plain_one():
    # An error in a later window: the overlapped path gives up and the plain
    # decode of the whole input names the byte.
    raw = build(7, 10_000, 20_000, [], "tables-first")
    bad = raw + w.key(2, 2) + w.varint(1000)  # a sample whose length runs past the end
    with pytest.raises(pprofcore.DecodeError) as plain:
        pprofcore.loads(bad)
    with pytest.raises(pprofcore.DecodeError) as overlapped:
        pprofcore.loads(gzip.compress(bad, compresslevel=1), inflater="isal")
    assert str(overlapped.value) == str(plain.value)
    assert overlapped.value.offset == plain.value.offset == len(raw) + 1  # at the length, after the tag
