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
import sys

import native_programs as native
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import go_helper, requires_go

import pprofcore
from pprofcore import _demangle
from pprofcore.symbolize import _elf, _tools, symbolize

pytestmark = pytest.mark.skipif(native.missing_tools() is not None, reason=str(native.missing_tools()))

HAVE_LLVM = bool(_tools._versioned("llvm-symbolizer"))
HAVE_ADDR2LINE = shutil.which("addr2line") is not None


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """{variant: (binary, profile path)} for every native variant."""
    d = tmp_path_factory.mktemp("native")
    return {v: native.build_and_profile(v, d / v) for v in native.VARIANTS if native.available(v)}


def _tool_params():
    return [
        pytest.param("llvm-symbolizer", marks=pytest.mark.skipif(not HAVE_LLVM, reason="llvm-symbolizer missing")),
        pytest.param("addr2line", marks=pytest.mark.skipif(not HAVE_ADDR2LINE, reason="addr2line missing")),
    ]


def _pprof_tools_dir(tmp_path, tool):
    names = ["addr2line", "nm", "objdump", "c++filt"] + (["llvm-symbolizer"] if tool == "llvm-symbolizer" else [])
    if tool == "llvm-symbolizer" and not shutil.which("llvm-symbolizer"):
        (tmp_path / "tools").mkdir(exist_ok=True)
        (tmp_path / "tools" / "llvm-symbolizer").symlink_to(_tools._versioned("llvm-symbolizer"))
    return native.only_tools(tmp_path / "tools", *names)


# demangling modes only differ for C++ (and Rust, whose names Debian's pprof
# cannot demangle: compared without demangling)
CASES = (
    [(v, "simplified") for v in native.VARIANTS if v != "rust-pie"]
    + [("cpp-pie", d) for d in ("full", "none", "templates")]
    + [("rust-pie", "none")]
)


@pytest.mark.parametrize("tool", _tool_params())
@pytest.mark.parametrize("variant,demangle", CASES, ids=[f"{v}-{d}" for v, d in CASES])
def test_same_frames_as_pprof(programs, pprof_cmd, variant, tool, demangle, tmp_path):
    if variant not in programs:
        pytest.skip(f"no compiler for {variant}")
    exe, prof = programs[variant]
    mode = "" if demangle == "simplified" else "=" + demangle
    raw = native.run_pprof(
        pprof_cmd,
        f"-symbolize=local:demangle{mode}" if mode else "-symbolize=local",
        "-raw",
        str(prof),
        tools_dir=_pprof_tools_dir(tmp_path, tool),
    )
    want = {
        a: [(n, sn, native.pprof_file(f), ln) for n, sn, f, ln in fr] for a, fr in native.raw_locations(raw).items()
    }
    got_profile, report = symbolize(pprofcore.load(prof), tool=tool, demangle=demangle)
    got = native.our_locations(got_profile)
    assert report.resolved > 0 and not report.missing, str(report)
    assert set(got) == set(want)
    diff = {hex(a): (got[a], want[a]) for a in want if got[a] != want[a]}
    assert not diff, f"{len(diff)} of {len(want)} locations differ from pprof: {list(diff.items())[:5]}"
    # the program's own functions were found, inline frames included
    main_frames = [f for a, fr in got.items() for f in fr if f[2].endswith(("inline.c", "names.cpp", "spin.rs"))]
    assert main_frames
    if variant.startswith("c-"):
        assert any(len(fr) == 3 and [f[0] for f in fr] == ["mix", "spin", "hot"] for fr in got.values())
    m = got_profile.mappings
    assert m["has_functions"][0] and m["has_filenames"][0] and m["has_line_numbers"][0] and m["has_inline_frames"][0]
    # the rest of the profile is untouched
    p = pprofcore.load(prof)
    assert np.array_equal(got_profile.values, p.values)
    assert np.array_equal(got_profile.stack_locations, p.stack_locations)


def test_rust_names(programs):
    if "rust-pie" not in programs:
        pytest.skip("rustc not installed")
    q, report = symbolize(pprofcore.load(programs["rust-pie"][1]))
    names = {n for fr in native.our_locations(q).values() for n, *_ in fr}
    assert {"spin::twist", "spin::Acc::fold", "spin::main"} <= names, sorted(names)[:20]
    full, _ = symbolize(pprofcore.load(programs["rust-pie"][1]), demangle="full")
    full_names = {n for fr in native.our_locations(full).values() for n, *_ in fr}
    assert "spin::Acc<u64>::fold" in full_names  # no hash in any mode, as pprof's demangler


