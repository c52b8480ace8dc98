"""Source listings: pprof's ``list`` report.

:func:`source_listing` annotates each source line of the functions matching a
regex with its flat and cum values (pprof's ``-list``: nodes at line
granularity, five lines of context around the sampled lines, files found
through ``source_path`` as pprof searches them).

Owns :class:`ListingTable` (a :class:`~pprofcore.ReportTable`: one row per
source line or instruction, pprof's text as ``repr``, a heat-coloured HTML
view in notebooks), which :mod:`.disasm` returns too, with the two small
helpers both listings share. Instructions are :mod:`.disasm`'s."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import numpy as np

from .. import _args, _units
from .._report_base import report_total
from ..display.notebook import listing_html
from ._nodes import nodes
from .table import ReportTable

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

__all__ = ["source_listing", "ListingTable"]

MARGIN = 5  # lines of context before the first and after the last sampled line (pprof's)


class ListingTable(ReportTable):
    """A listing: columns ``routine`` (function or symbol), ``file``, ``line``
    (or ``address``), ``flat``, ``cum`` and ``text`` (source line or
    instruction); ``meta["routines"]`` holds each routine's header values."""

    # pprof prints a listing's text as it is (it ends with its own newline);
    # other reports get one more newline (tags end with a blank line).
    prints_as_is = True

    def _repr_html_(self) -> str:
        return listing_html(self)


# ------------------------------------------------------------------ source list
def source_listing(
    profile: "Profile",
    regex,
    *,
    source_path: Optional[str] = None,
    trim_path: str = "",
    sample_type=None,
    relative_percentages: bool = False,
    divide_by: float = 1.0,
    inline: bool = True,
) -> ListingTable:
    """pprof's ``-list=regex``: for every function whose name matches ``regex``
    and every source file it has samples in, the source lines around the
    sampled ones with their flat and cum values (pprof's node order, five lines
    of margin, its range rules). ``source_path`` (``os.pathsep``-separated,
    default the current directory) and ``trim_path`` locate relative or moved
    files as pprof's ``-source_path``/``-trim_path`` do. A file that cannot be
    read gives a routine with an ``error`` and no lines. Raises ``ValueError``
    when no function matches. Values are shown divided by ``divide_by``
    (pprof's ``-divide_by``). ``inline=False`` (pprof's ``-noinlines``) gives
    an inlined function's lines to its caller. ``p.list(...)`` is ``source_listing(p, ...)``;
    see ``docs/symbolize.md``.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> print(pprofcore.reports.source_listing(p, "sha256.block"))  # doctest: +ELLIPSIS
    Total: 5.03s
    ROUTINE ======================== crypto/sha256.block in crypto/sha256/sha256block_amd64.s
         1.13s      1.13s (flat, cum) 22.47% of Total
     Error: could not find file crypto/sha256/sha256block_amd64.s on path ...
    """
    rx = _args.compile_regex("list regex", regex)
    ratio = _units.display_ratio(divide_by)
    _args.check_str("source_path", source_path, optional=True)
    _args.check_str("trim_path", trim_path)
    check_bool("relative_percentages", relative_percentages)
    search = source_path if source_path is not None else os.getcwd()
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, "lines", inline)
    cols = t.columns()
    flat, cum = cols["flat"][:, ti], cols["cum"][:, ti]
    fn_rows = cols["function"]
    s = profile._s
    fn_name, fn_file = profile.functions["name"], profile.functions["filename"]
    fn_start = profile.functions["start_line"]
    live = np.flatnonzero((flat != 0) | (cum != 0))  # pprof drops empty nodes from its graph
    by_name: Dict[str, List[int]] = {}
    matched: Dict[str, bool] = {}
    for r in live.tolist():
        f = int(fn_rows[r])
        name = s(int(cols["name"][r])) if f < 0 else s(int(fn_name[f]))
        if matched.setdefault(name, rx.search(name) is not None):
            by_name.setdefault(name, []).append(r)
    if not by_name:
        raise ValueError(f"no matches found for regexp: {rx.pattern}")
    reader = _SourceReader(search, trim_path)
    tot = report_total(profile, ti, False, relative_percentages)
    su = profile.sample_types[ti][1]
    out: Dict[str, list] = {k: [] for k in ("routine", "file", "line", "flat", "cum", "text")}
    routines = []
    for name in sorted(by_name):
        files: Dict[str, List[int]] = {}
        for r in by_name[name]:
            f = int(fn_rows[r])
            file = s(int(fn_file[f])) if f >= 0 else ""
            if file:  # pprof's report trims (by -source_path, not the current directory), then cleans
                file = _clean(trim_source_path(file, trim_path, source_path or ""))
                files.setdefault(file, []).append(r)
        if not files:
            routines.append({"name": name, "file": "", "flat": 0, "cum": 0, "error": "no source information"})
            continue
        for file in sorted(files):
            rows = files[file]
            routine = {
                "name": name,
                "file": file,
                "flat": int(flat[rows].sum()),
                "cum": int(cum[rows].sum()),
                "error": "",
            }
            routines.append(routine)
            # pprof's -list graph keeps each function's start line (its ObjNames
            # mode): the listing starts there, not five lines above the first sample
            starts = [int(fn_start[f]) if f >= 0 else int(cols["start_line"][r]) for r, f in zip(rows, fn_rows[rows])]
            linenos = cols["lineno"][rows].tolist()
            lo, hi = _line_range(starts, linenos)
            per_line: Dict[int, Tuple[int, int]] = {}
            for r, ln in zip(rows, linenos):
                a, b = per_line.get(ln, (0, 0))
                per_line[ln] = (a + int(flat[r]), b + int(cum[r]))
            text = reader.lines(file)
            if isinstance(text, str):
                routine["error"] = text
                continue
            for ln in range(lo, hi + 1):
                if ln >= len(text):
                    break
                a, b = per_line.get(ln, (0, 0))
                for k, v in (
                    ("routine", name),
                    ("file", file),
                    ("line", ln),
                    ("flat", a),
                    ("cum", b),
                    ("text", text[ln]),
                ):
                    out[k].append(v)
    columns = {k: (np.asarray(v, dtype=np.int64) if k in ("line", "flat", "cum") else v) for k, v in out.items()}
    return listing_table("list", columns, routines, profile.sample_types[ti][0], tot, su, ratio, _list_text)


