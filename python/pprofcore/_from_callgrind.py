"""The Callgrind format (``valgrind --tool=callgrind``, ``callgrind.out.<pid>``;
Cachegrind's ``cachegrind.out.<pid>``, a subset; PHP's Xdebug profiler,
yappi and other tools that write it for KCachegrind) to a profile.

A Callgrind file gives self costs per function and source line (or
instruction), one column per event (``events: Ir Dr ...``), and calls:
how often a function called another from a call site, and the inclusive
cost of those calls. It records no stacks. pprof needs stacks, so the
reader builds them under gprof's assumption, which KCachegrind's and
speedscope's call trees also make: a function's cost is split among the
paths that reach it in proportion to the inclusive cost each call brings
(each event in proportion to its own costs). From each root (a function whose callers do
not account for all of its inclusive cost), paths follow the calls; a call
back into a function already on the path (recursion) is not followed, and
paths worth less than a millionth of the first event's total are not
either. Every
function's self cost per line is then shared out over the paths that
reached it, rounded so that the shares add up exactly: the flat cost of
each function and line is the file's, for every event; for a program
without recursion, each function's cumulative cost is its inclusive cost up
to rounding. A function no path reaches keeps its self cost on a stack of
its own.

Sample types are the events (``count``; an event named ``Time_(10ns)`` or
``Memory_(bytes)``, as Xdebug names them, is scaled to ``nanoseconds`` or
``bytes``); the first is the default. Functions are named by ``fn=`` with
their file (``fl=``; yappi's ``name file:line`` names are split into the
three), locations are lines (and addresses with ``positions:
instr``) in mappings named by the object (``ob=``). Name compression
(``(id) name``), relative subpositions (``+n``, ``-n``, ``*``), hexadecimal
numbers, ``fi=``/``fe=`` and several parts are read; jumps are not costs.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ._build import ProfileBuilder, input_error
from ._profile import Profile

FORMAT = "Callgrind"
_UNIT = re.compile(r"(.*?)_?\((\d*)\s*(ns|us|µs|ms|s|bytes?|B)\)\Z")
_TIME = {"ns": 1, "us": 1000, "µs": 1000, "ms": 1_000_000, "s": 1_000_000_000}
_EPSILON = 1e-6  # paths worth less than this share of the total are not followed
_MAX_PATHS = 200_000
_MAX_DEPTH = 256

FuncKey = Tuple[str, str, str]  # (object, file, function)
_SPECS = frozenset(("ob", "fl", "fi", "fe", "fn", "cob", "cfi", "cfl", "cfn", "calls", "jump", "jcnd"))


def looks_like_callgrind(head: bytes) -> bool:
    """``# callgrind format``, or an ``events:`` header line before ``fn=``
    lines (Cachegrind and older Callgrind files)."""
    text = head.lstrip()
    if text.startswith(b"# callgrind format"):
        return True
    events = re.search(rb"^events:", head, re.M)
    fn = re.search(rb"^fn=", head, re.M)
    return events is not None and fn is not None and events.start() < fn.start()


def _sample_type(event: str) -> Tuple[Tuple[str, str], int]:
    m = _UNIT.match(event)
    if m is None:
        return (event, "count"), 1
    name, factor, unit = m.group(1) or event, int(m.group(2) or 1), m.group(3)
    if unit in _TIME:
        return (name, "nanoseconds"), factor * _TIME[unit]
    return (name, "bytes"), factor


class CallCosts:
    """Self costs and calls, keyed by function: what a Callgrind file says
    (and what stackprof keeps without raw samples, ``_from_stackprof``).
    A function key is any hashable value: Callgrind's is (object, file,
    name) (``FuncKey``), stackprof's a frame id."""

    def __init__(self, events: Optional[List[str]] = None) -> None:
        self.events: List[str] = list(events or [])
        self.positions: List[str] = ["line"]
        self.header: Dict[str, str] = {}
        self.totals: Optional[List[int]] = None
        # (function, source file, line, address) -> self cost per event; the
        # source file is the function's (fl=) or, for inlined code, fi=/fe='s.
        self.self_cost: Dict[Tuple[Any, str, int, int], List[int]] = {}
        # (caller, call site file, line, address, callee) -> [count, inclusive cost per event]
        self.calls: Dict[Tuple[Any, str, int, int, Any], List] = {}
        self.functions: Dict[Any, None] = {}  # every function, in order of appearance


