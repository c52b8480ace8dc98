"""Text that is safe inside the files the display writes: XML (SVG) and
Graphviz DOT. Names come from profiles and may hold anything; XML 1.0 forbids
most control characters, lone surrogates and U+FFFE/U+FFFF even as character
references, and Graphviz stops at NUL. Those characters are written as their
visible escape (``\\x01``, ``\\ufffe``) so the name stays readable and the file
stays well-formed. Escaping of markup (``<``, ``&``, quotes) is done here too."""

from __future__ import annotations

import re

from .._escapes import escape_chars

# Everything outside XML 1.0's Char production (tab, LF and CR are allowed).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def markup(s: str) -> str:
    """``s`` with ``&``, ``<`` and ``>`` escaped (xml.sax.saxutils' ``escape``,
    which would import urllib.request, http.client and ssl at start-up)."""
    return s.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def printable(s: str) -> str:
    """``s`` with every character XML forbids written as its visible escape."""
    return escape_chars(_FORBIDDEN, s)


def xml_text(s: str) -> str:
    """``s`` for XML character data or a quoted attribute value."""
    return markup(printable(s)).replace('"', "&quot;").replace("'", "&apos;")


def dot_string(s: str) -> str:
    """``s`` inside a double-quoted DOT string. Graphviz escapes it again for
    SVG, so C++ templates with < and & come out right; a newline becomes a
    centred line break."""
    return printable(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def pprof_dot_string(s: str) -> str:
    """``s`` inside a double-quoted DOT string as pprof writes it: backslash and
    quote escaped, a newline a left-justified break (``\\l``)."""
    return printable(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l")
