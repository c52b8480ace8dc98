"""Where the protobuf is odd but google/pprof accepts it, pprofcore accepts it
too and means the same thing: each input below is judged by pprof's
``profile.Parse`` (tools/goref/rawdump) and by pprofcore; when pprof accepts,
pprof's dump (``go tool pprof -raw``'s text) of pprofcore's re-encoding equals
its dump of the original.

Differences that remain on purpose are listed in docs/robustness.md.
"""

from __future__ import annotations

import pytest
import wirebuild as wb
from pprof_oracle import rawdumps
from testenv import requires_go

import pprofcore
from pprofcore import DecodeError

STRINGS = ("", "samples", "count", "main")


def _build(location=None, sample=None, tail=b"", lead=b"") -> bytes:
    return (
        lead
        + wb.profile(
            sample_types=[wb.value_type(1, 2)],
            samples=[sample if sample is not None else wb.sample([1], [5])],
            locations=[location if location is not None else wb.location(1, 0, 0x10, [wb.line(1)])],
            functions=[wb.function(1, 3)],
            strings=STRINGS,
        )
        + tail
    )


def _ten_byte_varint(last: int) -> bytes:
    return b"\xff" * 9 + bytes([last])


# (id, input, accepted by pprof, what pprofcore must then hold)
CASES = [
    pytest.param(
        _build(location=wb.location(1, 7, 0x1000, [wb.line(1)])),
        True,
        lambda p: list(p.locations.mapping) == [-1] and p.locations.address[0] == 0x1000,
        id="mapping-id-names-no-mapping",
    ),
    pytest.param(
        _build(location=wb.location(1, 1 << 40, 0x1000, [wb.line(1)])),
        True,
        lambda p: list(p.locations.mapping) == [-1],
        id="huge-mapping-id-names-no-mapping",
    ),
    pytest.param(_build(tail=wb.varint(0) + wb.varint(5)), True, lambda p: p.total() == 5, id="field-0-varint"),
    pytest.param(_build(lead=wb.varint(2) + wb.varint(1) + b"x"), True, lambda p: p.total() == 5, id="field-0-len"),
    pytest.param(
        _build(sample=wb.sample([1], [5]) + wb.varint(0) + wb.varint(3)),
        True,
        lambda p: p.total() == 5,
        id="field-0-in-sample",
    ),
    pytest.param(
        _build(location=wb.location(1, 0, 0x10, [wb.line(1)]) + wb.varint(0) + wb.varint(1)),
        True,
        lambda p: p.locations.address[0] == 0x10,
        id="field-0-in-location",
    ),
    pytest.param(
        _build(tail=wb.varint((1 << 29) << 3) + wb.varint(5)), True, lambda p: p.total() == 5, id="field-2^29"
    ),
    pytest.param(
        _build(tail=wb.varint((1 << 40) << 3 | 2) + wb.varint(2) + b"ab"),
        True,
        lambda p: p.total() == 5,
        id="field-2^40-len",
    ),
    pytest.param(
        _build(sample=wb.key(2, 0) + _ten_byte_varint(0x7F) + wb.packed(1, [1])),
        True,
        lambda p: p.values.tolist() == [[-1]],
        id="10-byte-varint-overflow-bits-dropped",
    ),
    pytest.param(
        _build(sample=wb.key(2, 0) + _ten_byte_varint(0x03) + wb.packed(1, [1])),
        True,
        lambda p: p.values.tolist() == [[-1]],
        id="10-byte-varint-last-byte-3",
    ),
    pytest.param(
        _build(tail=wb.key(9, 0) + _ten_byte_varint(0x7E)),
        True,
        lambda p: p.time_nanos == (1 << 63) - 1,
        id="10-byte-varint-time-nanos",
    ),
    pytest.param(
        _build(sample=wb.key(2, 0) + b"\xff" * 10 + b"\x01" + wb.packed(1, [1])), False, None, id="11-byte-varint"
    ),
    pytest.param(_build(tail=wb.varint(20 << 3 | 3)), False, None, id="wire-type-3"),
    pytest.param(_build(tail=wb.varint(20 << 3 | 6)), False, None, id="wire-type-6"),
]


@pytest.mark.parametrize("data, accepted, check", CASES)
def test_pprofcore_judges_like_pprof(data, accepted, check):
    if accepted:
        p = pprofcore.loads(data)
        assert check(p)
        assert pprofcore.loads(p.to_bytes()) == p
    else:
        with pytest.raises(DecodeError):
            pprofcore.loads(data)


@requires_go
def test_verdicts_and_dumps_match_google_pprof(tmp_path):
    files = []
    for i, case in enumerate(CASES):
        data, accepted, _ = case.values
        orig = tmp_path / f"{i:02d}.pb"
        orig.write_bytes(data)
        files.append((case.id, accepted, orig))
        if accepted:
            (tmp_path / f"{i:02d}.ours.pb").write_bytes(pprofcore.loads(data).to_bytes(compress=False))
    args = []
    for _, accepted, orig in files:
        args.append(str(orig))
        if accepted:
            args.append(str(orig.with_suffix(".ours.pb")))
    dumps = rawdumps(args, timeout=120)
    for case_id, accepted, orig in files:
        verdict = not dumps[str(orig)].startswith("ERROR")
        assert verdict == accepted, f"{case_id}: pprof says {dumps[str(orig)][:200]!r}"
        if accepted:
            assert dumps[str(orig.with_suffix(".ours.pb"))] == dumps[str(orig)], case_id
