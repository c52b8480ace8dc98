"""OTLP messages whose samples name far more stack locations than their bytes
hold: a stack stored once and named by every sample (v1.10.0's stack_table),
or overlapping ranges of a profile's location_indices (v1.7.0). Each is refused
as a bomb with a DecodeError naming the field, not read until memory runs out."""

from __future__ import annotations

import pytest
from wirebuild import ld, packed, vint

import pprofcore
from pprofcore import DecodeError

DEPTH, SAMPLES = 100_000, 2_000  # 200M locations from about 0.3 MB


def _message(dictionary: bytes, profile: bytes) -> bytes:
    # ProfilesData{resource_profiles{scope_profiles{profiles}}, dictionary}
    return ld(1, ld(2, ld(2, profile))) + ld(2, dictionary)


def _dictionary_v1_10() -> bytes:
    strings = b"".join(ld(5, s) for s in (b"", b"cpu", b"ns", b"f"))
    functions = ld(3, b"") + ld(3, vint(1, 3))
    locations = ld(2, b"") + ld(2, ld(3, vint(1, 1)))
    stacks = ld(7, b"") + ld(7, packed(1, [1] * DEPTH))
    return ld(1, b"") + locations + functions + strings + stacks


def test_shared_stack_named_by_every_sample_is_refused():
    sample = vint(1, 1) + packed(4, [1])  # stack_index 1, values [1]
    profile = ld(1, vint(1, 1) + vint(2, 2)) + b"".join(ld(2, sample) for _ in range(SAMPLES))
    with pytest.raises(DecodeError, match="expand to more than .*refused as a decompression bomb") as e:
        pprofcore.load_otlp(_message(_dictionary_v1_10(), profile))
    assert e.value.field == "Sample.stack_index" and e.value.offset > 0


def test_overlapping_v1_7_ranges_are_refused():
    strings = b"".join(ld(5, s) for s in (b"", b"cpu", b"ns", b"f"))
    dictionary = ld(3, vint(1, 3)) + ld(2, ld(3, vint(1, 0))) + strings
    # v1.7.0: sample {locations_start_index i, locations_length DEPTH - i, value [1]}
    samples = b"".join(ld(2, vint(1, i) + vint(2, DEPTH - i) + packed(3, [1])) for i in range(SAMPLES))
    profile = ld(1, vint(1, 1) + vint(2, 2)) + samples + packed(3, [0] * DEPTH)
    with pytest.raises(DecodeError, match="v1.7.0.*expand to more than .* decompression bomb") as e:
        pprofcore.load_otlp(_message(dictionary, profile))
    assert e.value.field == "Sample.locations_length" and e.value.offset > 0


def test_a_deep_stack_shared_by_many_samples_below_the_bound_reads():
    # 2,000 samples of one 5,000-frame stack: 10M locations, a real profile's shape.
    sample = vint(1, 1) + packed(4, [3])
    strings = b"".join(ld(5, s) for s in (b"", b"cpu", b"ns", b"f"))
    dictionary = (
        ld(1, b"")
        + ld(2, b"")
        + ld(2, ld(3, vint(1, 1)))
        + ld(3, b"")
        + ld(3, vint(1, 3))
        + strings
        + ld(7, b"")
        + ld(7, packed(1, [1] * 5_000))
    )
    profile = ld(1, vint(1, 1) + vint(2, 2)) + b"".join(ld(2, sample) for _ in range(SAMPLES))
    [item] = pprofcore.load_otlp(_message(dictionary, profile))
    assert len(item.profile.values) == SAMPLES and int(item.profile.values.sum()) == 3 * SAMPLES
