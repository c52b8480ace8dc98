"""Source and disassembly listings against pprof: ``Profile.disasm`` and
``Profile.list`` on C/C++ programs built and profiled here must print what
standalone ``pprof -disasm``/``-list`` prints for the same profile (GNU
binutils only on pprof's PATH, so both use objdump and addr2line), and
``Profile.list`` on real Go CPU profiles of the local corpus what ``go tool
pprof -list`` prints."""

from __future__ import annotations

import re
import shutil
import time

import native_programs as native
import pytest
from testenv import go_pprof, local_manifest, requires_go

import pprofcore

needs_native = pytest.mark.skipif(native.missing_tools() is not None, reason=str(native.missing_tools()))
needs_binutils = pytest.mark.skipif(
    not (shutil.which("objdump") and shutil.which("nm") and shutil.which("addr2line")),
    reason="binutils (objdump, nm, addr2line) not installed",
)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    if native.missing_tools():
        pytest.skip(native.missing_tools())
    d = tmp_path_factory.mktemp("native")
    return {v: native.build_and_profile(v, d / v) for v in native.VARIANTS if v != "rust-pie"}


@pytest.fixture(scope="module")
def gnu_tools(tmp_path_factory):
    return native.only_tools(tmp_path_factory.mktemp("gnu"), "objdump", "nm", "addr2line")


LISTINGS = [("c-pie", "hot|main"), ("c-nopie", "hot|warm|mix"), ("cpp-pie", "fold")]


def _pprof_or_no_match(*args, **kw):
    """pprof's output, or None when it found no matching function (a short run
    may leave a function without samples; pprofcore must then raise too).
    Standalone pprof sometimes answers "no matches" on a loaded machine and
    not on the next run of the same command (its symbol search runs `nm` and
    skips a binary silently when that fails), so that answer is asked five
    times, a moment apart (once in a full run, three quick asks all failed)."""
    for attempt in range(5):
        try:
            return native.run_pprof(*args, **kw)
        except RuntimeError as e:
            if "no matches found" not in str(e):
                raise
        time.sleep(0.2 * (attempt + 1))
    return None


@needs_native
@needs_binutils
@pytest.mark.parametrize("variant,regex", LISTINGS, ids=[v for v, _ in LISTINGS])
def test_disasm_matches_pprof(programs, pprof_cmd, gnu_tools, variant, regex):
    exe, prof = programs[variant]
    want = _pprof_or_no_match(pprof_cmd, "-symbolize=local", f"-disasm={regex}", str(prof), tools_dir=gnu_tools)
    p, _ = pprofcore.load(prof).symbolize(tool="addr2line")
    if want is None:
        with pytest.raises(ValueError, match="no matches found"):
            p.disasm(regex)
        return
    got = p.disasm(regex)
    assert got.to_text() == want
    assert got["flat"].sum() > 0 and len(got.meta["routines"]) >= 1
    assert "<table" in got._repr_html_()


@needs_native
@needs_binutils
@pytest.mark.parametrize("variant,regex", LISTINGS, ids=[v for v, _ in LISTINGS])
def test_list_matches_pprof(programs, pprof_cmd, gnu_tools, variant, regex):
    exe, prof = programs[variant]
    src = str(native.SOURCES)
    want = _pprof_or_no_match(
        pprof_cmd, "-symbolize=local", f"-list={regex}", f"-source_path={src}", str(prof), tools_dir=gnu_tools
    )
    p, _ = pprofcore.load(prof).symbolize(tool="addr2line")
    if want is None:
        with pytest.raises(ValueError, match="no matches found"):
            p.list(regex, source_path=src)
        return
    got = p.list(regex, source_path=src)
    assert got.to_text() == want
    assert any(t.strip() for t in got["text"]) and int(got["cum"].max()) > 0


@needs_native
def test_list_of_missing_source_reports_the_file(programs, tmp_path):
    p, _ = pprofcore.load(programs["c-pie"][1]).symbolize()
    moved = pprofcore.load(programs["c-pie"][1])
    assert moved is not None
    text = p.list("^hot$", source_path=str(tmp_path)).to_text()
    # the DWARF file name is absolute, so pprof opens it directly: it exists
    assert "ROUTINE ======================== hot in " in text


def test_list_without_match_raises():
    p = pprofcore.load(pprofcore.__path__[0] + "/data/example-cpu.pb.gz")
    with pytest.raises(ValueError, match="no matches found for regexp: zzz_nothing"):
        p.list("zzz_nothing")
    with pytest.raises(ValueError, match="invalid regular expression"):
        p.list("(")


def _go_cpu_profiles():
    rows = [r for r in local_manifest() if re.search(r"/(cpu-labels|heap|allocs)\.pb\.gz$", r["file"])]
    return [r["file"] for r in rows]


