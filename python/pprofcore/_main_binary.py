"""pprof's ``pprof [BINARY] PROFILE...``: the binary named before the profiles,
and what pprof's driver does to every profile it reads before symbolizing it
(``locateBinaries``): a placeholder mapping for a profile without any, the
named binary as the first mapping's file. The profile side is C++'s
(``_core.with_main_mapping``); this file only recognises binaries."""

from __future__ import annotations

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
