"""pprof's callgrind output (``-callgrind``), for KCachegrind and QCachegrind.

One cost line per node of pprof's graph at address granularity (in report
order: flat, then cum, then name), the node's flat value in the output unit,
then one ``calls=`` block per outgoing edge with the edge weight. Names, files
and objects are written once and then referred to by ``(id)``; addresses are
relative to the previous node when that is shorter, as pprof writes them.
Not here: ``-call_tree`` (per-context nodes). Nodes are pprofcore's address
nodes, labelled with their mapping's file; pprof also splits a node whose
address, line and function appear in two different binaries (rare). A name
(function, file, object) stays on its ``fn=``/``fl=``/``ob=`` line: characters
that end a line are written as visible escapes (``\\x0a``, ``\\u2028``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List, Optional, Union

import numpy as np

from .. import _units
from .._escapes import escape_chars
from .._report_base import report_total
from ._nodes import nodes

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


# Every character that ends a line for some reader (KCachegrind splits on LF,
# Python's splitlines also on CR, VT, FF, FS..RS, NEL, LS, PS) and the other C0
# controls; a name runs to the end of its line, so anything else may stay.
_LINE_BREAKS = re.compile("[\x00-\x08\x0a-\x1f\x85\u2028\u2029]")


def _name(table: Dict[str, int], name: str) -> str:
    """``(id) name`` the first time (a name stays on its line: line breaks are
    written as visible escapes such as ``\\x0a``), ``(id)`` after."""
    if not name:
        return ""
    if name in table:
        return f"({table[name]})"
    table[name] = len(table) + 1
    return f"({table[name]}) {escape_chars(_LINE_BREAKS, name)}"


def _address(prev: Optional[int], cur: int) -> str:
    absolute = f"{cur:#x}"
    if prev is None:
        return absolute
    if prev == cur:
        return "*"
    diff = (cur - prev + 2**63) % 2**64 - 2**63  # Go: int64(curr - prev)
    relative = f"{diff:+d}"
    return relative if len(relative) < len(absolute) else absolute


def _objfiles(profile: "Profile", cols) -> List[str]:
    """Per node, the file of its location's mapping: callgrind reports keep
    binary names on every node (pprof's ObjNames)."""
    lno, ln = cols["loc_node_offsets"], cols["loc_nodes"]
    per_loc = np.diff(lno)
    loc_of_entry = np.repeat(np.arange(len(per_loc)), per_loc)
    mapping = profile.locations.mapping[loc_of_entry] if len(loc_of_entry) else np.zeros(0, np.int64)
    files = profile.mappings.filename
    code = np.zeros(len(cols["name"]), dtype=np.int64)
    has = mapping >= 0
    code[ln[has]] = files[mapping[has]]
    strings = profile.strings
    return [strings[int(c)] for c in code.tolist()]


def _output_unit(values: np.ndarray, tot: int, su: str, unit: Optional[str]) -> str:
    """pprof's selectOutputUnit for callgrind: the unit of the smallest non-zero
    value, without the x100 step other reports take (callgrind costs are integers)."""
    if unit not in (None, "minimum"):
        return unit
    nz = np.abs(values[values != 0])
    smallest = int(nz.min()) if len(nz) else tot
    return _units.scale(smallest, su, "minimum")[1] or su


def to_callgrind(
    profile: "Profile", sample_type: Union[int, str, None] = None, unit: Optional[str] = None, inline: bool = True
) -> str:
    """The callgrind text of ``profile`` (see the module docstring).

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> print(pprofcore.reports.to_callgrind(p)[:37])
    positions: instr line
    events: cpu(ms)
    """
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, "addresses", inline, ti)
    cols = t.columns()
    order = t.order(profile._core, ti, False)
    flat, cum = cols["flat"][:, ti], cols["cum"][:, ti]
    su = profile.sample_types[ti][1]
    tot = report_total(profile, ti, False, False)
    ou = _output_unit(np.where(flat[order] != 0, flat[order], cum[order]), tot, su, unit)
    label = _units.scale(1, su, ou)[1] or ou
    mask = np.ones(len(t), dtype=np.uint8)
    e = t.edges(profile._core, mask, ti, -1)
    printable = t.printable_names()
    files = t.files()
    strings = profile.strings
    fn_name = [strings[int(c)] for c in cols["name"]]
    objfile = _objfiles(profile, cols)
    address, lineno = cols["address"].tolist(), cols["lineno"].tolist()
    out_edges: Dict[int, List[int]] = {}
    w = e["weight"][:, ti] if len(e["src"]) else np.zeros(0, np.int64)
    for k, s in enumerate(e["src"].tolist()):
        out_edges.setdefault(s, []).append(k)
    objs: Dict[str, int] = {}
    fls: Dict[str, int] = {}
    fns: Dict[str, int] = {}
    lines = ["positions: instr line", f"events: {profile.sample_types[ti][0]}({label})"]
    prev: Optional[int] = None
    scale = lambda v: int(_units.scale(int(v), su, ou)[0])  # noqa: E731  (Go truncates)
    for n in order.tolist():
        if prev is None or (objfile[n], files[n], fn_name[n]) != (objfile[prev], files[prev], fn_name[prev]):
            lines += ["", "ob=" + _name(objs, objfile[n]), "fl=" + _name(fls, files[n]), "fn=" + _name(fns, fn_name[n])]
        pa = None if prev is None else address[prev]
        lines.append(f"{_address(pa, address[n])} {lineno[n]} {scale(flat[n])}")
        dst = e["dst"]
        for k in sorted(out_edges.get(n, []), key=lambda k: (-abs(int(w[k])), printable[n], printable[dst[k]])):
            c = int(dst[k])
            lines += [
                "cfl=" + _name(fls, files[c]),
                "cfn=" + _name(fns, fn_name[c]),
                f"calls=0 {_address(pa, address[c])} {lineno[c]}",
                f"* * {scale(w[k])}",
            ]
        prev = n
    return "\n".join(lines) + "\n"
