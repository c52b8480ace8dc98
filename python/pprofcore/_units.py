"""pprof's unit tables and value formatting (google/pprof internal/measurement):
memory in powers of 1024 (B, kB, MB, ...), time (ns ... hrs), GCU; ``minimum`` /
``auto`` pick a readable unit. Used by the reports; no NumPy needed."""

from __future__ import annotations

import functools
from typing import List, Optional, Sequence, Tuple

# (canonical name, aliases, factor to the base unit)
_MEMORY = [
    ("B", ("b", "byte"), 1.0),
    ("kB", ("kb", "kbyte", "kilobyte"), float(1 << 10)),
    ("MB", ("mb", "mbyte", "megabyte"), float(1 << 20)),
    ("GB", ("gb", "gbyte", "gigabyte"), float(1 << 30)),
    ("TB", ("tb", "tbyte", "terabyte"), float(1 << 40)),
    ("PB", ("pb", "pbyte", "petabyte"), float(1 << 50)),
]
_TIME = [
    ("ns", ("ns", "nanosecond"), 1.0),
    ("us", ("μs", "us", "microsecond"), 1e3),
    ("ms", ("ms", "millisecond"), 1e6),
    ("s", ("s", "sec", "second"), 1e9),
    ("hrs", ("hour", "hr"), 3600e9),
]
_GCU = [
    ("n*GCU", ("nanogcu",), 1e-9),
    ("u*GCU", ("microgcu",), 1e-6),
    ("m*GCU", ("milligcu",), 1e-3),
    ("GCU", ("gcu",), 1.0),
    ("k*GCU", ("kilogcu",), 1e3),
    ("M*GCU", ("megagcu",), 1e6),
    ("G*GCU", ("gigagcu",), 1e9),
    ("T*GCU", ("teragcu",), 1e12),
    ("P*GCU", ("petagcu",), 1e15),
]
_Unit = Tuple[str, Tuple[str, ...], float]  # (canonical name, aliases, factor)
# (units, default unit name, default factor)
_TYPES: Sequence[Tuple[Sequence[_Unit], str, float]] = [(_MEMORY, "B", 1.0), (_TIME, "s", 1e9), (_GCU, "GCU", 1.0)]


# Per table (by identity), alias -> entry: a report formats thousands of
# values, each sniffing its units, so the lookup is a dict, not a scan.
_ALIASES = {id(units): {a: u for u in reversed(units) for a in u[1]} for units, _, _ in _TYPES}


def _sniff(units, unit: str):
    unit = unit.lower()
    if len(unit) > 2 and unit.endswith("s"):
        unit = unit[:-1]
    return _ALIASES[id(units)].get(unit)


@functools.lru_cache(maxsize=256)
def _family(unit: str):
    """(table, (default name, default factor), entry) of the first table that
    knows ``unit``, or None: found once per unit, not once per formatted value."""
    for units, dname, dfactor in _TYPES:
        f = _sniff(units, unit)
        if f is not None:
            return units, (dname, dfactor), f
    return None


def _convert(units, default, f, value: float, to_unit: str):
    v = value * f[2]
    if to_unit in ("minimum", "auto"):
        best, name = 0.0, ""
        for u in units:
            if u[2] >= best and v / u[2] >= 1.0:
                best, name = u[2], u[0]
        if best == 0:
            return v / default[1], default[0]
        return v / best, name
    t = _sniff(units, to_unit)
    if t is None:
        return v / default[1], default[0]
    return v / t[2], t[0]


def scale(value: float, from_unit: str, to_unit: str) -> Tuple[float, str]:
    """``value`` in ``from_unit`` converted to ``to_unit`` (pprof's ``measurement.Scale``).

    Returns ``(scaled value, unit label)``; the label is ``""`` for unitless counts.
    ``to_unit`` may be ``"minimum"``/``"auto"`` to pick a readable unit.
    """
    if value < 0:
        v, u = scale(-value, from_unit, to_unit)
        return -v, u
    family = _family(from_unit)
    if family is not None:
        units, default, f = family
        return _convert(units, default, f, value, to_unit)
    if to_unit in ("count", "sample", "unit", "minimum", "auto"):
        return float(value), ""
    return float(value), to_unit


