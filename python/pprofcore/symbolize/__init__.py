"""Symbolization: names, files and lines for profiles that carry addresses only
(gperftools, perf-derived, C/C++/Rust producers), resolved from the binaries on
this machine with ``llvm-symbolizer`` or ``addr2line`` as google/pprof's
``-symbolize=local`` does.

:func:`symbolize` picks the mappings pprof would symbolize (used, not already
symbolized unless ``force``, a file name, not ``[vdso]``-like), finds each
binary (explicit ``binaries``, the search path by build id and base name, then
the mapping's own path), checks the build id, turns runtime addresses into the
binary's addresses with the ELF program headers (:mod:`._elf`), runs one batch
symbolizer process per binary (:mod:`._tools`), demangles (:mod:`._demangle`)
and builds the new profile in C++ (``_core.apply_symbols``). A fleet passes a
:class:`SymbolCache` (:mod:`._cache`) so that each distinct mapping is located
and each address resolved once for all its profiles."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _args, _core, _demangle, _main_binary
from .._demangle import demangle
from . import _debuginfo, _elf, _tools
from ._cache import MappingEntry, SymbolCache
from ._tools import ToolFailed, ToolMissing

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

__all__ = ["symbolize", "demangle", "SymbolizeReport", "MappingResult", "SymbolCache", "ToolMissing", "ToolFailed"]

_FLAGS = {"functions": 1, "filenames": 2, "line_numbers": 4, "inline_frames": 8}


@dataclass
class MappingResult:
    """What happened to one mapping: ``status`` is "symbolized", "skipped"
    (already symbolized, unsymbolizable, no file name) or "missing" (no usable
    binary: ``reason`` says why).

    Examples
    --------
    >>> from pprofcore.symbolize import MappingResult
    >>> MappingResult(0, "a.out", "", "missing", "no binary found").status
    'missing'
    """

    mapping: int  # row in the profile's mappings table
    filename: str
    build_id: str
    status: str
    reason: str = ""
    binary: str = ""
    locations: int = 0  # locations of this mapping that were asked about
    resolved: int = 0  # ... that got at least one frame
    cached: bool = False  # the binary and frames came from a SymbolCache (no new lookup)


@dataclass
class SymbolizeReport:
    """The outcome of :func:`symbolize`: per-mapping results and totals.

    ``resolved`` counts locations that received frames, ``unresolved`` the
    locations of symbolized mappings the tool knew nothing about, and
    ``missing`` the mappings whose binary could not be used.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> q, report = p.symbolize()
    >>> [(m.status, m.reason) for m in report.mappings]  # its Go binary had names
    [('skipped', 'already symbolized')]
    >>> report.resolved
    0
    """

    tool: str
    mappings: List[MappingResult] = field(default_factory=list)

    @property
    def resolved(self) -> int:
        return sum(m.resolved for m in self.mappings)

    @property
    def unresolved(self) -> int:
        return sum(m.locations - m.resolved for m in self.mappings if m.status == "symbolized")

    @property
    def missing(self) -> List[MappingResult]:
        return [m for m in self.mappings if m.status == "missing"]

    def __repr__(self) -> str:
        return (
            f"<SymbolizeReport: {self.resolved} locations resolved, {self.unresolved} unresolved, "
            f"{len(self.missing)} mappings missing>"
        )

    def _repr_html_(self) -> str:
        from html import escape

        rows = "".join(
            f"<tr><td style='text-align:left'>{escape(m.filename or '(no file name)')}</td><td>{m.status}</td>"
            f"<td>{m.resolved}/{m.locations}</td><td style='text-align:left'>{escape(m.binary or m.reason)}</td></tr>"
            for m in self.mappings
        )
        return (
            f"<div><b>{escape(repr(self))}</b> ({escape(self.tool or 'no tool run')})<table>"
            "<tr><th>mapping</th><th>status</th><th>resolved</th><th>binary or reason</th></tr>"
            f"{rows}</table></div>"
        )

    def __str__(self) -> str:
        lines = [f"symbolized {self.resolved} locations with {self.tool} ({self.unresolved} unresolved)"]
        for m in self.mappings:
            what = f"{m.resolved}/{m.locations} locations from {m.binary}" if m.status == "symbolized" else m.reason
            lines.append(f"  {m.filename or '(no file name)'}: {m.status}" + (f": {what}" if what else ""))
        return "\n".join(lines)


def default_search_path() -> List[str]:
    """``$PPROF_BINARY_PATH`` split on ``os.pathsep``, else ``$HOME/pprof/binaries`` (as pprof)."""
    env = os.environ.get("PPROF_BINARY_PATH")
    if env is not None:
        return [p for p in env.split(os.pathsep) if p]
    return [os.path.join(os.path.expanduser("~"), "pprof", "binaries")]


def symbolize(
    profile: "Profile",
    *,
    binaries: Union[None, str, Sequence[str], Mapping[str, str]] = None,
    search_path: Union[None, str, Sequence[str]] = None,
    tool: str = "auto",
    demangle: str = "simplified",
    force: bool = False,
    cache: Optional[SymbolCache] = None,
    debuginfod: bool = True,
):
    """Resolves the addresses of ``profile``'s locations to functions, files and
    lines; returns ``(new_profile, report)``.

    - ``binaries``: a path (used for the main mapping, as ``pprof profile
      binary``), a list of paths (each matched to mappings by build id, else by
      base name), or a dict from a mapping's file name, base name or build id
      to a path.
    - ``search_path``: directories searched like ``PPROF_BINARY_PATH``
      (``dir/<build id>/<base name>``, ``dir/<build id>/*``, ``dir/<base
      name>``, ``dir/<mapping path>``); default ``$PPROF_BINARY_PATH`` or
      ``~/pprof/binaries``. The mapping's own path is tried last.
    - ``tool``: "auto" (llvm-symbolizer if installed, else addr2line),
      "llvm-symbolizer", "addr2line" or a path to either.
    - ``demangle``: "simplified" (pprof's default: no parameters or template
      arguments), "templates", "full" or "none" (pprof's
      ``-symbolize=demangle=`` values).
    - ``force``: also re-symbolize mappings that already have symbols.
    - ``cache``: a :class:`SymbolCache` shared by the profiles of a fleet:
      mappings with the same build id (else file name and size) are located
      once, and only addresses the cache has not seen go to the symbolizer.
    - ``debuginfod``: ask the servers ``DEBUGINFOD_URLS`` names for binaries
      not found here (the command line's implicit symbolization does not,
      as pprof's does not).

    All locations of a symbolized mapping take the frames the tool returns
    (innermost inline frame first, as pprof); locations it knows nothing about
    keep their lines. The mapping's ``has_*`` flags are set as pprof sets them.
    Raises :class:`ToolMissing` (naming the Debian package) when no symbolizer
    is installed and a mapping needs one.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> q, report = pprofcore.symbolize.symbolize(p)  # the example has names already
    >>> report
    <SymbolizeReport: 0 locations resolved, 0 unresolved, 0 mappings missing>
    >>> q == p
    True
    """
    binaries, search = check_options(binaries, search_path, tool, demangle, force)
    cols = profile._cols
    n_maps = len(cols["mappings.id"])
    loc_map = np.asarray(cols["locations.mapping"])
    addresses = np.asarray(cols["locations.address"])
    mstart, mlimit = cols["mappings.memory_start"], cols["mappings.memory_limit"]
    moffset = cols["mappings.file_offset"]
    s = profile._s
    kind_path = None
    report = SymbolizeReport(tool="")

    loc_rows: List[np.ndarray] = []
    frames = _tools.Frames()
    flags = np.zeros(n_maps, dtype=np.uint8)
    # the location rows of each mapping, in location order (one sort, not one scan per mapping)
    order = np.argsort(loc_map, kind="stable")
    bounds = np.searchsorted(loc_map[order], np.arange(n_maps + 1))
    for m in range(n_maps):
        rows = order[bounds[m] : bounds[m + 1]]
        if len(rows) == 0:
            continue  # pprof only looks at used mappings
        name, build_id = s(int(cols["mappings.filename"][m])), s(int(cols["mappings.build_id"][m]))
        res = MappingResult(m, name, build_id, "skipped", locations=len(rows))
        report.mappings.append(res)
        res.reason = _skip_reason(cols, m, name, build_id, force)
        if res.reason:
            continue
        entry, res.cached = _entry(
            cache, name, build_id, m == 0, binaries, search, int(mstart[m]), int(mlimit[m]), debuginfod
        )
        path = entry.path
        if path is None:
            res.status, res.reason = "missing", entry.reason
            continue
        span = (int(mstart[m]), int(mlimit[m]), int(moffset[m]))
        try:
            reloc = entry.bases.get(span)
            if reloc is None:
                reloc = entry.bases[span] = _base(path, build_id, int(addresses[rows[0]]), *span)
        except (OSError, _elf.NotELF, _elf.BaseError) as e:
            res.status, res.reason = "missing", f"{path}: {e}"
            continue
        if kind_path is None:
            kind_path = _tools.find_symbolizer(tool)
            report.tool = kind_path[1]
        objaddr = (addresses[rows] - np.uint64(reloc)).tolist()  # uint64 arithmetic wraps as pprof's
        if cache is not None:
            with cache.lock:
                got = cache.frames_of(entry, kind_path[0], kind_path[1], objaddr)
        else:
            got = _tools.resolve(kind_path[0], kind_path[1], path, objaddr)
        res.status, res.binary = "symbolized", path
        hit = np.asarray(got.counts, dtype=np.int64) > 0
        res.resolved = int(hit.sum())
        if not res.resolved:
            res.reason = "no symbols at these addresses"  # e.g. a stripped library: pprof leaves them too
            continue
        loc_rows.append(rows[hit])
        frames.extend(got)
        # pprof sets each flag when some frame has it, and has_inline_frames
        # whenever frames came back
        flags[m] |= (
            (_FLAGS["functions"] if any(got.function) else 0)
            | (_FLAGS["filenames"] if any(got.file) else 0)
            | (_FLAGS["line_numbers"] if any(got.line) else 0)
            | _FLAGS["inline_frames"]
        )
    if not loc_rows:
        return profile, report
    return _apply(profile, np.concatenate(loc_rows).astype(np.int32), frames, flags, demangle), report


def _entry(
    cache, name, build_id, is_main, binaries, search, start: int, limit: int, debuginfod: bool
) -> Tuple[MappingEntry, bool]:
    """The binary of a mapping (and the frames found so far), located once per
    mapping identity when there is a ``cache``; and whether the cache had it."""
    if cache is None:
        path, why = locate_binary(name, build_id, is_main, binaries, search, debuginfod=debuginfod)
        return MappingEntry(path, why or ""), False
    key = SymbolCache.key(name, build_id, start, limit)
    with cache.lock:
        entry = cache.entries.get(key)
        if entry is not None:
            return entry, True
        path, why = locate_binary(name, build_id, is_main, binaries, search, debuginfod=debuginfod)
        cache.locates += 1
        entry = cache.entries[key] = MappingEntry(path, why or "")
        return entry, False


def check_options(binaries, search_path, tool, demangle, force):
    """The options checked (TypeError/ValueError naming the bad one); returns
    ``binaries`` with paths as str and the search path as a list."""

    def path_like(v):
        return isinstance(v, (str, os.PathLike)) and os.fspath(v) != ""

    if binaries is not None and not path_like(binaries):
        if isinstance(binaries, Mapping):
            if not all(isinstance(k, str) and path_like(v) for k, v in binaries.items()):
                raise TypeError("binaries: a dict must map str keys to paths")
            binaries = {k: os.fspath(v) for k, v in binaries.items()}
        elif isinstance(binaries, (list, tuple)) and all(path_like(b) for b in binaries):
            binaries = [os.fspath(b) for b in binaries]
        else:
            raise TypeError(f"binaries must be a path, a list of paths or a dict, not {_args.type_name(binaries)}")
    if search_path is None:
        search = default_search_path()
    elif isinstance(search_path, str):
        search = [p for p in search_path.split(os.pathsep) if p]
    elif isinstance(search_path, (list, tuple)) and all(path_like(p) for p in search_path):
        search = [os.fspath(p) for p in search_path]
    else:
        raise TypeError(f"search_path must be a str or a list of paths, not {_args.type_name(search_path)}")
    if not _args.check_str("tool", tool):
        raise ValueError("tool must name a symbolizer: auto, llvm-symbolizer, addr2line or a path")
    _args.check_str("demangle", demangle)
    if demangle not in _demangle.MODES:
        raise ValueError(f"demangle must be one of {', '.join(_demangle.MODES)}, not {demangle!r}")
    if not isinstance(force, bool):
        raise TypeError(f"force must be a bool, not {_args.type_name(force)}")
    return binaries, search


def _skip_reason(cols, m: int, name: str, build_id: str, force: bool) -> str:
    """Why pprof would not symbolize mapping ``m`` ("" when it would)."""
    if not force and (
        cols["mappings.has_functions"][m] or cols["mappings.has_filenames"][m] or cols["mappings.has_line_numbers"][m]
    ):
        return "already symbolized"
    return _main_binary.unsymbolizable(name, build_id)


def _base(path: str, build_id: str, first: int, start: int, limit: int, offset: int) -> int:
    """The relocation base of ``path`` for a mapping, computed as pprof does from
    the first address it sees; raises when the file cannot serve the mapping."""
    elf = _elf.read_elf(path)
    if build_id and elf.build_id and elf.build_id != build_id:
        raise _elf.BaseError(f"build id {elf.build_id} does not match {build_id}")
    if not start <= first < limit and not (start == 0 and limit == 0):
        raise _elf.BaseError(f"address {first:#x} outside the mapping [{start:#x}, {limit:#x})")
    seg = _elf.segment_for_mapping(elf, start, limit, offset, first)
    return _elf.relocation_base(elf, seg, start, limit, offset)


def _apply(profile, loc_rows: np.ndarray, frames: "_tools.Frames", flags: np.ndarray, demangle: str):
    counts = np.asarray(frames.counts, dtype=np.int64)
    counts = counts[counts > 0]  # loc_rows lists the locations with frames only
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    names = _demangle.demangle_names(frames.function, demangle)  # one entry per distinct name
    strings: Dict[str, int] = {}
    code = lambda v: strings.setdefault(v, len(strings))  # noqa: E731
    # codes per distinct value, then one C-level lookup per frame
    name_code = {f: code(d) for f, d in names.items()}
    sys_code = {f: code(f) for f in names}
    file_code = {f: code(f) for f in dict.fromkeys(frames.file)}
    n = len(frames.function)
    core = _core.apply_symbols(
        profile._core,
        loc_rows,
        offsets,
        np.fromiter(map(name_code.__getitem__, frames.function), np.int32, n),
        np.fromiter(map(sys_code.__getitem__, frames.function), np.int32, n),
        np.fromiter(map(file_code.__getitem__, frames.file), np.int32, n),
        np.asarray(frames.line, dtype=np.int64),
        np.asarray(frames.column, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        list(strings),
        flags,
    )
    return profile._derive(core)


def locate_binary(name: str, build_id: str, is_main: bool, binaries, search: List[str], *, debuginfod: bool = True):
    """``(path, None)`` of the binary to use for a mapping, or ``(None, why)``
    (``debuginfod``: also ask the servers of ``DEBUGINFOD_URLS``).
    The path never starts with "-": every tool it is handed to (here and in
    ``disasm``) takes it for a path, not an option."""
    base = os.path.basename(name)
    candidates: List[str] = []
    if isinstance(binaries, (str, os.PathLike)):
        if is_main:
            candidates.append(os.fspath(binaries))
    elif isinstance(binaries, Mapping):
        for key in (build_id, name, base):
            if key and key in binaries:
                candidates.append(os.fspath(binaries[key]))
    elif binaries is not None:
        paths = [os.fspath(b) for b in binaries]
        if build_id:
            for p in paths:
                try:
                    if _elf.read_elf(p).build_id == build_id:
                        candidates.append(p)
                except (OSError, _elf.NotELF):
                    pass
        candidates += [p for p in paths if base and os.path.basename(p) == base]
    if build_id:
        candidates += _debuginfo.build_id_paths(build_id, search)
    for d in search:
        if build_id:
            candidates.append(os.path.join(d, build_id, base))
            bid_dir = os.path.join(d, build_id)
            if os.path.isdir(bid_dir):
                candidates += sorted(os.path.join(bid_dir, f) for f in os.listdir(bid_dir))
        if name:
            candidates.append(os.path.join(d, base))
            candidates.append(os.path.join(d, name.lstrip("/")))
    if name:
        candidates.append(name)
    mismatch = None
    for c in candidates:
        if not os.path.isfile(c):
            continue
        if build_id:
            try:
                got = _elf.read_elf(c).build_id
            except (OSError, _elf.NotELF):
                continue
            if got and got != build_id:
                mismatch = f"{c}: build id {got} does not match {build_id}"
                continue
        return _tools.path_arg(c), None
    if build_id and debuginfod:
        try:
            fetched = _debuginfo.fetch(build_id)
        except OSError as e:
            mismatch = mismatch or str(e)
            fetched = None
        if fetched:
            return _tools.path_arg(fetched), None
    if not name and not candidates:
        return None, "no file name (pass binaries=...)"
    return None, mismatch or f"binary not found ({name or build_id})"
