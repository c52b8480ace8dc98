"""A tiny hand-written protobuf wire encoder for building exact test inputs.

Independent of pprofcore's encoder and of the ``protobuf`` package, so a test can
place every byte where it wants (wrong wire types, bad lengths, unpacked
repeated fields, unknown fields) and compute expected byte offsets by hand.

Message helpers return the *payload* of a message (no tag); field helpers return
``tag + value``. :func:`profile` assembles top-level fields in pprof's usual order.
"""

from __future__ import annotations

from typing import Iterable, Sequence

VARINT, FIXED64, LEN, SGROUP, EGROUP, FIXED32 = 0, 1, 2, 3, 4, 5


def varint(n: int) -> bytes:
    """Base-128 varint; negative numbers are encoded as 64-bit two's complement (10 bytes)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(field: int, wire_type: int) -> bytes:
    return varint((field << 3) | wire_type)


def vint(field: int, n: int) -> bytes:
    """A varint field (tag + value)."""
    return key(field, VARINT) + varint(n)


def ld(field: int, payload: bytes) -> bytes:
    """A length-delimited field (tag + length + payload)."""
    return key(field, LEN) + varint(len(payload)) + payload


def text(field: int, s: str) -> bytes:
    return ld(field, s.encode())


def packed(field: int, nums: Iterable[int]) -> bytes:
    return ld(field, b"".join(varint(n) for n in nums))


def unpacked(field: int, nums: Iterable[int]) -> bytes:
    return b"".join(vint(field, n) for n in nums)


def fixed64(field: int, n: int) -> bytes:
    return key(field, FIXED64) + (n & ((1 << 64) - 1)).to_bytes(8, "little")


def fixed32(field: int, n: int) -> bytes:
    return key(field, FIXED32) + (n & 0xFFFFFFFF).to_bytes(4, "little")


def _opt(field: int, n: int) -> bytes:
    """proto3 scalar: omitted when zero."""
    return vint(field, n) if n else b""


# ---------------------------------------------------------------- messages


def value_type(type_: int, unit: int) -> bytes:
    return _opt(1, type_) + _opt(2, unit)


def label(key_: int, str_: int = 0, num: int = 0, num_unit: int = 0) -> bytes:
    return _opt(1, key_) + _opt(2, str_) + _opt(3, num) + _opt(4, num_unit)


def sample(
    location_ids: Sequence[int], values: Sequence[int], labels: Sequence[bytes] = (), pack: bool = True
) -> bytes:
    enc = packed if pack else unpacked
    out = b""
    if location_ids:
        out += enc(1, location_ids)
    if values:
        out += enc(2, values)
    for lab in labels:
        out += ld(3, lab)
    return out


def mapping(
    id_: int,
    start: int = 0,
    limit: int = 0,
    offset: int = 0,
    filename: int = 0,
    build_id: int = 0,
    has_functions: bool = False,
    has_filenames: bool = False,
    has_line_numbers: bool = False,
    has_inline_frames: bool = False,
) -> bytes:
    return (
        _opt(1, id_)
        + _opt(2, start)
        + _opt(3, limit)
        + _opt(4, offset)
        + _opt(5, filename)
        + _opt(6, build_id)
        + _opt(7, has_functions)
        + _opt(8, has_filenames)
        + _opt(9, has_line_numbers)
        + _opt(10, has_inline_frames)
    )


def line(function_id: int, line_no: int = 0, column: int = 0) -> bytes:
    return _opt(1, function_id) + _opt(2, line_no) + _opt(3, column)


def location(
    id_: int, mapping_id: int = 0, address: int = 0, lines: Sequence[bytes] = (), is_folded: bool = False
) -> bytes:
    return (
        _opt(1, id_) + _opt(2, mapping_id) + _opt(3, address) + b"".join(ld(4, ln) for ln in lines) + _opt(5, is_folded)
    )


def function(id_: int, name: int = 0, system_name: int = 0, filename: int = 0, start_line: int = 0) -> bytes:
    return _opt(1, id_) + _opt(2, name) + _opt(3, system_name) + _opt(4, filename) + _opt(5, start_line)


def profile(
    *,
    sample_types: Sequence[bytes] = (),
    samples: Sequence[bytes] = (),
    mappings: Sequence[bytes] = (),
    locations: Sequence[bytes] = (),
    functions: Sequence[bytes] = (),
    strings: Sequence[str] = ("",),
    drop_frames: int = 0,
    keep_frames: int = 0,
    time_nanos: int = 0,
    duration_nanos: int = 0,
    period_type: bytes | None = None,
    period: int = 0,
    comments: Sequence[int] = (),
    default_sample_type: int = 0,
    doc_url: int = 0,
) -> bytes:
    """A Profile message from already-encoded sub-message payloads."""
    out = b"".join(ld(1, m) for m in sample_types)
    out += b"".join(ld(2, m) for m in samples)
    out += b"".join(ld(3, m) for m in mappings)
    out += b"".join(ld(4, m) for m in locations)
    out += b"".join(ld(5, m) for m in functions)
    out += b"".join(text(6, s) for s in strings)
    out += _opt(7, drop_frames) + _opt(8, keep_frames) + _opt(9, time_nanos) + _opt(10, duration_nanos)
    if period_type is not None:
        out += ld(11, period_type)
    out += _opt(12, period) + unpacked(13, comments) + _opt(14, default_sample_type) + _opt(15, doc_url)
    return out


# Strings of :func:`small`, by code.
SMALL_STRINGS = ("", "samples", "count", "cpu", "nanoseconds", "main", "main.go", "worker", "/bin/app", "thread")


def small(**overrides) -> bytes:
    """A small valid profile (2 sample types, 3 samples, 1 mapping, 3 locations,
    2 functions, labels); keyword arguments replace its parts."""
    parts = dict(
        sample_types=[value_type(1, 2), value_type(3, 4)],
        samples=[
            sample([1, 2], [1, 10], [label(9, 7)]),
            sample([3, 2], [2, 20], [label(9, 5), label(9, num=3, num_unit=2)]),
            sample([2], [3, 30]),
        ],
        mappings=[mapping(1, 0x400000, 0x500000, 0, 8, has_functions=True)],
        locations=[
            location(1, 1, 0x401000, [line(2, 12, 3), line(1, 5)]),
            location(2, 1, 0x402000, [line(1, 7)]),
            location(3, 0, 0, [line(2, 20)]),
        ],
        functions=[function(1, 5, 5, 6, 3), function(2, 7, 7, 6, 10)],
        strings=SMALL_STRINGS,
        time_nanos=1_700_000_000_000_000_000,
        duration_nanos=10_000_000_000,
        period_type=value_type(3, 4),
        period=10_000_000,
    )
    parts.update(overrides)
    return profile(**parts)


# ----------------------------------------------------------------- reading


def read_varint(data: bytes, i: int) -> tuple:
    """(value, next index) of the varint at ``data[i]``."""
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def field_values(buf: bytes) -> list:
    """``(field, wire type, value, start, end)`` of each top-level field of a
    well-formed message: the value is an int for varints and fixed widths and
    the payload bytes for length-delimited fields; ``start`` is the tag's
    offset and ``end`` the offset after the field."""
    out, i = [], 0
    while i < len(buf):
        start = i
        tag, i = read_varint(buf, i)
        wt = tag & 7
        if wt == VARINT:
            v, i = read_varint(buf, i)
        elif wt == LEN:
            n, i = read_varint(buf, i)
            v, i = buf[i : i + n], i + n
        elif wt == FIXED64:
            v, i = int.from_bytes(buf[i : i + 8], "little"), i + 8
        elif wt == FIXED32:
            v, i = int.from_bytes(buf[i : i + 4], "little"), i + 4
        else:
            raise ValueError(f"wire type {wt} at {start}")
        out.append((tag >> 3, wt, v, start, i))
    return out


def top_level(data: bytes) -> list:
    """``(field, start, end)`` of each top-level field of a well-formed message
    (``start`` is the tag's offset), to compute expected error offsets."""
    return [(f, start, end) for f, _, _, start, end in field_values(data)]


def offset_of(data: bytes, field: int, index: int = 0) -> int:
    """Byte offset of the tag of the ``index``-th top-level ``field``."""
    return [s for f, s, _ in top_level(data) if f == field][index]


def span_of(data: bytes, field: int, index: int = 0) -> tuple:
    """``(start, end)`` of the ``index``-th top-level ``field`` (tag included)."""
    return [(s, e) for f, s, e in top_level(data) if f == field][index]


def profile_from_json(d: dict) -> bytes:
    """profile.proto bytes of a profile described as JSON: the derived fixtures
    of ../shared/conformance (google/pprof's driver and report test profiles)."""
    strings = {"": 0}

    def s(x):
        x = x or ""
        return strings.setdefault(x, len(strings))

    sample_types = [value_type(s(t), s(u)) for t, u in d.get("sample_types") or []]
    samples = []
    for smp in d.get("samples") or []:
        labels = [label(s(k), s(v)) for k, v in smp.get("labels") or []]
        labels += [label(s(k), 0, n, s(u) if u else 0) for k, n, u in smp.get("num_labels") or []]
        samples.append(sample(smp.get("locations") or [], smp.get("values") or [], labels))
    mappings = [
        mapping(
            m["id"],
            m["start"],
            m["limit"],
            m["offset"],
            s(m["file"]),
            s(m["build_id"]),
            m["has_functions"],
            m["has_filenames"],
            m["has_line_numbers"],
            m["has_inline_frames"],
        )
        for m in d.get("mappings") or []
    ]
    locations = [
        location(
            loc["id"],
            loc["mapping_id"],
            loc["address"],
            [line(ln["function_id"], ln["line"], ln.get("column", 0)) for ln in loc.get("lines") or []],
            loc["is_folded"],
        )
        for loc in d.get("locations") or []
    ]
    functions = [
        function(f["id"], s(f["name"]), s(f["system_name"]), s(f["filename"]), f["start_line"])
        for f in d.get("functions") or []
    ]
    header = dict(
        drop_frames=s(d.get("drop_frames")),
        keep_frames=s(d.get("keep_frames")),
        time_nanos=d.get("time_nanos") or 0,
        duration_nanos=d.get("duration_nanos") or 0,
        period=d.get("period") or 0,
        comments=[s(c) for c in d.get("comments") or []],
        default_sample_type=s(d.get("default_sample_type")),
        doc_url=s(d.get("doc_url")),
    )
    if d.get("period_type"):
        header["period_type"] = value_type(s(d["period_type"][0]), s(d["period_type"][1]))
    return profile(
        sample_types=sample_types,
        samples=samples,
        mappings=mappings,
        locations=locations,
        functions=functions,
        strings=list(strings),
        **header,
    )


def split_fields(payload: bytes) -> list:
    """A well-formed message's varint and length-delimited fields as (field
    number, raw bytes of tag and value, the value: an int, or the payload of a
    length-delimited field), in order: to reorder or repeat fields of an
    encoded message."""
    out = []
    for number, start, end in top_level(payload):
        raw = payload[start:end]
        _, at = read_varint(raw, 0)  # past the tag
        value, at = read_varint(raw, at)
        out.append((number, raw, raw[at:] if raw[0] & 7 == LEN else value))
    return out