def scaled_label(value: float, from_unit: str, to_unit: str = "minimum") -> str:
    """pprof's text for a value: two decimals, ``.00`` dropped, unit appended."""
    v, u = scale(value, from_unit, to_unit)
    sv = f"{v:.2f}"
    if sv.endswith(".00"):
        sv = sv[:-3]
    if sv in ("0", "-0"):
        return "0"
    return sv + u


def display_ratio(divide_by: float) -> float:
    """pprof's ``Ratio`` of a ``-divide_by`` value; zero is refused as pprof refuses it."""
    if divide_by == 0:
        raise ValueError("zero divisor specified")
    return 1.0 / float(divide_by)


def divided(value: float, ratio: float = 1.0) -> int:
    """A value as pprof shows it under ``-divide_by`` (``ratio`` is ``1/divide_by``):
    multiplied and truncated toward zero as Go's ``int64(float64(v) * r)``; pprof
    leaves values alone for a ratio that is not positive."""
    if ratio > 0 and ratio != 1:
        return int(float(value) * ratio)
    return int(value)


def scale_factor(from_unit: str, to_unit: str) -> Tuple[float, float, str]:
    """(multiplier, divisor, unit) with scale(v, from, to) == (v*mul/div, unit) for v >= 0."""
    for units, dname, dfactor in _TYPES:
        f = _sniff(units, from_unit)
        if f is None:
            continue
        t = _sniff(units, to_unit)
        return (f[2], t[2], t[0]) if t is not None else (f[2], dfactor, dname)
    return 1.0, 1.0, ("" if to_unit in ("count", "sample", "unit", "minimum", "auto") else to_unit)


def unit_ratio(from_unit: str, to_unit: str) -> float:
    """The factor from ``from_unit`` to ``to_unit`` (1.0 when they are not of
    one family), as pprof's ``ScaleProfiles`` takes it from ``Scale(1, ...)``."""
    return scale(1, from_unit, to_unit)[0]


def same_unit_family(a: str, b: str) -> bool:
    """Whether both units are in one of pprof's tables (memory, time, GCU)."""
    return any(_sniff(units, a) is not None and _sniff(units, b) is not None for units, _, _ in _TYPES)


def percentage(value: float, total: float) -> str:
    """pprof's percentage text (at least two significant digits)."""
    ratio = abs(value / total) * 100 if total else 0.0
    if 99.95 <= ratio <= 100.05:
        return "  100%"
    if ratio >= 1.0:
        return f"{ratio:5.2f}%"
    return _go_g(ratio) + "%"


def _go_g(x: float) -> str:
    # Go's %5.2g: 2 significant digits, shortest form, width 5
    if x == 0:
        s = "0"
    else:
        s = f"{x:.2g}"
        if "e" in s:
            mant, exp = s.split("e")
            sign = exp[0]
            digits = exp[1:].lstrip("0")
            s = f"{mant}e{sign}{digits.rjust(2, '0')}"
    return s.rjust(5)


def select_unit(values: List[int], total: int, sample_unit: str, unit: Optional[str], ratio: float = 1.0) -> str:
    """The output unit pprof would pick (``selectOutputUnit``): for ``"minimum"``
    (the default), a unit readable for the smallest non-zero value (both ends
    :func:`divided` by ``ratio`` first, as pprof's ``-divide_by``)."""
    if unit is None:
        unit = "minimum"
    if not isinstance(unit, str):
        raise TypeError(f"unit must be a str or None, not {type(unit).__name__}")
    if unit != "minimum":
        return unit
    min_value = 0
    for v in values:
        v = abs(v)
        if v > 0 and (min_value == 0 or v < min_value):
            min_value = v
    max_value = total
    if min_value == 0:
        min_value = max_value
    min_value, max_value = divided(min_value, ratio), divided(max_value, ratio)
    _, min_unit = scale(min_value, sample_unit, "minimum")
    _, max_unit = scale(max_value, sample_unit, "minimum")
    chosen = min_unit
    if min_unit != max_unit and min_value * 100 < max_value:
        _, chosen = scale(100 * min_value, sample_unit, "minimum")
    return chosen if chosen else sample_unit
