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
(no address ranges: perf script does not print them; the DSO named like the
command of most events is the first, main, mapping), with a function named
by the symbol (the ``+0x..`` offset dropped); ``[unknown]`` symbols are left
unsymbolized (an address only). Labels: ``comm`` (string), ``tid``, and
``pid`` and ``cpu`` (numbers, when every event prints them), and ``timestamp_ns``: perf's clock (by
default the monotonic time since boot, not wall time) in nanoseconds.
Source lines (``perf script -F +srcline``) and other optional fields are not
read: lines the reader does not know are an error naming the line.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

import numpy as np

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
_INT64 = (1 << 63) - 1


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


def _main_dso(comm: str, dsos: Dict[str, int]) -> int:
    """The mapping id of the main binary: the DSO named like the command of
    most events (perf's comm is the executable's name cut to 15 characters),
    else one whose name starts with or holds it; 0 when none does."""
    names = [(dso.rsplit("/", 1)[-1], mid) for dso, mid in dsos.items() if not dso.startswith("[")]
    for base, mid in names:
        if base[:15] == comm[:15]:
            return mid
    if len(comm) >= 3:
        for base, mid in names:  # python3 runs as python3.11: the command names a link to the file
            if base.startswith(comm):
                return mid
        for base, mid in names:  # the executable is a stub, its code in a library (libpython3.11.so)
            if comm in base:
                return mid
    return 0


def read_perf_script_bytes(data: bytes) -> Profile:
    """Build a Profile from ``perf script`` output (see the module docstring)."""
    b = ProfileBuilder([("samples", "count")])
    events: Dict[str, int] = {}
    locs: Dict[Tuple[int, str, str], int] = {}
    frame_lines: Dict[str, int] = {}  # a frame line seen before: its location (frames repeat a lot)
    stacks: Dict[Tuple[int, ...], int] = {}
    rows: List[list] = []  # [event column, period, time, pid, tid, cpu, comm code, frames]
    dsos: Dict[str, int] = {}  # mapping ids by DSO
    comms: Dict[int, str] = {}  # commands by string code

    def location(m: "re.Match[str]", lineno: int) -> int:
        key = (int(m.group("addr"), 16), _OFFSET.sub("", m.group("sym")), m.group("dso"))
        lid = locs.get(key)
        if lid is None:
            addr, sym, dso = key
            if addr >> 64:
                raise input_error(FORMAT, f"address {m.group('addr')} does not fit in 64 bits", lineno, "line")
            mid = dsos.setdefault(dso, b.mapping(dso)) if dso and dso != "[unknown]" else 0
            fid = b.function(sym) if sym and sym != "[unknown]" else 0
            lid = locs[key] = b.location(fid, address=addr, mapping_id=mid)
        return lid

    current: Optional[list] = None
    for lineno, raw in enumerate(data.decode("utf-8", "surrogateescape").split("\n"), 1):
        line = raw.rstrip("\r")
        if current is not None:
            lid = frame_lines.get(line)
            if lid is not None:
                current[7].append(lid)
                continue
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
            lid = frame_lines[line] = location(fm, lineno)
            current[7].append(lid)
            continue
        event = m.group("event").split(":")[0]
        column = events.setdefault(event, len(events) + 1)
        time = int(m.group("sec")) * 1_000_000_000 + int((m.group("frac") + "000000000")[:9])
        pid, cpu = m.group("pid"), m.group("cpu")
        current = [
            column,
            int(m.group("period") or 1),
            time,
            -1 if pid is None else int(pid),
            int(m.group("tid")),
            -1 if cpu is None else int(cpu),
            b.string(m.group("comm")),
            [],
        ]
        comms[current[6]] = m.group("comm")
        if not -_INT64 <= min(current[1:6]) <= max(current[1:6]) <= _INT64:
            raise input_error(FORMAT, "a number of the event line does not fit in 64 bits", lineno, "line")
        rest = m.group("rest")
        fm = _FRAME.match(rest) if rest else None
        if fm:  # no callchain: the sampled frame is on the header line
            current[7].append(location(fm, lineno))
        rows.append(current)
    if not rows:
        raise input_error(FORMAT, "no events")
    b.sample_types += [(e, "nanoseconds" if e in _TIMED else "count") for e in events]
    b.period_type = b.sample_types[1]
    index = np.empty(len(rows), np.int64)
    for i, row in enumerate(rows):
        key = tuple(row[7])
        index[i] = stacks.setdefault(key, len(stacks))
        row[7] = None
    cols = np.array([r[:7] for r in rows], np.int64)
    values = np.zeros((len(rows), 1 + len(events)), np.int64)
    values[:, 0] = 1
    values[np.arange(len(rows)), cols[:, 0]] = cols[:, 1]
    nums = [(TIMESTAMP, cols[:, 2], "nanoseconds"), ("tid", cols[:, 4], "")]
    if (cols[:, 3] >= 0).all():
        nums.append(("pid", cols[:, 3], ""))
    if (cols[:, 5] >= 0).all():
        nums.append(("cpu", cols[:, 5], ""))
    b.add_many([b.stack_bytes(k) for k in stacks], index, values, nums, [("comm", cols[:, 6])])
    codes, counts = np.unique(cols[:, 6], return_counts=True)
    main = _main_dso(comms[int(codes[np.argmax(counts)])], dsos)
    if main:
        b.main_mapping(main)
    b.duration_nanos = int(cols[:, 2].max() - cols[:, 2].min())
    return b.build()
