"""Demangling C++ and Rust names the way pprof's ``-symbolize=demangle=`` modes
present them. Mangled names are demangled in one batch by binutils' ``c++filt``
(Itanium C++, Rust legacy and v0); the modes then shorten the full form:

- ``"simplified"`` (pprof's default): no parameters, no template arguments,
  no return type -- ``ns::Foo::bar``;
- ``"templates"``: no parameters, no return type -- ``ns::Foo<int>::bar<double>``;
- ``"full"``: everything but the ``[clone .constprop.0]`` suffixes;
- ``"clones"``: everything, clone suffixes included (what pprof's
  ``-symbolize=demangle=none`` shows: it demangles with no option);
- ``"none"``: the mangled name.

Rust paths have no parameters or return types; every mode but ``none``
drops their hashes and crate disambiguators (``spin::twist`` for
``spin::twist::h951210f9d2c22ae5``), as pprof's demangler does, and
``simplified`` also their generic arguments.

Names that are not mangled but look like demangled C++ get pprof's heuristic
(bracketed groups removed)."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import TYPE_CHECKING, Dict, Iterable, List

import numpy as np

from . import _args, _core

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

MODES = ("simplified", "templates", "full", "clones", "none")

_CLONE = re.compile(r" \[clone [^\]]*\]")
_SPECIAL = re.compile(
    r"(?:(?:non-)?virtual thunk to |covariant return thunk to |transaction clone for "
    r"|(?:construction )?vtable for |typeinfo (?:name )?for |VTT for |guard variable for "
    r"|reference temporary #\d+ for |TLS (?:init|wrapper) function for |hidden alias for )+"
)
_QUALIFIERS = re.compile(r"(?:\s*(?:const|volatile|&&|&|noexcept))*\s*$")
# C++ operator spellings, longest first (demanglers write "operator<< <T>" with a
# space before template arguments, so a longest match never eats a bracket)
_OPERATORS = sorted(
    "<<= >>= ->* <=> << >> <= >= == != && || ++ -- -> += -= *= /= %= &= |= ^= () [] "
    "< > + - * / % ^ & | ~ ! = ,".split(),
    key=len,
    reverse=True,
)


_RUST_LEGACY = re.compile(r"_ZN.*17h[0-9a-f]{16}E(?:\..*)?$")
_RUST_HASH = re.compile(r"::h[0-9a-f]{16}$")
_RUST_DISAMBIGUATOR = re.compile(r"\[[0-9a-f]+\]")


def is_rust(name: str) -> bool:
    """A Rust symbol: v0 (``_R``) or legacy (Itanium-like, ending in a hash)."""
    return name.startswith("_R") or _RUST_LEGACY.match(name) is not None


def is_mangled(name: str) -> bool:
    return name.startswith(("_Z", "__Z", "_R"))


def demangle_names(names: Iterable[str], mode: str = "simplified", *, tool_required: bool = True) -> Dict[str, str]:
    """``{system name: display name}`` for every distinct name under ``mode``.
    Raises ``RuntimeError`` naming the Debian package when ``c++filt`` is needed
    and missing, unless ``tool_required=False``: mangled names then stay as
    written."""
    if mode not in MODES:
        raise ValueError(f"demangle must be one of {', '.join(MODES)}, not {mode!r}")
    names = list(dict.fromkeys(names))
    if mode == "none":
        return {n: n for n in names}
    mangled = [n for n in names if is_mangled(n) and "\n" not in n]
    if mangled and not tool_required and shutil.which("c++filt") is None:
        mangled = []
    full = dict(zip(mangled, _cxxfilt(mangled))) if mangled else {}
    out = {}
    for n in names:
        d = full.get(n)
        if d is not None and d != n:
            out[n] = _shorten_rust(d, mode) if is_rust(n) else _shorten(d, mode)
        elif _looks_like_demangled_cpp(n) and mode in ("simplified", "templates"):
            out[n] = _heuristic(n, mode)
        else:
            out[n] = n
    return out


def _cxxfilt(names: list) -> list:
    tool = shutil.which("c++filt")
    if tool is None:
        raise RuntimeError(
            "c++filt not found to demangle C++/Rust names; install binutils "
            "(Debian: apt-get install binutils) or pass demangle='none'"
        )
    r = subprocess.run([tool], input="".join(n + "\n" for n in names), capture_output=True, text=True, errors="replace")
    lines = r.stdout.split("\n")[: len(names)]
    if r.returncode != 0 or len(lines) != len(names):
        raise RuntimeError(f"c++filt failed ({r.returncode}): {r.stderr.strip()[:300]}")
    return lines


def _shorten_rust(full: str, mode: str) -> str:
    """A demangled Rust path in ``mode``, without the hash and crate
    disambiguators (rustc-demangle's alternate form); ``simplified`` also
    drops generic arguments (``<T>``, ``::<T>``)."""
    s = _RUST_DISAMBIGUATOR.sub("", _RUST_HASH.sub("", full))
    if mode in ("full", "clones"):  # pprof's demangler shows no hash or disambiguator in any mode
        return s
    if mode == "simplified":
        s = _drop_templates(s.replace("::<", "<"))
    return s


def _shorten(full: str, mode: str) -> str:
    if mode == "clones":
        return full
    s = _CLONE.sub("", full)
    if mode == "full":
        return s
    special = _SPECIAL.match(s)
    if special:  # thunks, vtables, guards: pprof's demangler keeps their parameters
        rest = s[special.end() :]
        return special.group(0) + (_drop_templates(rest) if mode == "simplified" else rest)
    s = _drop_parameters(s)
    if mode == "simplified":
        s = _drop_templates(s)
    return _drop_return_type(s.rstrip())


def _scan(s: str):
    """Yields ``(index, char, depth)`` of the bracket characters of ``s`` that
    open or close groups, skipping the symbols of ``operator<<``, ``operator()``
    and the like (they are part of a name, not brackets)."""
    depth, i, n = 0, 0, len(s)
    while i < n:
        if (
            s.startswith("operator", i)
            and (i == 0 or s[i - 1] in ": ")
            and not s[i + 8 : i + 9].isalnum()
            and s[i + 8 : i + 9] != "_"
        ):
            i += 8
            for op in _OPERATORS:
                if s.startswith(op, i):
                    i += len(op)
                    break
            continue
        c = s[i]
        if c in "(<{[":
            yield i, c, depth
            depth += 1
        elif c in ")>}]":
            depth -= 1
            yield i, c, depth
        i += 1


def _drop_parameters(s: str) -> str:
    """``s`` without its trailing parameter list and cv/ref qualifiers (a
    parameter list followed by ``::``, as in ``f()::x``, is part of the name)."""
    opened = None
    last = None
    for i, c, depth in _scan(s):
        if depth == 0 and c == "(":
            opened = i
        elif depth == 0 and c == ")" and opened is not None:
            last = (opened, i)
    if last is not None and _QUALIFIERS.fullmatch(s[last[1] + 1 :]):
        return s[: last[0]]
    return s


def _drop_templates(s: str) -> str:
    """``s`` without its template argument lists, at any depth (as Go's
    demangler with NoTemplateParams prints them)."""
    out, keep_from, start, angle = [], 0, None, 0
    for i, c, _ in _scan(s):
        if c == "<":
            if angle == 0:
                start = i
            angle += 1
        elif c == ">" and angle:
            angle -= 1
            if angle == 0:
                out.append(s[keep_from:start])
                keep_from = i + 1
    out.append(s[keep_from:])
    return "".join(out)


def _drop_return_type(s: str) -> str:
    """The name after a leading return type (top-level spaces separate them),
    keeping conversion operators (``operator int``) and ``operator new`` whole."""
    spaces = []
    depth = 0
    marks = {i: c for i, c, _ in _scan(s)}
    for i, ch in enumerate(s):
        c = marks.get(i)
        if c is not None:
            depth += 1 if c in "(<{[" else -1
        elif ch == " " and depth == 0 and s[i + 1 : i + 2] not in ("<", ""):  # "operator<< <T>" is one name
            spaces.append(i)
    if not spaces:
        return s
    starts = [0] + [p + 1 for p in spaces]
    ends = spaces + [len(s)]
    for at, end in zip(starts, ends):  # a conversion operator or operator new spans tokens
        if s[at:end].endswith("operator"):
            return s[at:]
    return s[starts[-1] :]


def _looks_like_demangled_cpp(name: str) -> bool:
    if ".<" in name:  # Java's class.<init>
        return False
    if "])." in name:  # Go's pkg.(*T[...]).Method
        return False
    return any(c in name for c in "<>[]") or "::" in name


def _heuristic(name: str, mode: str) -> str:
    name = _remove_matching(name, "(", ")")
    if mode == "simplified":
        name = _remove_matching(name, "<", ">")
    return name


def _remove_matching(name: str, start: str, end: str) -> str:
    """Removes every outermost start..end group (pprof's heuristic for names
    that are already demangled); at an unbalanced closer what was removed so
    far stays removed and the rest is kept, as in pprof."""
    out: List[str] = []
    nesting, first = 0, 0
    keep_from = 0
    for i, c in enumerate(name):
        if c == start:
            nesting += 1
            if nesting == 1:
                first = i
        elif c == end:
            nesting -= 1
            if nesting < 0:  # unbalanced: what was removed so far stays removed, as in pprof
                return "".join(out) + name[keep_from:]
            if nesting == 0:
                out.append(name[keep_from:first])
                keep_from = i + 1
    out.append(name[keep_from:])
    return "".join(out)


def demangle(profile: "Profile", mode: str = "simplified", *, force: bool = False, tool_required: bool = True):
    """``profile`` with its function names demangled as pprof's symbolizer
    demangles every profile it reads (``go tool pprof`` without
    ``-symbolize=none``); system names are kept.

    - A function is renamed when its name is empty or equals its system name
      (one named otherwise was demangled already); its new name is the system
      name demangled in ``mode`` ("simplified", pprof's default: no
      parameters or template arguments; "templates"; "full"; "clones";
      "none").
    - A system name that is not mangled but looks like demangled C++
      (``::``, ``<>``, ``[]``; not Java's ``Class.<init>`` nor Go's
      ``pkg.(*T[...]).M``) loses its parameter list and, in "simplified",
      its template arguments, as pprof's heuristic does.
    - ``force`` (pprof's ``-symbolize=force`` and ``demangle=...``) first
      resets every name to its system name where both are set.
    - Mangled names need binutils' ``c++filt``; without it a ``RuntimeError``
      names the package, unless ``tool_required=False``, which keeps mangled
      names as written.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())  # Go names: nothing to demangle
    >>> pprofcore.symbolize.demangle(p) == p
    True
    """
    _args.check_str("mode", mode)
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    rows = _core.demangle_candidates(profile._tables_core, force).tolist()
    if not rows:
        return profile
    cols = profile._table_cols
    s = profile._s
    names = [s(c) for c in cols["functions.name"][rows].tolist()]
    systems = [s(c) for c in cols["functions.system_name"][rows].tolist()]
    wanted = list(names)
    pending: List[int] = []  # positions in rows whose name is the system name demangled
    for i, (name, system) in enumerate(zip(names, systems)):
        if force and name and system:  # pprof resets every name to its system name where both are set
            wanted[i] = name = system
        if mode != "none" and (not name or name == system):  # not demangled already
            pending.append(i)
    if pending:
        shown = demangle_names({systems[i] for i in pending}, mode, tool_required=tool_required)
        for i in pending:
            wanted[i] = shown[systems[i]]
    changed = [i for i in range(len(rows)) if wanted[i] != names[i]]
    if not changed:
        return profile
    at = np.asarray([rows[i] for i in changed], dtype=np.int32)
    return profile._derive(_core.with_function_names(profile._core, at, [wanted[i] for i in changed]))