def _number(tok: str, line_no: int) -> int:
    try:
        return int(tok, 16) if tok[:2] in ("0x", "0X") else int(tok)
    except ValueError:
        raise input_error(FORMAT, f"{tok[:40]!r} is not a number", line_no, "line") from None


def _parse(text: str) -> CallCosts:
    out = CallCosts()
    names: Dict[str, Dict[str, str]] = {"ob": {}, "fl": {}, "fn": {}}
    kind_of = {
        "ob": "ob",
        "cob": "ob",
        "fl": "fl",
        "fi": "fl",
        "fe": "fl",
        "cfi": "fl",
        "cfl": "fl",
        "fn": "fn",
        "cfn": "fn",
    }
    ob = fl = fi = ""
    fn: Optional[FuncKey] = None  # the function of the next cost lines: (ob, fl, fn) when fn= came
    cob: Optional[str] = None
    cfi: Optional[str] = None
    cfn: Optional[str] = None
    last: List[int] = []
    pending_call: Optional[int] = None  # the count of a calls= line whose cost line comes next
    pending_jump = False

    def name(spec: str, value: str, line_no: int) -> str:
        table = names[kind_of[spec]]
        value = value.strip()
        if value.startswith("(") and value[1:2].isdigit():
            close = value.find(")")
            if close < 0:
                raise input_error(
                    FORMAT, f"{spec}={value[:40]!r}: the compressed name's '(id)' is not closed", line_no, "line"
                )
            key, rest = value[1:close], value[close + 1 :].strip()
            if rest:
                table[key] = rest
                return rest
            if key not in table:
                raise input_error(FORMAT, f"{spec}=({key}) names an id that was not defined before", line_no, "line")
            return table[key]
        return value

    def positions(tokens: List[str], line_no: int) -> List[int]:
        n = len(out.positions)
        if len(tokens) < n:
            raise input_error(FORMAT, f"a cost line needs {n} position(s) ({' '.join(out.positions)})", line_no, "line")
        if len(last) != n:
            last[:] = [0] * n
        got = []
        for k, tok in enumerate(tokens[:n]):
            if tok == "*":
                v = last[k]
            elif tok[:1] == "+":
                v = last[k] + _number(tok[1:], line_no)
            elif tok[:1] == "-":
                v = last[k] - _number(tok[1:], line_no)
            else:
                v = _number(tok, line_no)
            if not 0 <= v < 1 << 64:
                raise input_error(FORMAT, f"position {tok[:40]!r} is {v}, outside 0 to 2^64", line_no, "line")
            got.append(v)
        last[:] = got
        return got

    def costs(tokens: List[str], line_no: int) -> List[int]:
        if not out.events:
            raise input_error(FORMAT, "a cost line comes before the 'events' header line", line_no, "line")
        try:
            values = [int(t) for t in tokens]  # decimal, as Callgrind writes them
        except ValueError:
            values = [_number(t, line_no) for t in tokens]
        if len(values) > len(out.events):
            raise input_error(
                FORMAT, f"a cost line has {len(values)} costs for {len(out.events)} events", line_no, "line"
            )
        for v in values:
            if not -(2**63) <= v < 2**63:
                raise input_error(FORMAT, f"cost {v} is outside the int64 range", line_no, "line")
        return values + [0] * (len(out.events) - len(values))

    def site(pos: List[int]) -> Tuple[int, int]:
        """(line, address) of a position list."""
        line = address = 0
        for k, p in enumerate(out.positions):
            if p == "line":
                line = pos[k]
            elif p == "instr":
                address = pos[k]
        return line, address

    for line_no, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        head = line[:1]
        if head.isdigit() or head in ("+", "-", "*"):  # most lines: costs
            tokens = line.split()
            npos = len(out.positions)
            if npos == 1 and len(last) == 1 and tokens and tokens[0].isascii() and tokens[0].isdigit():
                last[0] = pos0 = int(tokens[0])
                pos = [pos0]
            else:
                pos = positions(tokens, line_no)
            values = costs(tokens[npos:], line_no)
            if pending_jump:  # the source position of a jump: no cost of its own
                pending_jump = False
                continue
            if fn is None:
                raise input_error(FORMAT, "a cost line with no 'fn' (function) before it", line_no, "line")
            at_line, address = site(pos)
            if pending_call is not None:
                callee = (cob if cob is not None else ob, cfi if cfi is not None else fl, cfn or "")
                out.functions.setdefault(callee, None)
                key = (fn, fi, at_line, address, callee)
                got = out.calls.get(key)
                if got is None:
                    out.calls[key] = [pending_call, values]
                else:
                    got[0] += pending_call
                    got[1] = [a + b for a, b in zip(got[1], values)]
                pending_call = None
                cob = cfi = cfn = None
            else:
                key2 = (fn, fi, at_line, address)
                got2 = out.self_cost.get(key2)
                out.self_cost[key2] = values if got2 is None else [a + b for a, b in zip(got2, values)]
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        spec, eq, value = line.partition("=")
        if eq and spec in _SPECS:
            if pending_call is not None:
                raise input_error(
                    FORMAT, f"a 'calls' line must be followed by its cost line, not {spec}=", line_no, "line"
                )
            if spec == "calls":
                parts = value.split()
                if not parts:
                    raise input_error(FORMAT, "'calls' gives no call count", line_no, "line")
                pending_call = _number(parts[0], line_no)
                if pending_call < 0:
                    raise input_error(FORMAT, f"'calls' count {pending_call} is negative", line_no, "line")
                if cfn is None:
                    raise input_error(FORMAT, "'calls' with no 'cfn' (the called function) before it", line_no, "line")
            elif spec in ("jump", "jcnd"):
                pending_jump = True
            else:
                v = name(spec, value, line_no)
                if spec == "ob":
                    ob = v
                elif spec == "fl":
                    fl = fi = v
                elif spec in ("fi", "fe"):
                    fi = v
                elif spec == "fn":
                    fn = (ob, fl, v)
                    fi = fl
                    out.functions.setdefault(fn, None)
                elif spec == "cob":
                    cob = v
                elif spec in ("cfi", "cfl"):
                    cfi = v
                else:
                    cfn = v
            continue
        header, sep, value = line.partition(":")
        if not sep or not re.fullmatch(r"[A-Za-z][\w ]*", header):
            raise input_error(
                FORMAT,
                f"expected a header line (key: value), a position (fn=...) or a cost line, not {line[:60]!r}",
                line_no,
                "line",
            )
        header, value = header.strip(), value.strip()
        if header == "events":
            events = value.split()
            if out.events and events != out.events:
                raise input_error(
                    FORMAT, f"a part's events {events} differ from the first part's {out.events}", line_no, "line"
                )
            if not events:
                raise input_error(FORMAT, "'events' names no event", line_no, "line")
            out.events = events
        elif header == "positions":
            ps = value.split()
            if not ps or any(p not in ("instr", "line", "bb") for p in ps):
                raise input_error(FORMAT, f"'positions' {value[:40]!r} is not instr, line or both", line_no, "line")
            out.positions = ps
            last.clear()
        elif header == "totals":
            tot = costs(value.split(), line_no)
            out.totals = tot if out.totals is None else [a + b for a, b in zip(out.totals, tot)]
        elif header in ("cmd", "pid", "creator", "version", "part", "thread", "desc"):
            out.header.setdefault(header, value)
    if pending_call is not None:
        raise input_error(FORMAT, "the file ends after a 'calls' line without its cost line")
    if not out.events:
        raise input_error(FORMAT, "the file has no 'events' header line")
    return out


