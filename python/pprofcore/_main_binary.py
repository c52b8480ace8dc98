"""pprof's ``pprof [BINARY] PROFILE...``: the binary named before the profiles,
and what pprof's driver does to every profile it reads around symbolizing it:
before (``locateBinaries``), a placeholder mapping for a profile without any
and the named binary as the first mapping's file; which mappings its
symbolizer looks for a binary for; after (``unsourceMappings``), no file for
a mapping named by a URL. The profile side is C++'s
(``_core.with_main_mapping``, ``_core.with_mapping_files``); this file
recognises binaries and URLs."""

from __future__ import annotations

import os
import re
import struct
from typing import TYPE_CHECKING

from . import _core

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

# ELF, and thin Mach-O in both byte orders (fat Mach-O shares Java's class file
# magic and is left out); PE is checked by its header below.
_MAGICS = (b"\x7fELF", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")


def is_object_file(path: str) -> bool:
    """Whether ``path`` is a file pprof's object reader would open as a binary
    (ELF, Mach-O, PE), judged by its magic numbers; False for what cannot be read."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] in _MAGICS:
                return True
            if head[:2] != b"MZ" or len(head) < 64:
                return False
            f.seek(struct.unpack_from("<I", head, 0x3C)[0])
            return f.read(4) == b"PE\0\0"
    except (OSError, ValueError, struct.error):
        return False


def with_main_mapping(profile: "Profile", exec_name: str = "") -> "Profile":
    """``profile`` as pprof's driver hands it on: one empty mapping (id 1) for
    all locations when it has none, and ``exec_name``, when given, as the
    first mapping's file (so the report's "File:" line and the symbolizer
    use it)."""
    return profile._derive(_core.with_main_mapping(profile._core, exec_name))


# pprof's Mapping.Unsymbolizable: kernel mappings have no binary to read
_UNSYMBOLIZABLE_PREFIXES = ("[", "linux-vdso")


def unsymbolizable(name: str, build_id: str) -> str:
    """Why pprof's symbolizer looks for no binary for a mapping of file
    ``name`` whatever its flags ("" when it would): a kernel or device
    mapping (``[vdso]``, ``linux-vdso.so.1``, ``/dev/dri/...``), or a URL
    without a build id."""
    if name and (os.path.basename(name).startswith(_UNSYMBOLIZABLE_PREFIXES) or name.startswith("/dev/dri/")):
        return "not a file"
    if "://" in name and not build_id:
        return "a URL, not a file"
    return ""


def needs_local_symbols(profile: "Profile") -> bool:
    """Whether pprof's default symbolization would look for a binary for
    ``profile``: a mapping with a file name, not marked symbolized, that is
    not :func:`unsymbolizable` (a cheap superset: unused mappings count too).
    Go profiles, whose mappings are all marked, answer without reading a
    string."""
    m = profile.mappings
    flagged = (m["has_functions"] | m["has_filenames"] | m["has_line_numbers"]).astype(bool)
    for row in (~flagged & (m["filename"] != 0)).nonzero()[0].tolist():
        if not unsymbolizable(profile._s(int(m["filename"][row])), profile._s(int(m["build_id"][row]))):
            return True
    return False


# Go's url.Parse: a scheme is a letter then letters, digits, "+", "-" or "."
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_PORT = re.compile(r":[0-9]*$")


def is_url(name: str) -> bool:
    """Whether Go's ``url.Parse(name)`` succeeds with a scheme (``IsAbs``), as
    pprof asks of each mapping's file: ``https://host/app.js``, and also
    ``C:\\app.exe``; not paths, nor text Go refuses to parse (control
    characters, a bad ``%`` escape, a port that is not a number)."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        return False
    m = _SCHEME.match(name)
    if m is None:
        return False
    url, _, fragment = name.partition("#")
    if _BAD_ESCAPE.search(fragment):
        return False
    rest = url[m.end() :].split("?", 1)[0]
    if not rest.startswith("/"):
        return True  # opaque (mailto:x, C:\\app.exe): nothing more is parsed
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        host = authority.rpartition("@")[2]
        if not host.startswith("[") and ":" in host and not _PORT.search(host):
            return False
        rest = slash + path
    return _BAD_ESCAPE.search(rest) is None


def unsourced(profile: "Profile") -> "Profile":
    """``profile`` with no file on the mappings that have no build id and a
    URL for a file, as pprof's driver leaves every profile after symbolizing
    it (``unsourceMappings``): such a mapping named where the profile came
    from, not a binary, so reports show no "File:" for it."""
    m = profile.mappings
    rows = [
        r
        for r, (f, b) in enumerate(zip(m["filename"].tolist(), m["build_id"].tolist()))
        if f and not b and is_url(profile._s(f))
    ]
    if not rows:
        return profile
    return profile._derive(_core.with_mapping_files(profile._core, rows, [""] * len(rows)))