@requires_go
def test_list_matches_go_tool_pprof_on_go_profiles():
    files = _go_cpu_profiles()
    if not files:
        pytest.skip("no Go CPU profiles in the local corpus")
    checked = 0
    for f in files:
        p = pprofcore.load(f)
        # "." lists every function with samples: Go's runtime sources included
        for regex, sample_type in (
            (r"^main\.", None),
            (r"runtime\.mallocgc$", None),
            (r"runtime\.", None),
            (".", None),
            (".", 0),
        ):
            try:
                got = p.list(regex, source_path="/", sample_type=sample_type).to_text()
            except ValueError:
                with pytest.raises(RuntimeError, match="no matches found"):
                    go_pprof("-list=" + regex, "-source_path=/", f)
                continue
            flags = [] if sample_type is None else [f"-sample_index={sample_type}"]
            want = go_pprof("-list=" + regex, "-source_path=/", *flags, f)
            assert got == want, f"{f} -list={regex} {flags}"
            checked += 1
    assert checked >= 5, "too few functions matched in the Go profiles"


@needs_native
def test_listing_html_escapes_cpp(programs):
    p, _ = pprofcore.load(programs["cpp-pie"][1]).symbolize(demangle="templates")
    html = p.list("fold", source_path=str(native.SOURCES))._repr_html_()
    assert "std::vector&lt;U&gt;&amp; v" in html and "vector<U>" not in html
    assert "work::Acc&lt;unsigned long&gt;::fold&lt;int&gt;" in html  # the routine name, escaped
    assert html.count("<tr") == len(p.list("fold", source_path=str(native.SOURCES)))


@needs_native
@needs_binutils
def test_disasm_by_address_matches_pprof(programs, pprof_cmd, gnu_tools):
    """pprof's -disasm=ADDRESS: the symbol holding that address."""
    import subprocess

    exe, prof = programs["c-nopie"]
    nm = subprocess.run(["nm", "-n", str(exe)], capture_output=True, text=True, check=True).stdout
    hot = next(int(ln.split()[0], 16) for ln in nm.splitlines() if ln.endswith(" hot"))
    regex = f"{hot + 4:#x}"
    want = _pprof_or_no_match(pprof_cmd, "-symbolize=local", f"-disasm={regex}", str(prof), tools_dir=gnu_tools)
    p, _ = pprofcore.load(prof).symbolize(tool="addr2line")
    got = p.disasm(regex)
    assert got.to_text() == want
    assert got.meta["routines"][0]["name"] == "hot"


def _profile_of_one_file(filename: str) -> bytes:
    """main.f in ``filename``, sampled at lines 4 and 5."""
    import wirebuild as wb

    strings = ["", "main.f", filename, "/bin/app", "cpu", "nanoseconds"]
    return wb.profile(
        sample_types=[wb.value_type(4, 5)],
        samples=[wb.sample([1], [30]), wb.sample([2], [10])],
        mappings=[wb.mapping(1, 0x1000, 0x2000, 0, 3, 0, True, True, True, False)],
        locations=[wb.location(1, 1, 0x1010, [wb.line(1, 4)]), wb.location(2, 1, 0x1020, [wb.line(1, 5)])],
        functions=[wb.function(1, 1, 1, 2, 3)],
        period_type=wb.value_type(4, 5),
        period=1,
        strings=strings,
    )


def test_list_names_a_file_as_recorded_when_the_directory_finds_it(tmp_path, monkeypatch):
    """pprof trims a file name for the ROUTINE line by -source_path and
    -trim_path only; the current directory (its search path by default) just
    finds the file. Run from .../checkout, "/build/checkout/src/f.go" stays whole.
    The listing starts at the function's start line (3), not five lines
    above its first sampled line: pprof's -list graph keeps start lines."""
    work = tmp_path / "checkout"
    (work / "src").mkdir(parents=True)
    (work / "src" / "f.go").write_text("package main\n\nfunc f() {\n\tfor {\n\t}\n}\n")
    path = tmp_path / "one.pb"
    path.write_bytes(_profile_of_one_file("/build/checkout/src/f.go"))
    monkeypatch.chdir(work)
    got = pprofcore.load(path).list("main.f").to_text()
    assert "ROUTINE ======================== main.f in /build/checkout/src/f.go\n" in got
    assert "\tfor {" in got  # read through the current directory
    assert "  3:func f() {" in got and "package main" not in got
    trimmed = pprofcore.load(path).list("main.f", source_path=str(work)).to_text()
    assert "ROUTINE ======================== main.f in src/f.go\n" in trimmed
    if shutil.which("go"):
        import subprocess

        for extra, text in (([], got), ([f"-source_path={work}"], trimmed)):
            argv = ["go", "tool", "pprof", "-list=main.f", *extra, str(path)]
            r = subprocess.run(argv, cwd=work, capture_output=True)
            assert r.stdout.decode() == text
