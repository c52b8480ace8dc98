"""pprof's ``-topproto``: the top report as a profile.

One sample per node of the trimmed graph (as ``-top`` trims it), in report
order, with two values, ``cum`` and ``flat``, scaled to the report's output unit
and truncated to integers as pprof does; one location per node (its address and
line) and one function per distinct (name, file, start line). Header: the
source's time, duration, period type and period.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Tuple, Union

import numpy as np

from .. import _core, _units
from .._proto_fields import FunctionField, LineField, LocationField, ProfileField, SampleField, ValueTypeField
from .._report_base import go_div, report_total
from .._report_defaults import NODEFRACTION
from .._wire import put_field_bytes as _field_bytes
from .._wire import put_field_varint as _field_varint
from .._wire import put_packed as _packed
from ._nodes import nodes, trim_nodes

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def _int64(v: int) -> int:
    """Two's complement for negative varints (protobuf int64)."""
    return v + (1 << 64) if v < 0 else v


def top_profile(
    profile: "Profile",
    sample_type: Union[int, str, None] = None,
    by: str = "functions",
    sort: str = "flat",
    mean: bool = False,
    unit: Optional[str] = None,
    inline: bool = True,
    nodefraction: float = NODEFRACTION,
    relative_percentages: bool = False,
    n: Optional[int] = None,
) -> "Profile":
    """pprof's ``-topproto``: the :func:`top` report as a profile, one sample
    per node (the first ``n`` with ``n``, pprof's ``-nodecount``) with values
    ``cum`` and ``flat`` in the report's output unit
    (truncated to integers, as pprof does; see the module docstring);
    ``p.top_profile(...)`` is ``top_profile(p, ...)``.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> top = pprofcore.reports.top_profile(p)
    >>> top.sample_types, len(top)
    ([('cum', 's'), ('flat', 's')], 125)
    """
    if sort not in ("flat", "cum"):
        raise ValueError("sort must be 'flat' or 'cum'")
    ti = profile.sample_type_index(sample_type)
    t = nodes(profile, by, inline, ti, mean)
    cols = t.columns()
    rows, _ = trim_nodes(cols, t.order(profile._core, ti, sort == "cum"), ti, nodefraction)
    if n is not None and n > 0:
        rows = rows[:n]
    flat, cum = cols["flat"][rows, ti], cols["cum"][rows, ti]
    if mean:
        flat, cum = go_div(flat, cols["flat"][rows, 0]), go_div(cum, cols["cum"][rows, 0])
    su = profile.sample_types[ti][1]
    tot = report_total(profile, ti, mean, relative_percentages)
    ou = _units.select_unit(np.where(flat != 0, flat, cum).tolist(), tot, su, unit)
    ou_name = _units.scale(1, su, ou)[1] or ou
    strings: Dict[str, int] = {"": 0}

    def s(x: str) -> int:
        return strings.setdefault(x, len(strings))

    out = bytearray()
    for name in ("cum", "flat"):
        vt = bytearray()
        _field_varint(ValueTypeField.TYPE, s(name), vt)
        _field_varint(ValueTypeField.UNIT, s(ou_name), vt)
        _field_bytes(ProfileField.SAMPLE_TYPE, bytes(vt), out)
    files = t.files()
    names = [profile.strings[int(c)] for c in cols["name"]]
    funcs: Dict[Tuple[str, str, int], int] = {}
    fn_msgs, loc_msgs = bytearray(), bytearray()
    for i, r in enumerate(rows.tolist()):
        key = (names[r], files[r], int(cols["start_line"][r]))
        fid = funcs.get(key)
        if fid is None:
            fid = funcs[key] = len(funcs) + 1
            fn = bytearray()
            _field_varint(FunctionField.ID, fid, fn)
            _field_varint(FunctionField.NAME, s(key[0]), fn)
            _field_varint(FunctionField.FILENAME, s(key[1]), fn)
            _field_varint(FunctionField.START_LINE, _int64(key[2]), fn)
            _field_bytes(ProfileField.FUNCTION, bytes(fn), fn_msgs)
        line = bytearray()
        _field_varint(LineField.FUNCTION_ID, fid, line)
        _field_varint(LineField.LINE, _int64(int(cols["lineno"][r])), line)
        loc = bytearray()
        _field_varint(LocationField.ID, i + 1, loc)
        _field_varint(LocationField.ADDRESS, int(cols["address"][r]), loc)
        _field_bytes(LocationField.LINE, bytes(line), loc)
        _field_bytes(ProfileField.LOCATION, bytes(loc), loc_msgs)
        smp = bytearray()
        _packed(SampleField.LOCATION_ID, [i + 1], smp)
        _packed(SampleField.VALUE, [_int64(int(_units.scale(int(v), su, ou)[0])) for v in (cum[i], flat[i])], smp)
        _field_bytes(ProfileField.SAMPLE, bytes(smp), out)
    out += loc_msgs + fn_msgs
    pt, pu = profile.period_type or ("", "")
    period_type = (s(pt), s(pu)) if profile.period_type else None  # before the strings are written
    for x in strings:
        _field_bytes(ProfileField.STRING_TABLE, x.encode("utf-8"), out)
    _field_varint(ProfileField.TIME_NANOS, _int64(profile.time_nanos), out)
    _field_varint(ProfileField.DURATION_NANOS, _int64(profile.duration_nanos), out)
    if period_type is not None:
        vt = bytearray()
        _field_varint(ValueTypeField.TYPE, period_type[0], vt)
        _field_varint(ValueTypeField.UNIT, period_type[1], vt)
        _field_bytes(ProfileField.PERIOD_TYPE, bytes(vt), out)
    _field_varint(ProfileField.PERIOD, _int64(profile.period), out)
    return profile._derive(_core.decode(bytes(out), _core.DEFAULT_MAX_DECOMPRESSED_SIZE))
