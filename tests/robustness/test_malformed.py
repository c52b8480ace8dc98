"""Malformed-input catalogue: every class of bad input raises a DecodeError with
its own message, naming the field and the byte offset where that is meaningful.

Inputs are built byte by byte with tests/helpers/wirebuild.py, so expected offsets are
computed independently of the decoder. Never a crash, never a hang."""

from __future__ import annotations

import gzip
import random
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import CORPUS

import pprofcore
from pprofcore import DecodeError, GzipError
from pprofcore._build_info import inflaters

try:
    from pbprofile import valid_profiles
except ImportError:  # protobuf is a test-only dependency
    valid_profiles = None
from wirebuild import (
    FIXED32,
    LEN,
    SMALL_STRINGS,
    fixed32,
    fixed64,
    function,
    key,
    label,
    ld,
    line,
    location,
    mapping,
    offset_of,
    sample,
    small,
    span_of,
    text,
    top_level,
    varint,
    vint,
)

GOOD = small()
GOOD_GZ = gzip.compress(GOOD, mtime=0)
N = len(GOOD)
ANY = object()  # offset not asserted

S_TYPES, S_SAMPLE, S_MAPPING, S_LOCATION, S_FUNCTION, S_STRINGS, S_TIME = 1, 2, 3, 4, 5, 6, 9


def _locations(*locs):
    return dict(locations=list(locs))


def at(field, index=0):
    """Expected offset: the tag of the index-th top-level `field` of the case's own input."""
    return lambda data: offset_of(data, field, index)


def _case(data, fragment, field="", offset=ANY, exc=DecodeError, id=None):
    return pytest.param(data, exc, fragment, field, offset, id=id)


def _nested_line_wrong_type() -> tuple:
    # location{id:1, line{function_id as a length-delimited field}} placed first.
    line_payload = ld(1, b"\x01")
    loc = vint(1, 1) + ld(4, line_payload)
    data = ld(4, loc) + GOOD
    # outer tag + length (2) + id field (2) + line tag + length (2) -> the bad tag
    return data, 6


_NESTED_WT, _NESTED_WT_AT = _nested_line_wrong_type()