def _paths(parsed: CallCosts) -> Tuple[List[Tuple], Dict[FuncKey, List[int]]]:
    """The stacks of the call tree under gprof's assumption: each path as
    ``(function, the call site it was entered from or None for a root, its
    parent path's index or -1, weight per event)``, parents before their
    children, and for each function the indexes of the paths that end at
    it. Which paths there are follows the first event; each event's weights
    follow its own costs."""
    n = len(parsed.events)
    inclusive: Dict[FuncKey, List[float]] = {f: [0.0] * n for f in parsed.functions}
    for (f, _, _, _), c in parsed.self_cost.items():
        acc = inclusive[f]
        for e in range(n):
            acc[e] += max(c[e], 0)
    called: Dict[FuncKey, List[float]] = {f: [0.0] * n for f in parsed.functions}
    out_calls: Dict[FuncKey, List[Tuple[FuncKey, Tuple, List[float]]]] = {f: [] for f in parsed.functions}
    for (f, file, line, address, g), (_, c) in parsed.calls.items():
        cost = [float(max(x, 0)) for x in c]
        acc = inclusive[f]
        for e in range(n):
            acc[e] += cost[e]
        if g != f:
            into = called[g]
            for e in range(n):
                into[e] += cost[e]
            out_calls[f].append((g, (f, file, line, address), cost))
    for calls in out_calls.values():
        calls.sort(key=lambda c: -c[2][0])
    roots = {f: [max(a - b, 0.0) for a, b in zip(inclusive[f], called[f])] for f in parsed.functions}
    floor = _EPSILON * (sum(r[0] for r in roots.values()) or 1.0)
    paths: List[Tuple] = []
    ending: Dict[FuncKey, List[int]] = {}
    # Depth first from each root. A work item is (function, site, parent,
    # weights), or None: leave the path's last function.
    on_path: Dict[FuncKey, int] = {}
    stack_of: List[FuncKey] = []
    work: List[Optional[Tuple]] = [(f, None, -1, roots[f]) for f in reversed(list(parsed.functions)) if roots[f][0] > 0]
    while work and len(paths) < _MAX_PATHS:
        item = work.pop()
        if item is None:
            on_path[stack_of.pop()] -= 1
            continue
        f, site, parent, weight = item
        me = len(paths)
        ending.setdefault(f, []).append(me)
        paths.append((f, site, parent, weight))
        inc = inclusive[f]
        if len(stack_of) >= _MAX_DEPTH or inc[0] <= 0:
            continue
        on_path[f] = on_path.get(f, 0) + 1
        stack_of.append(f)
        work.append(None)
        scale = [w / i if i > 0 else 0.0 for w, i in zip(weight, inc)]
        if scale[0] <= 0:
            continue
        least = floor / scale[0]  # the calls worth following cost at least this much
        kept = []
        for g, at, cost in out_calls[f]:  # most costly first
            if cost[0] < least:
                break
            if not on_path.get(g):
                kept.append((g, at, me, [a * b for a, b in zip(scale, cost)]))
        work.extend(reversed(kept))
    return paths, ending


