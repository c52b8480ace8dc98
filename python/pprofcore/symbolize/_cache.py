"""What a fleet keeps between profiles while symbolizing: per distinct mapping
(its build id, else its file name and size) the binary found for it and the
frames of every address already resolved, so each binary is located once and
each address handed to the symbolizer once, however many profiles share it."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import _tools

#: frames of one address: (functions, files, lines, columns), innermost first
AddressFrames = Tuple[Tuple[str, ...], Tuple[str, ...], Tuple[int, ...], Tuple[int, ...]]


@dataclass
class MappingEntry:
    """One mapping identity: the binary (or why there is none) and the frames found so far."""

    path: Optional[str]
    reason: str
    frames: Dict[int, AddressFrames] = field(default_factory=dict)
    bases: Dict[Tuple[int, int, int], int] = field(default_factory=dict)  # (start, limit, offset) -> base


class SymbolCache:
    """SymbolCache holds what symbolizing a fleet has found (see the module
    doc); pass one to :func:`pprofcore.symbolize.symbolize` as ``cache=``,
    or let ``ProfileSet(symbolize=...)`` keep one for the set.

    ``tool_runs`` counts the symbolizer batches run and ``addresses`` the
    addresses they were given; ``locates`` counts binaries looked up (build-id
    directories, search path, debuginfod). A lock makes it safe to share
    between threads.

    Examples
    --------
    One cache for many profiles of the same binaries: each mapping is
    looked up once, each address resolved once.

    >>> cache = pprofcore.symbolize.SymbolCache()
    >>> cache
    <SymbolCache 0 mappings, 0 symbolizer runs, 0 addresses>
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> for q in (p, p):  # the example's binary is not here: nothing to resolve
    ...     _ = pprofcore.symbolize.symbolize(q, cache=cache)
    """

    def __init__(self) -> None:
        self.entries: Dict[tuple, MappingEntry] = {}
        self.tool_runs = 0
        self.addresses = 0
        self.locates = 0
        self.lock = threading.RLock()

    def __repr__(self) -> str:
        return (
            f"<SymbolCache {len(self.entries)} mappings, {self.tool_runs} symbolizer runs, {self.addresses} addresses>"
        )

    @staticmethod
    def key(name: str, build_id: str, start: int, limit: int) -> tuple:
        """A mapping's identity: its build id when it has one, else its file and size."""
        return ("build_id", build_id) if build_id else ("file", name, int(limit) - int(start))

    def frames_of(self, entry: MappingEntry, kind: str, tool: str, addresses: Sequence[int]) -> "_tools.Frames":
        """The frames of ``addresses`` (as the binary sees them), running the
        symbolizer only on those not seen before for this mapping."""
        new = sorted({a for a in addresses if a not in entry.frames})
        if new:
            got = _tools.resolve(kind, tool, entry.path or "", new)
            self.tool_runs += 1
            self.addresses += len(new)
            k = 0
            for a, n in zip(new, got.counts):
                entry.frames[a] = (
                    tuple(got.function[k : k + n]),
                    tuple(got.file[k : k + n]),
                    tuple(got.line[k : k + n]),
                    tuple(got.column[k : k + n]),
                )
                k += n
        out = _tools.Frames()
        fn: List[str] = out.function
        for a in addresses:
            f, fl, ln, col = entry.frames[a]
            out.counts.append(len(f))
            fn.extend(f)
            out.file.extend(fl)
            out.line.extend(ln)
            out.column.extend(col)
        return out
