"""Stable colours: one hue per package or module (so a function keeps its colour
across profiles and views), and red/blue shades for diff flame graphs."""

from __future__ import annotations

import re
import zlib
from typing import List

_ARGS = re.compile(r"\(.*$")
_ADDRESS = re.compile(r"^[0-9a-f]{16} ")


def package_of(name: str) -> str:
    """The package/module part of a frame name, a heuristic over the usual spellings:
    Go ``github.com/a/b/pkg.Func`` -> ``github.com/a/b/pkg``; C++ ``ns::C::f`` -> ``ns``;
    Python/Java ``mod.sub.f`` -> ``mod``; anything else is its own package."""
    name = _ADDRESS.sub("", name).split(" ", 1)[0]
    name = _ARGS.sub("", name)
    if "::" in name:
        return name.split("::", 1)[0]
    slash = name.rfind("/")
    head, tail = (name[: slash + 1], name[slash + 1 :]) if slash >= 0 else ("", name)
    return head + tail.split(".", 1)[0]


# Distinct hues (degrees) without the blues and purples that mark selections,
# search matches and shrinking nodes in diffs.
_PALETTE = (0, 14, 26, 36, 46, 56, 70, 88, 110, 135, 160, 175, 330, 345)


def hue(package: str) -> int:
    """Hue in degrees for a package, chosen by a CRC32 of its name (stable across
    runs, profiles and views)."""
    return _PALETTE[zlib.crc32(package.encode("utf-8", "replace")) % len(_PALETTE)]


def hues(names: List[str]) -> List[int]:
    return [hue(package_of(n)) for n in names]


def flame_fill(h: int) -> str:
    """Fill colour of a normal flame graph node of hue ``h``."""
    return f"hsl({h},65%,68%)"


def diff_fill(new: float, base: float) -> str:
    """Red for growth, blue for shrinkage, stronger with the relative change."""
    top = max(abs(new), abs(base))
    r = 0.0 if top == 0 else (new - base) / top
    light = round(96 - 46 * min(1.0, abs(r)))
    return f"hsl({0 if r >= 0 else 220},85%,{light}%)"
