"""The profile as text, the way google/pprof's ``Profile.String`` writes it
(what ``go tool pprof -raw`` prints): comments, period, time, duration, the
sample types, each sample's values, location ids and labels, the locations
with their lines, the mappings. Times are in the local time zone, as Go's."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Dict, List

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def _go_time(nanos: int) -> str:
    """Go's ``time.Time.String()`` without the monotonic part."""
    secs, frac = divmod(nanos, 1_000_000_000)
    t = datetime.datetime.fromtimestamp(secs).astimezone()
    text = t.strftime("%Y-%m-%d %H:%M:%S")
    if frac:
        text += "." + f"{frac:09d}".rstrip("0")
    off = t.strftime("%z")
    return f"{text} {off} {t.tzname()}"


def _go_duration(nanos: int) -> str:
    """Go's ``time.Duration.String()``."""
    if nanos == 0:
        return "0s"
    neg = nanos < 0
    u = abs(nanos)
    if u < 1_000_000_000:
        for unit, size in (("ns", 1), ("µs", 1_000), ("ms", 1_000_000)):
            if u < size * 1000:
                text = _frac(u, size) + unit
                break
    else:
        h, rest = divmod(u, 3_600_000_000_000)
        m, rest = divmod(rest, 60_000_000_000)
        s = _frac(rest, 1_000_000_000) + "s"
        text = (f"{h}h{m}m" if h else (f"{m}m" if m else "")) + s
    return ("-" if neg else "") + text


def _frac(v: int, size: int) -> str:
    whole, part = divmod(v, size)
    digits = len(str(size)) - 1
    tail = f"{part:0{digits}d}".rstrip("0") if digits else ""
    return f"{whole}.{tail}" if tail else str(whole)


def _sample_lines(p: "Profile") -> List[str]:
    s = p._core.string
    lab = p.labels
    lab_off = p.label_offsets
    loc_ids = p.locations.id
    st_off, st_loc = p.stack_offsets, p.stack_locations
    values = p.values
    out = []
    for i in range(len(p)):
        head = "".join(f" {int(v):10d}" for v in values[i]) + ": "
        head += "".join(f"{int(loc_ids[r])} " for r in st_loc[int(st_off[i]) : int(st_off[i + 1])])
        out.append(head)
        strs: Dict[str, List[str]] = {}
        nums: Dict[str, List[int]] = {}
        units: Dict[str, List[str]] = {}
        for r in range(int(lab_off[i]), int(lab_off[i + 1])):
            key = s(int(lab.key[r]))
            if int(lab.str[r]) >= 0:
                strs.setdefault(key, []).append(s(int(lab.str[r])))
            else:
                nums.setdefault(key, []).append(int(lab.num[r]))
                if int(lab.num_unit[r]):
                    # Go pads the units seen so far with "" when a unit first appears
                    u = units.setdefault(key, [])
                    u += [""] * (len(nums[key]) - 1 - len(u))
                    u.append(s(int(lab.num_unit[r])))
        if strs:
            out.append(" " * 16 + " ".join(sorted(f"{k}:[{' '.join(v)}]" for k, v in strs.items())))
        if nums:
            parts = []
            for k, v in nums.items():
                u = units.get(k, [])
                if len(u) == len(v):
                    parts.append(f"{k}:[{' '.join(f'{x} {y}' for x, y in zip(v, u))}]")
                else:
                    parts.append(f"{k}:[{' '.join(str(x) for x in v)}]")
            out.append(" " * 16 + " ".join(sorted(parts)))
    return out


def _location_lines(p: "Profile") -> List[str]:
    s = p._core.string
    locs, lines, funcs, maps = p.locations, p.lines, p.functions, p.mappings
    out = []
    for r in range(len(locs.id)):
        head = f"{int(locs.id[r]):6d}: {int(locs.address[r]):#x} "
        m = int(locs.mapping[r])
        if m >= 0:
            head += f"M={int(maps.id[m])} "
        if int(locs.is_folded[r]):
            head += "[F] "
        lo, hi = int(locs.line_offsets[r]), int(locs.line_offsets[r + 1])
        if lo == hi:
            out.append(head)
        for li in range(lo, hi):
            f = int(lines.function[li])
            text = "??"
            if f >= 0:
                name, system = s(int(funcs.name[f])), s(int(funcs.system_name[f]))
                text = f"{name} {s(int(funcs.filename[f]))}:{int(lines.line[li])} s={int(funcs.start_line[f])}"
                if name != system:
                    text += f"({system})"
            out.append(head + text)
            head = " " * 13
    return out


def _mapping_lines(p: "Profile") -> List[str]:
    s = p._core.string
    m = p.mappings
    out = []
    for r in range(len(m.id)):
        bits = "".join(
            flag
            for flag, on in (
                ("[FN]", m.has_functions[r]),
                ("[FL]", m.has_filenames[r]),
                ("[LN]", m.has_line_numbers[r]),
                ("[IN]", m.has_inline_frames[r]),
            )
            if on
        )
        out.append(
            f"{int(m.id[r])}: {int(m.memory_start[r]):#x}/{int(m.memory_limit[r]):#x}/{int(m.file_offset[r]):#x} "
            f"{s(int(m.filename[r]))} {s(int(m.build_id[r]))} {bits}"
        )
    return out


def raw_text(p: "Profile") -> str:
    """pprof's ``-raw`` text of ``p``."""
    out = [f"Comment: {c}" for c in p.comments]
    # pprof's decoder gives every profile a period type, empty when it has none
    period_type = p.period_type or ("", "")
    out.append(f"PeriodType: {period_type[0]} {period_type[1]}")
    out.append(f"Period: {p.period}")
    if p.time_nanos:
        out.append(f"Time: {_go_time(p.time_nanos)}")
    if p.duration_nanos:
        out.append(f"Duration: {_go_duration(p.duration_nanos)[:4]}")
    out.append("Samples:")
    dflt = p.default_sample_type
    out.append(" ".join(f"{t}/{u}{'[dflt]' if t == dflt else ''}" for t, u in p.sample_types).strip())
    out += _sample_lines(p)
    out.append("Locations")
    out += _location_lines(p)
    out.append("Mappings")
    out += _mapping_lines(p)
    return "\n".join(out) + "\n"
