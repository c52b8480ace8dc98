"""pprof's options that every report accepts (``-trim``/``-notrim``,
``-divide_by``, ``-drop_negative``, ``-call_tree``, ``-intel_syntax``,
``-output``), and ours (``-repair``), declared once and settled after
parsing, before a report reads its trimming options.

pprof takes each of them with every output format and ignores those a format
has no use for; so do we. ``-divide_by`` divides every value the text reports
and graphs show (pprof's report ``Ratio``); it is refused rather than half
applied where pprof uses it in ways we do not follow (``-proto`` truncates each
sample value, ``-callgrind`` and ``-topproto`` only pick their unit with it).
``-drop_negative`` is applied by the graph outputs only, as pprof. ``-intel_syntax`` goes
to ``disasm`` (``objdump -M intel``).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, NamedTuple, Optional

from .. import _main_binary
from .._lazy import lazy_module
from ._pprof_flags import go_bool

if TYPE_CHECKING:
    from .. import _go_repairs
else:  # only -repair uses it: imported then
    _go_repairs = lazy_module("pprofcore._go_repairs")

# the subcommands that apply -drop_negative (cli/graph.py)
GRAPH_COMMANDS = ("dot", "svg", "png", "pdf", "ps", "gif")
# the subcommands where pprof's -divide_by means something we do not do
DIVIDE_BY_REFUSED = ("proto", "callgrind", "topproto")
# pprof's listings show per-line means that pprofcore does not reproduce
MEAN_REFUSED = ("list", "weblist", "disasm")


def _go_bool(value: str) -> bool:
    truth = go_bool(value)
    if truth is None:
        raise ValueError(f"invalid boolean value {value!r} for -trim")
    return truth


def repair_names(value: str) -> tuple:
    """``-repair``'s value as repair names (argparse's error for an unknown one)."""
    try:
        return _go_repairs.check_repairs(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_arguments(parser, *, output: bool = True) -> None:
    """Declares the options; ``output=False`` where the subcommand has its own ``-o``."""
    parser.add_argument(
        "--trim",
        type=_go_bool,
        default=True,
        help="honour nodecount/nodefraction/edgefraction (pprof's default; -trim=false turns them off)",
    )
    parser.add_argument("--notrim", action="store_true", help="same as -trim=false")
    parser.add_argument(
        "--divide_by",
        "--divide-by",
        dest="divide_by",
        type=float,
        default=1.0,
        help="divide the values shown by N (pprof -divide_by; percentages unchanged)",
    )
    parser.add_argument(
        "--drop_negative",
        "--drop-negative",
        dest="drop_negative",
        action="store_true",
        help="leave out nodes with negative values (graph outputs)",
    )
    parser.add_argument(
        "--call_tree",
        "--call-tree",
        dest="call_tree",
        action="store_true",
        help="a node per calling context (-dot, -svg ..., -callgrind)",
    )
    parser.add_argument(
        "--intel_syntax", "--intel-syntax", dest="intel_syntax", action="store_true", help="accepted, as pprof does"
    )
    parser.add_argument(
        "--symbolize",
        default=None,
        help="none: leave addresses as they are; local, force ...: resolve address-only locations first",
    )
    parser.add_argument(
        "--repair",
        default=None,
        type=repair_names,
        metavar="truncated,typeparams",
        help="pprofcore's extension: repair Go's truncated stacks and/or drop generic type parameters "
        "from function names before the report; what changed goes to stderr",
    )
    if output:
        parser.add_argument("-o", "--output", default=None, help="write the report to this file instead of stdout")


# pprof flags every report takes that change nothing in its output here:
# source and binary look-up for reports that read neither, TLS for URLs
# (certificates come from the system), the web UI's browser.
IGNORED = {
    "--source_path": "search path for source files (list, disasm, weblist)",
    "--trim_path": "path prefix to trim before searching sources (list, weblist)",
    "--tool": "search path for object tools (pprof -tools; disasm, symbolize)",
    "--no-browser": "do not open a browser",
    "--tls_cert": "TLS client certificate (accepted, not used: URLs use the system's trust store)",
    "--tls_key": "TLS private key (accepted, not used)",
    "--tls_ca": "TLS CA certificates (accepted, not used)",
}


def accept_ignored(parser) -> None:
    """Declares on a report's ``parser`` each :data:`IGNORED` flag it does not
    declare itself, so a pprof command line with them runs as pprof's does."""
    for flag, text in IGNORED.items():
        if flag not in parser._option_string_actions:
            kwargs = {"action": "store_true"} if flag == "--no-browser" else {"default": None}
            parser.add_argument(flag, help=text, dest="ignored_" + flag.lstrip("-").replace("-", "_"), **kwargs)


class SymbolizeMode(NamedTuple):
    """What a ``-symbolize`` value asks for (pprof's grammar)."""

    off: bool  # none/no: no symbolization and no demangling
    local: bool  # resolve address-only mappings from binaries on this machine
    force: bool  # re-resolve symbolized mappings too, and reset names to system names
    demangle: str  # simplified (pprof's default), templates, full or none


