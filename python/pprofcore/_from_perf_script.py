"""``perf script`` text (Linux perf) to a profile, raw or gzip-compressed.

Each event is a header line ``comm [pid/]tid [cpu] time: [period] event:``
and, with callchains (``perf record -g``), one frame per following indented
line ``address symbol+offset (dso)``, leaf first; without callchains the
header line ends with the sampled ``address symbol (dso)``. Events are
separated by blank lines.

Each event is one sample with ``samples/count`` 1 and, per event name, the
period (``<event>/nanoseconds`` for ``cpu-clock`` and ``task-clock``, whose
periods are nanoseconds, else ``<event>/count``; 0 in the other events'
columns). A frame is a location at its address in a mapping named by its DSO
(no address ranges: perf script does not print them), with a function named
by the symbol (the ``+0x..`` offset dropped); ``[unknown]`` symbols are left
unsymbolized (an address only). Labels: ``comm`` (string), ``pid``, ``tid``
and ``cpu`` (numbers, when printed), and ``timestamp_ns``: perf's clock (by
default the monotonic time since boot, not wall time) in nanoseconds.
Source lines (``perf script -F +srcline``) and other optional fields are not
read: lines the reader does not know are an error naming the line.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ._build import TIMESTAMP, ProfileBuilder, input_error
from ._profile import Profile

FORMAT = "perf script"

_HEADER = re.compile(
    r"^\s*(?P<comm>\S.*?)\s+(?:(?P<pid>-?\d+)/)?(?P<tid>-?\d+)\s+(?:\[(?P<cpu>\d+)\]\s+)?"
    r"(?P<sec>\d+)\.(?P<frac>\d+):\s+(?:(?P<period>\d+)\s+)?(?P<event>\S+?):(?:\s+(?P<rest>.*))?$"
)
_FRAME = re.compile(r"^\s*(?P<addr>[0-9a-fA-F]+)\s+(?P<sym>.*?)\s+\((?P<dso>.*)\)$")
_OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")
_TIMED = {"cpu-clock", "task-clock"}


def looks_like_perf_script(head: bytes) -> bool:
    """Whether the first event of ``head`` (after ``#`` header comments) is a
    perf script header line followed by a frame line, a blank line or the end."""
    lines = [ln for ln in head.decode("utf-8", "replace").split("\n")[:200] if not ln.startswith("#")]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or not _HEADER.match(lines[0].rstrip("\r")):
        return False
    nxt = lines[1].rstrip("\r") if len(lines) > 1 else ""
    return not nxt.strip() or bool(_FRAME.match(nxt)) or bool(_HEADER.match(nxt))


class _Reader:
    def __init__(self) -> None:
        self.events: List[str] = []
        self.rows: List[Tuple[int, Dict, List[Tuple[int, str, str]]]] = []

    def header(self, m: "re.Match[str]") -> Dict:
        event = m.group("event").split(":")[0]
        if event not in self.events:
            self.events.append(event)
        return {
            "comm": m.group("comm"),
            "pid": m.group("pid"),
            "tid": m.group("tid"),
            "cpu": m.group("cpu"),
            "time": int(m.group("sec")) * 1_000_000_000 + int((m.group("frac") + "000000000")[:9]),
            "period": int(m.group("period") or 1),
            "event": event,
        }


def _frame(m: "re.Match[str]") -> Tuple[int, str, str]:
    return int(m.group("addr"), 16), _OFFSET.sub("", m.group("sym")), m.group("dso")


def read_perf_script_bytes(data: bytes) -> Profile:
    """Build a Profile from ``perf script`` output (see the module docstring)."""
    r = _Reader()
    current: Optional[Tuple[int, Dict, List]] = None
    for lineno, raw in enumerate(data.decode("utf-8", "surrogateescape").split("\n"), 1):
        line = raw.rstrip("\r")
        if not line.strip():
            current = None
            continue
        if line.startswith("#") and current is None:
            continue
        m = _HEADER.match(line)  # first: perf right-aligns comm, so headers may be indented too
        if m is None:
            fm = _FRAME.match(line) if current is not None else None
            if fm is None or current is None:
                want = "a frame 'address symbol (dso)' or " if current is not None else ""
                got = line.strip()[:80]
                raise input_error(
                    FORMAT, f"expected {want}an event line 'comm tid time: event:', got {got!r}", lineno, "line"
                )
            current[2].append(_frame(fm))
            continue
        current = (lineno, r.header(m), [])
        rest = m.group("rest")
        if rest:
            fm = _FRAME.match(rest)
            if fm:  # no callchain: the sampled frame is on the header line
                current[2].append(_frame(fm))
        r.rows.append(current)
    if not r.rows:
        raise input_error(FORMAT, "no events")
    types = [("samples", "count")] + [(e, "nanoseconds" if e in _TIMED else "count") for e in r.events]
    b = ProfileBuilder(types)
    column = {e: i + 1 for i, e in enumerate(r.events)}
    locs: Dict[Tuple[int, str, str], int] = {}
    for _lineno, h, frames in r.rows:
        ids = []
        for f in frames:
            lid = locs.get(f)
            if lid is None:
                addr, sym, dso = f
                mid = b.mapping(dso) if dso and dso != "[unknown]" else 0
                fid = b.function(sym) if sym and sym != "[unknown]" else 0
                lid = locs[f] = b.location(fid, address=addr, mapping_id=mid)
            ids.append(lid)
        values = [1] + [0] * len(r.events)
        values[column[h["event"]]] = h["period"]
        nums = [(TIMESTAMP, h["time"], "nanoseconds"), ("tid", int(h["tid"]), "")]
        if h["pid"] is not None:
            nums.append(("pid", int(h["pid"]), ""))
        if h["cpu"] is not None:
            nums.append(("cpu", int(h["cpu"]), ""))
        b.add(ids, values, [("comm", h["comm"])], nums)
    b.period_type = types[1]
    times = [h["time"] for _, h, _ in r.rows]
    b.duration_nanos = max(times) - min(times)
    return b.build()
