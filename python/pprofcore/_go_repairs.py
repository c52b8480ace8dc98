"""Opt-in repairs of two known defects of Go profiles, each with a report.

- **Truncated stacks.** Go's runtime records at most a fixed number of frames
  per stack (64 for CPU and 32 for heap profiles before Go 1.23, 128 by default
  since) and drops the frames nearest the root. Such stacks hang under no
  ``main`` and split one call path into many. :func:`repair_truncated_stacks`
  completes each truncated stack with the root part of an untruncated stack that
  shares its ``window`` root-most frames (the heaviest such part when there are
  several), as Pyroscope does on its server.
- **Generic type parameters.** One generic Go function appears under several
  names (``pkg.Map[go.shape.int]``, ``pkg.Map[...]``). :func:`drop_type_params`
  removes the bracketed lists so one function is one row.

The work is done in C++ (``cpp/src/go_repairs.cpp``); nothing else in the
profile changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Tuple

from . import _core

if TYPE_CHECKING:
    from ._profile import Profile

GO_STACK_LIMITS = (32, 64, 128)  # the depths Go's runtime truncates at


@dataclass(frozen=True)
class TruncatedStacksReport:
    """What :func:`repair_truncated_stacks` changed.

    Attributes
    ----------
    depth : int
        The truncation depth used (0: the profile has no stack at a Go limit, so
        nothing was done).
    truncated : int
        Samples whose stack had exactly ``depth`` frames.
    repaired : int
        Of those, samples given a root part.
    ambiguous : int
        Repaired samples whose key frames had several different root parts (the
        heaviest was used).
    frames_added : int
        Frames added over all repaired samples.
    """

    depth: int
    truncated: int
    repaired: int
    ambiguous: int
    frames_added: int

    def __bool__(self) -> bool:
        return self.repaired > 0


@dataclass(frozen=True)
class TypeParamsReport:
    """What :func:`drop_type_params` changed: function rows renamed, and rows
    merged into an equal one after renaming."""

    functions_renamed: int
    functions_merged: int

    def __bool__(self) -> bool:
        return self.functions_renamed > 0


def repair_truncated_stacks(
    p: "Profile", depth: Optional[int] = None, window: int = 8
) -> Tuple["Profile", TruncatedStacksReport]:
    """``(profile, report)``: stacks of exactly ``depth`` frames completed.

    Parameters
    ----------
    depth : int, optional
        The truncation depth. Default: the longest stack's length when it is one
        of Go's limits (32, 64, 128), else no repair.
    window : int
        How many root-most frames of a truncated stack must match frames of an
        untruncated one for its root part to be used (default 8: long enough that
        a match is not a coincidence, short enough to find one).

    Examples
    --------
    >>> import pprofcore
    >>> p = pprofcore.load(pprofcore.example_path("cpu"))  # a Go CPU profile: 64 frames at most
    >>> q, report = p.repair_truncated_stacks()
    >>> report.depth, report.truncated == report.repaired
    (64, True)
    """
    if depth is not None and (not isinstance(depth, int) or depth < 1):
        raise ValueError(f"depth must be a positive frame count, not {depth!r}")
    if not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive frame count, not {window!r}")
    core, counts = _core.repair_truncated_stacks(p._core, depth or 0, window)
    return p._derive(core), TruncatedStacksReport(**counts)


def drop_type_params(p: "Profile") -> Tuple["Profile", TypeParamsReport]:
    """``(profile, report)``: Go type-parameter lists removed from function names.

    A ``[...]`` right after an identifier or ``)`` is a type-parameter list
    (``pkg.Map[go.shape.int]``, ``pkg.(*List[...]).Push``); functions whose names
    become equal are merged (same file and start line).

    Examples
    --------
    >>> from pprofcore._go_repairs import clean_name
    >>> clean_name("main.(*Set[go.shape.string]).Add")
    'main.(*Set).Add'
    """
    core, counts = _core.drop_type_params(p._core)
    return p._derive(core), TypeParamsReport(**counts)


def clean_name(name: str) -> str:
    """``name`` without Go type-parameter lists."""
    return _core.drop_go_type_params(name)
