"""pprof's ``weblist`` report: the ``list`` report of the matching functions and,
when their binary is found, the ``disasm`` report of the same symbols with each
instruction placed under the source line of the listed function it belongs to.

An instruction's own line (objdump's) is often in a function inlined into the
listed one; like pprof, the symbolizer's inline frames of each instruction
address decide: the frame of the listed function gives the line. Instructions
the symbolizer knows nothing of stay on their objdump line when it is in the
listed function. The page itself is ``display/weblist.py``'s.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from .. import _demangle
from ..symbolize import _tools
from .disasm import disassembly
from .listing import ListingTable, source_listing

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


class Weblist:
    """The two tables of a weblist page: ``listing`` (a :func:`source_listing`)
    and ``disasm`` (a :func:`disassembly`, or None without a binary), and
    ``listed``: per disasm row, the listed function it belongs to and its line
    in that function (``("", 0)`` when none).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> w = pprofcore.reports.weblist(p, "sha256.block")
    >>> w.disasm is None  # the example's binary is not on this machine
    True
    """

    def __init__(self, listing: ListingTable, disasm: Optional[ListingTable], listed: List[Tuple[str, int]]) -> None:
        self.listing, self.disasm, self.listed = listing, disasm, listed


def weblist(
    profile: "Profile",
    regex,
    *,
    source_path: Optional[str] = None,
    trim_path: str = "",
    binaries=None,
    search_path=None,
    sample_type=None,
    relative_percentages: bool = False,
    intel_syntax: bool = False,
    divide_by: float = 1.0,
) -> Weblist:
    """The weblist of the functions matching ``regex`` (arguments as
    :func:`source_listing` and :func:`disassembly`). Without objdump or the
    binary the disassembly is left out, as pprof's page then shows the source
    alone. Raises ``ValueError`` when no function matches. ``p.weblist(...)``
    is ``weblist(p, ...)``; ``pprofcore -weblist`` draws it.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> w = pprofcore.reports.weblist(p, "sha256.block")
    >>> print(w.listing)  # doctest: +ELLIPSIS
    Total: 5.03s
    ROUTINE ======================== crypto/sha256.block in crypto/sha256/sha256block_amd64.s
    ...
    """
    listing = source_listing(
        profile,
        regex,
        source_path=source_path,
        trim_path=trim_path,
        sample_type=sample_type,
        relative_percentages=relative_percentages,
        divide_by=divide_by,
    )
    try:
        disasm = disassembly(
            profile,
            regex,
            binaries=binaries,
            search_path=search_path,
            sample_type=sample_type,
            relative_percentages=relative_percentages,
            intel_syntax=intel_syntax,
            divide_by=divide_by,
        )
    except (ValueError, RuntimeError):
        return Weblist(listing, None, [])
    names = {r["name"] for r in listing.meta["routines"]}
    return Weblist(listing, disasm, _listed_lines(disasm, names))


def _listed_lines(disasm: ListingTable, listed: set) -> List[Tuple[str, int]]:
    """Per instruction, the listed function it belongs to and its line there."""
    out = [("", 0)] * len(disasm)
    for i in range(len(disasm)):  # objdump's own line first
        if disasm["function"][i] in listed:
            out[i] = (disasm["function"][i], int(disasm["source_line"][i]))
    try:
        kind, tool = _tools.find_symbolizer("auto")
    except _tools.ToolMissing:
        return out
    by_binary: Dict[str, List[int]] = {}
    for i in range(len(disasm)):
        by_binary.setdefault(disasm["file"][i], []).append(i)
    for binary, rows in by_binary.items():
        if not os.path.isfile(binary):
            continue
        try:
            frames = _tools.resolve(kind, tool, binary, [int(disasm["address"][i]) for i in rows]).frames()
        except (_tools.ToolFailed, OSError):
            continue
        mangled = sorted({f[0] for fs in frames for f in fs if f[0]})
        shown = _demangle.demangle_names(mangled)
        for i, fs in zip(rows, frames):
            # outermost frame of a listed function (inline frames come innermost first)
            for function, _file, line, _col in reversed(fs):
                name = shown.get(function, function)
                if line and name in listed:
                    out[i] = (name, int(line))
                    break
    return out