def _cases():
    cases = [
        # --------------------------------------------------------------- varints
        _case(GOOD + key(12, 0), "truncated varint", "Profile.period", N + 1, id="truncated-varint"),
        _case(
            key(9, 0) + b"\xff" * 10 + b"\x01",
            "varint longer than 10 bytes",
            "Profile.time_nanos",
            1,
            id="overlong-varint",
        ),
        # ---------------------------------------------------------- wire types
        _case(
            fixed64(9, 5) + GOOD,
            "wrong wire type for field number 9: expected varint (0), found fixed64 (1)",
            "Profile.time_nanos",
            0,
            id="wrong-wire-type-scalar",
        ),
        _case(
            vint(2, 5) + GOOD,
            "wrong wire type for field number 2: expected length-delimited (2), found varint (0)",
            "Profile.sample",
            0,
            id="wrong-wire-type-message",
        ),
        _case(
            _NESTED_WT,
            "wrong wire type for field number 1: expected varint (0), found length-delimited (2)",
            "Profile.location.line.function_id",
            _NESTED_WT_AT,
            id="wrong-wire-type-nested",
        ),
        _case(
            ld(2, fixed32(2, 1)) + GOOD,
            "wrong wire type for field number 2: expected varint (0), found fixed32 (5)",
            "Profile.sample.value",
            2,
            id="wrong-wire-type-sample-value",
        ),
        _case(b"\x0f" + GOOD, "invalid wire type 7", "Profile", 0, id="invalid-wire-type"),
        _case(key(20, 3) + GOOD, "unsupported wire type 3 (group)", "Profile (unknown field)", 2, id="group"),
        # ------------------------------------------------------------ lengths
        _case(
            GOOD + key(2, LEN) + varint(100) + b"\x00",
            "length 100 runs past the end of the enclosing message (1 bytes left)",
            "Profile.sample",
            N + 1,
            id="length-past-end",
        ),
        _case(
            GOOD + ld(2, key(1, LEN) + varint(50) + b"\x01"),
            "length 50 runs past the end of the enclosing message (1 bytes left)",
            "Profile.sample.location_id",
            N + 3,
            id="nested-length-overflow",
        ),
        _case(
            GOOD + ld(5, vint(1, 9) + key(2, 0)),
            "truncated varint",
            "Profile.function",
            N + 5,
            id="nested-truncated-varint",
        ),
        _case(
            GOOD + key(21, 1) + b"\x00" * 3,
            "truncated fixed64 field",
            "Profile (unknown field)",
            N + 2,
            id="truncated-fixed64",
        ),
        _case(
            GOOD + key(21, FIXED32) + b"\x00",
            "truncated fixed32 field",
            "Profile (unknown field)",
            N + 2,
            id="truncated-fixed32",
        ),
        # ------------------------------------------------------------ strings
        _case(
            small(strings=("x",) + tuple(SMALL_STRINGS[1:])),
            'string_table[0] must be "" but is 1 bytes long',
            "Profile.string_table",
            at(S_STRINGS),
            id="string-table-0-not-empty",
        ),
        _case(
            small(strings=()),
            'missing string table (pprof requires string_table[0] == "")',
            "Profile.string_table",
            None,
            id="missing-string-table",
        ),
        _case(
            small(functions=[function(1, 5), function(2, 99)]),
            "string index 99 out of range (string table has 10 entries)",
            "Profile.function.name",
            lambda d: span_of(d, S_FUNCTION, 1),
            id="string-index-out-of-range",
        ),
        _case(
            small(comments=[77]),
            "string index 77 out of range",
            "Profile.comment",
            ANY,
            id="string-index-out-of-range-comment",
        ),
        _case(
            small(samples=[sample([1], [1, 2], [label(9, 42)])]),
            "string index 42 out of range",
            "Profile.sample.label.str",
            ANY,
            id="string-index-out-of-range-label",
        ),
        _case(
            GOOD + vint(13, (1 << 64) - 1),
            "string index -1 out of range",
            "Profile.comment",
            ANY,
            id="negative-string-index",
        ),
        # ------------------------------------------------------------ references
        _case(
            small(samples=[sample([1, 7], [1, 2])]),
            "dangling reference to location id 7",
            "Profile.sample[0].location_id",
            at(S_SAMPLE),
            id="dangling-location",
        ),
        _case(
            small(
                **_locations(
                    location(1, 1, 0x401000, [line(9)]), location(2, 1, 1, [line(1)]), location(3, 0, 0, [line(2)])
                )
            ),
            "dangling reference to function id 9",
            "Profile.location[0] (id 1).line.function_id",
            at(S_LOCATION),
            id="dangling-function",
        ),
        _case(
            small(samples=[sample([1, 0], [1, 2])]),
            "reference to location id 0 (no location)",
            "Profile.sample[0].location_id",
            at(S_SAMPLE),
            id="sample-location-id-0",
        ),
        _case(
            small(**_locations(location(1, 1, 0, [line(1)]), location(2, 1, 0, [line(0, 3)]), location(3))),
            "reference to function id 0 (no function)",
            "Profile.location[1] (id 2).line.function_id",
            at(S_LOCATION, 1),
            id="line-function-id-0",
        ),
        _case(
            small(**_locations(location(1), location(1), location(3))),
            "multiple locations with same id 1",
            "Profile.location[1].id",
            at(S_LOCATION, 1),
            id="duplicate-location-id",
        ),
        _case(
            small(functions=[function(1, 5), function(1, 7)]),
            "multiple functions with same id 1",
            "Profile.function[1].id",
            at(S_FUNCTION, 1),
            id="duplicate-function-id",
        ),
        _case(
            small(mappings=[mapping(1), mapping(1)]),
            "multiple mappings with same id 1",
            "Profile.mapping[1].id",
            at(S_MAPPING, 1),
            id="duplicate-mapping-id",
        ),
        _case(
            small(**_locations(location(0), location(2), location(3))),
            "found location with reserved id 0",
            "Profile.location[0].id",
            at(S_LOCATION),
            id="location-id-0",
        ),
        _case(
            small(functions=[function(0, 5), function(2, 7)]),
            "found function with reserved id 0",
            "Profile.function[0].id",
            at(S_FUNCTION),
            id="function-id-0",
        ),
        _case(
            small(mappings=[mapping(0)], **_locations(location(1), location(2), location(3))),
            "found mapping with reserved id 0",
            "Profile.mapping[0].id",
            at(S_MAPPING),
            id="mapping-id-0",
        ),
        # ------------------------------------------------------------ values
        _case(
            small(samples=[sample([1], [1, 2]), sample([1], [1])]),
            "sample 1 has 1 values, sample 0 has 2",
            "Profile.sample.value",
            at(S_SAMPLE, 1),
            id="value-count-mismatch-between-samples",
        ),
        _case(
            small(samples=[sample([1], [1, 2, 3])]),
            "samples have 3 values but there are 2 sample types",
            "Profile.sample.value",
            at(S_SAMPLE),
            id="value-count-vs-sample-types",
        ),
        _case(
            small(sample_types=[]),
            "profile has 3 samples but no sample_type",
            "Profile.sample_type",
            None,
            id="samples-without-sample-type",
        ),
        # ------------------------------------------------------------ concatenation
        _case(
            GOOD + GOOD,
            "concatenated profiles detected (second time_nanos)",
            "Profile.time_nanos",
            N + offset_of(GOOD, S_TIME),
            id="concatenated",
        ),
        _case(
            GOOD_GZ + GOOD_GZ,
            "concatenated profiles detected (second time_nanos)",
            "Profile.time_nanos",
            N + offset_of(GOOD, S_TIME),
            id="concatenated-gzip-members",
        ),
        _case(
            small(time_nanos=0) * 2,
            "input looks like concatenated profiles (a sample_type at byte offset "
            f"{len(small(time_nanos=0))} follows the string table)",
            "Profile.sample.value",
            ANY,
            id="concatenated-without-time",
        ),
        # ------------------------------------------------------------ not pprof
        _case(b"", "empty input: no profile data", "", None, id="empty"),
        _case(gzip.compress(b""), "empty input: gzip stream decompresses to 0 bytes", "", None, id="empty-gzip"),
        _case(
            ld(1, ld(1, ld(1, text(1, "service.name")))) + ld(1, ld(2, b"")),
            "input is an OpenTelemetry OTLP profiles message that holds no profile",
            "ProfilesData",
            None,
            id="otlp-protobuf",
        ),
        _case(
            fixed32(1, 7) + ld(3, b"xyz"),
            "input is protobuf but its fields do not match profile.proto",
            "Profile.sample_type",
            0,
            id="foreign-protobuf",
        ),
        _case(
            b"--- heapz 1 ---\nformat = cpp\n",
            'legacy Java profile (text): format "cpp" is not java',
            "line 2",
            16,
            id="legacy-text-heapz",
        ),
        _case(
            b"goroutine profile: total 3\n1 @ 0x1 junk\n",
            "Go goroutine profile (debug=1 text)",
            "line 2",
            27,
            id="legacy-goroutine-text",
        ),
        _case(b'{"samples": []}', "input looks like JSON", ANY, ANY, id="json"),
        _case(
            b"\0" * 8 + b"\3" + b"\0" * 7 + b"\0" * 24,
            "legacy gperftools CPU profile (binary)",
            ANY,
            ANY,
            id="legacy-gperftools-cpu",
        ),
        # ------------------------------------------------------------ gzip
        _case(GOOD_GZ[:-10], "truncated gzip stream", "gzip", len(GOOD_GZ) - 10, GzipError, id="gzip-truncated"),
        _case(_flip(GOOD_GZ, len(GOOD_GZ) - 6), "CRC-32 mismatch", "gzip", 0, GzipError, id="gzip-bad-crc"),
        _case(_flip(GOOD_GZ, len(GOOD_GZ) - 2), "ISIZE mismatch", "gzip", 0, GzipError, id="gzip-bad-isize"),
        _case(_flip(GOOD_GZ, 12), "corrupt gzip data", "gzip", 0, GzipError, id="gzip-corrupt-deflate"),
        _case(
            GOOD_GZ + b"junk",
            "trailing garbage after gzip stream",
            "gzip",
            len(GOOD_GZ),
            GzipError,
            id="gzip-trailing-garbage",
        ),
        _case(GOOD_GZ[:10], "truncated gzip stream", "gzip", ANY, GzipError, id="gzip-header-only"),
    ]
    return cases