def symbolize_mode(text: Optional[str]) -> SymbolizeMode:
    """``-symbolize``'s value read as pprof reads it: options joined by ``:``
    (``local``, ``fastlocal``, ``remote``, ``force``, ``none``,
    ``demangle=full|templates|none|default``); a ``demangle=`` mode other than
    the default also forces, as in pprof, and ``demangle=none`` demangles
    fully, clone suffixes included, as pprof's does. Unknown options are ignored with
    pprof's message on stderr."""
    off, local, force, demangle = False, True, False, "simplified"
    for option in (text or "").lower().split(":"):
        if option in ("none", "no"):
            off = True
        elif option in ("local", "fastlocal"):
            local = True
        elif option == "remote":
            local = False
        elif option == "force":
            force = True
        elif option.startswith("demangle=") and option[9:] in ("full", "none", "templates", "default"):
            if option[9:] != "default":  # pprof's "none" demangles with no option: clone suffixes kept
                demangle, force = {"none": "clones"}.get(option[9:], option[9:]), True
        elif option:
            print(f"ignoring unrecognized symbolization option: {text}", file=sys.stderr)
            print(
                "expecting -symbolize=[local|fastlocal|remote|none][:force][:demangle=[none|full|templates|default]",
                file=sys.stderr,
            )
    return SymbolizeMode(off, local, force, demangle)


def symbolized(p, args):
    """``p`` as pprof's symbolization step leaves it before any report, unless
    ``-symbolize=none``: address-only locations resolved from local binaries
    (as ``-symbolize`` asks, for the binary named before the profile, or by
    default as pprof does, quietly), on a report without its own
    symbolization options (list and disasm have them); then function names
    demangled as pprof demangles every profile it reads."""
    text = getattr(args, "symbolize", None)
    exec_name = getattr(args, "exec_name", "")
    if hasattr(args, "binary"):  # list, disasm, weblist: their own options, applied by the report
        if args.symbolize == "none":
            return p
        demangle = getattr(args, "demangle", "simplified")
        return p.demangle(demangle, force=args.symbolize == "force" or demangle != "simplified", tool_required=False)
    mode = symbolize_mode(text)
    if mode.off:
        return p
    if text is not None or exec_name:  # asked for, or `pprof BINARY PROFILE`: that binary's symbols
        if mode.local:
            p, _ = p.symbolize(force=mode.force, binaries=exec_name or None)
    elif _main_binary.needs_local_symbols(p):
        p = symbolized_quietly(p)
    return p.demangle(mode.demangle, force=mode.force, tool_required=False)


def symbolized_quietly(p):
    """``p`` symbolized as ``go tool pprof`` does without ``-symbolize``: from
    the binaries on this machine (by build id, ``$PPROF_BINARY_PATH`` or the
    mapping's path), never over the network; what could not be found is said
    on stderr in pprof's words, and a missing tool leaves ``p`` as it is."""
    try:
        q, report = p.symbolize(debuginfod=False)
    except RuntimeError as e:  # no llvm-symbolizer or addr2line, or one that failed
        print(f"Local symbolization failed: {e}", file=sys.stderr)
        return p
    for m in report.missing:
        print(f"Local symbolization failed for {m.filename.rsplit('/', 1)[-1]}: {m.reason}", file=sys.stderr)
    if report.missing:
        print(
            "Some binary filenames not available. Symbolization may be incomplete.\n"
            "Try setting PPROF_BINARY_PATH to the search path for local binaries.",
            file=sys.stderr,
        )
    return q


def repaired(p, args):
    """``p`` with the ``-repair`` repairs applied (their report on stderr)."""
    names = getattr(args, "repair", None)
    if not names:
        return p
    q, reports = _go_repairs.apply_repairs(p, names)
    print(_go_repairs.describe(reports), file=sys.stderr)
    return q


def settle(args) -> None:
    """Applies ``-trim=false``/``-notrim`` (no node count, no fractions) and checks
    ``-divide_by``; a no-op for subcommands without these options."""
    if not hasattr(args, "trim"):
        return
    if args.notrim:
        args.trim = False
    if not args.trim:
        for name in ("nodecount", "nodefraction", "edgefraction"):
            if hasattr(args, name):
                setattr(args, name, 0)
    if getattr(args, "ignored_no_browser", False):  # weblist takes it (its own option), as serve
        raise ValueError("-no_browser only makes sense with -http")
    if args.divide_by == 0:
        raise ValueError("zero divisor specified")
    if args.divide_by != 1 and args.command in DIVIDE_BY_REFUSED:
        raise ValueError(f"-divide_by is not supported with -{args.command} (see docs/conformance.md)")
    if getattr(args, "mean", False) and args.command in MEAN_REFUSED:
        raise ValueError(f"-mean is not supported with -{args.command} (see docs/conformance.md)")
