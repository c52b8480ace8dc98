"""pprof's callgrind output (``-callgrind``), for KCachegrind and QCachegrind.

One cost line per node of pprof's graph at address granularity (in report
order: flat, then cum, then name), the node's flat value in the output unit,
then one ``calls=`` block per outgoing edge with the edge weight. Names, files
and objects are written once and then referred to by ``(id)``; addresses are
relative to the previous node when that is shorter, as pprof writes them.
``-call_tree`` (a node per calling context) is written by
:mod:`pprofcore.display.calltree_callgrind` through :func:`write_callgrind`;
there a callee that shares its file and name with nodes of other contexts is
called ``name [i/n]``, as pprof names it. ``mean`` (pprof's ``-mean``) shows
each node's flat value divided by its count sum, while call costs stay sums.
Nodes are pprofcore's address nodes, labelled with their mapping's file; pprof also splits a node whose
address, line and function appear in two different binaries (rare). A name
(function, file, object) stays on its ``fn=``/``fl=``/``ob=`` line: characters
that end a line are written as visible escapes (``\\x0a``, ``\\u2028``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, Hashable, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _units
from .._escapes import escape_chars
from .._report_base import go_div, report_total
from ._nodes import nodes, type_label_of

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


def objfiles(profile: "Profile", cols) -> List[str]:
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


class CallgrindGraph(NamedTuple):
    """What :func:`write_callgrind` reads; per-node sequences are indexed by node id."""

    order: List[int]  # the nodes, in report order
    objfile: Sequence[str]
    file: Sequence[str]
    name: Sequence[str]
    address: Sequence[int]
    lineno: Sequence[int]
    flat: Sequence[int]  # as shown (means with -mean)
    cum: Sequence[int]  # as shown; picks the unit where flat is 0
    printable: Sequence[str]  # pprof's printable names, which order tied calls
    calls: Dict[int, List[Tuple[int, int]]]  # caller -> (callee, summed weight)
    function: Sequence[Hashable]  # pprof's Node.Function: the nodes of one function (in one context)


def callee_names(g: CallgrindGraph) -> Dict[int, str]:
    """pprof's getDisambiguatedNames: a node's name, and where nodes of one
    (file, name) belong to several functions (contexts, binaries), `` [i/n]``
    with the functions numbered in node order. A callee outside the graph
    has none (pprof writes ``cfn=``)."""
    numbers: Dict[Tuple[str, str], Dict[Hashable, int]] = {}
    for n in g.order:
        per_name = numbers.setdefault((g.file[n], g.name[n]), {})
        per_name.setdefault(g.function[n], len(per_name))
    out = {}
    for n in g.order:
        per_name = numbers[(g.file[n], g.name[n])]
        suffix = f" [{per_name[g.function[n]] + 1}/{len(per_name)}]" if len(per_name) > 1 else ""
        out[n] = g.name[n] + suffix
    return out


def _output_unit(values: np.ndarray, tot: int, su: str, unit: Optional[str]) -> str:
    """pprof's selectOutputUnit for callgrind: the unit of the smallest non-zero
    value, without the x100 step other reports take (callgrind costs are integers)."""
    if unit not in (None, "minimum"):
        return unit
    nz = np.abs(values[values != 0])
    smallest = int(nz.min()) if len(nz) else tot
    return _units.scale(smallest, su, "minimum")[1] or su


def write_callgrind(profile: "Profile", ti: int, unit: Optional[str], mean: bool, tot: int, g: CallgrindGraph) -> str:
    """The callgrind text of ``g``, a graph of ``profile``'s sample type ``ti``
    (``mean``: of its means) whose percentages would use ``tot`` (it picks the
    unit of an empty graph)."""
    shown = np.array([g.flat[n] if g.flat[n] != 0 else g.cum[n] for n in g.order], dtype=np.int64)
    su = profile.sample_types[ti][1]
    ou = _output_unit(shown, tot, su, unit)
    label = _units.scale(1, su, ou)[1] or ou
    if not g.order:  # pprof picks no unit for an empty graph
        label = ou = unit or "minimum"
    cfn = callee_names(g)
    objs: Dict[str, int] = {}
    fls: Dict[str, int] = {}
    fns: Dict[str, int] = {}
    lines = ["positions: instr line", f"events: {type_label_of(profile, ti, mean)}({label})"]
    prev: Optional[int] = None
    scale = lambda v: int(_units.scale(int(v), su, ou)[0])  # noqa: E731  (Go truncates)
    for n in g.order:
        if prev is None or (g.objfile[n], g.file[n], g.name[n]) != (g.objfile[prev], g.file[prev], g.name[prev]):
            lines += [
                "",
                "ob=" + _name(objs, g.objfile[n]),
                "fl=" + _name(fls, g.file[n]),
                "fn=" + _name(fns, g.name[n]),
            ]
        pa = None if prev is None else g.address[prev]
        lines.append(f"{_address(pa, g.address[n])} {g.lineno[n]} {scale(g.flat[n])}")
        calls = g.calls.get(n, [])
        for c, w in sorted(calls, key=lambda cw: (-abs(cw[1]), g.printable[n], g.printable[cw[0]])):
            lines += [
                "cfl=" + _name(fls, g.file[c]),
                "cfn=" + _name(fns, cfn.get(c, "")),
                f"calls=0 {_address(pa, g.address[c])} {g.lineno[c]}",
                f"* * {scale(w)}",
            ]
        prev = n
    return "\n".join(lines) + "\n"


def to_callgrind(
    profile: "Profile",
    sample_type: Union[int, str, None] = None,
    unit: Optional[str] = None,
    inline: bool = True,
    *,
    sort: str = "flat",
    mean: bool = False,
) -> str:
    """The callgrind text of ``profile`` (see the module docstring); ``sort``
    "cum" orders the nodes by cum, as pprof's ``-cum``.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> print(pprofcore.reports.to_callgrind(p)[:37])
    positions: instr line
    events: cpu(ms)
    """
    if sort not in ("flat", "cum"):
        raise ValueError(f"sort must be 'flat' or 'cum', got {sort!r}")
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, "addresses", inline, ti)
    cols = t.columns()
    order = t.order(profile._core, ti, sort == "cum")
    flat, cum = cols["flat"][:, ti], cols["cum"][:, ti]
    if mean:  # pprof's SampleMeanDivisor: the first sample type
        flat, cum = go_div(flat, cols["flat"][:, 0]), go_div(cum, cols["cum"][:, 0])
    # with -mean, a sample of value 0 and count > 0 still makes its calls (of cost 0)
    e = t.edges(profile._core, np.ones(len(t), dtype=np.uint8), ti, 0 if mean else -1)
    w = e["weight"][:, ti].tolist() if len(e["src"]) else []
    calls: Dict[int, List[Tuple[int, int]]] = {}
    for s, d, weight in zip(e["src"].tolist(), e["dst"].tolist(), w):
        calls.setdefault(s, []).append((d, weight))
    strings = profile.strings
    fn_name = [strings[int(c)] for c in cols["name"]]
    order_list = order.tolist()
    objfile, files = objfiles(profile, cols), t.files()
    graph = CallgrindGraph(
        order=order_list,
        objfile=objfile,
        file=files,
        name=fn_name,
        address=cols["address"].tolist(),
        lineno=cols["lineno"].tolist(),
        flat=flat.tolist(),
        cum=cum.tolist(),
        printable=t.printable_names(),
        calls=calls,
        function=list(zip(fn_name, files, objfile)),
    )
    return write_callgrind(profile, ti, unit, mean, report_total(profile, ti, mean, False), graph)
