"""The symbolize, list and disasm subcommands: same text as the API, pprof's
single-dash spellings accepted, the symbolized profile written and readable,
and one-line errors."""

from __future__ import annotations

import shutil

import native_programs as native
import pytest

import pprofcore
from pprofcore.cli import _pprof_flags, main

pytestmark = pytest.mark.skipif(
    native.missing_tools() is not None or shutil.which("objdump") is None,
    reason=str(native.missing_tools() or "objdump missing (binutils)"),
)


@pytest.fixture(scope="module")
def c_program(tmp_path_factory):
    return native.build_and_profile("c-pie", tmp_path_factory.mktemp("cli") / "c-pie")


def test_pprof_spellings_translate():
    assert _pprof_flags.translate(["-list=hot", "-source_path=/src", "f.prof"], ["list"]) == [
        "list",
        "hot",
        "--source_path=/src",
        "f.prof",
    ]
    assert _pprof_flags.translate(["-disasm=^main$", "-symbolize=none", "f"], ["disasm"]) == [
        "disasm",
        "^main$",
        "--symbolize=none",
        "f",
    ]
    with pytest.raises(SystemExit, match="-list needs a regex"):
        _pprof_flags.translate(["-list", "f"], ["list"])


def test_list_and_disasm_print_the_api_text(c_program, capsys):
    exe, prof = c_program
    src = str(native.SOURCES)
    assert main(["-list=hot", f"-source_path={src}", str(prof)]) == 0
    got = capsys.readouterr().out
    p, _ = pprofcore.load(prof).symbolize()
    # The text once, ending in one newline (as pprof prints it: no blank line after).
    assert got == _one_newline(p.list("hot", source_path=src).to_text())
    assert main(["disasm", "hot", str(prof)]) == 0
    assert capsys.readouterr().out == _one_newline(p.disasm("hot").to_text())


def _one_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def test_symbolize_writes_a_symbolized_profile(c_program, tmp_path, capsys):
    exe, prof = c_program
    out = tmp_path / "sym.pb.gz"
    assert main(["symbolize", str(prof), "-o", str(out)]) == 0
    assert "symbolized" in capsys.readouterr().err
    q = pprofcore.load(out)
    names = {q.strings[c] for c in q.functions["name"].tolist()}
    assert {"main", "hot", "spin", "mix"} <= names


def test_no_match_is_one_line_error(c_program, capsys):
    assert main(["list", "zzz_nothing", str(c_program[1])]) == 2
    err = capsys.readouterr().err
    assert "no matches found for regexp: zzz_nothing" in err and "Traceback" not in err
    # without symbolization there are no names to match
    assert main(["disasm", "hot", "--symbolize=none", str(c_program[1])]) == 2