def _flip(data: bytes, i: int) -> bytes:
    b = bytearray(data)
    b[i] ^= 0xFF
    return bytes(b)


@pytest.mark.parametrize("data,exc,fragment,field,offset", _cases())
@pytest.mark.parametrize("inflater", inflaters())  # isal: the overlapped inflate-while-decoding path
def test_catalogue(data, exc, fragment, field, offset, inflater):
    with pytest.raises(exc) as info:
        pprofcore.loads(data, inflater=inflater)
    e = info.value
    assert fragment in e.reason, f"message {e.reason!r} lacks {fragment!r}"
    assert fragment in str(e)
    if field is not ANY:
        assert e.field == field
    if callable(offset):
        offset = offset(data)
    if offset is None:
        assert e.offset is None
    elif isinstance(offset, tuple):
        assert offset[0] <= e.offset <= offset[1], (e.offset, offset)
    elif offset is not ANY:
        assert e.offset == offset
    if e.offset is not None and e.field:
        assert f"at byte offset {e.offset}" in str(e)


def test_messages_are_distinct():
    """Every class of the catalogue produces its own message."""
    reasons = {}
    for param in _cases():
        data, exc, fragment, field, offset = param.values
        with pytest.raises(exc) as info:
            pprofcore.loads(data)
        reasons.setdefault(info.value.reason, []).append(param.id)
    # A few pairs legitimately share a message (same class, different place).
    shared = {tuple(v) for v in reasons.values() if len(v) > 1}
    assert shared <= {
        ("gzip-truncated", "gzip-header-only"),
        ("truncated-varint", "nested-truncated-varint"),
        ("concatenated", "concatenated-gzip-members"),
    }, shared