def test_symbolizing_twice_changes_nothing(programs):
    once, _ = symbolize(pprofcore.load(programs["c-pie"][1]))
    twice, report = symbolize(once)
    assert twice is once and report.resolved == 0
    # What the first pass resolved is marked symbolized; a mapping where it found
    # nothing (a sample may land in a stripped library) is tried again, in vain.
    assert "already symbolized" in {m.reason for m in report.mappings}
    assert all(m.reason == "already symbolized" or m.resolved == 0 for m in report.mappings)
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
    assert repr(report) == "<SymbolizeReport: 0 locations resolved, 0 unresolved, 1 mappings missing>"
    assert "/nonexistent/bin/app" in report._repr_html_()


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
    return w.profile(
        sample_types=[w.value_type(1, 2)],
        samples=[w.sample([1], [1])],
        mappings=[w.mapping(1, start, limit, offset, 3, 4 if build_id else 0)],
        locations=[w.location(1, 1, start + 0x10)],
        strings=strings,
    )


# ------------------------------------------------------------------ demangling

DEMANGLE_CASES = [
    # (mangled, simplified, templates, full), as pprof's demangler shows them
    ("_ZN2ns3FooIiE3barIdEEvT_", "ns::Foo::bar", "ns::Foo<int>::bar<double>", "void ns::Foo<int>::bar<double>(double)"),
    ("_ZNK2ns3Foo3getEv", "ns::Foo::get", "ns::Foo::get", "ns::Foo::get() const"),
    (
        "_ZN12_GLOBAL__N_14helpEi",
        "(anonymous namespace)::help",
        "(anonymous namespace)::help",
        "(anonymous namespace)::help(int)",
    ),
    ("_Z3sumIiET_S0_S0_.constprop.0", "sum", "sum<int>", "int sum<int>(int, int)"),
    (
        "_ZZ4mainENKUliE_clEi",
        "main::{lambda(int)#1}::operator()",
        "main::{lambda(int)#1}::operator()",
        "main::{lambda(int)#1}::operator()(int) const",
    ),
    ("_ZNK2ns3FoocviEv", "ns::Foo::operator int", "ns::Foo::operator int", "ns::Foo::operator int() const"),
    ("_ZN2ns3FoolsEi", "ns::Foo::operator<<", "ns::Foo::operator<<", "ns::Foo::operator<<(int)"),
    ("_ZZN2ns1fEvE1x", "ns::f()::x", "ns::f()::x", "ns::f()::x"),
    ("_ZN2ns3FooD2Ev", "ns::Foo::~Foo", "ns::Foo::~Foo", "ns::Foo::~Foo()"),
    (
        "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
        "std::operator<<",
        "std::operator<< <std::char_traits<char> >",
        "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
        "(std::basic_ostream<char, std::char_traits<char> >&, char const*)",
    ),
    (
        "_ZThn16_NSt9strstreamD1Ev",
        "non-virtual thunk to std::strstream::~strstream()",
        "non-virtual thunk to std::strstream::~strstream()",
        "non-virtual thunk to std::strstream::~strstream()",
    ),
    ("main", "main", "main", "main"),
]


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt missing (binutils)")
@pytest.mark.parametrize("mangled,simplified,templates,full", DEMANGLE_CASES, ids=[c[0] for c in DEMANGLE_CASES])
def test_demangle_modes(mangled, simplified, templates, full):
    for mode, want in (("simplified", simplified), ("templates", templates), ("full", full), ("none", mangled)):
        assert _demangle.demangle_names([mangled], mode)[mangled] == want, mode


def test_already_demangled_names_get_pprofs_heuristic():
    got = _demangle.demangle_names(["std::vector<int>::push_back(int)", "main.(*T).m", "java.lang.Object.<init>"])
    assert got == {
        "std::vector<int>::push_back(int)": "std::vector::push_back",
        "main.(*T).m": "main.(*T).m",
        "java.lang.Object.<init>": "java.lang.Object.<init>",
    }


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
    demangler = go_helper("demangle")
    go = subprocess.run(
        [demangler], input="\n".join(names) + "\n", capture_output=True, text=True, check=True
    ).stdout.splitlines()
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


# ------------------------------------------------------- apply_symbols (model)


