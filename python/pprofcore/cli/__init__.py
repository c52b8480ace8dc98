"""The ``pprofcore`` command line. One module per subcommand, each with
``add_arguments(parser)`` and ``run(args) -> int``. pprof's single-dash flags
are accepted too (``pprofcore -top -nodecount=10 FILE``; see ``_pprof_flags``)."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import List, Optional

from .._build_info import describe as describe_build
from .._lazy import lazy_import
from . import _output, _pprof_flags, _pprof_options
from ._source_cache import SourceCache

#: Each subcommand's module, imported when the command runs (the mechanism of
#: ``pprofcore.LAZY_IMPORTS``): ``pprofcore -top FILE`` loads the modules of
#: ``top`` alone, not the views, the explorer or the fleet. Two are not
#: subcommands: ``shell`` is pprof's interactive mode (``pprofcore FILE``) and
#: ``quick_top`` answers the common ``-top`` without loading a ``Profile``.
LAZY_IMPORTS = {
    "info": ".info",
    "demo": ".demo",
    "filter": ".filter",
    "merge": ".merge",
    "delta": ".delta",
    "diff": ".diff",
    "top": ".top",
    "tree": ".tree",
    "peek": ".peek",
    "traces": ".traces",
    "tags": ".tags",
    "comments": ".comments",
    "callgrind": ".callgrind",
    "topproto": ".topproto",
    "folded": ".folded",
    "flamegraph": ".flamegraph",
    "callgraph": ".callgraph",
    "fleet": ".fleet",
    "symbolize": ".symbolize",
    "list": ".listing",
    "disasm": ".disasm",
    "weblist": ".weblist",
    "serve": ".serve",
    # pprof's graph formats (one module; the subcommand's name is the format)
    "dot": ".graph",
    "svg": ".graph",
    "png": ".graph",
    "pdf": ".graph",
    "ps": ".graph",
    "gif": ".graph",
    "raw": ".raw",
    "proto": ".proto",
    "shell": ".shell",
    "quick_top": ".quick_top",
}
_SHELL, _QUICK_TOP = "shell", "quick_top"
_COMMANDS = tuple(name for name in LAZY_IMPORTS if name not in (_SHELL, _QUICK_TOP))


def command_module(name: str):
    """The module of subcommand ``name`` (or of the shell), imported on first use."""
    return lazy_import(LAZY_IMPORTS, name, __name__)


# Reports whose -output is the text (or bytes) they print, as pprof's -output.
_TO_OUTPUT = {
    "top",
    "tree",
    "peek",
    "traces",
    "tags",
    "comments",
    "callgrind",
    "topproto",
    "list",
    "disasm",
    "weblist",
    "dot",
    "svg",
    "png",
    "pdf",
    "ps",
    "gif",
    "raw",
    "proto",
}


class _VersionAction(argparse.Action):
    """``--version``: the build's lines as they are (argparse's own version
    action would reflow them into one paragraph)."""

    def __init__(self, option_strings: List[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and the build's features, then exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(describe_build())
        parser.exit()


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of subcommand ``only`` alone (what a
    command line that names it needs: the other modules stay unimported)."""
    parser = argparse.ArgumentParser(prog="pprofcore", description="Analyse pprof profiles.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMANDS if only is None else (only,):
        module = command_module(name)
        p = sub.add_parser(name, help=module.HELP, description=module.__doc__)
        module.add_arguments(p)
        if name in _TO_OUTPUT:  # pprof's reports: every pprof flag is accepted
            _pprof_options.accept_ignored(p)
        p.set_defaults(_run=module.run)
    return parser


def one_blas_thread() -> None:
    """Asks NumPy's OpenBLAS for one thread (unless the environment says
    otherwise) in a process that has not imported NumPy yet: ``main`` does
    when it runs as the program, not when called with ``argv``. pprofcore does no
    linear algebra, but OpenBLAS starts a thread per core when NumPy is
    imported, and each spins for a while waiting for work: on two cores that
    took about 60 ms of CPU from ``pprofcore -http``'s first 0.4 s."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Optional[List[str]] = None, source_cache: Optional[SourceCache] = None) -> int:
    """Entry point of ``pprofcore`` and ``python -m pprofcore``; returns the exit
    code. ``source_cache``: the interactive shell's decoded sources, reused by
    every command of its session."""
    if argv is None:  # the program itself (pprofcore, python -m pprofcore): its process is ours
        one_blas_thread()
        argv = sys.argv[1:]
    # pprof's spellings (-top, -nodecount=5, -lines, ...) become ours.
    try:
        translated = _pprof_flags.translate(list(argv), list(_COMMANDS), strict=True)
    except _pprof_flags.UnknownFlag as e:
        return _pprof_flags.refuse(str(e))
    if opens_shell(translated):
        try:
            return command_module(_SHELL).run(argv, build_parser, main)
        except (ValueError, TypeError, OSError) as e:
            return _error("shell", str(e))
    command = translated[0] if translated and translated[0] in _COMMANDS else None
    if command == "top" and source_cache is None:
        try:  # None: not the common case, which the full path below answers
            quick = command_module(_QUICK_TOP).run(translated[1:])
        except BrokenPipeError:
            return 0
        if quick is not None:
            return quick
    gc_enabled = gc.isenabled()
    if command == "serve":
        # Starting the explorer makes many objects and little garbage: the
        # cyclic GC waits until the server answers (serve enables it again).
        gc.disable()
    try:
        return run_command(command, translated, source_cache)
    finally:
        if gc_enabled:  # as it was, for a caller in this process, whatever happened
            gc.enable()


def run_command(command: Optional[str], translated: List[str], source_cache: Optional[SourceCache]) -> int:
    """Parses ``translated`` (pprof's flags already ours) and runs its command;
    returns the exit code, printing one line for an error."""
    parser = build_parser(command)
    args = parser.parse_args(translated)
    args.source_cache = source_cache
    status = [1]
    try:
        _pprof_options.settle(args)
        # -output of a pprof report: its stdout goes to the file
        with _output.report_output(getattr(args, "output", None) if args.command in _TO_OUTPUT else None, status):
            status[0] = args._run(args)
        return status[0]
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    except KeyboardInterrupt:
        print(f"pprofcore {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError) as e:
        return _error(args.command, str(e))
    except Exception as e:  # noqa: BLE001 - a command line prints one line, never a traceback
        return _error(args.command, f"{type(e).__name__}: {e}")


def opens_shell(translated: List[str]) -> bool:
    """No subcommand and no report flag, but a source: pprof's interactive mode."""
    if not translated or translated[0] in _COMMANDS or translated[0] in ("-h", "--help", "--version"):
        return False
    return any(not a.startswith("-") for a in translated)


def _error(command: str, message: str) -> int:
    """One line on stderr and exit status 2, as `go tool pprof` does."""
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    print(f"pprofcore {command}: error: {first}", file=sys.stderr)
    return 2
