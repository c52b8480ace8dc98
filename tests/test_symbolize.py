"""Symbolization against google/pprof's binutils symbolizer: C (PIE and
non-PIE, with inlined functions) and C++ programs built here with -g, profiled
by gperftools, symbolized by pprofcore and by standalone ``pprof
-symbolize=local`` with the same tool (llvm-symbolizer, then addr2line alone on
PATH); every location must get the same functions, files and lines. Also the
demangling modes against pprof's, binaries found by search path and build id,
and the report for missing binaries."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import pprofcore
from pprofcore.symbolize import symbolize, _demangle, _elf, _tools

import native_programs as native
from conftest import go_helper, requires_go

pytestmark = pytest.mark.skipif(native.missing_tools() is not None, reason=str(native.missing_tools()))

HAVE_LLVM = bool(_tools._versioned("llvm-symbolizer"))
HAVE_ADDR2LINE = shutil.which("addr2line") is not None


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """{variant: (binary, profile path)} for every native variant."""
    d = tmp_path_factory.mktemp("native")
    return {v: native.build_and_profile(v, d / v) for v in native.VARIANTS}


@pytest.fixture(scope="module")
def pprof_cmd(tmp_path_factory):
    exe = native.standalone_pprof(tmp_path_factory.mktemp("pprofbin"))
    if exe is None:
        pytest.skip("standalone pprof needs go and golang-github-google-pprof-dev")
    return exe


def _tool_params():
    return [pytest.param("llvm-symbolizer", marks=pytest.mark.skipif(not HAVE_LLVM, reason="llvm-symbolizer missing")),
            pytest.param("addr2line", marks=pytest.mark.skipif(not HAVE_ADDR2LINE, reason="addr2line missing"))]


def _pprof_tools_dir(tmp_path, tool):
    names = ["addr2line", "nm", "objdump", "c++filt"] + (["llvm-symbolizer"] if tool == "llvm-symbolizer" else [])
    if tool == "llvm-symbolizer" and not shutil.which("llvm-symbolizer"):
        (tmp_path / "tools").mkdir(exist_ok=True)
        (tmp_path / "tools" / "llvm-symbolizer").symlink_to(_tools._versioned("llvm-symbolizer"))
    return native.only_tools(tmp_path / "tools", *names)


# demangling modes only differ for C++
CASES = [(v, "simplified") for v in native.VARIANTS] + [("cpp-pie", d) for d in ("full", "none", "templates")]


@pytest.mark.parametrize("tool", _tool_params())
@pytest.mark.parametrize("variant,demangle", CASES, ids=[f"{v}-{d}" for v, d in CASES])
def test_same_frames_as_pprof(programs, pprof_cmd, variant, tool, demangle, tmp_path):
    exe, prof = programs[variant]
    mode = "" if demangle == "simplified" else "=" + demangle
    raw = native.run_pprof(pprof_cmd, f"-symbolize=local:demangle{mode}" if mode else "-symbolize=local", "-raw",
                           str(prof), tools_dir=_pprof_tools_dir(tmp_path, tool))
    want = {a: [(n, sn, native.pprof_file(f), ln) for n, sn, f, ln in fr]
            for a, fr in native.raw_locations(raw).items()}
    got_profile, report = symbolize(pprofcore.load(prof), tool=tool, demangle=demangle)
    got = native.our_locations(got_profile)
    assert report.resolved > 0 and not report.missing, str(report)
    assert set(got) == set(want)
    diff = {hex(a): (got[a], want[a]) for a in want if got[a] != want[a]}
    assert not diff, f"{len(diff)} of {len(want)} locations differ from pprof: {list(diff.items())[:5]}"
    # the program's own functions were found, inline frames included
    main_frames = [f for a, fr in got.items() for f in fr if f[2].endswith(("inline.c", "names.cpp"))]
    assert {"main"} <= {f[0] for f in main_frames}
    if variant.startswith("c-"):
        assert any(len(fr) == 3 and [f[0] for f in fr] == ["mix", "spin", "hot"] for fr in got.values())
    m = got_profile.mappings
    assert m["has_functions"][0] and m["has_filenames"][0] and m["has_line_numbers"][0] and m["has_inline_frames"][0]
    # the rest of the profile is untouched
    p = pprofcore.load(prof)
    assert np.array_equal(got_profile.values, p.values)
    assert np.array_equal(got_profile.stack_locations, p.stack_locations)


def test_symbolizing_twice_changes_nothing(programs):
    once, _ = symbolize(pprofcore.load(programs["c-pie"][1]))
    twice, report = symbolize(once)
    assert twice is once and report.resolved == 0
    assert {m.reason for m in report.mappings} == {"already symbolized"}
    forced, report = symbolize(once, force=True)
    assert report.resolved > 0 and native.our_locations(forced) == native.our_locations(once)


def test_round_trip_keeps_symbols(programs):
    q, _ = symbolize(pprofcore.load(programs["cpp-pie"][1]))
    again = pprofcore.loads(q.to_bytes())
    assert native.our_locations(again) == native.our_locations(q)


def test_binaries_by_search_path_build_id_and_explicit(programs, tmp_path):
    exe, prof = programs["c-nopie"]
    moved = tmp_path / "elsewhere"
    p = pprofcore.load(prof)
    # the mapping names the original path: move the binary away
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    shutil.copy(exe, hidden / "renamed")
    os.rename(exe, str(exe) + ".gone")
    try:
        q, report = symbolize(p, search_path=[str(moved)])
        main = report.mappings[0]
        assert main.status == "missing" and "not found" in main.reason
        # by base name in a search directory
        moved.mkdir()
        shutil.copy(hidden / "renamed", moved / exe.name)
        q1, r1 = symbolize(p, search_path=str(moved))
        assert r1.mappings[0].status == "symbolized" and r1.mappings[0].binary == str(moved / exe.name)
        # explicit path for the main mapping, and a list matched by build id
        q2, r2 = symbolize(p, binaries=str(hidden / "renamed"), search_path=[])
        build_id = _elf.read_elf(str(hidden / "renamed")).build_id
        assert build_id and r2.mappings[0].status == "symbolized"
        assert native.our_locations(q1) == native.our_locations(q2)
        by_dir = tmp_path / "byid"
        (by_dir / build_id).mkdir(parents=True)
        shutil.copy(hidden / "renamed", by_dir / build_id / "whatever")
        q3, r3 = symbolize(p, search_path=[str(by_dir)])
        # the gperftools profile carries no build ids: the build-id directory is
        # only used when the mapping names one
        assert r3.mappings[0].status == "missing"
    finally:
        os.rename(str(exe) + ".gone", exe)


def test_missing_binary_is_reported_not_raised():
    data = _minimal_profile("/nonexistent/bin/app", 0x400000, 0x401000, 0)
    q, report = symbolize(pprofcore.loads(data), search_path=[])
    assert q is not None and report.resolved == 0
    assert report.missing[0].filename == "/nonexistent/bin/app"
    assert "not found" in report.missing[0].reason and "missing" in str(report)


def test_build_id_mismatch_is_reported(programs):
    exe, _ = programs["c-pie"]
    data = _minimal_profile(str(exe), 0x555555554000, 0x555555556000, 0x1000, build_id="00" * 20)
    _, report = symbolize(pprofcore.loads(data), search_path=[])
    assert report.missing and "build id" in report.missing[0].reason


def test_bad_arguments():
    p = pprofcore.loads(_minimal_profile("/x", 0, 0x1000, 0))
    with pytest.raises(ValueError, match="demangle must be one of"):
        symbolize(p, demangle="fancy")


def test_not_an_elf_file(tmp_path):
    f = tmp_path / "notelf"
    f.write_bytes(b"#!/bin/sh\necho hi\n")
    _, report = symbolize(pprofcore.loads(_minimal_profile(str(f), 0x1000, 0x2000, 0)), search_path=[])
    assert report.missing and "not an ELF file" in report.missing[0].reason
    with pytest.raises(_elf.NotELF):
        _elf.read_elf(str(f))


def test_tool_missing_names_the_package(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(_tools.ToolMissing, match="apt-get install"):
        _tools.find_symbolizer("auto")


def _minimal_profile(filename, start, limit, offset, build_id=""):
    """A profile with one mapping and one address-only location."""
    import wirebuild as w

    strings = ["", "samples", "count", filename, build_id]
    return w.profile(sample_types=[w.value_type(1, 2)], samples=[w.sample([1], [1])],
                     mappings=[w.mapping(1, start, limit, offset, 3, 4 if build_id else 0)],
                     locations=[w.location(1, 1, start + 0x10)], strings=strings)


# ------------------------------------------------------------------ demangling

DEMANGLE_CASES = [
    # (mangled, simplified, templates, full), as pprof's demangler shows them
    ("_ZN2ns3FooIiE3barIdEEvT_", "ns::Foo::bar", "ns::Foo<int>::bar<double>", "void ns::Foo<int>::bar<double>(double)"),
    ("_ZNK2ns3Foo3getEv", "ns::Foo::get", "ns::Foo::get", "ns::Foo::get() const"),
    ("_ZN12_GLOBAL__N_14helpEi", "(anonymous namespace)::help", "(anonymous namespace)::help",
     "(anonymous namespace)::help(int)"),
    ("_Z3sumIiET_S0_S0_.constprop.0", "sum", "sum<int>", "int sum<int>(int, int)"),
    ("_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()", "main::{lambda(int)#1}::operator()",
     "main::{lambda(int)#1}::operator()(int) const"),
    ("_ZNK2ns3FoocviEv", "ns::Foo::operator int", "ns::Foo::operator int", "ns::Foo::operator int() const"),
    ("_ZN2ns3FoolsEi", "ns::Foo::operator<<", "ns::Foo::operator<<", "ns::Foo::operator<<(int)"),
    ("_ZZN2ns1fEvE1x", "ns::f()::x", "ns::f()::x", "ns::f()::x"),
    ("_ZN2ns3FooD2Ev", "ns::Foo::~Foo", "ns::Foo::~Foo", "ns::Foo::~Foo()"),
    ("_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc", "std::operator<<",
     "std::operator<< <std::char_traits<char> >",
     "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
     "(std::basic_ostream<char, std::char_traits<char> >&, char const*)"),
    ("_ZThn16_NSt9strstreamD1Ev", "non-virtual thunk to std::strstream::~strstream()",
     "non-virtual thunk to std::strstream::~strstream()", "non-virtual thunk to std::strstream::~strstream()"),
    ("main", "main", "main", "main"),
]


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt missing (binutils)")
@pytest.mark.parametrize("mangled,simplified,templates,full", DEMANGLE_CASES, ids=[c[0] for c in DEMANGLE_CASES])
def test_demangle_modes(mangled, simplified, templates, full):
    for mode, want in (("simplified", simplified), ("templates", templates), ("full", full), ("none", mangled)):
        assert _demangle.demangle_names([mangled], mode)[mangled] == want, mode


def test_already_demangled_names_get_pprofs_heuristic():
    got = _demangle.demangle_names(["std::vector<int>::push_back(int)", "main.(*T).m", "java.lang.Object.<init>"])
    assert got == {"std::vector<int>::push_back(int)": "std::vector::push_back", "main.(*T).m": "main.(*T).m",
                   "java.lang.Object.<init>": "java.lang.Object.<init>"}


@pytest.mark.parametrize("tool", _tool_params())
def test_parallel_chunks_give_the_same_frames(programs, tool, monkeypatch):
    p = pprofcore.load(programs["c-pie"][1])
    one, _ = symbolize(p, tool=tool)
    monkeypatch.setattr(_tools, "PARALLEL_MIN", 2)  # several processes even for a few addresses
    many, _ = symbolize(p, tool=tool)
    assert native.our_locations(many) == native.our_locations(one)


# Printer differences between binutils' demangler and Go's that are not about
# pprof's modes: Go abbreviates the standard substitutions (std::string for
# std::basic_string<char, ...>) and closes nested templates with ">>".
_ABBREVIATED = re.compile(r"std::(string|istream|ostream|iostream)\b|std::basic_(string|istream|ostream|iostream)<char")


def _exported_cpp_names():
    names = set()
    for lib in ("/usr/lib/x86_64-linux-gnu/libstdc++.so.6",):
        if os.path.exists(lib):
            r = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
            names |= {ln.split()[-1].split("@")[0] for ln in r.stdout.splitlines() if " _Z" in ln}
    return sorted(names)


@requires_go
@pytest.mark.skipif(shutil.which("c++filt") is None or shutil.which("nm") is None, reason="binutils missing")
def test_demangle_modes_agree_with_pprofs_demangler_on_libstdcxx():
    """Every exported libstdc++ symbol, in the simplified and templates modes,
    against google/pprof's demangler (tools/goref/demangle)."""
    names = [n for n in _exported_cpp_names() + [c[0] for c in DEMANGLE_CASES]]
    if len(names) < 100:
        pytest.skip("libstdc++ not found")
    helper = go_helper("demangle")
    go = subprocess.run([helper], input="\n".join(names) + "\n", capture_output=True, text=True,
                        check=True).stdout.splitlines()
    assert len(go) == len(names)
    compared, bad = 0, []
    for mode_index, mode in enumerate(("simplified", "templates")):
        ours = _demangle.demangle_names(names, mode)
        for name, line in zip(names, go):
            want = line.split("\t")[mode_index]
            if want == name:  # Go could not demangle it (e.g. newer manglings)
                continue
            full = _demangle.demangle_names([name], "full")[name]
            if _ABBREVIATED.search(want) or _ABBREVIATED.search(full):
                continue
            compared += 1
            if ours[name].replace("> >", ">>") != want.replace("> >", ">>"):
                bad.append((mode, name, ours[name], want))
    assert compared > 1000
    assert not bad, f"{len(bad)} of {compared} differ, e.g. {bad[:5]}"
