"""The data of each explorer view for one state, as JSON-ready dicts.

Each function is a thin call into the existing API (``Profile.top``,
``flamegraph``, ``callgraph``, ``peek``, ``list``, ``disasm``, ``tags``) on the
session's refined profile; the browser script only draws what it gets. Names
travel as JSON strings and are put into the page with ``textContent`` (never
as markup); the call graph comes as boxes and routes that the page draws as
SVG, its names set as text too.
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List

import numpy as np

from .. import _units
from .._frames import LabelRows, label_rows, num_label_units
from ..display.callgraph import sample_paths
from ..display.callgraph_layout import callgraph_layout
from ..display.flamegraph import derive_call_trees, keep_call_trees
from ..display.html import flamegraph_data
from ..display.timeline import Timeline
from ..reports._nodes import keep_location_sums
from ._session import Session
from ._source import SourceGuard
from ._state import State

# The most rows a table view sends (pprof's web top shows 500 nodes by default).
MAX_ROWS = 5000
# Buckets of a numeric label's histogram.
HIST_BUCKETS = 24


def view(session: Session, name: str, state: State) -> Dict[str, Any]:
    """The payload of view ``name`` for ``state``, cached per (view, state)."""
    fn = _VIEWS.get(name)
    if fn is None:
        raise ValueError(f"no view named {name!r}")
    session.check(state)
    state = view_state(name, state)
    data = session.views.get((name, state), lambda: _with_common(session, name, state, fn))
    session.bound_paths()  # a graph may have cached new sample paths on its profile
    return data


def view_state(name: str, state: State) -> State:
    """``state`` without the fields view ``name`` does not read: the key its
    data is cached under."""
    return state.replace(**{f: getattr(State(), f) for f in _IGNORED.get(name, ())})


# State fields a view does not read: left out of its cache key, so typing a
# search regex or re-sorting Top recomputes nothing else.
_TRIM = ("nodecount", "nodefraction", "edgefraction")
_REPORT = ("mean", "unit", "noinlines", "relative_percentages")
_IGNORED = {
    "graph": ("search", "sort") + _REPORT,
    "top": ("search",),
    "flamegraph": ("search", "sort") + _TRIM + _REPORT,
    "labels": ("search", "sort", "granularity") + _TRIM + _REPORT,
    "peek": ("sort",) + _TRIM,
    "source": ("sort", "granularity") + _TRIM + _REPORT,
    "disasm": ("sort", "granularity") + _TRIM + _REPORT,
    "timeline": ("search", "sort", "granularity") + _TRIM + _REPORT,
}


def _with_common(session: Session, name: str, state: State, fn) -> Dict[str, Any]:
    prof, warnings = session.refined(state)
    ti = prof.sample_type_index(state.sample_type())
    stype, unit = prof.sample_types[ti]
    total = int(prof.total(ti))
    out: Dict[str, Any] = {
        "view": name,
        "state": state.to_dict(),
        "query": state.to_query(),
        "warnings": warnings,
        "sample_type": stype,
        "sample_index": ti,
        "unit": unit,
        "diff": session.is_diff(state),
        "total": total,
        "total_label": _units.scaled_label(total, unit),
    }
    try:
        out.update(fn(session, state, prof, ti))
    except (ValueError, RuntimeError) as e:  # no match, bad regex, missing tool: shown in the view
        out["error"] = str(e)
    return out


def _label(v: int, unit: str) -> str:
    return _units.scaled_label(int(v), unit)


def top(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """pprof's top table (``-top`` with the state's flags), rows and text."""
    n = state.nodecount if state.nodecount else None
    t = prof.top(
        sample_type=ti,
        by=state.granularity,
        n=n,
        sort="cum" if state.sort == "cum" else "flat",
        mean=state.mean,
        unit=state.unit or None,
        inline=not state.noinlines,
        nodefraction=state.nodefraction,
        edgefraction=state.edgefraction,
        relative_percentages=state.relative_percentages,
    )
    keep_location_sums_later(session, state)
    unit = prof.sample_types[ti][1]
    names = t["name"]
    rows = []
    for k in range(min(len(names), MAX_ROWS)):
        flat, cum = int(t["flat"][k]), int(t["cum"][k])
        rows.append(
            {
                "name": names[k],
                "flat": flat,
                "cum": cum,
                "flat_label": _label(flat, unit),
                "cum_label": _label(cum, unit),
                "flat_pct": float(t["flat%"][k]),
                "sum_pct": float(t["sum%"][k]),
                "cum_pct": float(t["cum%"][k]),
                "inline": t["inline"][k],
            }
        )
    if state.sort == "name":
        rows.sort(key=lambda r: r["name"])
    return {"rows": rows, "text": t.to_text(), "truncated": len(names) > MAX_ROWS}


def flamegraph(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """The flame graph's data (display/html.py's, drawn by display/assets/flamegraph.js);
    a diff flame graph when the state compares against a base."""
    new, base = session.refined_parts(state)
    stype = prof.sample_types[ti][0]
    loaded = session.parts(state)[0]
    if base is None and new is not loaded:  # filtered: the loaded profile's trees less the dropped samples, if kept
        derive_call_trees(new, loaded, state.granularity)
    fg = new.flamegraph(stype, by=state.granularity, base=base, normalize=True)
    if base is None and new is loaded:
        # Every sample type's tree from one split, for a later switch to read
        # its tree off: built off the request path once this answer is ready.
        # Until it is kept, requests build their one type's tree (as this one
        # did), which costs less than waiting for the split.
        session.in_background(kept_trees_key(state), lambda: keep_call_trees(loaded, state.granularity))
    return {"flame": flamegraph_data(fg)}


def kept_trees_key(state: State) -> tuple:
    """The session's background work that keeps the call trees of ``state``'s
    loaded profile (one per profile: only its first granularity is kept)."""
    return ("kept call trees", state.profile)


def graph(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """pprof's call graph (its trimming: nodecount 80, nodefraction 0.005,
    edgefraction 0.001) laid out by the C++ layered layout
    (``display/callgraph_layout``), drawn as SVG by the page."""
    g = prof.callgraph(
        ti,
        by=state.granularity,
        nodecount=80 if state.nodecount is None else state.nodecount,
        nodefraction=state.nodefraction,
        edgefraction=state.edgefraction,
    )
    new, base = session.refined_parts(state)
    if base is None and new is session.parts(state)[0]:
        # The loaded profile's graph of every other sample type, built off the
        # request path once this answer is ready, for a switch to read from
        # the view cache (a switch before it is built waits for that build).
        session.in_background(graph_types_key(state), lambda: keep_graph_types(session, state, prof, ti))
    return {"graph": callgraph_layout(g)}


#: Granularities whose Graph paths are renamed from the lines paths (or are
#: them): a change to lines from these finds its paths walked ahead.
COARSER_THAN_LINES = ("functions", "filefunctions", "files")


def keep_location_sums_later(session: Session, state: State) -> None:
    """Sums the loaded profile's samples per location off the request path
    (once per profile), for a later change to lines or addresses to map onto
    its nodes instead of summing every frame (``reports._nodes.located_nodes``)."""
    loaded = session.parts(state)[0]
    session.in_background(("location sums", state.profile), lambda: keep_location_sums(loaded))


# The most other sample types whose graphs are built ahead of a switch.
MAX_GRAPH_TYPES = 8


def graph_types_key(state: State) -> tuple:
    """The session's background work that builds the Graph view of ``state``
    for the loaded profile's other sample types: once per profile, for its
    first graph (each later granularity or trimming would cost every type's
    builds again, beside the requests that follow it)."""
    return ("graph of every sample type", state.profile)


def keep_graph_types(session: Session, state: State, prof, ti: int) -> None:
    """Computes, into the session's view cache, the Graph view of ``state``
    for up to :data:`MAX_GRAPH_TYPES` other sample types of ``prof``, then
    (from a coarser granularity) ``prof``'s sample paths at lines."""
    others = [name for k, (name, _) in enumerate(prof.sample_types) if k != ti]
    for name in others[:MAX_GRAPH_TYPES]:
        view(session, "graph", state.replace(si=name))
    if state.granularity in COARSER_THAN_LINES:
        # The paths at lines, walked ahead: no coarser paths rename to them, so
        # a change to lines would walk every frame on the request path (about
        # half of that request on a big profile). Held within the session's
        # paths budget like any other.
        sample_paths(prof, "lines")
        session.bound_paths()