@st.composite
def _resolutions(draw):
    """A profile of address-only and named locations, and frames for some of them."""
    import wirebuild as w

    n_loc = draw(st.integers(1, 8))
    named = draw(st.lists(st.booleans(), min_size=n_loc, max_size=n_loc))
    strings = ["", "samples", "count", "/bin/app", "old"]
    locs = [w.location(i + 1, 1, 0x1000 + i, [w.line(1, 3)] if named[i] else []) for i in range(n_loc)]
    data = w.profile(
        sample_types=[w.value_type(1, 2)],
        samples=[w.sample(list(range(1, n_loc + 1)), [1])],
        mappings=[w.mapping(1, 0x1000, 0x2000, 0, 3)],
        locations=locs,
        functions=[w.function(1, 4)],
        strings=strings,
    )
    rows = draw(st.lists(st.integers(0, n_loc - 1), unique=True, max_size=n_loc))
    pool = ["a", "b", "old", "", "f.c"]
    frames = [
        draw(
            st.lists(
                st.tuples(st.sampled_from(pool), st.sampled_from(pool), st.integers(0, 50)), min_size=1, max_size=3
            )
        )
        for _ in rows
    ]
    return data, rows, frames


@settings(max_examples=150, deadline=None)
@given(_resolutions())
def test_apply_symbols_matches_a_model(case):
    """The C++ rebuild gives each resolved location exactly its frames, leaves
    the others alone, and shares one function per (name, file)."""
    from pprofcore import _core

    data, rows, frames = case
    p = pprofcore.loads(data)
    strings = sorted({x for fr in frames for f in fr for x in f[:2]})
    code = {s_: i for i, s_ in enumerate(strings)}
    flat = [f for fr in frames for f in fr]
    offsets = np.cumsum([0] + [len(fr) for fr in frames]).astype(np.int64)
    core = _core.apply_symbols(
        p._core,
        np.asarray(rows, np.int32),
        offsets,
        np.asarray([code[f[0]] for f in flat], np.int32),
        np.asarray([code[f[0]] for f in flat], np.int32),
        np.asarray([code[f[1]] for f in flat], np.int32),
        np.asarray([f[2] for f in flat], np.int64),
        np.zeros(len(flat), np.int64),
        np.zeros(len(flat), np.int64),
        strings,
        np.asarray([1], np.uint8),
    )
    core.check_invariants()
    q = type(p)._wrap(core)
    before, after = native.our_locations(p), native.our_locations(q)
    resolved = {0x1000 + r: fr for r, fr in zip(rows, frames)}
    for addr, got in after.items():
        if addr in resolved:
            assert got == [(n, n, f, ln) for n, f, ln in resolved[addr]]
        else:
            assert got == before[addr]
    new = [
        (q.strings[a], q.strings[b])
        for a, b in zip(q.functions["name"].tolist()[1:], q.functions["filename"].tolist()[1:])
    ]
    assert len(new) == len(set(new)) == len({(f[0], f[1]) for f in flat})
    assert q.mappings["has_functions"][0] == 1 and q.mappings["has_filenames"][0] == 0


# ------------------------------------------------------------------- ELF files


def _elf_bytes(cls: int, endian: str, etype: int, segments, build_id: bytes = b"") -> bytes:
    """A minimal ELF file: header, program headers (LOAD ones as given, plus a
    PT_NOTE with a GNU build id), no sections."""
    import struct

    e = "<" if endian == "little" else ">"
    wide = cls == 2
    ehsize, phentsize = (64, 56) if wide else (52, 32)
    note = b""
    if build_id:
        note = struct.pack(e + "III", 4, len(build_id), 3) + b"GNU\0" + build_id
    phs = list(segments) + ([(4, 0, 0, 0, len(note), len(note))] if note else [])
    note_off = ehsize + phentsize * len(phs)
    head = b"\x7fELF" + bytes([cls, 1 if endian == "little" else 2, 1]) + bytes(9)
    if wide:
        head += struct.pack(e + "HHIQQQIHHHHHH", etype, 62, 1, 0, ehsize, 0, 0, ehsize, phentsize, len(phs), 64, 0, 0)
    else:
        head += struct.pack(e + "HHIIIIIHHHHHH", etype, 3, 1, 0, ehsize, 0, 0, ehsize, phentsize, len(phs), 40, 0, 0)
    body = b""
    for ptype, flags, off, vaddr, filesz, memsz in phs:
        if ptype == 4:
            off = note_off
        if wide:
            body += struct.pack(e + "IIQQQQQQ", ptype, flags, off, vaddr, vaddr, filesz, memsz, 0x1000)
        else:
            body += struct.pack(e + "IIIIIIII", ptype, off, vaddr, vaddr, filesz, memsz, flags, 0x1000)
    return head + body + note


