"""pprof's ``-callgrind -call_tree``: the callgrind text of the call tree, a node
per calling context at address granularity, untrimmed (pprof ignores the
trimming flags for callgrind), in flat (or ``-cum``) order.

The tree is :class:`.calltree_graph.CallTreeGraph`'s; the text is written by
:func:`pprofcore.reports.callgrind.write_callgrind`. Callgrind merges every
node of one (file, function name), so a callee whose name is shared by nodes
of several contexts is called ``name [i/n]``: pprof numbers the contexts
(the function under one parent) in the order their first node is written
(:func:`pprofcore.reports.callgrind.callee_names`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple, Union

from .._report_base import report_total
from ..reports.callgrind import CallgrindGraph, objfiles, write_callgrind
from .calltree_graph import CallTreeGraph
from .dot import shown_value

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def calltree_callgrind(
    profile: "Profile",
    sample_type: Union[int, str, None] = None,
    unit: Optional[str] = None,
    *,
    sort: str = "flat",
    mean: bool = False,
    drop_negative: bool = False,
) -> str:
    """The callgrind text of ``profile``'s call tree (see the module docstring);
    ``mean`` shows each node's flat value divided by its count sum (pprof's
    ``-mean``), while call costs stay sums, as pprof writes them."""
    if sort not in ("flat", "cum"):
        raise ValueError(f"sort must be 'flat' or 'cum', got {sort!r}")
    tree = CallTreeGraph(
        profile,
        sample_type,
        by="addresses",
        nodecount=0,
        nodefraction=0.0,
        edgefraction=0.0,
        drop_negative=drop_negative,
        unit=unit,
        mean=mean,
        order=sort,
    )
    cols = tree._table.columns()
    rows = tree._rows
    strings = profile.strings
    row_objfile = objfiles(profile, cols)
    row_file = tree._table.files()
    row_name = [strings[int(c)] for c in cols["name"]]
    row_printable = tree._table.printable_names()
    address, lineno = cols["address"].tolist(), cols["lineno"].tolist()
    g = tree._g
    calls: Dict[int, List[Tuple[int, int]]] = {}
    for parent, children in tree._out.items():
        calls[parent] = [(child, int(g["weight"][e])) for child, e in children.items()]
    graph = CallgrindGraph(
        order=list(tree._order),
        objfile=[row_objfile[r] for r in rows],
        file=[row_file[r] for r in rows],
        name=[row_name[r] for r in rows],
        address=[address[r] for r in rows],
        lineno=[lineno[r] for r in rows],
        flat=[shown_value(g, "flat", n) for n in range(len(rows))],
        cum=[shown_value(g, "cum", n) for n in range(len(rows))],
        printable=[row_printable[r] for r in rows],
        calls=calls,
        # a function under one parent: pprof's Node.Function in a tree
        function=[(tree.parents[n], row_name[r], row_file[r], row_objfile[r]) for n, r in enumerate(rows)],
    )
    return write_callgrind(profile, tree._ti, unit, mean, report_total(profile, tree._ti, mean, False), graph)
