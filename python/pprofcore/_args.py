"""Argument checks shared by the rooms: a wrong type raises TypeError and a bad
value ValueError, each naming the argument, before anything reaches the core
(where it would surface as AttributeError, IndexError, OverflowError or re.error).
A leaf: imports nothing from pprofcore."""

from __future__ import annotations

import re
from typing import Optional

import numpy as np


def type_name(value) -> str:
    return type(value).__name__


def check_str(name: str, value, *, optional: bool = False) -> Optional[str]:
    """``value`` if it is a str (or None when ``optional``), else TypeError."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str{' or None' if optional else ''}, not {type_name(value)}")
    return value


def check_int(name: str, value) -> int:
    """``value`` as an int; bools and floats are refused (TypeError)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, not {type_name(value)}")
    return int(value)


#: ``level="fast"``: the fastest deflate of the build (ISA-L level 1 when built
#: with ISA-L, else level 1); the C++ core's gzip::kFastestLevel.
FASTEST_LEVEL = -2


def check_level(value) -> int:
    """A gzip level: None (the backend's default, passed on as -1), ``"fast"``
    (the fastest deflate the build has, passed on as -2) or 0..12."""
    if value is None:
        return -1
    if value == "fast":
        return FASTEST_LEVEL
    level = check_int("level", value)
    if not 0 <= level <= 12:
        raise ValueError(f"level must be from 0 to 12, 'fast' or None for the default, not {level}")
    return level


def compile_regex(name: str, value) -> "re.Pattern[str]":
    """``value`` compiled; a wrong type is TypeError, a bad pattern ValueError."""
    if isinstance(value, re.Pattern):
        return value
    check_str(name, value)
    try:
        return re.compile(value)
    except re.error as e:
        raise ValueError(f"{name}: invalid regular expression {value!r}: {e}") from None


_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_DURATION_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def check_duration(name: str, value, *, positive: bool = True) -> float:
    """Seconds from a number or a Go-style duration (``"60s"``, ``"1m30s"``,
    ``"0.2s"``, ``"500ms"``; a bare number is seconds). Must be > 0 when
    ``positive``, else >= 0."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be seconds or a duration such as '60s', not {type_name(value)}")
    if isinstance(value, (int, float, np.integer, np.floating)):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            seconds = float(text)
        except ValueError:
            parts = _DURATION_PART.findall(text)
            if not parts or "".join(n + u for n, u in parts) != text:
                raise ValueError(f"{name}: {value!r} is not a duration (examples: 60s, 1m30s, 0.5s, 200ms)") from None
            seconds = sum(float(n) * _DURATION_UNIT[u] for n, u in parts)
    else:
        raise TypeError(f"{name} must be seconds or a duration such as '60s', not {type_name(value)}")
    if not np.isfinite(seconds) or seconds < 0 or (positive and seconds == 0):
        raise ValueError(f"{name} must be {'more than' if positive else 'at least'} 0 seconds, not {value!r}")
    return seconds
