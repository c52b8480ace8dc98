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
