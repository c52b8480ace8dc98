"""pprof's interactive shell: ``pprofcore FILE`` with no report flag.

The prompt, the commands (``top10``, ``top -cum``, ``list REGEX``, ``peek``,
``traces``, ``tags``, ``dot``, ``web`` ...), the options set with
``name=value`` (``focus=...``, ``sample_index=...``, ``granularity=lines``),
``o``, ``help`` and ``quit`` behave as ``go tool pprof``'s interactive mode:
reports and prompts on stdout, the greeting, option listings, help and
errors on stderr. Each report runs through the same parser and report code as
the one-shot command line (``pprofcore -top -focus=X FILE``), so the shell's
text is the command line's text, byte for byte.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import sys
import tempfile
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple

from .._report_defaults import PPROF_GRANULARITIES
from . import _output, _pprof_flags, _report_args
from ._source_cache import SourceCache

# The options of pprof's interactive mode with their defaults (compact_labels
# is on in the shell, as in pprof's). Values are kept as the text typed.
DEFAULTS: Dict[str, str] = {
    "call_tree": "false",
    "compact_labels": "true",
    "divide_by": "1",
    "drop_negative": "false",
    "edgefraction": "0.001",
    "focus": "",
    "granularity": "functions",
    "hide": "",
    "ignore": "",
    "intel_syntax": "false",
    "mean": "false",
    "nodecount": "-1",
    "nodefraction": "0.005",
    "noinlines": "false",
    "normalize": "false",
    "output": "",
    "prune_from": "",
    "relative_percentages": "false",
    "sample_index": "",
    "show": "",
    "show_from": "",
    "sort": "flat",
    "source_path": "",
    "tagfocus": "",
    "taghide": "",
    "tagignore": "",
    "tagleaf": "",
    "tagroot": "",
    "tagshow": "",
    "trim": "true",
    "trim_path": "",
    "unit": "minimum",
}
BOOLEANS = {
    "call_tree",
    "compact_labels",
    "drop_negative",
    "intel_syntax",
    "mean",
    "noinlines",
    "normalize",
    "relative_percentages",
    "trim",
}
# Options with a closed set of values; each value is also an option name of its
# own (``lines`` alone means ``granularity=lines``).
CHOICES = {"sort": ("cum", "flat"), "granularity": _pprof_flags.GRANULARITIES}
CHOICE_OF = {value: name for name, values in CHOICES.items() for value in values}
# ``:`` clears the filters, as in pprof.
CLEARED_BY_COLON = ("focus", "ignore", "hide", "tagfocus", "tagignore")


class Command:
    """One report command: its pprof flag, whether it takes a regex, its help."""

    def __init__(self, flag: str, usage: str, text: str, param: bool = False) -> None:
        self.flag, self.usage, self.text, self.param = flag, usage, text, param


_FILTER_USAGE = "[n] [focus_regex]* [-ignore_regex]* [-cum] >f"
COMMANDS: Dict[str, Command] = {
    "top": Command("top", f"top {_FILTER_USAGE}", "the heaviest functions, flat and cum"),
    "text": Command("text", f"text {_FILTER_USAGE}", "the heaviest functions, flat and cum"),
    "tree": Command(
        "tree", f"tree {_FILTER_USAGE}", "the call graph as text, callers above and callees below each node"
    ),
    "peek": Command("peek", "peek func_regex [...] >f", "callers and callees of the matching functions", True),
    "list": Command(
        "list", "list func_regex [...] >f", "source lines of the matching functions with their values", True
    ),
    "disasm": Command(
        "disasm", "disasm func_regex [...] >f", "machine code of the matching functions with their values", True
    ),
    "traces": Command(
        "traces", "traces [focus_regex]* [-ignore_regex]* >f", "every sample: its values, labels and stack"
    ),
    "tags": Command("tags", "tags [tag_regex]* [-ignore_regex]* >f", "label keys and values with their share"),
    "comments": Command("comments", "comments >f", "the comments stored in the profile"),
    "callgrind": Command(
        "callgrind", f"callgrind {_FILTER_USAGE}", "the call graph in callgrind format (for KCachegrind)"
    ),
    "topproto": Command("topproto", "topproto >f", "the top table as a gzipped profile.proto"),
    "dot": Command("dot", f"dot {_FILTER_USAGE}", "the call graph in Graphviz DOT"),
    "svg": Command("svg", f"svg {_FILTER_USAGE}", "the call graph as SVG (needs Graphviz)"),
    "web": Command("web", f"web {_FILTER_USAGE}", "the call graph as SVG, opened in a browser"),
    "weblist": Command(
        "weblist", "weblist func_regex [...] >f", "source and instructions of the matching functions as HTML", True
    ),
}
_GRAPH_COMMANDS = ("dot", "svg", "web")
# Flags that only matter while reading the sources.
_FETCH_FLAGS = ("base", "diff_base", "normalize", "seconds", "timeout", "add_comment")
_TAIL_DIGITS = re.compile(r"[0-9]+$")


def join_regex(a: str, b: str) -> str:
    return f"{a}|{b}" if a and b else a + b


class Shell:
    """The interactive session over ``sources`` (files, with pprof's flags in
    ``flags`` as the initial options). ``run_cli`` runs one pprofcore command
    line (the package's ``main``) and returns its exit code."""

    def __init__(
        self,
        sources: Sequence[str],
        flags: Sequence[str],
        run_cli: Callable[[List[str]], int],
        options: Dict[str, set],
        sample_types: Sequence[str],
        out: TextIO,
        err: TextIO,
    ) -> None:
        self.sources = list(sources)
        self.run_cli = run_cli
        self.options = options  # subcommand -> the option strings it takes
        self.sample_types = list(sample_types)
        self.out, self.err = out, err
        self.config = dict(DEFAULTS)
        self.fixed: List[str] = []  # -base/-diff_base/... : kept on every command
        self._initial(flags)

    def _initial(self, flags: Sequence[str]) -> None:
        """The command line's pprof flags become the starting options."""
        for arg in flags:
            name, _, value = arg.lstrip("-").partition("=")
            if name in DEFAULTS or name in CHOICE_OF:
                if name in CHOICE_OF and "=" not in arg:  # -lines on the command line is lines=true
                    value, arg = "true", arg + "=true"
                error = self.assign(name, value if "=" in arg else None)
                if error:
                    raise ValueError(error)
            else:
                self.fixed.append(arg)

    # -- options ---------------------------------------------------------
    def assign(self, name: str, value: Optional[str]) -> Optional[str]:
        """Sets option ``name`` (``None``: given without ``=``); an error text or None."""
        if name in CHOICE_OF:  # granularity=lines is spelled lines=true (pprof)
            if not _pprof_flags.go_bool(value or ""):
                return f'unknown config field "{name}"'
            self.config[CHOICE_OF[name]] = name
            return None
        if name in BOOLEANS:
            if not value:
                value = "true"
            truth = _pprof_flags.go_bool(value)
            if truth is None:
                return f'strconv.ParseBool: parsing "{value}": invalid syntax'
            value = "true" if truth else "false"
        elif value is None:
            return f"please specify a value, e.g. {name}=<val>"
        if name in CHOICES and value not in CHOICES[name]:
            return f'invalid "{name}" value "{value}"'
        if name == "sample_index" and value:
            resolved = self.sample_type(value)
            if resolved is None:
                return f'sample_index "{value}" must be one of: [{" ".join(self.sample_types)}]'
            value = resolved
        if name in ("nodecount",) and not re.fullmatch(r"-?[0-9]+", value):
            return f'strconv.Atoi: parsing "{value}": invalid syntax'
        if name in ("nodefraction", "edgefraction", "divide_by"):
            try:
                float(value)
            except ValueError:
                return f'strconv.ParseFloat: parsing "{value}": invalid syntax'
        self.config[name] = value
        return None

    def sample_type(self, value: str) -> Optional[str]:
        """A sample type by index or name (pprof also takes total_/mean_ forms)."""
        if value.isdigit():
            i = int(value)
            return self.sample_types[i] if i < len(self.sample_types) else None
        for prefix in ("", "total_", "mean_"):
            if value.startswith(prefix) and value[len(prefix) :] in self.sample_types:
                return value[len(prefix) :]
        return None

    def options_text(self) -> str:
        """``o``: every option with its value, as pprof lists them."""
        rows = []
        for name in sorted(DEFAULTS):
            if name == "source_path":
                continue
            value = self.config[name]
            comment = ""
            if name in CHOICES:
                # pprof's own choices (our packages and binaries are accepted, not listed).
                shown = PPROF_GRANULARITIES if name == "granularity" else CHOICES[name]
                comment = "[" + " | ".join(sorted(shown)) + "]"
            elif name == "sample_index":
                value = value or (self.sample_types[-1] if self.sample_types else "")
                comment = "[" + " | ".join(self.sample_types) + "]"
            elif name == "nodecount" and value == "-1":
                comment = "default"
            elif value == "":
                value = '""'
            rows.append(f"  {name:<25s} = {value:<20s} " + (f"//: {comment}" if comment else ""))
        return "\n".join(rows)

    # -- commands --------------------------------------------------------
    def expand(self, line: str) -> List[str]:
        """Shortcuts: ``:`` clears the filters; a sample type's name selects it."""
        line = line.strip()
        if line == ":":
            return [f"{name}=" for name in CLEARED_BY_COLON]
        for st in self.sample_types:
            if line == st:
                return [f"sample_index={st}"]
            if line == f"total_{st}":
                return ["mean=0", f"sample_index={st}"]
            if line == f"mean_{st}":
                return ["mean=1", f"sample_index={st}"]
        return [line]

    def handle(self, line: str) -> bool:
        """Runs one input line; False when the session ends."""
        for item in self.expand(line):
            name, eq, value = item.partition("=")
            name = name.strip()
            if name in DEFAULTS or name in CHOICE_OF:
                value = value.split("//:")[0].strip() if eq else ""
                if not eq and name not in BOOLEANS and name not in CHOICE_OF:
                    self.say_err(f"please specify a value, e.g. {name}=<val>")
                    continue
                error = self.assign(name, value if eq else None)
                if error:
                    self.say_err(error)
                continue
            tokens = item.split()
            if not tokens:
                continue
            if tokens[0] in ("o", "options"):
                self.say_err(self.options_text())
            elif tokens[0] in ("exit", "quit", "q"):
                return False
            elif tokens[0] == "help":
                self.say_err(self.help_text(" ".join(tokens[1:])))
            else:
                error = self.report(tokens)
                if error:
                    self.say_err(error)
        return True

    def help_text(self, topic: str) -> str:
        if not topic:
            lines = ["  Commands:"]
            lines += [f"    {name:<12s} {cmd.text}" for name, cmd in sorted(COMMANDS.items())]
            lines += ["", "  Options:"]
            lines += [f"    {name}" for name in sorted(DEFAULTS)]
            lines += [
                "",
                "  :   Clear focus/ignore/hide/tagfocus/tagignore",
                "",
                '  type "help <cmd|option>" for more information',
            ]
            return "\n".join(lines) + "\n"
        if topic in COMMANDS:
            cmd = COMMANDS[topic]
            return f"{cmd.text}\n  Usage:\n    {cmd.usage}\n"
        if topic in DEFAULTS:
            return f"{topic} = {self.config[topic] or '(empty)'} (default {DEFAULTS[topic] or 'empty'})\n"
        return f"Unknown command: {topic}"

    def report(self, tokens: List[str]) -> Optional[str]:
        """A report command with pprof's argument rules; an error text or None."""
        name, args = tokens[0], tokens[1:]
        if name not in COMMANDS:
            digits = _TAIL_DIGITS.search(name)
            if digits and digits.group() != name and name[: digits.start()] in COMMANDS:
                name, args = name[: digits.start()], [digits.group(), *args]
        if name not in COMMANDS:
            if name in DEFAULTS:
                return f"did you mean: {name}={args[0] if args else '<val>'}"
            return f'unrecognized command: "{name}"'
        cmd = COMMANDS[name]
        param = None
        if cmd.param:
            if not args:
                return f"command {name} requires an argument"
            param, args = args[0], args[1:]
        config = dict(self.config)  # a command's own arguments do not persist
        focus = ignore = ""
        i = 0
        while i < len(args):
            t = args[i]
            if re.fullmatch(r"[+-]?[0-9]+", t):
                config["nodecount"] = str(int(t))
            elif t.startswith(">"):
                target = t[1:]
                if not target:
                    i += 1
                    if i >= len(args):
                        return "unexpected end of line after >"
                    target = args[i]
                config["output"] = target
            elif t in ("-cum", "--cum"):
                config["sort"] = "cum"
            elif t.startswith("-"):
                ignore = join_regex(ignore, t[1:])
            else:
                focus = join_regex(focus, t)
            i += 1
        keys = ("tagfocus", "tagignore") if name == "tags" else ("focus", "ignore")
        if focus:
            config[keys[0]] = focus
        if ignore:
            config[keys[1]] = ignore
        if config["nodecount"] == "-1" and name in ("top", "text"):
            config["nodecount"] = "10"
        return self.run_report(name, param, config)

    def run_report(self, name: str, param: Optional[str], config: Dict[str, str]) -> Optional[str]:
        argv = self.flags_of(name, config)
        target = config["output"]
        if name == "web":
            return self.run_graph(name, argv, target)
        if name in _output.AWAY_FROM_TTY and not target:  # pprof's shell: a new profileNNN.<suffix>
            target = _output.new_report_file(_output.AWAY_FROM_TTY[name])
        # dot and svg are pprof's own output (cli/graph.py), like every other report
        flag = f"-{COMMANDS[name].flag}" + (f"={param}" if param is not None else "")
        argv = [flag, *self.accepted_by(_pprof_flags.REPORTS[COMMANDS[name].flag], argv), *self.fixed, *self.sources]
        if name == "weblist":  # a page: >FILE is its -output; else a temporary file, opened on a terminal
            with contextlib.redirect_stdout(self.out):
                return self.call(argv + ([f"-output={target}"] if target else []))
        if not target:
            with contextlib.redirect_stdout(self.out):
                return self.call(argv)
        with open(target, "w", encoding="utf-8") as f, contextlib.redirect_stdout(f):
            error = self.call(argv)
        if error is None:
            self.say_err(f"Generating report in {target}")
        return error

    def run_graph(self, name: str, argv: List[str], target: str) -> Optional[str]:
        if len(self.sources) != 1 or self.fixed:
            return f"{name}: the shell draws graphs of one profile; merge several with `pprofcore merge` first"
        """``web``: pprof's SVG in a file (a temporary one unless ``>FILE``), opened in a browser."""
        argv = self.accepted_by("svg", argv)
        out = target or tempfile.NamedTemporaryFile(prefix="pprofcore", suffix=".svg", delete=False).name
        with open(out, "w", encoding="utf-8") as f, contextlib.redirect_stdout(f):
            error = self.call(["-svg", *argv, *self.sources])
        if error is None:
            import webbrowser  # on use: it imports subprocess and shlex at start-up

            webbrowser.open("file://" + os.path.abspath(out))
        return error

    def accepted_by(self, subcommand: str, flags: List[str]) -> List[str]:
        """The flags ``subcommand`` takes; pprof ignores options a report has
        no use for (``granularity`` in ``list``), so the shell leaves them out."""
        options = self.options.get(subcommand, set())
        kept = []
        for flag in flags:
            translated = _pprof_flags.translate([flag], [])
            if all(t.split("=", 1)[0] in options for t in translated):
                kept.append(flag)
        return kept

    def flags_of(self, name: str, config: Dict[str, str]) -> List[str]:
        """The options as the command line's pprof flags (defaults left out)."""
        flags = []
        for key, value in config.items():
            if key in ("output", "sort", "granularity", "trim"):
                continue
            if key in BOOLEANS:  # the command line's booleans are off by default
                if _pprof_flags.go_bool(value):
                    flags.append(f"-{key}")
            elif value != DEFAULTS[key]:
                flags.append(f"-{key}={value}")
        if config["sort"] == "cum" and name in ("top", "text"):
            flags.append("-cum")
        if config["granularity"] != "functions":
            flags.append(f"-{config['granularity']}")
        return flags

    def call(self, argv: List[str]) -> Optional[str]:
        """Runs one command line; its error line (without the program's prefix)."""
        captured = io.StringIO()
        with contextlib.redirect_stderr(captured):
            try:
                code = self.run_cli(argv)
            except SystemExit as e:  # argparse refusing an option
                code = e.code if isinstance(e.code, int) else 2
        text = captured.getvalue()
        if code == 0:
            if text:
                self.err.write(text)
            return None
        lines = [ln for ln in text.splitlines() if ln.strip()]
        last = lines[-1] if lines else f"exit status {code}"
        return re.sub(r"^pprofcore( [a-z]+)?: (error: )?", "", last)

    def say_err(self, text: str) -> None:
        self.err.write(text if text.endswith("\n") else text + "\n")
        self.err.flush()

    # -- the loop --------------------------------------------------------
    def loop(self, stdin: TextIO) -> int:
        interactive = stdin.isatty() and self.out.isatty()
        if interactive:
            _readline_setup(self)
        while True:
            try:
                if interactive:
                    line = input("(pprof) ")
                else:
                    self.out.write("(pprof) ")
                    self.out.flush()
                    line = stdin.readline()
                    if not line:
                        return 0
            except EOFError:
                return 0
            except KeyboardInterrupt:  # Ctrl-C drops the line, as a shell does
                self.out.write("\n")
                continue
            if not self.handle(line):
                return 0


def _readline_setup(shell: Shell) -> None:
    """History in ~/.pprofcore_history and Tab completion of commands and options."""
    try:
        import readline
    except ImportError:  # not every Python has it (Windows)
        return
    import atexit

    history = os.path.join(os.path.expanduser("~"), ".pprofcore_history")
    with contextlib.suppress(OSError):
        readline.read_history_file(history)
    atexit.register(lambda: _save_history(readline, history))
    words = sorted(set(COMMANDS) | set(DEFAULTS) | set(CHOICE_OF) | {"help", "options", "quit"})

    def complete(text: str, state: int) -> Optional[str]:
        matches = [w for w in words if w.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")


def _save_history(readline: Any, path: str) -> None:
    with contextlib.suppress(OSError):
        readline.set_history_length(1000)
        readline.write_history_file(path)


def split_argv(argv: Sequence[str]) -> Tuple[List[str], List[str]]:
    """(pprof flags, sources) of a command line with no report flag; a value
    flag given without ``=`` takes the next argument, as Go's flag package does."""
    flags: List[str] = []
    sources: List[str] = []
    args = list(argv)
    while args:
        arg = args.pop(0)
        if not (arg.startswith("-") and len(arg) > 1):
            sources.append(arg)
            continue
        name = arg.lstrip("-")
        takes_value = "=" not in name and name not in BOOLEANS and name not in CHOICE_OF
        if takes_value and (name in DEFAULTS or name in _pprof_flags.OPTIONS) and args:
            arg = f"-{name}={args.pop(0)}"
        flags.append(arg)
    return flags, sources


def options_by_subcommand(parser: argparse.ArgumentParser) -> Dict[str, set]:
    """Each subcommand's option strings (``--focus``, ``--granularity`` ...)."""
    found: Dict[str, set] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[name] = {opt for a in sub._actions for opt in a.option_strings}
    return found


def greeting(header: Sequence[str], total: int, n_types: int) -> str:
    """What pprof prints before the first prompt: the profile's header lines."""
    lines = list(header)
    if total == 0 and n_types > 1:
        lines += [
            "No samples were found with the default sample value type.",
            'Try "sample_index" command to analyze different sample values.',
            "",
        ]
    lines.append('Entering interactive mode (type "help" for commands, "o" for options)')
    return "\n".join(lines) + "\n"


def run(
    argv: Sequence[str],
    build_parser: Callable[[], argparse.ArgumentParser],
    main: Callable[..., int],
    stdin: TextIO = sys.stdin,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """``pprofcore [flags] SOURCE...`` with no report flag: the shell."""
    flags, sources = split_argv(argv)
    if not sources:
        err.write("pprofcore: no profile given (pprofcore FILE opens the interactive shell)\n")
        return 2
    parser = build_parser()
    args = parser.parse_args(_pprof_flags.translate(["-top", *flags, *sources], ["top"]))
    # every command of the session reads its files from here: decoded once
    args.source_cache = cache = SourceCache()
    profile = _report_args.load_all(args)
    table = profile.top(n=0, sample_type=_report_args.sample_index(args.sample_index))
    profile_lines = _report_args.profile_header(table.header)
    total = int(profile.total(_report_args.sample_index(args.sample_index)))
    types = [t for t, _ in profile.sample_types]
    if getattr(args, "saved_profile", None):
        # Fetched once: every command reads the saved copy, base already applied.
        sources = [args.saved_profile]
        flags = [f for f in flags if f.lstrip("-").split("=")[0] not in _FETCH_FLAGS]
    run_cli = functools.partial(main, source_cache=cache)
    shell = Shell(sources, flags, run_cli, options_by_subcommand(parser), types, out, err)
    err.write(greeting(profile_lines, total, len(types)))
    err.flush()
    return shell.loop(stdin)