def test_valid_base_case_decodes():
    p = pprofcore.loads(GOOD)
    assert len(p) == 3 and p.sample_types == [("samples", "count"), ("cpu", "nanoseconds")]
    assert pprofcore.loads(GOOD_GZ) == p


def test_all_zero_label_is_dropped_not_an_error():
    """pprof's quirk: a label with neither str, num nor unit is dropped, silently."""
    p = pprofcore.loads(small(samples=[sample([1], [1, 2], [label(9), label(9, 5)])]))
    assert list(p.label_offsets) == [0, 1] and list(p.labels.str) == [5]


def test_unknown_fields_are_skipped():
    extra = vint(30, 5) + ld(31, b"\x08\x01") + fixed32(32, 1) + fixed64(33, 2)
    p = pprofcore.loads(extra + GOOD + extra)
    assert p == pprofcore.loads(GOOD)


def test_dangling_mapping_means_no_mapping_as_in_pprof():
    """pprof accepts a location whose mapping_id names no mapping (real producers
    write them) and shows it without a mapping; so does pprofcore."""
    data = small(**_locations(location(1, 3, 0x401000, [line(1)]), location(2), location(3)))
    p = pprofcore.loads(data)
    assert list(p.locations.mapping) == [-1, -1, -1]
    assert p.locations.address[0] == 0x401000
    assert pprofcore.loads(p.to_bytes()) == p


def test_gzip_bomb_limit():
    # Empty sample_type fields: a start that could be a profile (zero bytes are
    # refused from their first 64 KiB, before any limit; see test_robustness_io).
    bomb = gzip.compress(b"\x0a\x00" * 2_500_000)
    for inflater in inflaters():
        with pytest.raises(GzipError, match="exceeds the limit of 100000 bytes") as info:
            pprofcore.loads(bomb, max_decompressed_size=100_000, inflater=inflater)
        assert "max_decompressed_size" in str(info.value)
    # Under the limit the same input is accepted by the gzip layer (then fails as protobuf).
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(bomb, max_decompressed_size=10_000_000)
    assert not isinstance(info.value, GzipError)


def test_gzip_limit_applies_to_multi_member():
    data = gzip.compress(GOOD) + gzip.compress(b"\0" * 200_000)
    with pytest.raises(GzipError, match="exceeds the limit"):
        pprofcore.loads(data, max_decompressed_size=100_000)


def test_multi_member_gzip_is_joined():
    half = len(GOOD) // 2
    # Split at a top-level field boundary so each half is protobuf, joined they are GOOD.
    cut = max(s for _, s, _ in top_level(GOOD) if s <= half)
    data = gzip.compress(GOOD[:cut]) + gzip.compress(GOOD[cut:])
    for inflater in inflaters():
        assert pprofcore.loads(data, inflater=inflater) == pprofcore.loads(GOOD)


