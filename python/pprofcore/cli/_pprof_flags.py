"""pprof's command-line spellings, rewritten into pprofcore's.

``go tool pprof`` takes single-dash flags (``-top``, ``-nodecount=5``,
``-sample_index=alloc_space``, ``-lines``, ``-cum``) and the report as a flag.
:func:`translate` turns such an argument list into the subcommand form the
parser knows: ``pprofcore -top -nodecount=5 FILE`` becomes
``pprofcore top --nodecount=5 FILE``. Arguments that are not pprof flags pass
through unchanged, so pprofcore's own ``--long-options`` keep working.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

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
    "proto": "filter",  # -proto -output=OUT: the filtered profile (.otlp names OTLP)
    "list": "list",
    "disasm": "disasm",
}
# The reports whose flag value is a regex (their first positional argument).
REGEX_REPORTS = ("peek", "list", "disasm")

# Granularity flags: -lines is --granularity=lines.
GRANULARITIES = ("functions", "filefunctions", "files", "lines", "addresses")

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
    "tools": "--tool",
}

# Boolean flags: Go accepts -flag, -flag=true and -flag=false.
BOOLEANS = {"mean", "cum", "flat", "noinlines", "relative_percentages", "compact_labels", "normalize"}


def _split(arg: str):
    """("name", value or None) of a single-dash multi-letter flag, else None."""
    if not arg.startswith("-") or arg.startswith("--") or len(arg) < 3 or not arg[1].isalpha():
        return None
    name, eq, value = arg[1:].partition("=")
    return name, (value if eq else None)


def _truth(value: Optional[str], flag: str) -> bool:
    if value is None:
        return True
    v = value.lower()
    if v in ("1", "t", "true"):
        return True
    if v in ("0", "f", "false"):
        return False
    raise SystemExit(f"pprofcore: invalid boolean value {value!r} for -{flag}")


def translate(argv: Sequence[str], subcommands: Sequence[str]) -> List[str]:
    """``argv`` with pprof's flags rewritten (see the module docstring)."""
    out: List[str] = []
    command: Optional[List[str]] = None
    for arg in argv:
        parsed = _split(arg)
        if parsed is None:
            out.append(arg)
            continue
        name, value = parsed
        if name in REPORTS:
            if name in REGEX_REPORTS:
                if value is None:
                    raise SystemExit(f"pprofcore: -{name} needs a regex: -{name}=REGEX")
                command = [REPORTS[name], value]
            else:
                command = [REPORTS[name]]
        elif name in GRANULARITIES:
            if _truth(value, name):
                out.append(f"--granularity={name}")
        elif name in OPTIONS:
            opt = OPTIONS[name] or f"--{name}"
            if name in BOOLEANS:
                if _truth(value, name):
                    out.append(opt)
            else:
                out.append(opt if value is None else f"{opt}={value}")
        else:
            out.append(arg)  # not a pprof flag: argparse reports it
    if command is not None and not (out and out[0] in subcommands):
        return command + out  # peek's regex is its first positional argument
    return out
