"""``pprofcore -top FILE`` without the ``Profile`` class: the command line's
most common report, computed from the C++ profile and node table through
their list accessors, so that it imports no NumPy, no views, no explorer and
no fleet (the start-up targets of docs/performance.md).

It takes the common case only: one local file that the C++ core decodes, no
filter, base, symbolization, repair, node of address-only locations or name
that pprof's demangling would change,
``-relative_percentages``, ``-mean``, ``-divide_by``, ``-compact_labels``, ``-output`` or ``--format``,
and a profile without ``drop_frames``/``keep_frames`` or a ``-diff_base``
label. Anything else, or any error, returns None and ``pprofcore.cli.main``
runs ``top`` (``cli/top.py``), which gives the same bytes for the common case
(``tests/cli/test_cli_quick_top.py`` holds the two to each other) and the
error messages.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import List, NoReturn, Optional, Set

from .. import _core, _fetch, _units
from .._main_binary import is_url
from .._report_text import INLINE_TEXT, profile_lines, summary_lines, top_lines
from . import _filter_args, _pprof_options, _report_flags

# The label of a -diff_base profile's base samples: their totals differ.
DIFF_BASE_LABEL = "pprof::base"
# A node of a location without lines: "[binary]" (at addresses "00007f.. [binary]")
_UNSYMBOLIZED = re.compile(r"(?:^|\s)\[[^\]]*\]$")
_MANGLED = re.compile(r"(?:^|\s)_{1,2}Z|(?:^|\s)_R")
_CPP_LIKE = re.compile(r"[<>\[\]]|::")
_GROUPS = re.compile(r"[()<>]")


def unsymbolized(name: str) -> bool:
    """Whether a node named ``name`` stands for address-only locations of a
    binary, which pprof's default symbolization may resolve: the full path
    decides (``_main_binary.needs_local_symbols``)."""
    return _UNSYMBOLIZED.search(name) is not None


def may_demangle(name: str) -> bool:
    """Whether pprof's demangling step could change a node named ``name``: no
    name, a mangled one, or one that looks like demangled C++ and has a group
    its heuristic removes (Go's ``pkg.(*T).M`` and ``pkg.F[...]`` do not).
    Such a profile takes the full path, which demangles."""
    return not name or bool(_MANGLED.search(name) or (_CPP_LIKE.search(name) and _GROUPS.search(name)))


class _Refused(Exception):
    """The command line is not the quick case (or does not parse)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # raises instead of printing usage and exiting
        raise _Refused(message)


def add_arguments(parser) -> None:
    """``top``'s flags (``cli/top.py`` declares the same)."""
    _report_flags.add_common(parser, trim=True)


def run(argv: List[str]) -> Optional[int]:
    """Prints ``-top`` for ``argv`` (the words after ``top``) and returns 0, or
    returns None, having printed nothing, when this is not the quick case."""
    try:
        args = _parse(argv)
        text = top_text(args) if args is not None else None
    except Exception:  # noqa: BLE001 - any doubt goes to the full path, which words the error
        return None
    if text is None:
        return None
    sys.stdout.write(text + "\n")
    return 0


def _parse(argv: List[str]) -> Optional[argparse.Namespace]:
    parser = _Parser(prog="pprofcore top", add_help=False)
    add_arguments(parser)
    _pprof_options.accept_ignored(parser)
    args = parser.parse_args(argv)
    args.command = "top"
    _pprof_options.settle(args)
    plain = (
        len(args.files) == 1
        and _fetch.source_url(args.files[0], args.seconds) is None
        # -relative_percentages: the total leaves out samples with empty stacks
        and not (args.base or args.diff_base or args.add_comment or args.compact_labels or args.mean)
        and not args.relative_percentages
        and args.divide_by == 1
        and args.format == "text"
        and not args.output
        and args.symbolize in (None, "none")
        and not getattr(args, "repair", None)
        and not _filter_args.filter_kwargs(args)
    )
    return args if plain else None


def top_text(args: argparse.Namespace) -> Optional[str]:
    """The text of ``-top`` for ``args`` (the quick case), or None when the
    profile itself needs the full path."""
    core = _core.decode_file(args.files[0], _core.DEFAULT_MAX_DECOMPRESSED_SIZE, "auto")
    facts = core.header_codes()
    types = [(core.string(t), core.string(u)) for t, u in facts["sample_types"]]
    ti = chosen_type(core, types, _report_flags.sample_index(args.sample_index))
    if ti is None or core.drop_frames_code or core.keep_frames_code:
        return None
    if DIFF_BASE_LABEL in core.string_list():
        return None
    main = facts["mapping"]
    if main and not core.string(main[1]) and is_url(core.string(main[0])):  # pprof clears that file
        return None
    tot = core.abs_total(ti)
    if tot is None:  # sums past int64: the full path says so
        return None
    table = _core.aggregate(core, args.granularity, not args.noinlines, ti, -1)
    rows = table.order_list(core, ti, args.cum)
    flat, cum = table.type_sums(ti)
    flat_total = sum(flat[r] for r in rows)
    cutoff = abs(int(flat_total * float(args.nodefraction))) if args.nodefraction else 0
    kept = [r for r in rows if abs(cum[r]) >= cutoff] if cutoff > 0 else rows
    dropped = len(rows) - len(kept)
    shown = kept[: args.nodecount] if args.nodecount and args.nodecount > 0 else kept
    edge_cut = abs(int(flat_total * float(args.edgefraction))) if args.edgefraction else 0
    labels = table.inline_label_list()
    if dropped or len(shown) < len(kept) or edge_cut > 0:
        labels = trimmed_inline_labels(core, table, labels, shown, ti, edge_cut)
    flat_shown = [flat[r] for r in shown]
    cum_shown = [cum[r] for r in shown]
    sample_type, sample_unit = types[ti]
    ratio = _units.display_ratio(1.0)
    basis = [f if f != 0 else c for f, c in zip(flat_shown, cum_shown)]
    unit = _units.select_unit(basis, tot, sample_unit, args.unit, ratio)

    def fmt(v: int) -> str:
        return _units.scaled_label(_units.divided(v, ratio), sample_unit, unit)

    mapping = facts["mapping"]
    header = profile_lines(
        core.string(mapping[0]) if mapping else "",
        core.string(mapping[1]) if mapping else "",
        [core.string(c) for c in facts["comments"]],
        sample_type,
        core.time_nanos,
        core.duration_nanos,
        tot,
        sample_unit,
        unit,
        ratio,
    )
    header += summary_lines([], fmt, sum(flat_shown), tot, dropped, args.nodefraction, len(shown), len(kept))
    names = table.printable_names()
    if any(may_demangle(n) or unsymbolized(n) for n in names):  # pprof's symbolizer changes these: the full path
        return None
    inline = [INLINE_TEXT[labels[r]] for r in shown]
    return "\n".join(top_lines(header, [names[r] for r in shown], flat_shown, cum_shown, inline, tot, fmt))


def chosen_type(core, types, wanted) -> Optional[int]:
    """The index of sample type ``wanted`` (an index, a name, or None for
    pprof's default: the type ``default_sample_type`` names, else the last), as
    ``Profile.sample_type_index`` finds it; None when the quick path cannot
    tell (no such type, which the full path words, or a default that is not
    valid UTF-8)."""
    if not types:
        return None
    if isinstance(wanted, int):
        return wanted % len(types) if -len(types) <= wanted < len(types) else None
    if wanted is None:
        name = core.string(core.default_sample_type_code)
        if not name:
            return len(types) - 1
        if "\ufffd" in name:
            return None
        wanted = name
    return next((i for i, (t, _) in enumerate(types) if t == wanted), None)


def trimmed_inline_labels(core, table, labels: List[int], shown: List[int], ti: int, edge_cut: int) -> List[int]:
    """The inline label of each node in pprof's trimmed graph (the list twin of
    ``reports._nodes.trimmed_inline_labels``): from the in-edges among the
    ``shown`` nodes no lighter than ``edge_cut``."""
    keep = bytearray(len(labels))
    candidates = bytearray(len(labels))
    for r in shown:
        keep[r] = 1
        candidates[r] = 1 if labels[r] else 0
    out = [0] * len(labels)
    if not any(candidates):
        return out
    src, dst, weight, inline = table.edge_list(core, bytes(candidates), ti, -1, bytes(keep), ti)
    has_inline: Set[int] = set()
    has_plain: Set[int] = set()
    for d, w, inl in zip(dst, weight, inline):
        if abs(w) >= edge_cut and candidates[d]:
            (has_inline if inl else has_plain).add(d)
    for d in has_inline:
        out[d] = 2 if d in has_plain else 1
    return out
