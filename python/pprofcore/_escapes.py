"""Characters a text format cannot hold, written as visible escapes (``\\x0a``,
``\\ufffe``) so a name stays readable and on its line. Each format names its
own forbidden set (callgrind's line breaks, XML's non-characters); the escape
is the same everywhere, and the same as the C++ folded export writes."""

from __future__ import annotations

import re


def _visible(m: "re.Match[str]") -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def escape_chars(forbidden: "re.Pattern[str]", s: str) -> str:
    """``s`` with each character matched by ``forbidden`` written as ``\\xNN``
    (below U+0100) or ``\\uNNNN``."""
    return forbidden.sub(_visible, s)