def _shares(totals: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``totals`` (lines x events) shared out over paths in proportion to
    ``weights`` (paths x events, each event its own column; an event no path
    weighs follows the first, then equal shares), rounded so that each
    line's and event's shares add up to its total exactly (the largest
    remainders get the leftover units). Returns paths x lines x events."""
    n_paths = weights.shape[0]
    frac = np.empty_like(weights)
    for e in range(weights.shape[1]):
        col = weights[:, e] if weights[:, e].sum() > 0 else weights[:, 0]
        frac[:, e] = col / col.sum() if col.sum() > 0 else 1.0 / n_paths
    exact = frac[:, None, :] * totals[None, :, :].astype(np.float64)
    out = np.floor(exact).astype(np.int64)
    left = totals - out.sum(axis=0)
    for j, e in zip(*np.nonzero(left)):
        k = int(left[j, e])
        rest = exact[:, j, e] - out[:, j, e]
        order = np.argsort(-rest if k > 0 else rest, kind="stable")[: abs(k)]
        out[order, j, e] += 1 if k > 0 else -1
    return out


# yappi names a function "name file:line" (its fn= and cfn= lines).
_YAPPI_NAME = re.compile(r"(.+) (\S+):(\d+)\Z")


def _function_name(parsed: CallCosts, name: str, file: str) -> Tuple[str, str, int]:
    """(name, file, start line) of a function: yappi's names carry their file
    and first line, which become the function's own fields."""
    if parsed.header.get("creator", "").startswith("yappi"):
        m = _YAPPI_NAME.match(name)
        if m is not None:
            return m.group(1), m.group(2), int(m.group(3))
    return name, file, 0


def add_call_tree(
    costs: CallCosts, b: ProfileBuilder, scale: np.ndarray, location: Callable[..., int], fmt: str = FORMAT
) -> bool:
    """Adds to ``b`` the samples of the call tree of ``costs`` under gprof's
    assumption (the module's docstring): each function's self cost per line
    shared out over the paths that reach it. ``scale``: each event's factor
    to its sample type's unit; ``location(function key, file, line,
    address)``: the location id of a line of a function (and of a call
    site); ``fmt`` names the format in errors. Returns whether the tree was
    cut at its size limit."""
    paths, ending = _paths(costs)
    # Each path's callers as the varints of their location ids, leaf first:
    # a path's are its call site's location, then its parent path's.
    tails: List[bytes] = []
    for f, site, parent, _ in paths:
        tails.append(b"" if site is None else b.id_bytes(location(*site)) + tails[parent])

    by_function: Dict[Any, List[Tuple[str, int, int, List[int]]]] = {}
    for (f, file, line, address), c in costs.self_cost.items():
        if any(c):
            by_function.setdefault(f, []).append((file, line, address, c))
    stacks: List[bytes] = []
    rows: List[np.ndarray] = []  # per function, the costs of its samples (samples x events)
    for f, entries in by_function.items():
        reached: List[Optional[int]] = list(ending.get(f, []))
        totals = np.array([c for _, _, _, c in entries], np.int64)  # lines x events
        if reached:
            shares = _shares(totals, np.array([paths[p][3] for p in ending[f]], np.float64))
        else:  # no path reaches it: its self cost on a stack of its own
            reached, shares = [None], totals[None, :, :]
        leaves = [b.id_bytes(location(f, file, line, address)) for file, line, address, _ in entries]
        used = shares.any(axis=2)  # (path, line) pairs with a cost
        for k, j in zip(*np.nonzero(used)):
            p = reached[k]
            stacks.append(b.stack_of_ids(leaves[j] + (tails[p] if p is not None else b"")))
        rows.append(shares[used])
    if stacks:
        values = np.concatenate(rows).astype(np.int64)
        big = np.abs(values).max(axis=0) >= (2**63 - 1) // np.maximum(scale, 1)
        if big.any():
            raise input_error(
                fmt,
                f"the {costs.events[int(np.flatnonzero(big)[0])]} costs are too large for a profile once scaled",
            )
        b.add_many(stacks, np.arange(len(stacks)), values * scale)
    return len(paths) >= _MAX_PATHS


def read_callgrind_bytes(data: bytes) -> Profile:
    """Parse Callgrind text (UTF-8, or Latin-1 where it is not)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    parsed = _parse(text)
    types, scales = zip(*(_sample_type(e) for e in parsed.events))
    b = ProfileBuilder(list(types))
    b.default_sample_type = types[0][0]
    functions_in: Dict[Tuple[str, str], int] = {}  # yappi's names are parsed once

    def location(f: FuncKey, file: str, line: int, address: int) -> int:
        fid = functions_in.get((f[2], file))
        if fid is None:
            name, source, start = _function_name(parsed, f[2], file)
            fid = functions_in[(f[2], file)] = b.function(name, source, None, start)
        return b.location(fid, line, 0, address, b.mapping(f[0]) if f[0] else 0)

    cut = add_call_tree(parsed, b, np.array(scales, np.int64), location)
    cmd = parsed.header.get("cmd")
    b.comments.append(f"Callgrind profile ({' '.join(parsed.events)})" + (f" of {cmd}" if cmd else ""))
    if parsed.header.get("creator"):
        b.comments.append(f"creator: {parsed.header['creator']}")
    if cut:
        b.comments.append(
            f"call tree cut at {_MAX_PATHS} paths: each function's flat cost is exact, its callers approximate"
        )
    return b.build()