@pytest.mark.parametrize("cls", [1, 2], ids=["elf32", "elf64"])
@pytest.mark.parametrize("endian", ["little", "big"])
def test_elf_headers_of_every_class_and_byte_order(tmp_path, cls, endian):
    f = tmp_path / "lib.so"
    segs = [(1, 4, 0, 0, 0x800, 0x800), (1, 5, 0x1000, 0x1000, 0x2000, 0x2000)]
    f.write_bytes(_elf_bytes(cls, endian, _elf.ET_DYN, segs, bytes.fromhex("0123456789abcdef")))
    info = _elf.read_elf(str(f))
    assert info.type == _elf.ET_DYN and info.build_id == "0123456789abcdef"
    assert [(s.offset, s.vaddr, s.flags) for s in info.loads] == [(0, 0, 4), (0x1000, 0x1000, 5)]
    # a shared library mapped at 0x7f0000001000 from file offset 0x1000
    seg = _elf.segment_for_mapping(info, 0x7F0000001000, 0x7F0000003000, 0x1000, 0x7F0000001234)
    assert (seg.offset, seg.vaddr) == (0x1000, 0x1000)
    assert _elf.relocation_base(info, seg, 0x7F0000001000, 0x7F0000003000, 0x1000) == 0x7F0000000000


@pytest.mark.parametrize(
    "desc,etype,seg,start,limit,offset,want",
    [
        ("fake whole-address-space mapping", _elf.ET_EXEC, (0x1000, 0x401000), 0, (1 << 64) - 1, 0, 0),
        ("non-PIE executable", _elf.ET_EXEC, (0x1000, 0x401000), 0x401000, 0x402000, 0x1000, 0),
        ("non-PIE without a segment", _elf.ET_EXEC, None, 0x401000, 0x402000, 0x1000, 0),
        ("PIE", _elf.ET_DYN, (0x1000, 0x1000), 0x5555_5555_5000, 0x5555_5555_6000, 0x1000, 0x5555_5555_4000),
        (
            "PIE, segment vaddr differs from offset",
            _elf.ET_DYN,
            (0x1000, 0x201000),
            0x5555_5555_5000,
            0x5555_5555_6000,
            0x1000,
            0x5555_5535_4000,
        ),
        (
            "shared object without a segment",
            _elf.ET_DYN,
            None,
            0x7F00_0000_2000,
            0x7F00_0000_3000,
            0x1000,
            0x7F00_0000_1000,
        ),
        ("relocatable object", _elf.ET_REL, None, 0x10000, 0x20000, 0, 0x10000),
    ],
)
def test_relocation_base(desc, etype, seg, start, limit, offset, want):
    """pprof's GetBase for user-space ELF files (elfexec.go's arithmetic)."""
    info = _elf.ElfInfo("x", etype)
    segment = None if seg is None else _elf.Segment(1, 5, seg[0], seg[1], 0x1000, 0x1000)
    assert _elf.relocation_base(info, segment, start, limit, offset) == want


def test_relocation_base_refusals():
    with pytest.raises(_elf.BaseError, match="non-zero mapping offset"):
        _elf.relocation_base(_elf.ElfInfo("x", _elf.ET_REL), None, 0x1000, 0x2000, 0x10)
    with pytest.raises(_elf.BaseError, match="unsupported ELF file type"):
        _elf.relocation_base(_elf.ElfInfo("x", 4), None, 0x1000, 0x2000, 0)


def test_truncated_elf(tmp_path):
    f = tmp_path / "short"
    f.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(60))  # header claims program headers past the end
    data = bytearray(f.read_bytes())
    import struct

    struct.pack_into("<QHHH", data, 32, 10_000, 0, 0, 0)
    struct.pack_into("<HH", data, 54, 56, 3)
    f.write_bytes(bytes(data))
    with pytest.raises(_elf.NotELF, match="truncated"):
        _elf.read_elf(str(f))


def test_tool_given_as_a_path(programs):
    path = _tools._versioned("llvm-symbolizer") or shutil.which("addr2line")
    if not path:
        pytest.skip("no symbolizer")
    q, report = symbolize(pprofcore.load(programs["c-pie"][1]), tool=path)
    assert report.tool == path and report.resolved > 0
    with pytest.raises(_tools.ToolMissing, match="not found"):
        symbolize(pprofcore.load(programs["c-pie"][1]), tool="/nonexistent/symbolizer")


