"""pprof's outputs compared up to the order pprof leaves to chance: its call
tree (``-call_tree``) sorts equally ranked nodes of different contexts in the
order its maps give them. In DOT that decides the node ids; in callgrind text
the order of a function's nodes, their ``[i/n]`` numbers and the relative
addresses, so the text is read back into records first."""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

_SUFFIX = re.compile(r" \[\d+/(\d+)\]$")


def dot_without_ids(dot: str) -> list:
    """The lines with node ids blanked, sorted."""
    return sorted(re.sub(r"\bN+\d+(_\d+)*\b|node\d+", "N", line) for line in dot.splitlines())


def _name(table: Dict[str, str], field: str) -> str:
    """The name behind ``(id) name`` or ``(id)``."""
    m = re.match(r"^\((\d+)\)(?: (.*))?$", field)
    if m is None:
        return field
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table[m.group(1)]


def _address(prev: Optional[int], token: str) -> int:
    if token == "*":
        assert prev is not None
        return prev
    if token[0] in "+-":
        assert prev is not None
        return prev + int(token)
    return int(token, 16)


def read_callgrind(text: str) -> Tuple[List[str], List[tuple]]:
    """The header lines and one record per cost line: (ob, fl, fn, address,
    line, cost, calls), names resolved, addresses absolute, and the context
    number of ``name [i/n]`` blanked (``[?/n]``)."""
    lines = text.split("\n")
    header, body = lines[:2], lines[2:]
    objs: Dict[str, str] = {}
    files: Dict[str, str] = {}
    fns: Dict[str, str] = {}
    out: List[tuple] = []
    ob = fl = fn = ""
    prev: Optional[int] = None  # the address of the node before this one: pprof's base for all of its lines
    here: Optional[int] = None
    calls: list = []
    callee: list = []
    for ln in body:
        if not ln:
            continue
        key, _, value = ln.partition("=")
        if key in ("ob", "fl", "fn", "cfl", "cfn") and _ == "=":
            table = {"ob": objs, "fl": files, "cfl": files}.get(key, fns)
            name = _SUFFIX.sub(r" [?/\1]", _name(table, value))
            if key == "ob":
                ob = name
            elif key == "fl":
                fl = name
            elif key == "fn":
                fn = name
            else:
                callee.append(name)
        elif ln.startswith("calls="):
            _, addr, line = ln.split(" ")
            callee += [_address(prev, addr), int(line)]
        elif ln.startswith("* * "):
            calls.append(tuple(callee) + (int(ln[4:]),))
            callee = []
        else:
            if out:
                out[-1] = out[-1][:6] + (tuple(calls),)
            calls = []
            addr, line, cost = ln.split(" ")
            prev = here
            here = _address(prev, addr)
            out.append((ob, fl, fn, here, int(line), int(cost), ()))
    if out:
        out[-1] = out[-1][:6] + (tuple(calls),)
    return header, out


def callgrind_without_ties(text: str) -> Tuple[List[str], List[tuple]]:
    """:func:`read_callgrind` with each run of records of one address and line
    sorted (pprof's ties: with ``-mean`` tied sums may show different means)."""
    header, recs = read_callgrind(text)
    out: List[tuple] = []
    run: List[tuple] = []
    for r in recs + [None]:  # type: ignore[list-item]
        if run and (r is None or r[:5] != run[0][:5]):
            out += sorted(run)
            run = []
        if r is not None:
            run.append(r)
    return header, out
