"""What the name and label filters share: compiling user expressions (with
pprof's error text), warning when one matches nothing, evaluating a predicate
once per distinct string, and deriving the filtered profile so reports keep
the unfiltered totals."""

from __future__ import annotations

import os
import re
import sys
import types
import warnings
from typing import TYPE_CHECKING, Callable, Optional, Union

import numpy as np

from ._report_base import carry
from .errors import FilterWarning

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

Pattern = Union[str, "re.Pattern[str]"]


def warn_no_match(option: str, expr) -> None:
    text = expr.pattern if isinstance(expr, re.Pattern) else expr
    # Point the warning at the first caller outside the pprofcore package.
    package = os.path.dirname(os.path.abspath(__file__))
    frame: Optional[types.FrameType] = sys._getframe(0)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"{option} expression {text!r} matched no samples", FilterWarning, stacklevel=level)


def compile_filter(option: str, expr: Optional[Pattern], *, whole: bool = False) -> Optional["re.Pattern[str]"]:
    """The filter expression ``expr`` of ``option`` compiled (see
    :func:`filter_regex`), or None when there is none (None or "")."""
    if expr is None or (isinstance(expr, str) and expr == ""):
        return None
    return filter_regex(option, expr, whole=whole)


def filter_regex(option: str, expr: Pattern, *, whole: bool = False) -> "re.Pattern[str]":
    """The one compiler of filter expressions, with pprof's error text
    (ValueError). ``whole`` groups the expression for matching whole names,
    as pprof's drop/keep frames do (and words the error as pprof's prune
    does); a compiled pattern is used as given otherwise."""
    if whole:
        text = expr.pattern if isinstance(expr, re.Pattern) else expr
        try:
            return re.compile("(" + text + ")")
        except re.error as e:
            raise ValueError(f"failed to compile {option} regexp {text!r}: {e}") from None
    if isinstance(expr, re.Pattern):
        return expr
    try:
        return re.compile(expr)
    except re.error as e:
        raise ValueError(f"parsing {option} regexp {expr!r}: {e}") from None


def filtered(p: "Profile", core, *options, deferred=None) -> "Profile":
    """A Profile of ``core`` that remembers it is ``p`` filtered by the given
    ``(option, expression)`` pairs (None expressions skipped), for report
    percentages and "Active filters" lines. ``deferred``: ``(kept, hidden)``
    of a name filter that left its output's samples in ``p`` (their copy
    deferred, ``Profile._derive_deferred``); ``core`` then holds only the
    output's tables, or is None when they are p's."""
    out = p._derive(core) if deferred is None else p._derive_deferred(*deferred, tables=core)
    return carry(p, out, [(n, e) for n, e in options if e is not None])


# ----------------------------------------------------------------- name masks
def string_mask(p: "Profile", codes: np.ndarray, pred: Callable[[str], bool]) -> np.ndarray:
    """Boolean per string code (only the codes in ``codes`` are evaluated)."""
    hit = np.zeros(p._core.num_strings, dtype=bool)
    string = p._core.string
    for c in np.unique(codes).tolist():
        hit[c] = bool(pred(string(c)))
    return hit
