"""pprof's command-line spellings, rewritten into pprofcore's.

``go tool pprof`` takes single-dash flags (``-top``, ``-nodecount=5``,
``-sample_index=alloc_space``, ``-lines``, ``-cum``) and the report as a flag.
:func:`translate` turns such an argument list into the subcommand form the
parser knows: ``pprofcore -top -nodecount=5 FILE`` becomes
``pprofcore top --nodecount=5 FILE``. Arguments that are not pprof flags pass
through unchanged, so pprofcore's own ``--long-options`` keep working.
"""

from __future__ import annotations

import sys
from typing import List, Optional, Sequence

from .._report_defaults import GRANULARITIES
from ._pprof_usage import USAGE

# Report flags of pprof that name a subcommand here (-peek takes the regex).
REPORTS = {
    "top": "top",
    "text": "top",
    "tree": "tree",
    "peek": "peek",
    "traces": "traces",
    "tags": "tags",
    "comments": "comments",
    "callgrind": "callgrind",
    "topproto": "topproto",
    "list": "list",
    "disasm": "disasm",
    "weblist": "weblist",
    # the call graph as DOT, or drawn by Graphviz (cli/graph.py), and the profile itself
    "dot": "dot",
    "svg": "svg",
    "png": "png",
    "pdf": "pdf",
    "ps": "ps",
    "gif": "gif",
    "raw": "raw",
    "proto": "proto",
}
# -http=[HOST]:PORT is the explorer (the `serve` subcommand), not a report.
# The reports whose flag value is a regex (their first positional argument).
REGEX_REPORTS = ("peek", "list", "disasm", "weblist")


# pprof flag -> pprofcore option (None: the flag's own name with two dashes).
OPTIONS = {
    "nodecount": None,
    "nodefraction": None,
    "edgefraction": None,
    "sample_index": None,
    "unit": None,
    "mean": None,
    "cum": None,
    "flat": None,
    "noinlines": None,
    "relative_percentages": None,
    "compact_labels": None,
    "base": None,
    "diff_base": None,
    "normalize": None,
    "focus": None,
    "ignore": None,
    "hide": None,
    "show": None,
    "show_from": "--show-from",
    "prune_from": "--prune-from",
    "tagfocus": None,
    "tagignore": None,
    "tagshow": None,
    "taghide": None,
    "tagroot": None,
    "tagleaf": None,
    "add_comment": None,
    "output": None,
    "source_path": None,
    "trim_path": None,
    "symbolize": None,
    "repair": None,  # ours: -repair=truncated,typeparams
    "tools": "--tool",
    "seconds": None,
    "timeout": None,
    "call_tree": None,
    "divide_by": None,
    "drop_negative": None,
    "trim": None,
    "notrim": None,
    "intel_syntax": None,
    "no_browser": "--no-browser",
    "tls_cert": None,
    "tls_key": None,
    "tls_ca": None,
}

# pprof's legacy convenience flags: a sample type by name (-mean_delay adds -mean).
SAMPLE_TYPE_FLAGS = {
    "inuse_space": "inuse_space",
    "inuse_objects": "inuse_objects",
    "alloc_space": "alloc_space",
    "alloc_objects": "alloc_objects",
    "total_delay": "delay",
    "contentions": "contentions",
    "mean_delay": "delay",
}

# pprof's report flags that start a viewer program: refused with a way round,
# never "flag provided but not defined".
VIEWERS = {
    "web": "-svg -output=FILE and open FILE (the shell's `web` opens a browser)",
    "eog": "-png -output=FILE and open it",
    "evince": "-pdf -output=FILE and open it",
    "gv": "-ps -output=FILE and open it",
    "kcachegrind": "-callgrind -output=FILE and open it in KCachegrind",
}
# pprof flags refused with the reason (not ignored: they would change the output).
REFUSED = {"buildid": "-buildid (overriding the main binary's build id) is not supported"}
# Flags pprof defines that pass through to the subcommand's parser unchanged.
PPROF_ONLY = {"http", "no_browser"}

