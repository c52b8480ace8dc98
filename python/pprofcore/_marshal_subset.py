"""Reads the part of Python's ``marshal`` format that a pstats dump uses.

``marshal.loads`` is not safe on damaged input: its docs say it is not meant
to be, and some damaged dumps crash the interpreter (a code object, or
references to objects still being built). This reader accepts only data
values (None, booleans, ints, floats, str, bytes, tuples, lists and dicts,
with marshal's back references) and raises :class:`MarshalError` naming the
byte offset for anything else, so a damaged dump is an error, never a crash.
"""

from __future__ import annotations

import struct
from typing import Any, List

MAX_DEPTH = 64  # a pstats dump nests four deep; deeper input is damage
MAX_LONG_DIGITS = 64  # 15-bit digits: far past int64, and no quadratic sum of a huge one
FLAG_REF = 0x80
_PENDING = object()  # a tuple's reference slot while its items are read

_INT32 = struct.Struct("<i")
_DOUBLE = struct.Struct("<d")


class MarshalError(ValueError):
    """Bytes that are not a marshalled data value: ``offset`` is where."""

    def __init__(self, message: str, offset: int):
        super().__init__(f"{message} at byte offset {offset}")
        self.offset = offset


class _Reader:
    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.pos = 0
        self.refs: List[Any] = []

    def take(self, n: int, what: str) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise MarshalError(f"{what} runs past the end of the input", self.pos)
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def int32(self, what: str) -> int:
        return _INT32.unpack(self.take(4, what))[0]

    def count(self, what: str, short: bool = False) -> int:
        at = self.pos
        n = self.take(1, what)[0] if short else self.int32(what)
        # every item takes at least one byte: a count past the input is damage
        if n < 0 or n > len(self.data) - self.pos:
            raise MarshalError(f"{what} {n} does not fit in the input", at)
        return n

    def text(self, n: int, encoding: str, what: str) -> str:
        at = self.pos
        try:
            return str(self.take(n, what), encoding, "surrogatepass" if encoding == "utf-8" else "strict")
        except UnicodeDecodeError as e:
            raise MarshalError(f"{what} is not valid {encoding} ({e.reason})", at) from None

    def value(self, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise MarshalError(f"values nested more than {MAX_DEPTH} deep", self.pos)
        at = self.pos
        code = self.take(1, "a value's type")[0]
        kind, keep = chr(code & ~FLAG_REF), bool(code & FLAG_REF)
        if kind == "r":
            i = self.int32("a reference")
            if not 0 <= i < len(self.refs) or self.refs[i] is _PENDING:
                raise MarshalError(f"reference {i} names no finished value", at)
            return self.refs[i]
        if kind in "()":
            n = self.count("a tuple's length", short=kind == ")")
            slot = self.reserve(keep)
            out: Any = tuple(self.value(depth + 1) for _ in range(n))
            return self.fill(slot, out)
        if kind == "[":
            out = []
            self.fill(self.reserve(keep), out)
            out.extend(self.value(depth + 1) for _ in range(self.count("a list's length")))
            return out
        if kind == "{":
            out = {}
            self.fill(self.reserve(keep), out)
            while self.data[self.pos : self.pos + 1] != b"0":
                key_at = self.pos
                key = self.value(depth + 1)
                try:
                    out[key] = self.value(depth + 1)
                except TypeError:
                    raise MarshalError("a dict key is not hashable", key_at) from None
            self.pos += 1
            return out
        return self.fill(self.reserve(keep), self.scalar(kind, at))

    def scalar(self, kind: str, at: int) -> Any:
        if kind in "NFT":
            return {"N": None, "F": False, "T": True}[kind]
        if kind == "i":
            return self.int32("an int")
        if kind == "l":
            n = self.int32("a long's size")
            if abs(n) > MAX_LONG_DIGITS:
                raise MarshalError(f"a long of {abs(n)} digits is larger than a pstats dump holds", at)
            digits = struct.unpack(f"<{abs(n)}H", self.take(2 * abs(n), "a long's digits"))
            if any(d >= 1 << 15 for d in digits):
                raise MarshalError("a long's digit is out of range", at)
            v = sum(d << (15 * i) for i, d in enumerate(digits))
            return -v if n < 0 else v
        if kind == "g":
            return _DOUBLE.unpack(self.take(8, "a float"))[0]
        if kind == "f":
            s = self.text(self.take(1, "a float's length")[0], "ascii", "a float")
            try:
                return float(s)
            except ValueError:
                raise MarshalError(f"float text {s!r:.40} is not a number", at) from None
        if kind == "s":
            return bytes(self.take(self.count("a bytes length"), "bytes"))
        if kind in "tu":
            return self.text(self.count("a string's length"), "utf-8", "a string")
        if kind in "aA":
            return self.text(self.count("a string's length"), "latin-1", "a string")
        if kind in "zZ":
            return self.text(self.count("a string's length", short=True), "latin-1", "a string")
        raise MarshalError(f"marshal type {kind!r} is not a data value of a pstats dump", at)

    def reserve(self, keep: bool) -> int:
        if not keep:
            return -1
        self.refs.append(_PENDING)
        return len(self.refs) - 1

    def fill(self, slot: int, v: Any) -> Any:
        if slot >= 0:
            self.refs[slot] = v
        return v


def loads(data: bytes) -> Any:
    """The first marshalled value of ``data`` (as ``marshal.loads``; later
    bytes are ignored), restricted to data values.

    Examples
    --------
    >>> import marshal
    >>> loads(marshal.dumps({("a.py", 1, "f"): (1, 1, 0.5, 0.5, {})}))
    {('a.py', 1, 'f'): (1, 1, 0.5, 0.5, {})}
    """
    return _Reader(data).value()
