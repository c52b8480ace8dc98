"""Binaries found by build ID: the .build-id layout of a debug directory and a
real debuginfod server (Debian's, started here on 127.0.0.1) serving a binary
built here. The frames equal those from the binary at its own path."""

import gzip
import shutil

import native_programs as native
import pytest
from pbprofile import profile_class

import pprofcore
from pprofcore.symbolize import _debuginfo, _elf, symbolize

pytestmark = pytest.mark.skipif(native.missing_tools() is not None, reason=str(native.missing_tools()))


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """(binary, its build id, a profile whose main mapping names that build id
    and a path where no binary is)."""
    d = tmp_path_factory.mktemp("debuginfo")
    exe, prof = native.build_and_profile("c-nopie", d / "build")
    build_id = _elf.read_elf(str(exe)).build_id
    assert build_id
    msg = profile_class()()
    msg.ParseFromString(pprofcore.load(prof).to_bytes(compress=False))
    gone = str(d / "not-here" / exe.name).encode()
    for m in msg.mapping:
        if msg.string_table[m.filename] == str(exe).encode():
            msg.string_table.append(build_id.encode())
            m.build_id = len(msg.string_table) - 1
            msg.string_table.append(gone)
            m.filename = len(msg.string_table) - 1
    path = d / "with-build-id.pb.gz"
    path.write_bytes(gzip.compress(msg.SerializeToString()))
    reference, report = symbolize(pprofcore.load(prof))
    assert report.mappings[0].status == "symbolized"
    return exe, build_id, pprofcore.load(path), native.our_locations(reference)


def test_build_id_directory_layout(program, tmp_path):
    exe, build_id, p, want = program
    q, report = symbolize(p, search_path=[str(tmp_path)])
    assert report.mappings[0].status == "missing"
    target = tmp_path / ".build-id" / build_id[:2] / f"{build_id[2:]}.debug"
    target.parent.mkdir(parents=True)
    shutil.copy(exe, target)
    q, report = symbolize(p, search_path=[str(tmp_path)])
    assert report.mappings[0].status == "symbolized" and report.mappings[0].binary == str(target)
    assert native.our_locations(q) == want
    # the link form (no .debug suffix) is found too
    target.rename(target.with_suffix(""))
    q, report = symbolize(p, search_path=[str(tmp_path)])
    assert report.mappings[0].binary == str(target.with_suffix(""))


@pytest.fixture
def debuginfod_server(program, tmp_path):
    if not shutil.which("debuginfod"):
        pytest.skip("needs Debian's debuginfod (apt-get install debuginfod)")
    exe, build_id, _, _ = program
    with native.debuginfod(exe, build_id, tmp_path / "debuginfod") as server:
        yield server


def test_debuginfod_fetch_and_cache(program, debuginfod_server, tmp_path, monkeypatch):
    _, build_id, p, want = program
    url, proc = debuginfod_server
    cache = tmp_path / "cache"
    monkeypatch.setenv("DEBUGINFOD_URLS", f"http://127.0.0.1:1 {url}")  # a dead server first
    monkeypatch.setenv("DEBUGINFOD_CACHE_PATH", str(cache))
    monkeypatch.setenv("DEBUGINFOD_TIMEOUT", "5")
    q, report = symbolize(p, search_path=[])
    assert report.mappings[0].status == "symbolized", report.mappings[0].reason
    assert report.mappings[0].binary == str(cache / build_id / "debuginfo")
    assert native.our_locations(q) == want
    proc.kill()
    proc.wait()
    q2, report2 = symbolize(p, search_path=[])  # from the cache, the server gone
    assert report2.mappings[0].status == "symbolized" and native.our_locations(q2) == want


def test_debuginfod_unknown_build_id_and_dead_server(program, debuginfod_server, tmp_path, monkeypatch):
    url, _ = debuginfod_server
    monkeypatch.setenv("DEBUGINFOD_CACHE_PATH", str(tmp_path / "cache"))
    monkeypatch.setenv("DEBUGINFOD_URLS", url)
    assert _debuginfo.fetch("00" * 20) is None  # the server answers 404
    monkeypatch.setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1")
    monkeypatch.setenv("DEBUGINFOD_TIMEOUT", "2")
    with pytest.raises(OSError, match="debuginfod: http://127.0.0.1:1/buildid/"):
        _debuginfo.fetch("ab" * 20)
    assert not list((tmp_path / "cache").rglob("*")) or not any(
        f.is_file() for f in (tmp_path / "cache").rglob("*")
    )  # nothing half-written


def test_no_servers_no_fetch(monkeypatch):
    monkeypatch.delenv("DEBUGINFOD_URLS", raising=False)
    assert _debuginfo.fetch("ab" * 20) is None
    assert _debuginfo.build_id_paths("not hex", []) == []
    assert _debuginfo.build_id_paths("ABCD", ["/x"])[0] == "/x/.build-id/ab/cd.debug"
