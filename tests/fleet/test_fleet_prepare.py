"""Repairs and symbolization where profiles come in: ProfileSet(repairs=,
symbolize=), the store's ingest and the command lines. Repairs are checked on
a real Go heap profile whose deep call chain (past the runtime's 32 frames)
and generic function are known from the program itself; symbolization on a
C program built here, locally and through Debian's debuginfod, against the
profile symbolized alone, with each distinct mapping symbolized once per fleet."""

import gzip
import shutil
import textwrap

import native_programs as native
import pytest
from pbprofile import profile_class
from testenv import go_call_chain, run_go_program

import pprofcore
import pprofcore.cli
from pprofcore.symbolize import _elf, symbolize

CHAIN = 50  # main.f0 ... main.f49 -> alloc -> Make: deeper than a heap profile's 32 frames
SIBLING = 28  # main.f28 allocates itself: 31 frames, not truncated, through the deep one's cut


def _go_program() -> str:
    return textwrap.dedent(
        f"""
        package main

        import (
            "os"
            "runtime"
            "runtime/pprof"
        )

        var sink []interface{{}}

        //go:noinline
        func Make[T any](n int) []T {{ return make([]T, n) }}

        //go:noinline
        func alloc() {{ sink = append(sink, Make[int](512), Make[string](256)) }}

        func main() {{
            runtime.MemProfileRate = 1
            for i := 0; i < 50; i++ {{
                f0({CHAIN})
                f0({SIBLING})
            }}
            runtime.GC()
            f, _ := os.Create(os.Args[1])
            pprof.Lookup("heap").WriteTo(f, 0)
            f.Close()
        }}

        """
    ) + go_call_chain("f", CHAIN, "sink = append(sink, make([]byte, 64))", "alloc()")


@pytest.fixture(scope="module")
def go_heap(tmp_path_factory):
    if shutil.which("go") is None:
        pytest.skip("needs go (golang-go) to build a Go program")
    return run_go_program(tmp_path_factory.mktemp("goheap"), _go_program(), "heap.pb.gz")


def _stacks(p):
    """Root-first tuples of function names, one per sample with a value."""
    s = p._s
    lo, fn, name = p.locations["line_offsets"], p.lines["function"], p.functions["name"]
    out = []
    for i in range(len(p)):
        frames = [s(name[fn[j]]) for loc in p.stack(i) for j in range(lo[loc], lo[loc + 1])]
        out.append(tuple(reversed(frames)))
    return out


def _check_repaired(p):
    """Every stack through main.f49 is the whole chain under runtime.main, and
    the generic function is one function."""
    chain = ("runtime.main", "main.main") + tuple(f"main.f{i}" for i in range(CHAIN))
    deep = [st for st in _stacks(p) if "main.f49" in st]
    assert deep and all(st[: len(chain)] == chain for st in deep), deep[:1]
    names = {p._s(n) for n in p.functions["name"]}
    assert "main.Make" in names and not any(n.startswith("main.Make[") for n in names)


def test_repairs_in_a_set_and_at_ingest(go_heap, tmp_path):
    raw = pprofcore.load(go_heap)
    truncated = [st for st in _stacks(raw) if "main.f49" in st]
    assert truncated and all(st[0] != "runtime.main" for st in truncated), "the runtime did not truncate"
    assert any(n.startswith("main.Make[") for n in map(raw._s, raw.functions["name"]))

    s = pprofcore.ProfileSet([go_heap, go_heap], repairs="truncated,typeparams")
    for p in s:
        _check_repaired(p)
    reports = s.reports()
    assert (reports["repair_truncated_depth"] == 32).all()
    assert (reports["repair_truncated_repaired"] == reports["repair_truncated_truncated"]).all()
    assert (reports["repair_typeparams_functions_renamed"] >= 1).all()
    # the series sees repaired names (the files' C++ path is not taken)
    assert "main.Make" in set(s.series(by="functions")["name"])

    store = pprofcore.ProfileSet([go_heap]).to_parquet(tmp_path / "store", repairs=["truncated", "typeparams"])
    _check_repaired(store.profile())
    kept = store.sql("select repair_truncated_repaired, repair_typeparams_functions_renamed from profiles")
    assert kept.iloc[0].tolist() == reports.iloc[0][kept.columns].tolist()