def listing_table(
    kind: str, columns: dict, routines: list, sample_type: str, total: int, sample_unit: str, ratio: float, text
) -> ListingTable:
    """A ``list`` or ``disasm`` listing (``kind``) under pprof's "Total:" line,
    with the ``meta`` that its text (``text``) and the HTML views read."""
    meta = {
        "kind": kind,
        "total": total,
        "sample_unit": sample_unit,
        "routines": routines,
        "sample_type": sample_type,
        "ratio": ratio,
    }
    header = f"Total: {_units.scaled_label(_units.divided(total, ratio), sample_unit)}"
    return ListingTable(columns, [header], text, meta)


def _clean(path: str) -> str:
    """Go's filepath.Clean, which pprof's graph applies to file names."""
    if not path:
        return path
    out = os.path.normpath(path)
    return "/" + out.lstrip("/") if path.startswith("/") else out


def check_bool(name: str, value) -> None:
    """Refuse a non-bool flag (both listings take ``relative_percentages``)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, not {_args.type_name(value)}")


def _line_range(starts: List[int], linenos: List[int]) -> Tuple[int, int]:
    """The lines pprof shows for one function and file (getSourceFromFile,
    including its quirk that a node extending the start never extends the end)."""
    start = starts[0] if starts[0] else linenos[0] - MARGIN
    end = linenos[0] + MARGIN
    for st, ln in zip(starts, linenos):
        node_start = st if st else ln - MARGIN
        node_end = ln + MARGIN
        if node_start < start:
            start = node_start
        elif node_end > end:
            end = node_end
    return max(start, 1), end


class _SourceReader:
    """Source files found as pprof finds them, read once each: a list of lines
    with an unused entry 0, or the error message."""

    def __init__(self, search_path: str, trim_path: str):
        self.search, self.trim = search_path, trim_path
        self.cache: Dict[str, object] = {}

    def lines(self, path: str):
        if path not in self.cache:
            self.cache[path] = self._read(path)
        return self.cache[path]

    def _read(self, path: str):
        rel = trim_source_path(path, self.trim, self.search)
        candidates = []
        if os.path.isabs(rel):
            candidates = [rel]
        else:
            for d in self.search.split(os.pathsep):
                while True:
                    candidates.append(os.path.join(d, rel))
                    parent = os.path.dirname(d)
                    if parent == d:
                        break
                    d = parent
        for c in candidates:
            try:
                with open(c, "rb") as f:
                    data = f.read()
            except OSError as e:
                if os.path.isabs(rel):
                    return f"open {rel}: {e.strerror.lower() if e.strerror else e}"
                continue
            text = data.decode("utf-8", "replace").split("\n")
            if text and text[-1] == "":
                text.pop()
            return [""] + [x[:-1] if x.endswith("\r") else x for x in text]
        return f"could not find file {rel} on path {self.search}"


def trim_source_path(path: str, trim: str, search: str) -> str:
    """pprof's trimPath: strip a configured prefix, or guess one from the base
    names of the search directories."""
    spath = path.replace(os.sep, "/")
    if not trim:
        for d in search.split(os.pathsep):
            want = "/" + os.path.basename(d.rstrip("/")) + "/"
            at = spath.find(want)
            if at != -1:
                return path[at + len(want) :]
    for t in [x for x in trim.split(os.pathsep) if x] + ["/proc/self/cwd/./", "/proc/self/cwd/"]:
        if not t.endswith("/"):
            t += "/"
        if spath.startswith(t):
            return path[len(t) :]
    return path


def value_or_dot(v: int, su: str, ratio: float = 1.0) -> str:
    """A cell of either listing's text: pprof prints "." for zero (before
    ``-divide_by``'s ``ratio``, so a small value may show as "0")."""
    return "." if v == 0 else _units.scaled_label(_units.divided(v, ratio), su)


def _list_text(t: ListingTable, n: Optional[int] = None) -> str:
    m = t.meta
    su, tot, ratio = m["sample_unit"], m["total"], m.get("ratio", 1.0)
    label = lambda v: _units.scaled_label(_units.divided(v, ratio), su)  # noqa: E731
    out = list(t.header)
    rows_by_routine: Dict[Tuple[str, str], List[int]] = {}
    for i in range(len(t)):
        rows_by_routine.setdefault((t["routine"][i], t["file"][i]), []).append(i)
    for r in m["routines"]:
        if r["error"] == "no source information":
            out.append(f"No source information for {r['name']}")
            continue
        out.append(f"ROUTINE ======================== {r['name']} in {r['file']}")
        out.append(
            f"{label(r['flat']):>10} {label(r['cum']):>10} (flat, cum) {_units.percentage(r['cum'], tot)} of Total"
        )
        if r["error"]:
            out.append(f" Error: {r['error']}")
            continue
        for i in rows_by_routine.get((r["name"], r["file"]), []):
            out.append(
                f"{value_or_dot(int(t['flat'][i]), su, ratio):>10} {value_or_dot(int(t['cum'][i]), su, ratio):>10} "
                f"{int(t['line'][i]):6d}:{t['text'][i]}"
            )
    return "\n".join(out) + "\n"
