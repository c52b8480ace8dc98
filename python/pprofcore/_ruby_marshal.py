"""The part of Ruby's Marshal format (version 4.8) that plain data uses:
nil, true, false, integers (fixnums and bignums), floats, strings,
symbols, arrays and hashes, with Marshal's back references to symbols and
objects. stackprof writes its dumps so (``_from_stackprof``). Nothing here
creates objects of a class the data names: class instances, user types and
modules are refused, so a dump can never run code.

Errors are :class:`RubyMarshalError` with the byte offset of the value."""

from __future__ import annotations

import math
from typing import Any, List, Optional

MAX_DEPTH = 256  # nesting of arrays and hashes; stackprof's is four


class RubyMarshalError(ValueError):
    def __init__(self, reason: str, offset: int):
        super().__init__(f"{reason} at byte offset {offset}")
        self.reason, self.offset = reason, offset


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.symbols: List[str] = []
        self.objects: List[Any] = []

    def fail(self, reason: str, at: Optional[int] = None):
        raise RubyMarshalError(reason, self.pos if at is None else at)

    def byte(self) -> int:
        if self.pos >= len(self.data):
            self.fail("the data ends early")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def bytes_(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            self.fail(f"a length of {n} runs past the end")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def int_(self) -> int:
        """Marshal's packed integer: one byte for -123..122, else a count of
        little-endian bytes (negative counts for negative numbers)."""
        c = self.byte()
        if c == 0:
            return 0
        if 5 <= c <= 127:
            return c - 5
        if 128 <= c <= 251:
            return c - 256 + 5
        if c <= 4:
            return int.from_bytes(self.bytes_(c), "little")
        n = 256 - c  # 0xfc..0xff: 4..1 bytes of a negative number
        return int.from_bytes(self.bytes_(n), "little") - (1 << (8 * n))

    def text(self) -> bytes:
        return self.bytes_(self.int_())

    def symbol_body(self) -> str:
        name = self.text().decode("utf-8", "replace")
        self.symbols.append(name)
        return name

    def symbol(self) -> str:
        """A symbol where one must be (an ivar's name): ``:`` or ``;``."""
        at = self.pos
        t = self.byte()
        if t == 0x3A:  # ':'
            return self.symbol_body()
        if t == 0x3B:  # ';'
            return self._symlink(at)
        self.fail(f"expected a symbol, found type {chr(t)!r}", at)
        raise AssertionError  # unreachable: fail raises

    def _symlink(self, at: int) -> str:
        i = self.int_()
        if not 0 <= i < len(self.symbols):
            self.fail(f"symbol link {i} names no symbol ({len(self.symbols)} so far)", at)
        return self.symbols[i]

    def _register(self, value, slot: Optional[int] = None):
        if slot is None:
            self.objects.append(value)
        else:
            self.objects[slot] = value
        return value

    def value(self, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            self.fail(f"values nest deeper than {MAX_DEPTH} levels")
        at = self.pos
        t = self.byte()
        if t == 0x30:  # '0'
            return None
        if t == 0x54:  # 'T'
            return True
        if t == 0x46:  # 'F'
            return False
        if t == 0x69:  # 'i'
            return self.int_()
        if t == 0x3A:  # ':'
            return self.symbol_body()
        if t == 0x3B:  # ';'
            return self._symlink(at)
        if t == 0x40:  # '@': an object seen before
            i = self.int_()
            if not 0 <= i < len(self.objects) or self.objects[i] is _PENDING:
                self.fail(f"object link {i} names no finished object", at)
            return self.objects[i]
        if t == 0x6C:  # 'l': bignum
            sign = self.byte()
            if sign not in (0x2B, 0x2D):
                self.fail("a bignum's sign is neither '+' nor '-'", at)
            words = self.int_()
            n = int.from_bytes(self.bytes_(2 * words), "little")
            return self._register(-n if sign == 0x2D else n)
        if t == 0x66:  # 'f'
            return self._register(self._float(at))
        if t == 0x22:  # '"'
            return self._register(self.text().decode("utf-8", "replace"))
        if t == 0x49:  # 'I': a value with instance variables (a string's encoding)
            v = self.value(depth + 1)
            for _ in range(self._count(at)):
                self.symbol()
                self.value(depth + 1)
            return v
        if t == 0x5B:  # '['
            n = self._count(at)
            slot = len(self.objects)
            self.objects.append(_PENDING)
            return self._register(self._elements(n, depth), slot)
        if t in (0x7B, 0x7D):  # '{', '}' (a hash with a default value)
            n = self._count(at)
            slot = len(self.objects)
            self.objects.append(_PENDING)
            d = {}
            for _ in range(n):
                k = self.value(depth + 1)
                try:
                    d[k] = self.value(depth + 1)
                except TypeError:
                    self.fail("a hash key is a list or a hash", at)
            if t == 0x7D:
                self.value(depth + 1)  # the default value: not data
            return self._register(d, slot)
        name = chr(t) if 32 <= t < 127 else f"0x{t:02x}"
        self.fail(f"type {name!r} is not plain data (an object, class or user type)", at)

    def _elements(self, n: int, depth: int) -> list:
        """An array's elements. Integers, most of stackprof's data (its raw
        stacks and timestamps), are read here without a call each: one-byte
        fixnums and bignums inline, anything else through value()."""
        data, objects = self.data, self.objects
        end = len(data) - 3  # the inline reads look at most 3 bytes ahead of a value
        out: List[Any] = []
        append = out.append
        from_bytes = int.from_bytes
        p = self.pos
        for _ in range(n):
            if p < end:
                t = data[p]
                if t == 0x69:  # 'i'
                    c = data[p + 1]
                    if 5 <= c <= 127:
                        append(c - 5)
                        p += 2
                        continue
                elif t == 0x6C:  # 'l': sign, words of 16 bits, digits
                    c = data[p + 2]
                    q = p + 3 + 2 * (c - 5)
                    if 6 <= c <= 127 and q <= end + 3:
                        v = from_bytes(data[p + 3 : q], "little")
                        sign = data[p + 1]
                        if sign == 0x2D:
                            v = -v
                        if sign == 0x2B or sign == 0x2D:
                            objects.append(v)  # a bignum is an object: links may name it
                            append(v)
                            p = q
                            continue
            self.pos = p
            append(self.value(depth + 1))
            p = self.pos
        self.pos = p
        return out

    def _count(self, at: int) -> int:
        n = self.int_()
        # Each element takes at least one byte: a longer count is damage.
        if n < 0 or n > len(self.data) - self.pos:
            self.fail(f"a count of {n} is more than the data holds", at)
        return n

    def _float(self, at: int) -> float:
        text = self.text().split(b"\0", 1)[0].decode("ascii", "replace")
        special = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
        if text in special:
            return special[text]
        try:
            return float(text)
        except ValueError:
            self.fail(f"float {text!r:.40} is not a number", at)
        raise AssertionError  # unreachable: fail raises


_PENDING = object()  # an array or hash being read: a link to it is refused


def is_ruby_marshal(head: bytes) -> bool:
    """Marshal 4.8's two version bytes."""
    return head[:2] == b"\x04\x08"


def loads(data: bytes) -> Any:
    """The value of a Marshal 4.8 dump (see the module's docstring)."""
    if not is_ruby_marshal(data):
        raise RubyMarshalError("not Ruby Marshal 4.8 data (it starts with 04 08)", 0)
    r = _Reader(data)
    r.pos = 2
    v = r.value()
    if r.pos != len(data):
        raise RubyMarshalError(f"{len(data) - r.pos} bytes follow the value", r.pos)
    return v
