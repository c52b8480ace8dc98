"""Large inputs: errors and repairs far into a big profile (several MiB of
samples, where the decoder may split the sample stream across threads) are
reported exactly as in a serial decode, and repair gives the same profile as
decoding the hand-fixed input."""

from __future__ import annotations

import pytest
from _pb import msg, profile

import pprofcore
from pprofcore import DecodeError, _core

N = 700_000  # ~6 MiB of samples: above the parallel-decode threshold
STRINGS = ("", "samples", "count", "main", "work")


def _sample(locs, values) -> bytes:
    return msg([(2, [(1, i) for i in locs] + [(2, v) for v in values])])


HEAD = profile(sample_types=[(1, 2), (1, 2)], strings=())
TAIL = profile(locations=[(1, 0, [1]), (2, 0, [2]), (3, 0, [1, 2])], functions=[(1, 3), (2, 4)], strings=STRINGS)
BASE = [_sample([1 + k, 2], [k + 1, 5]) for k in range(3)]


def build(replace: dict) -> bytes:
    """The big profile, with sample i replaced by replace[i] (None = left out)."""
    parts = [HEAD]
    for i in range(N):
        if i in replace:
            if replace[i] is not None:
                parts.append(replace[i])
        else:
            parts.append(BASE[i % 3])
    parts.append(TAIL)
    return b"".join(parts)


def _has_threads_option() -> bool:
    try:
        _core.decode(profile(strings=("",)), 1 << 20, "auto", 1)
    except TypeError:
        return False
    return True


# Builds without the parallel decoder still run the serial and repair checks.
THREADS = (1, 2) if _has_threads_option() else ()


def decode_threads(data: bytes, threads: int):
    return _core.decode(data, 1 << 34, "auto", threads)


POSITIONS = {"early": 10, "middle": N // 2 + 3, "late": N - 10}
KINDS = {
    # bad sample, hand-fixed equivalent (None = dropped), message, report
    "dangling-location": (
        _sample([99, 1], [1, 1]),
        _sample([1], [1, 1]),
        "dangling reference to location id 99",
        {"dangling_location_refs": 1},
    ),
    "zero-location": (
        _sample([0, 1], [1, 1]),
        _sample([1], [1, 1]),
        r"reference to location id 0 \(no location\)",
        {"zero_location_refs": 1},
    ),
    "value-count": (
        _sample([1], [1, 2, 3]),
        None,
        "has 3 values, sample 0 has 2",
        {"value_count_mismatch": 1, "dropped_values_sum": 6},
    ),
}


@pytest.mark.parametrize("where", POSITIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_error_and_repair_deep_in_a_large_profile(kind, where):
    bad, fixed, message, expected = KINDS[kind]
    i = POSITIONS[where]
    data = build({i: bad})
    with pytest.raises(DecodeError, match=message) as serial:
        pprofcore.loads(data)
    assert f"sample[{i}]" in str(serial.value) or f"sample {i} " in str(serial.value)
    for threads in THREADS:
        with pytest.raises(DecodeError) as e:
            decode_threads(data, threads)
        assert str(e.value) == str(serial.value)
    p, report = pprofcore.loads(data, repair=True)
    assert {k: v for k, v in report.as_dict().items() if v} == expected
    assert p == pprofcore.loads(build({i: fixed}))


def test_large_valid_profile_same_for_any_thread_count():
    data = build({})
    p = pprofcore.loads(data)
    assert len(p) == N
    for threads in THREADS:
        assert pprofcore.Profile._wrap(decode_threads(data, threads)) == p
    q, report = pprofcore.loads(data, repair=True)
    assert not report and q == p