RUST_CASES = [
    # (mangled, simplified, templates, full)
    (
        "_ZN4spin14Acc$LT$u64$GT$4fold17h3a9361a7116d27ccE",
        "spin::Acc::fold",
        "spin::Acc<u64>::fold",
        "spin::Acc<u64>::fold",
    ),
    ("_ZN4spin5twist17h951210f9d2c22ae5E", "spin::twist", "spin::twist", "spin::twist"),
    (
        "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal",
        "std::rt::lang_start_internal",
        "std::rt::lang_start_internal",
        "std::rt::lang_start_internal",
    ),
    (
        "_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_",
        "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}",
        "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}",
        "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}",
    ),
]


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="c++filt missing (binutils)")
@pytest.mark.parametrize("mangled,simplified,templates,full", RUST_CASES, ids=[c[0][:40] for c in RUST_CASES])
def test_rust_demangle_modes(mangled, simplified, templates, full):
    """Rust: no hash or crate disambiguator in any mode (rustc-demangle's
    alternate form, as ``go tool pprof -symbolize=demangle=full`` shows),
    generic arguments dropped by "simplified"."""
    for mode, want in (("simplified", simplified), ("templates", templates), ("full", full), ("none", mangled)):
        assert _demangle.demangle_names([mangled], mode)[mangled] == want, mode


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_damaged_elf_headers_raise_not_elf_or_parse(data):
    """Any damage to an ELF file's first 512 bytes: NotELF or a parse, never
    another exception (and never a hang)."""
    import tempfile

    base = bytearray(_elf_bytes(2, "little", _elf.ET_DYN, [(1, 5, 0, 0, 0x100, 0x100)], b"\x01" * 20))
    base += bytes(512 - len(base)) if len(base) < 512 else b""
    for _ in range(data.draw(st.integers(1, 8))):
        i = data.draw(st.integers(0, len(base) - 1))
        base[i] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(base)))
    with tempfile.NamedTemporaryFile() as f:
        f.write(bytes(base[:cut]))
        f.flush()
        try:
            info = _elf.read_elf(f.name)
        except _elf.NotELF:
            return
        for s_ in info.loads:
            assert s_.type == _elf.PT_LOAD


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([_elf.ET_EXEC, _elf.ET_DYN, _elf.ET_REL, 0, 4]),
    st.lists(
        st.tuples(
            st.integers(0, 2**20),
            st.integers(0, 2**64 - 1),
            st.integers(0, 2**20),
            st.integers(0, 2**20),
            st.sampled_from([4, 5, 6]),
        ),
        max_size=4,
    ),
    st.integers(0, 2**64 - 1),
    st.integers(0, 2**64 - 1),
    st.integers(0, 2**64 - 1),
    st.integers(0, 2**64 - 1),
)
def test_base_computation_only_raises_base_error(etype, segs, start, limit, offset, address):
    info = _elf.ElfInfo("x", etype, [_elf.Segment(1, fl, off, va, fs, ms) for off, va, fs, ms, fl in segs])
    try:
        seg = _elf.segment_for_mapping(info, start, limit, offset, address)
        base = _elf.relocation_base(info, seg, start, limit, offset)
    except _elf.BaseError:
        return
    assert 0 <= base < 2**64


# ------------------------------------------- large binaries, odd binary paths
SPARSE_SIZE = 3 << 30  # a mapping may name a file of gigabytes: none of it is read whole
PEAK_RSS_BOUND = 300 << 20