# ---------------------------------------------------------------- truncation


def _small_inputs():
    out = [pytest.param(GOOD, id="wirebuild-small")]
    for name in ("cairo/how-cairo-works__profile.pb.gz", "go/generated/gen-basic-block.pb.gz"):
        path = CORPUS / name
        if path.exists():
            out.append(pytest.param(gzip.decompress(path.read_bytes()), id=name))
    return out


@pytest.mark.parametrize("raw", _small_inputs())
def test_truncation_at_every_byte_raw(raw):
    """Cutting inside a top-level field always fails; cutting at a field boundary
    may leave a valid (smaller) profile, never anything else."""
    boundaries = {s for _, s, _ in top_level(raw)}
    for n in range(len(raw)):
        try:
            p = pprofcore.loads(raw[:n])
        except DecodeError as e:
            assert e.reason
            continue
        assert n in boundaries, f"prefix of {n} bytes cut inside a field but decoded"
        assert len(p) <= len(pprofcore.loads(raw))


@pytest.mark.parametrize("raw", _small_inputs())
@pytest.mark.parametrize("inflater", inflaters())
def test_truncation_at_every_byte_gzip(raw, inflater):
    gz = gzip.compress(raw, mtime=0)
    for n in range(len(gz)):
        with pytest.raises(DecodeError) as info:
            pprofcore.loads(gz[:n], inflater=inflater)
        if n >= 10:
            assert isinstance(info.value, GzipError), (n, info.value)
            assert "truncated gzip stream" in info.value.reason or "corrupt gzip data" in info.value.reason


# ---------------------------------------------------------------- bit flips and garbage


def _decode_or_decode_error(data: bytes):
    try:
        p = pprofcore.loads(data)
    except DecodeError as e:
        assert e.reason and isinstance(e, ValueError)
        return None
    # A surviving input must be a coherent profile that re-encodes to itself.
    assert pprofcore.loads(p.to_bytes(compress=False)) == p
    return p


@pytest.mark.parametrize("raw", _small_inputs())
def test_seeded_bit_flips(raw):
    rng = random.Random(1234)
    outcomes = {"error": 0, "ok": 0}
    for _ in range(1500):
        b = bytearray(raw)
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        outcomes["ok" if _decode_or_decode_error(bytes(b)) is not None else "error"] += 1
    assert outcomes["error"] > 0


def test_seeded_bit_flips_gzip():
    rng = random.Random(99)
    for _ in range(500):
        b = bytearray(GOOD_GZ)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        _decode_or_decode_error(bytes(b))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_garbage(data):
    _decode_or_decode_error(data)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_hypothesis_mutations(data):
    """Byte edits (flip, delete, insert, overwrite) of a valid profile."""
    b = bytearray(GOOD)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(b) - 1))
        op = data.draw(st.sampled_from(["flip", "delete", "insert", "set"]))
        if op == "flip":
            b[i] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "delete":
            del b[i]
        elif op == "insert":
            b.insert(i, data.draw(st.integers(0, 255)))
        else:
            b[i] = data.draw(st.sampled_from([0x00, 0x7F, 0x80, 0xFF]))
        if not b:
            break
    _decode_or_decode_error(bytes(b))


def test_huge_declared_lengths_do_not_allocate():
    """Length prefixes near 2^64 are rejected before anything is reserved."""
    for n in (1 << 31, 1 << 40, (1 << 64) - 1):
        with pytest.raises(DecodeError, match="runs past the end"):
            pprofcore.loads(key(2, LEN) + varint(n))


def test_deep_id_space_and_sparse_ids():
    """Ids far apart (hash-map path) and above INT32_MAX still resolve."""
    big = (1 << 40) + 7
    data = small(
        samples=[sample([big, 5], [1, 2])],
        **_locations(location(big, 1 << 33, 0x401000, [line(1 << 50)]), location(5, 0, 0, [line(3)])),
        mappings=[mapping(1 << 33, 0x400000, 0x500000)],
        functions=[function(1 << 50, 5), function(3, 7)],
    )
    p = pprofcore.loads(data)
    assert list(p.locations.id) == [big, 5]
    assert list(p.stack_locations) == [0, 1]
    assert list(p.locations.mapping) == [0, -1]
    assert list(p.lines.function) == [0, 1]
    assert list(p.functions.id) == [1 << 50, 3]


