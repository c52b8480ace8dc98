"""pprof's interactive shell (``pprofcore FILE`` with no report flag): the
same session fed to ``go tool pprof`` and to pprofcore gives the same stdout
(prompts and reports) and the same error lines, and each report equals the
one-shot command line's text for the same options."""

import functools
import io
import os
import shutil
import signal
import subprocess
import sys

import pytest

import pprofcore
from pprofcore.cli import main
from pprofcore.cli import shell as shell_module

EXAMPLE = str(pprofcore.example_path("cpu"))
HEAP = str(pprofcore.example_path("heap"))
HAVE_GO = shutil.which("go") is not None

# A session touching every rule: topN, -cum, focus as an option and as an
# argument, ignore with '-', ':' clearing, granularity, sample types, tree,
# traces, list, peek, output to a file, and the errors pprof reports.
SESSION = [
    "top5",
    "top -cum 3",
    "focus=main",
    "top3",
    "top 4 sort -sha256",
    "peek sort",
    ":",
    "lines=true",
    "top4",
    "granularity=files",
    "top2 -cum",
    "functions=true",
    "sample_index=samples",
    "tree 3",
    "samples",
    "traces",
    "list sha256.block",
    "sample_index=foo",
    "nodecount=x",
    "nodecount",
    "granularity=bogus",
    "lines",
    "foo",
    "nodefraction 0.1",
    "peek",
    "q",
]


def run_session(cmd, lines, cwd):
    r = subprocess.run(
        cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )
    return r.stdout, r.stderr


def ours(args, lines, cwd):
    env_cmd = [sys.executable, "-m", "pprofcore", *args]
    return run_session(env_cmd, lines, cwd)


@pytest.mark.skipif(not HAVE_GO, reason="needs go tool pprof (golang-go, golang-github-google-pprof-dev)")
def test_session_equals_go_pprof(tmp_path):
    out_go, err_go = run_session(["go", "tool", "pprof", EXAMPLE], SESSION, tmp_path)
    out_us, err_us = ours([EXAMPLE], SESSION, tmp_path)
    assert out_us == out_go
    # stderr: the greeting and the error lines in the same order (pprof's
    # greeting times are its own; ours are the same text).
    assert err_us.splitlines() == err_go.splitlines()


@pytest.mark.skipif(not HAVE_GO, reason="needs go tool pprof")
def test_output_to_a_file_equals_go_pprof(tmp_path):
    (tmp_path / "go").mkdir()
    (tmp_path / "us").mkdir()
    lines = ["top7 -cum >top.txt", "peek > peek.txt runtime", "q"]
    run_session(["go", "tool", "pprof", EXAMPLE], lines, tmp_path / "go")
    _, err = ours([EXAMPLE], lines, tmp_path / "us")
    assert "Generating report in top.txt" in err
    for name in ("top.txt",):
        assert (tmp_path / "us" / name).read_text() == (tmp_path / "go" / name).read_text()


@pytest.mark.skipif(not HAVE_GO, reason="needs go tool pprof")
def test_initial_flags_and_heap_session(tmp_path):
    lines = ["top3", "o", "alloc_space", "top3", "mean_alloc_objects", "top3", "q"]
    args = ["-sample_index=inuse_objects", "-nodefraction=0.01", HEAP]
    out_go, err_go = run_session(["go", "tool", "pprof", *args], lines, tmp_path)
    out_us, err_us = ours(args, lines, tmp_path)
    assert out_us == out_go
    assert err_us.splitlines() == err_go.splitlines()


def test_reports_equal_the_one_shot_command_line(capsys):
    # Without Go: the shell's report is the command line's, byte for byte.
    cases = [
        ("top6", ["-top", "-nodecount=6", "-compact_labels"]),
        ("top -cum 4 sort", ["-top", "-nodecount=4", "-cum", "-focus=sort", "-compact_labels"]),
        ("tree 2 -runtime", ["-tree", "-nodecount=2", "-ignore=runtime", "-compact_labels"]),
        ("peek sha256", ["-peek=sha256", "-compact_labels"]),
        ("traces", ["-traces", "-compact_labels"]),
        ("tags endpoint", ["-tags", "-tagfocus=endpoint", "-compact_labels"]),
    ]
    for line, flags in cases:
        assert main([*flags, EXAMPLE]) == 0
        expected = capsys.readouterr().out
        out, err = io.StringIO(), io.StringIO()
        code = shell_module.run([EXAMPLE], _parser, main, io.StringIO(line + "\nquit\n"), out, err)
        assert code == 0
        assert out.getvalue() == "(pprof) " + expected + "(pprof) ", line


class _Lines(io.StringIO):
    """A session's stdin that runs ``between`` before handing out line ``at``."""

    def __init__(self, text, at, between):
        super().__init__(text)
        self.calls, self.at, self.between = 0, at, between

    def readline(self, *args):
        self.calls += 1
        if self.calls == self.at:
            self.between()
        return super().readline(*args)