_PEAK_SCRIPT = """
import resource, sys
import pprofcore
from pprofcore.symbolize import _elf, symbolize

path, prof = sys.argv[1], sys.argv[2]
try:
    info = _elf.read_elf(path)
    print("ELF", info.build_id)
    q, report = symbolize(pprofcore.load(prof), binaries=path, search_path=[])
    print("STATUS", report.mappings[0].status, report.resolved)
except _elf.NotELF as e:
    print("NOTELF", e)
# VmHWM is this process's own peak: ru_maxrss also counts the parent's
# resident pages at fork (a long test session's gigabyte).
with open("/proc/self/status") as f:
    hwm = [line.split()[1] for line in f if line.startswith("VmHWM:")]
print("PEAK", int(hwm[0]) * 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def _sparse_copy(src, dst, size=SPARSE_SIZE):
    """``src`` at the start of a sparse file of ``size`` bytes (no disk used)."""
    shutil.copy(src, dst)
    os.truncate(dst, size)
    return dst


def _peak_run(path, prof):
    """What the script says about ``path`` and its own peak RSS (a fresh
    interpreter, so nothing else counts)."""
    r = subprocess.run(
        [sys.executable, "-c", _PEAK_SCRIPT, str(path), str(prof)], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr[-2000:]
    out = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    return out, int(out["PEAK"])


def _elf_fields(info):
    return info.type, info.segments, info.text_addr, info.build_id


@pytest.mark.parametrize("variant", ["c-pie", "c-nopie"])
def test_huge_binary_headers_are_read_not_the_file(programs, tmp_path, variant):
    exe, prof = programs[variant]
    big = _sparse_copy(exe, tmp_path / exe.name)
    # the same headers, whatever follows them
    assert _elf_fields(_elf.read_elf(str(big))) == _elf_fields(_elf.read_elf(str(exe)))
    out, peak = _peak_run(big, prof)
    assert out["STATUS"].split()[0] == "symbolized", out
    assert peak < PEAK_RSS_BOUND, f"peak RSS {peak >> 20} MiB while symbolizing with a {SPARSE_SIZE >> 30} GiB binary"


def test_huge_non_elf_file_is_rejected_by_its_first_bytes(tmp_path, monkeypatch):
    junk = tmp_path / "core"
    junk.write_bytes(b"MZ\x90\x00" + bytes(60))
    os.truncate(junk, SPARSE_SIZE)
    out, peak = _peak_run(junk, tmp_path / "unused")
    assert "not an ELF file" in out["NOTELF"]
    assert peak < PEAK_RSS_BOUND, f"peak RSS {peak >> 20} MiB to reject a {SPARSE_SIZE >> 30} GiB non-ELF file"
    # and in numbers: the ELF header's size, no more
    read = []
    real_open = open

    class Counting:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def read(self, n=-1):
            data = self.f.read(n)
            read.append(len(data))
            return data

        def __getattr__(self, name):
            return getattr(self.f, name)

    monkeypatch.setattr(_elf, "open", lambda p, mode="r": Counting(real_open(p, mode)), raising=False)
    with pytest.raises(_elf.NotELF, match="not an ELF file"):
        _elf.read_elf(str(junk))
    assert sum(read) <= 64


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_headers_read_by_seeks_match_a_whole_file_parse(data):
    """Damaged headers parse the same with any amount of file behind them (the
    program and section tables, section names and notes are read where they
    are, never past what the file holds)."""
    import tempfile

    base = bytearray(_elf_bytes(2, "little", _elf.ET_DYN, [(1, 5, 0, 0, 0x100, 0x100)], b"\x02" * 20))
    base += bytes(512 - len(base))
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, 127))
        base[i] = data.draw(st.integers(0, 255))
    results = []
    for tail in (0, 1 << 20):
        with tempfile.NamedTemporaryFile() as f:
            f.write(bytes(base))
            f.flush()
            os.truncate(f.name, len(base) + tail)
            try:
                results.append(_elf_fields(_elf.read_elf(f.name)))
            except _elf.NotELF:
                results.append("NotELF")
    # a longer file can only make more of the headers readable
    assert results[0] == results[1] or results[0] == "NotELF"


@pytest.mark.parametrize("tool", _tool_params())
@pytest.mark.parametrize("name", ["-rf", "--help", "-", "--version"])
def test_binary_path_starting_with_a_dash(programs, tmp_path, monkeypatch, tool, name):
    """A relative binary path that looks like an option reaches every tool as
    a path (llvm-symbolizer, addr2line, nm; objdump and nm for disasm)."""
    exe, prof = programs["c-nopie"]
    want, _ = symbolize(pprofcore.load(prof), binaries=str(exe), tool=tool, search_path=[])
    shutil.copy(exe, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    got, report = symbolize(pprofcore.load(prof), binaries=name, tool=tool, search_path=[])
    assert report.mappings[0].status == "symbolized" and report.mappings[0].binary == "./" + name, str(report)
    assert native.our_locations(got) == native.our_locations(want)
    # disasm finds binaries the same way and runs nm and objdump on them
    if shutil.which("objdump") and shutil.which("nm"):
        assert want.disasm("hot", binaries=name).to_text() == want.disasm("hot", binaries=str(exe)).to_text()
    if shutil.which("nm"):
        table = _tools._nm_symbols(name)
        assert table is not None and table == _tools._nm_symbols(str(exe)) and table[0]
