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
profile changes. :func:`apply_repairs` runs them by name (``"truncated"``,
``"typeparams"``), as ``ProfileSet(repairs=...)``, the store's ingest and the
command line's ``-repair`` do.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple, Union

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


#: The repairs by name, in the order :func:`apply_repairs` runs them.
REPAIRS = ("truncated", "typeparams")


def check_repairs(repairs: Union[None, str, Any]) -> Tuple[str, ...]:
    """check_repairs returns ``repairs`` as a tuple of names from
    :data:`REPAIRS`: None (no repair), a comma-separated string
    (``"truncated,typeparams"``, the ``-repair`` flag's spelling) or a sequence
    of names. ValueError names an unknown repair; TypeError any other value."""
    if repairs is None:
        return ()
    if isinstance(repairs, str):
        repairs = [r.strip() for r in repairs.split(",") if r.strip()]
    elif not isinstance(repairs, (list, tuple, set, frozenset)) or not all(isinstance(r, str) for r in repairs):
        raise TypeError(f"repairs must be a list of names or a comma-separated str, not {type(repairs).__name__}")
    unknown = sorted(set(repairs) - set(REPAIRS))
    if unknown:
        raise ValueError(f"unknown repair {unknown[0]!r}; expected some of {', '.join(REPAIRS)}")
    return tuple(r for r in REPAIRS if r in repairs)


def apply_repairs(p: "Profile", repairs) -> Tuple["Profile", Dict[str, Any]]:
    """apply_repairs returns ``(profile, reports)``: the repairs named by
    ``repairs`` (see :func:`check_repairs`) applied in :data:`REPAIRS` order
    (stacks are completed before names change), and each one's report by name."""
    reports: Dict[str, Any] = {}
    for name in check_repairs(repairs):
        if name == "truncated":
            p, reports[name] = repair_truncated_stacks(p)
        else:
            p, reports[name] = drop_type_params(p)
    return p, reports


def report_columns(reports: Dict[str, Any]) -> Dict[str, int]:
    """The reports of :func:`apply_repairs` as flat columns
    (``repair_truncated_repaired``, ``repair_typeparams_functions_renamed``...):
    what a set's ``profiles`` table and a store's ``profiles`` rows keep."""
    return {f"repair_{name}_{k}": int(v) for name, r in reports.items() for k, v in asdict(r).items()}


def describe(reports: Dict[str, Any]) -> str:
    """One line per repair, for the command line's stderr."""
    lines = []
    for name, r in reports.items():
        if name == "truncated":
            lines.append(
                f"repair truncated: {r.repaired} of {r.truncated} stacks at depth {r.depth} completed "
                f"({r.ambiguous} ambiguous, {r.frames_added} frames added)"
            )
        else:
            lines.append(f"repair typeparams: {r.functions_renamed} functions renamed, {r.functions_merged} merged")
    return "\n".join(lines)