def _regex(state: State) -> str:
    rx = state.focus or state.search
    if not rx:
        raise ValueError("pick a function: select one in another view, or type a regex in the search box")
    return rx


def peek(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """pprof's peek of the focus (or search) regex: callers and callees per node."""
    t = prof.peek(
        _regex(state),
        sample_type=ti,
        by=state.granularity,
        mean=state.mean,
        unit=state.unit or None,
        inline=not state.noinlines,
        relative_percentages=state.relative_percentages,
    )
    keep_location_sums_later(session, state)
    unit = prof.sample_types[ti][1]
    rows = []
    for k in range(min(len(t["name"]), MAX_ROWS)):
        rows.append(
            {
                "focus": t["focus"][k],
                "kind": t["kind"][k],
                "name": t["name"][k],
                "flat": int(t["flat"][k]),
                "cum": int(t["cum"][k]),
                "weight": int(t["weight"][k]),
                "flat_label": _label(int(t["flat"][k]), unit),
                "cum_label": _label(int(t["cum"][k]), unit),
                "weight_label": _label(int(t["weight"][k]), unit),
                "inline": t["inline"][k],
            }
        )
    return {"rows": rows, "text": t.to_text()}


def source(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """pprof's list of the focus (or search) regex; files outside the source
    root (through ``..`` or a symlink) are refused, not read."""
    guard = SourceGuard(session.source_path, session.trim_path)
    t = prof.list(_regex(state), source_path=guard.search_path, trim_path=session.trim_path, sample_type=ti)
    return _listing(t, prof.sample_types[ti][1], guard)


def disasm(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """pprof's disasm of the focus (or search) regex (needs the binaries and objdump)."""
    t = prof.disasm(_regex(state), sample_type=ti)
    return _listing(t, prof.sample_types[ti][1], None)


def _listing(t, unit: str, guard) -> Dict[str, Any]:
    routines = []
    by_key: Dict[tuple, Dict[str, Any]] = {}
    for r in t.meta["routines"]:
        item = {
            "name": r["name"],
            "file": r.get("file", ""),
            "flat_label": _label(r["flat"], unit),
            "cum_label": _label(r["cum"], unit),
            "error": r.get("error", ""),
            "lines": [],
        }
        if guard is not None and item["file"] and not item["error"]:
            refusal = guard.refusal(item["file"])
            if refusal:
                item["error"] = refusal
        routines.append(item)
        by_key[(r["name"], item["file"])] = item
    cols = t.columns
    where = "line" if "line" in cols else "address"
    for k in range(len(t["text"])):
        file = t["file"][k] if "file" in cols else ""
        owner = by_key.get((t["routine"][k], file))
        if owner is None or owner["error"]:
            continue  # refused files: their text never leaves the server
        flat, cum = int(t["flat"][k]), int(t["cum"][k])
        w = t[where][k]
        owner["lines"].append(
            {
                "at": int(w) if where == "line" else f"{int(w):x}",
                "flat": flat,
                "cum": cum,
                "flat_label": "." if flat == 0 else _label(flat, unit),
                "cum_label": "." if cum == 0 else _label(cum, unit),
                "text": t["text"][k],
            }
        )
    return {"routines": routines}


def labels(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """Every label key with its values and their share (pprof's tags report),
    and a histogram of each numeric key's values weighted by the sample type."""
    lab = label_rows(prof)  # a Refine output's, read in its input without a copy
    if not len(lab.key):
        return {"keys": []}  # nothing to break down (and the tags report walks every sample)
    t = prof.tags(sample_type=ti)
    keys: Dict[str, Dict[str, Any]] = {}
    unit = prof.sample_types[ti][1]
    for k in range(len(t["key"])):
        entry = keys.setdefault(t["key"][k], {"key": t["key"][k], "values": [], "numeric": False})
        entry["values"].append(
            {
                "value": t["value"][k],
                "total": int(t["total"][k]),
                "total_label": _label(int(t["total"][k]), unit),
                "share": float(t["share"][k]),
            }
        )
    for key, hist in _histograms(prof, ti, lab).items():
        if key in keys:
            keys[key]["numeric"] = True
            keys[key]["histogram"] = hist
    return {"keys": list(keys.values())}


def _histograms(prof, ti: int, lab: LabelRows) -> Dict[str, Dict[str, Any]]:
    """Per numeric label key: buckets (log2 when the values span more than
    three powers of ten, else linear) with the sample type's total in each."""
    numeric = np.flatnonzero(lab.str < 0)
    if not len(numeric):
        return {}
    units = num_label_units(prof)
    weights = lab.values[:, ti]
    out = {}
    for code in np.unique(lab.key[numeric]).tolist():
        rows = numeric[lab.key[numeric] == code]
        nums = lab.num[rows].astype(np.float64)
        w = weights[lab.sample[rows]].astype(np.float64)
        name = prof._s(code)
        lo, hi = float(nums.min()), float(nums.max())
        if lo > 0 and hi / lo > 1000:
            edges = np.unique(np.floor(np.log2(nums))).tolist()
            edges = [2.0**e for e in range(int(edges[0]), int(edges[-1]) + 2)]
        else:
            step = max((hi - lo) / HIST_BUCKETS, 1.0)
            edges = [lo + step * i for i in range(int(math.ceil((hi - lo) / step)) + 2)]
        counts, _ = np.histogram(nums, bins=edges, weights=w)
        u = units.get(name, name)
        suffix = u
        out[name] = {
            "unit": u,
            "buckets": [
                {
                    "lo": int(edges[i]),
                    "hi": int(edges[i + 1]),
                    "label": f"{_units.scaled_label(int(edges[i]), u)} – {_units.scaled_label(int(edges[i + 1]), u)}",
                    "total": int(counts[i]),
                    # pprof's tagfocus range is inclusive and needs the unit to compare scaled values
                    "filter": f"{name}={int(edges[i])}{suffix}:{int(edges[i + 1]) - 1}{suffix}",
                }
                for i in range(len(counts))
            ],
        }
    return out


def timeline(session: Session, state: State, prof, ti: int) -> Dict[str, Any]:
    """The timeline's data (display/timeline.py's, drawn by display/assets/timeline.js)
    of the refined profile before its time window, so the lanes show where the
    window (``tw``) lies; the window in ns since the first sample. ``t0`` is text:
    JavaScript numbers cannot hold nanoseconds since the epoch exactly."""
    whole, _ = session.refined(state.replace(timewindow=""))
    t = Timeline(whole, sample_type=ti)
    out: Dict[str, Any] = {"timeline": t.data, "t0": str(t.t0), "window": None}
    window = state.window()
    if window is not None:
        lo, hi = window
        last = t.data["samples"][-1][0] if t.data["samples"] else 0
        out["window"] = [0 if lo is None else lo - t.t0, last + 1 if hi is None else hi - t.t0]
    return out


_VIEWS = {
    "top": top,
    "flamegraph": flamegraph,
    "graph": graph,
    "peek": peek,
    "source": source,
    "disasm": disasm,
    "labels": labels,
    "timeline": timeline,
}


def regex_of_names(names: List[str]) -> str:
    """The Refine regex of selected names: each escaped and anchored, as pprof's
    web UI builds it from a selection."""
    return "|".join("^" + re.escape(n) + "$" for n in names)