def test_a_session_decodes_each_file_once(tmp_path, monkeypatch, capsys):
    # The shell runs every command through the command line; its files are
    # decoded once per session (until one changes), and the reports are the
    # one-shot command line's.
    from pprofcore import _io

    src, base = tmp_path / "cpu.pb.gz", tmp_path / "base.pb.gz"
    src.write_bytes(open(EXAMPLE, "rb").read())
    base.write_bytes(open(EXAMPLE, "rb").read())
    reads = []
    real_load = _io.load
    monkeypatch.setattr(_io, "load", lambda path, *a, **k: reads.append(os.path.basename(path)) or real_load(path))
    commands = [("top3", ["-top", "-nodecount=3"]), ("tree 2", ["-tree", "-nodecount=2"]), ("traces", ["-traces"])]
    script = "".join(line + "\n" for line, _ in commands * 2) + "quit\n"
    out = io.StringIO()
    assert (
        shell_module.run([f"-diff_base={base}", str(src)], _parser, main, io.StringIO(script), out, io.StringIO()) == 0
    )
    assert sorted(reads) == ["base.pb.gz", "cpu.pb.gz"]
    texts = out.getvalue().split("(pprof) ")[1:-1]
    for k, (_, flags) in enumerate(commands):
        capsys.readouterr()
        assert main([*flags, "-compact_labels", f"-diff_base={base}", str(src)]) == 0
        assert texts[k] == texts[k + len(commands)] == capsys.readouterr().out
    # a file rewritten during the session is read again, once
    reads.clear()
    stdin = _Lines("top3\ntop3\ntop3\nquit\n", 2, lambda: os.utime(src, ns=(10**9, 10**9)))
    shell_module.run([str(src)], _parser, main, stdin, io.StringIO(), io.StringIO())
    assert reads == ["cpu.pb.gz", "cpu.pb.gz"]


def test_weblist_writes_the_page(tmp_path, monkeypatch):
    # >FILE gets the page (the command line's -output); without it, a temporary
    # file whose path is printed (no browser: the output is not a terminal)
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    script = "weblist sortWork >page.html\nweblist sortWork\nquit\n"
    assert shell_module.run([EXAMPLE], _parser, main, io.StringIO(script), out, err) == 0
    assert (tmp_path / "page.html").read_text().startswith("<!DOCTYPE html>")
    assert "Generating report in page.html" in err.getvalue()
    printed = out.getvalue().split("(pprof) ")[2].strip()
    try:
        assert printed.endswith(".html") and "<h2>main.sortWork</h2>" in open(printed).read()
    finally:
        os.unlink(printed)


def _parser():
    from pprofcore.cli import build_parser

    return build_parser()


def test_options_listing_and_shortcuts():
    out, err = io.StringIO(), io.StringIO()
    script = "focus=main\nhide=runtime\n:\no\nmean_cpu\no\nhelp top\nhelp\nexit\n"
    shell_module.run([EXAMPLE], _parser, main, io.StringIO(script), out, err)
    text = err.getvalue()
    assert text.startswith("File: basic\nType: cpu\n")
    assert 'Entering interactive mode (type "help" for commands, "o" for options)' in text
    listings = text.split("  call_tree                 =")[1:]
    assert len(listings) == 2
    # ':' cleared focus and hide
    assert '  focus                     = ""' in listings[0]
    assert '  hide                      = ""' in listings[0]
    assert "  sample_index              = cpu                  //: [samples | cpu]" in listings[0]
    assert "  mean                      = true" in listings[1]
    assert "top [n] [focus_regex]* [-ignore_regex]* [-cum] >f" in text
    assert "Clear focus/ignore/hide/tagfocus/tagignore" in text


def test_no_source_and_bad_initial_flag(capsys):
    with pytest.raises(SystemExit):  # no source: argparse's usage error, no shell
        main(["-nodecount=3"])
    capsys.readouterr()
    assert main(["-sample_index=nosuch", EXAMPLE]) == 2
    assert "'nosuch'" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_terminal_session_with_completion_and_history(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, HOME=str(tmp_path), TERM="dumb")
    # SIGINT as a terminal gives it, even when this run is a background job that ignores it
    restore_sigint = functools.partial(signal.signal, signal.SIGINT, signal.SIG_DFL)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "pprofcore", EXAMPLE],
        env=env,
        encoding="utf-8",
        timeout=60,
        preexec_fn=restore_sigint,
    )
    try:
        child.expect_exact("(pprof) ")
        child.send("tre\t")  # Tab completes the command
        child.expect_exact("tree")
        child.send(" 2\r")
        child.expect_exact("Showing top 2 nodes")
        child.expect_exact("(pprof) ")
        child.sendintr()  # Ctrl-C drops the line and keeps the shell
        child.expect_exact("(pprof) ")
        child.send("quit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert "tree 2" in (tmp_path / ".pprofcore_history").read_text()


@pytest.mark.skipif(not HAVE_GO, reason="needs go tool pprof")
@pytest.mark.parametrize("flag", ["-lines", "-filefunctions", "-files=true"])
def test_a_granularity_flag_starts_the_session(tmp_path, flag):
    """`pprof -lines FILE` opens the shell at lines (it was "unknown config field")."""
    lines = ["top3", "q"]
    out_go, err_go = run_session(["go", "tool", "pprof", flag, EXAMPLE], lines, tmp_path)
    out_us, err_us = ours([flag, EXAMPLE], lines, tmp_path)
    assert out_us == out_go
    assert err_us.splitlines() == err_go.splitlines()