def test_repair_flags(go_heap, tmp_path, capsys):
    assert pprofcore.cli.main(["-traces", "-repair=truncated,typeparams", str(go_heap)]) == 0
    out, err = capsys.readouterr()
    assert "repair truncated:" in err and "main.Make\n" in out.replace(" ", "").replace("\t", "")
    d = tmp_path / "store"
    assert pprofcore.cli.main(["fleet", "ingest", str(d), str(go_heap), "--repair=truncated,typeparams"]) == 0
    assert "repair_truncated_repaired=" in capsys.readouterr().err
    _check_repaired(pprofcore.open_store(d).profile())
    with pytest.raises(SystemExit):
        pprofcore.cli.main(["-top", "-repair=stacks", str(go_heap)])


needs_native = pytest.mark.skipif(native.missing_tools() is not None, reason=str(native.missing_tools()))


@pytest.fixture(scope="module")
def c_program(tmp_path_factory):
    """(binary, build id, a profile of it, a copy whose main mapping names
    the build id and a path where no binary is)."""
    d = tmp_path_factory.mktemp("cprog")
    exe, prof = native.build_and_profile("c-nopie", d / "build")
    build_id = _elf.read_elf(str(exe)).build_id
    msg = profile_class()()
    msg.ParseFromString(pprofcore.load(prof).to_bytes(compress=False))
    for m in msg.mapping:
        if msg.string_table[m.filename] == str(exe).encode():
            msg.string_table.extend([build_id.encode(), str(d / "gone" / exe.name).encode()])
            m.build_id, m.filename = len(msg.string_table) - 2, len(msg.string_table) - 1
    moved = d / "moved.pb.gz"
    moved.write_bytes(gzip.compress(msg.SerializeToString()))
    return exe, build_id, prof, moved


@needs_native
def test_symbolize_once_per_fleet(c_program, tmp_path, capsys):
    exe, _, prof, _ = c_program
    want = native.our_locations(symbolize(pprofcore.load(prof))[0])
    one = pprofcore.ProfileSet([prof], symbolize=True)
    list(one)
    three = pprofcore.ProfileSet([prof] * 3, symbolize=True)
    for p in three:
        assert native.our_locations(p) == want
    cache = three.symbol_cache
    assert cache.tool_runs == one.symbol_cache.tool_runs > 0  # the 2nd and 3rd profile ran nothing
    assert cache.locates == len(cache.entries) == len(one.symbol_cache.entries)
    assert (three.reports()["symbolize_resolved"] > 0).all()

    # ingested symbolized: the store keeps the functions, a query runs no symbolizer
    store = pprofcore.ProfileSet([prof] * 2).to_parquet(tmp_path / "store", symbolize=True)
    assert native.our_locations(store.profile_set()[0]) == want
    assert pprofcore.cli.main(["fleet", "ingest", str(tmp_path / "cli"), str(prof), "--symbolize=local"]) == 0
    assert "symbolizer runs=" in capsys.readouterr().err
    assert native.our_locations(pprofcore.open_store(tmp_path / "cli").profile_set()[0]) == want


@needs_native
@pytest.mark.skipif(shutil.which("debuginfod") is None, reason="needs Debian's debuginfod (apt-get install debuginfod)")
def test_symbolize_fleet_through_debuginfod(c_program, tmp_path, monkeypatch):
    exe, build_id, prof, moved = c_program
    want = native.our_locations(symbolize(pprofcore.load(prof))[0])
    with native.debuginfod(exe, build_id, tmp_path / "server") as (url, _):
        monkeypatch.setenv("DEBUGINFOD_URLS", url)
        monkeypatch.setenv("DEBUGINFOD_CACHE_PATH", str(tmp_path / "cache"))
        s = pprofcore.ProfileSet([moved] * 3, symbolize={"search_path": []})
        for p in s:
            assert native.our_locations(p) == want
    entry = s.symbol_cache.entries[("build_id", build_id)]
    assert entry.path == str(tmp_path / "cache" / build_id / "debuginfo")
    assert s.symbol_cache.locates == len(s.symbol_cache.entries)  # one lookup per mapping for 3 profiles
