"""profile.proto's wire format for the few Python writers (folded input,
comments, the fleet store's headers): base-128 varints and length-delimited
fields. Whole profiles are encoded in C++ (encode.cpp); this writes small
messages only; the field numbers they write are the enums of
:mod:`._proto_fields`. A leaf module: imports nothing from pprofcore."""

from __future__ import annotations

from typing import Sequence

# The two wire types the writers use (the key's low three bits).
VARINT = 0
LEN = 2


def put_varint(n: int, out: bytearray) -> None:
    """Appends ``n`` as a varint; negative numbers as 64-bit two's complement."""
    n &= (1 << 64) - 1
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def varint(n: int) -> bytes:
    """``n`` as a varint (see :func:`put_varint`)."""
    out = bytearray()
    put_varint(n, out)
    return bytes(out)


def tag(field: int, wire_type: int) -> bytes:
    """The key of field ``field`` with wire type ``wire_type`` (``VARINT`` or ``LEN``)."""
    return varint((field << 3) | wire_type)


def put_field_varint(field: int, n: int, out: bytearray) -> None:
    """Appends a varint field (key and value)."""
    put_varint((field << 3) | VARINT, out)
    put_varint(n, out)


def put_field_bytes(field: int, data: bytes, out: bytearray) -> None:
    """Appends a length-delimited field (key, length, bytes)."""
    put_varint((field << 3) | LEN, out)
    put_varint(len(data), out)
    out += data


def put_packed(field: int, values: Sequence[int], out: bytearray) -> None:
    """Appends a packed repeated varint field."""
    body = bytearray()
    for v in values:
        put_varint(v, body)
    put_field_bytes(field, bytes(body), out)