# Boolean flags: Go accepts -flag, -flag=true and -flag=false.
BOOLEANS = {
    "mean",
    "cum",
    "flat",
    "noinlines",
    "relative_percentages",
    "compact_labels",
    "normalize",
    "call_tree",
    "drop_negative",
    "notrim",
    "intel_syntax",
    "no_browser",
}
# Booleans whose false value matters (-trim=false): always passed with their value.
VALUED_BOOLEANS = {"trim"}


class UnknownFlag(Exception):
    """A single-dash flag pprof does not define (``main`` prints pprof's message and usage)."""


def _split(arg: str):
    """("name", value or None) of a single-dash multi-letter flag, else None."""
    if not arg.startswith("-") or arg.startswith("--") or len(arg) < 3 or not arg[1].isalpha():
        return None
    name, eq, value = arg[1:].partition("=")
    return name, (value if eq else None)


def go_bool(text: str) -> Optional[bool]:
    """Go's strconv.ParseBool, which pprof's flags and shell use: the truth of
    the spellings it accepts, else None."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def _truth(value: Optional[str], flag: str) -> bool:
    if value is None:
        return True
    truth = go_bool(value)
    if truth is None:
        raise SystemExit(f"pprofcore: invalid boolean value {value!r} for -{flag}")
    return truth


def translate(argv: Sequence[str], subcommands: Sequence[str], strict: bool = False) -> List[str]:
    """``argv`` with pprof's flags rewritten (see the module docstring). With
    ``strict``, a single-dash word flag pprof does not define raises
    :class:`UnknownFlag`, as pprof refuses it."""
    out: List[str] = []
    command: Optional[List[str]] = None
    serving = bool(argv) and argv[0] == "serve"
    for k, arg in enumerate(argv):
        if arg == "--" and (serving or command == ["serve"]):
            out += _source_groups(argv[k + 1 :])
            break
        parsed = _split(arg)
        if parsed is None:
            out.append(arg)
            continue
        name, value = parsed
        if name == "http":
            command = ["serve"]
            out.append(f"--http={value if value is not None else ''}")
        elif name in REFUSED:
            raise SystemExit(f"pprofcore: {REFUSED[name]}")
        elif name in VIEWERS:
            raise SystemExit(f"pprofcore: -{name} starts a viewer, which pprofcore does not do: use {VIEWERS[name]}")
        elif name in REPORTS:
            if name in REGEX_REPORTS:
                if value is None:
                    raise SystemExit(f"pprofcore: -{name} needs a regex: -{name}=REGEX")
                command = [REPORTS[name], value]
            else:
                command = [REPORTS[name]]
        elif name in SAMPLE_TYPE_FLAGS:
            if _truth(value, name):
                out.append(f"--sample_index={SAMPLE_TYPE_FLAGS[name]}")
                if name == "mean_delay":
                    out.append("--mean")
        elif name in VALUED_BOOLEANS:
            out.append(f"--{name}={'true' if _truth(value, name) else 'false'}")
        elif name in GRANULARITIES:  # -lines is --granularity=lines
            if _truth(value, name):
                out.append(f"--granularity={name}")
        elif name in OPTIONS:
            opt = OPTIONS[name] or f"--{name}"
            if name in BOOLEANS:
                if _truth(value, name):
                    out.append(opt)
            else:
                out.append(opt if value is None else f"{opt}={value}")
        elif strict and name not in PPROF_ONLY and name.replace("_", "").isalpha() and name not in subcommands:
            raise UnknownFlag(name)
        else:
            out.append(arg)  # not a pprof flag: argparse reports it
    if command is not None and not (out and out[0] in subcommands):
        return command + out  # peek's regex is its first positional argument
    return out


def _source_groups(rest: Sequence[str]) -> List[str]:
    """The sources after ``--`` of the explorer (``-http=: a -- b c -- d``):
    each group separated by ``--`` is one profile of the picker, passed as
    ``--source-group=N:PATH`` (group 0 is the sources before the first ``--``)."""
    out, group = [], 1
    for arg in rest:
        if arg == "--":
            group += 1
        else:
            out.append(f"--source-group={group}:{arg}")
    return out


def refuse(name: str) -> int:
    """pprof's answer to an undefined flag: its message and usage on stderr, status 1."""
    sys.stderr.write(f"flag provided but not defined: -{name}\n{USAGE}")
    return 1