# ---------------------------------------------------------------- structured breakage of random valid profiles


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_breaking_one_reference_of_a_random_profile(data):
    """Take a random valid profile (the protobuf differential test's generator),
    break exactly one thing, and get exactly that thing's message."""
    if valid_profiles is None:
        pytest.skip("needs the protobuf package")
    msg = data.draw(valid_profiles())
    kinds = []
    if len(msg.sample) and len(msg.location):
        kinds += ["dangling-location", "location-id-0-in-sample"]
    if any(len(loc.line) for loc in msg.location):
        kinds += ["dangling-function"]
    if len(msg.location):
        kinds += ["location-id-0"]
    if len(msg.location) >= 2:
        kinds += ["duplicate-location"]
    if len(msg.function) >= 2:
        kinds += ["duplicate-function"]
    if len(msg.mapping):
        kinds += ["mapping-id-0"]
    if len(msg.sample):
        kinds += ["extra-value"]
    kinds += ["string-out-of-range", "string0-not-empty"]
    kind = data.draw(st.sampled_from(kinds))
    missing = max([0] + [loc.id for loc in msg.location] + [f.id for f in msg.function] + [m.id for m in msg.mapping])
    missing = missing + 1 if missing < 2**64 - 1 else 2**63
    if kind == "dangling-location":
        msg.sample[data.draw(st.integers(0, len(msg.sample) - 1))].location_id.append(missing)
        expect = f"dangling reference to location id {missing}"
    elif kind == "location-id-0-in-sample":
        msg.sample[0].location_id.append(0)
        expect = "reference to location id 0 (no location)"
    elif kind == "dangling-function":
        loc = next(loc for loc in msg.location if len(loc.line))
        loc.line[0].function_id = missing
        expect = f"dangling reference to function id {missing}"
    elif kind == "location-id-0":
        msg.location[data.draw(st.integers(0, len(msg.location) - 1))].id = 0
        expect = "found location with reserved id 0"
    elif kind == "duplicate-location":
        msg.location[1].id = msg.location[0].id
        expect = f"multiple locations with same id {msg.location[0].id}"
    elif kind == "duplicate-function":
        msg.function[1].id = msg.function[0].id
        expect = f"multiple functions with same id {msg.function[0].id}"
    elif kind == "mapping-id-0":
        for loc in msg.location:
            loc.mapping_id = 0
        msg.mapping[0].id = 0
        expect = "found mapping with reserved id 0"
    elif kind == "extra-value":
        msg.sample[-1].value.append(1)
        expect = "values"
    elif kind == "string-out-of-range":
        msg.doc_url = len(msg.string_table) + 3
        expect = f"string index {len(msg.string_table) + 3} out of range"
    else:
        msg.string_table[0] = b"x"
        expect = 'string_table[0] must be ""'
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(msg.SerializeToString())
    assert expect in info.value.reason, (kind, info.value.reason)


_INFLATERS = ["zlib", "auto"] + [b for b in ("libdeflate", "isal") if getattr(pprofcore._core, f"have_{b}")()]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=64), min_size=2, max_size=5), st.integers(min_value=0, max_value=4), st.booleans())
def test_header_crc_of_any_member_is_checked_by_every_inflater(payloads, which, right):
    # libdeflate skips a member's header CRC (FHCRC): a later member's bad one
    # passed there and failed in zlib (gzip_fuzzer). Every inflater must agree.
    which %= len(payloads)
    members = [gzip.compress(p, mtime=0) for p in payloads]
    head = bytearray(members[which][:10])
    head[3] |= 0x02  # FHCRC: the CRC-32 of the header's bytes, low 16 bits, follows it
    crc = zlib.crc32(bytes(head)) & 0xFFFF
    members[which] = bytes(head) + (crc if right else crc ^ 1).to_bytes(2, "little") + members[which][10:]
    data = b"".join(members)
    for inflater in _INFLATERS:
        if right:
            assert pprofcore._core.gunzip(data, 1 << 20, inflater) == b"".join(payloads), inflater
        else:
            with pytest.raises(GzipError):
                pprofcore._core.gunzip(data, 1 << 20, inflater)
