"""Disassembly listings: pprof's ``disasm`` report.

:func:`disassembly` annotates each instruction of the symbols matching a regex
(pprof's ``-disasm``: symbols from ``nm``, instructions and their source lines
from ``objdump -d -l``, samples at address granularity without inline frames)
and returns a :class:`~pprofcore.reports.listing.ListingTable`, as
:func:`~pprofcore.reports.listing.source_listing` does. Binaries are found
through :mod:`pprofcore.symbolize`; the binutils are run, never reimplemented."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import numpy as np

from .. import _args, _demangle, _units
from .._report_base import report_total
from ..symbolize import _elf, check_options, locate_binary
from ._nodes import nodes
from .listing import ListingTable, check_bool, listing_table, value_or_dot

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

__all__ = ["disassembly"]

_NM = re.compile(r"^\s*([0-9a-fA-F]+)\s+(.)\s+(.*)")
_ASM = re.compile(r"^\s*([0-9a-fA-F]+):\s+(.*)")
_FILELINE = re.compile(r"^;?\s?(.*):([0-9]+)")
_FUNCTION = re.compile(r"^;?\s?(\S.*)\(\):")
_FUNCTION_LLVM = re.compile(r"^([0-9a-fA-F]+)?\s?(.*):")


def disassembly(
    profile: "Profile",
    regex,
    *,
    binaries=None,
    search_path=None,
    sample_type=None,
    relative_percentages: bool = False,
    intel_syntax: bool = False,
    divide_by: float = 1.0,
) -> ListingTable:
    """pprof's ``-disasm=regex``: the instructions of every symbol (from ``nm
    -n`` of the mappings' binaries) whose name, mangled or demangled, matches
    ``regex``, with the flat and cum of the samples at each instruction (address
    granularity, inline frames folded into their location) and the function and
    source line ``objdump --line-numbers`` gives. Binaries are found as
    :func:`pprofcore.symbolize.symbolize` finds them. Raises ``ValueError`` when
    no symbol matches and ``RuntimeError`` naming the Debian package when
    ``objdump`` or ``nm`` is missing. ``intel_syntax``: x86 instructions in
    Intel syntax (``objdump -M intel``), as pprof's ``-intel_syntax``; values
    shown divided by ``divide_by``, as pprof's ``-divide_by``.
    ``p.disasm(...)`` is ``disassembly(p, ...)``; see ``docs/symbolize.md``.

    Examples
    --------
    The example profile's binary is not on this machine, so the call is skipped:

    >>> p = pprofcore.load(pprofcore.example_path())
    >>> p.strings[p.mappings.filename[0]]
    '/srv/acme/bin/basic'
    >>> print(pprofcore.reports.disassembly(p, "sha256.block", binaries="./basic"))  # doctest: +SKIP
    """
    rx = _args.compile_regex("disasm regex", regex)
    ratio = _units.display_ratio(divide_by)
    binaries, search = check_options(binaries, search_path, "auto", "simplified", False)
    check_bool("relative_percentages", relative_percentages)
    objdump, nm = shutil.which("objdump"), shutil.which("nm")
    if objdump is None or nm is None:
        raise RuntimeError("disasm needs objdump and nm (Debian: apt-get install binutils)")
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, "addresses", False)
    cols = t.columns()
    flat, cum = cols["flat"][:, ti], cols["cum"][:, ti]
    live = np.flatnonzero((flat != 0) | (cum != 0))
    s = profile._s
    fn_name = profile.functions["name"]
    loc_map = profile.locations["mapping"]
    # the mapping of each node: through the first location that maps to it
    node_map = np.full(len(t), -1, dtype=np.int64)
    lno, ln = cols["loc_node_offsets"], cols["loc_nodes"]
    for loc in range(len(loc_map)):
        for k in range(int(lno[loc]), int(lno[loc + 1])):
            if node_map[ln[k]] < 0:
                node_map[ln[k]] = loc_map[loc]
    names = [
        s(int(cols["name"][r])) if cols["function"][r] < 0 else s(int(fn_name[int(cols["function"][r])]))
        for r in range(len(t))
    ]
    maps = profile.mappings
    tot = report_total(profile, ti, False, relative_percentages)
    su = profile.sample_types[ti][1]
    routines: list = []
    out: Dict[str, list] = {k: [] for k in ("routine", "file", "address", "flat", "cum", "text")}
    info: Dict[str, list] = {k: [] for k in ("function", "source_file", "source_line")}
    symbols = []
    address = _as_address(rx.pattern)
    used = {int(node_map[r]) for r in live if node_map[r] >= 0 and rx.search(names[r])}
    if address is not None:  # pprof also opens the mappings that hold the address
        used |= {m for m in range(len(maps)) if maps["memory_start"][m] <= address <= maps["memory_limit"][m]}
    for m in sorted(used):
        name, build_id = s(int(maps["filename"][m])), s(int(maps["build_id"][m]))
        path, _ = locate_binary(name, build_id, m == 0, binaries, search)
        if path is None:
            continue
        rows = [r for r in live.tolist() if node_map[r] == m]
        start, limit, offset = int(maps["memory_start"][m]), int(maps["memory_limit"][m]), int(maps["file_offset"][m])
        try:
            elf = _elf.read_elf(path)
            first = int(cols["address"][rows[0]]) if rows else (address if address is not None else start)
            base = _elf.relocation_base(
                elf, _elf.segment_for_mapping(elf, start, limit, offset, first), start, limit, offset
            )
        except (OSError, _elf.NotELF, _elf.BaseError):
            continue
        for sym in _symbols(nm, path, rx, _demangle, address):
            symbols.append((sym, path, base, rows))
    if not symbols:
        raise ValueError(f"no matches found for regexp: {rx.pattern}")
    symbols.sort(key=lambda x: (x[0][0], x[0][1]))  # by name, then start (pprof's order for -disasm)
    for (sym_name, lo, hi, aliases), path, base, rows in symbols:
        insts = _objdump(objdump, path, lo, hi, intel_syntax)
        # the symbol's samples (pprof's nodesPerSymbol): objects addresses in [lo, hi]
        objaddr = sorted(
            a for a in (((int(cols["address"][r]) - base) & 0xFFFFFFFFFFFFFFFF, r) for r in rows) if lo <= a[0] <= hi
        )
        routine = {
            "name": sym_name,
            "file": path,
            "flat": sum(int(flat[r]) for _, r in objaddr),
            "cum": sum(int(cum[r]) for _, r in objaddr),
            "error": "",
            "aliases": aliases,
        }
        k = 0
        for i, (addr, text, function, file, line) in enumerate(insts):
            nxt = insts[i + 1][0] if i + 1 < len(insts) else 1 << 64
            f = c = 0
            while k < len(objaddr) and objaddr[k][0] < nxt:
                r = objaddr[k][1]
                f += int(flat[r])
                c += int(cum[r])
                k += 1
                # what objdump does not say, the samples' frames do (pprof's annotateAssembly)
                fr = int(cols["function"][r])
                if not file and fr >= 0:
                    file = s(int(profile.functions["filename"][fr]))
                if not line:
                    line = int(cols["lineno"][r])
                if not function:
                    function = names[r]
            for key, v in (
                ("routine", sym_name),
                ("file", path),
                ("address", addr),
                ("flat", f),
                ("cum", c),
                ("text", text),
            ):
                out[key].append(v)
            info["function"].append(function)
            info["source_file"].append(os.path.basename(file) if file else "")
            info["source_line"].append(line)
        routines.append(routine)
    columns = {
        k: (np.asarray(v, dtype=np.uint64 if k == "address" else np.int64) if k in ("address", "flat", "cum") else v)
        for k, v in out.items()
    }
    columns["function"] = info["function"]
    columns["source_file"] = info["source_file"]
    columns["source_line"] = np.asarray(info["source_line"], dtype=np.int64)
    return listing_table("disasm", columns, routines, profile.sample_types[ti][0], tot, su, ratio, _disasm_text)


def _as_address(pattern: str) -> Optional[int]:
    """The address a -disasm argument names (Go's ParseUint with base 0), or None."""
    try:
        v = int(pattern, 0)
    except ValueError:
        return None
    return v if 0 <= v < 1 << 64 else None


def _symbols(nm: str, path: str, rx, demangle_mod, address: Optional[int] = None) -> List[tuple]:
    """``(name, start, end, aliases)`` of the symbols of ``path`` matching ``rx``
    (nm -n, aliases at one address grouped, a symbol ending where the next
    begins; mangled names also tried demangled, as pprof does), or holding
    ``address`` when one is given."""
    r = subprocess.run([nm, "-n", path], capture_output=True, text=True, errors="replace")
    if r.returncode != 0:
        return []
    groups: List[Tuple[int, List[str]]] = []
    for line in r.stdout.splitlines():
        m = _NM.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        if groups and groups[-1][0] == addr:
            groups[-1][1].append(m.group(3))
        else:
            groups.append((addr, [m.group(3)]))
    mangled = [n for _, names in groups for n in names if demangle_mod.is_mangled(n)]
    forms = (
        {mode: demangle_mod.demangle_names(mangled, mode) for mode in ("full", "templates", "simplified")}
        if mangled
        else {}
    )
    out = []
    for i, (addr, names) in enumerate(groups):
        # a symbol ends where the next begins; the last one runs to the end (as in pprof)
        end = groups[i + 1][0] - 1 if i + 1 < len(groups) else (1 << 64) - 1
        if address is not None and addr <= address <= end:
            out.append((names[0], addr, end, names[1:]))  # an address names every alias
            continue
        for n in names:
            if rx.search(n):
                out.append((n, addr, end, []))
                break
            hit = next(
                (
                    forms[mode][n]
                    for mode in ("full", "templates", "simplified")
                    if n in forms.get(mode, {}) and rx.search(forms[mode][n])
                ),
                None,
            )
            if hit is not None:
                out.append((hit, addr, end, []))
                break
    return out


def _objdump(
    objdump: str, path: str, start: int, end: int, intel_syntax: bool = False
) -> List[Tuple[int, str, str, str, int]]:
    """Instructions of ``path`` in [start, end]: ``(address, text, function,
    file, line)`` with the function and line objdump's ``--line-numbers`` says."""
    r = subprocess.run(
        [
            objdump,
            "--disassemble",
            "--demangle",
            "--no-show-raw-insn",
            "--line-numbers",
            f"--start-address={start:#x}",
            f"--stop-address={end:#x}",
            *(["-M", "intel"] if intel_syntax else []),
            path,
        ],
        capture_output=True,
        text=True,
        errors="replace",
    )
    if r.returncode != 0:
        raise RuntimeError(f"objdump failed on {path}: {r.stderr.strip()[:300]}")
    function, file, line = "", "", 0
    out = []
    for raw in r.stdout.splitlines():
        text = raw.strip()
        m = _ASM.match(text)
        if m:
            out.append((int(m.group(1), 16), m.group(2), function, file, line))
            continue
        m = _FILELINE.match(text)
        if m:
            file, line = m.group(1), int(m.group(2))
            continue
        m = _FUNCTION.match(text)
        if m:
            function = m.group(1)
            continue
        m = _FUNCTION_LLVM.match(text)
        if m:
            function = m.group(2)
            continue
        function, file, line = "", "", 0  # pprof resets on lines it does not recognise
    return out


def _disasm_text(t: ListingTable, n: Optional[int] = None) -> str:
    m = t.meta
    su, tot, ratio = m["sample_unit"], m["total"], m.get("ratio", 1.0)
    value_label = lambda v: _units.scaled_label(_units.divided(v, ratio), su)  # noqa: E731
    out = list(t.header)
    rows: Dict[str, List[int]] = {}
    for i in range(len(t)):
        rows.setdefault(t["routine"][i], []).append(i)
    for r in m["routines"]:
        out.append(f"ROUTINE ======================== {r['name']}")
        out.extend(f"    AKA ======================== {a}" for a in r.get("aliases", []))
        out.append(
            f"{value_label(r['flat']):>10} {value_label(r['cum']):>10} "
            f"(flat, cum) {_units.percentage(r['cum'], tot)} of Total"
        )
        last = ("", "", 0)
        for i in rows.get(r["name"], []):
            where = (t["function"][i], t["source_file"][i], int(t["source_line"][i]))
            loc = ""
            if where != last:
                last = where
                loc = (where[0] + " ") if where[0] else ""
                if where[1]:
                    loc += where[1] + (f":{where[2]}" if where[2] else "")
            f, c = value_or_dot(int(t["flat"][i]), su, ratio), value_or_dot(int(t["cum"][i]), su, ratio)
            a, text = int(t["address"][i]), t["text"][i]
            if not loc:
                out.append(f"{f:>10} {c:>10} {a:10x}: {text}")
            elif len(text) < 40:
                out.append(f"{f:>10} {c:>10} {a:10x}: {text:<40};{loc}")
            else:
                out.append(f"{'':74};{loc}")
                out.append(f"{f:>10} {c:>10} {a:10x}: {text}")
    return "\n".join(out) + "\n"
