"""What pprof's driver does to each profile before the report
(``locateBinaries``, then its symbolizer), against pprof:

- without ``-symbolize``, address-only mappings are symbolized from the
  binaries on this machine (quietly: what is missing is said on stderr, and no
  debuginfod server is asked), as ``pprof PROFILE`` does;
- ``pprof BINARY PROFILE``: a first source that is a binary names the file of
  the profile's first mapping and symbolizes it (here a gperftools profile
  whose own mapping path no longer exists: only the named binary has its
  symbols), compared with google/pprof's standalone command;
- a profile without mappings gets one empty mapping (id 1) that every location
  points at, visible in ``-raw`` and in what ``-proto`` writes;
- after symbolizing, a mapping without a build id whose file Go's
  ``url.Parse`` reads as a URL with a scheme has no file (``unsourceMappings``).

Found by a sweep of fresh producer output (gperftools, node, JFR) through both
command lines; pprof and gperftools absent: those cases skip saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import native_programs as native
import pytest
from cli_run import run_cli
from testenv import requires_go

import pprofcore
from pprofcore._main_binary import is_object_file

DATA = Path(__file__).resolve().parent.parent / "data" / "producers"


def test_binaries_are_told_from_profiles(tmp_path):
    assert is_object_file(shutil.which("python3") or "/bin/sh")
    assert not is_object_file(str(DATA / "small.cpuprofile"))
    assert not is_object_file(pprofcore.example_path("cpu"))
    assert not is_object_file(str(tmp_path / "absent"))
    pe = tmp_path / "app.exe"
    pe.write_bytes(b"MZ" + bytes(58) + (64).to_bytes(4, "little") + b"PE\0\0")
    assert is_object_file(str(pe))
    assert not is_object_file(str(DATA / "small.perf.txt"))


@pytest.fixture(scope="module")
def moved_program(tmp_path_factory):
    """A gperftools CPU profile of the C program, and the program moved away
    from the path its mapping records."""
    if native.missing_tools():
        pytest.skip(native.missing_tools())
    exe, prof = native.build_and_profile("c-pie", tmp_path_factory.mktemp("moved") / "c-pie")
    moved = exe.with_name("moved-binary")
    exe.rename(moved)
    return moved, prof


@pytest.fixture(scope="module")
def program_in_place(tmp_path_factory):
    """A gperftools CPU profile of the C program, the program where its mapping says."""
    if native.missing_tools():
        pytest.skip(native.missing_tools())
    return native.build_and_profile("c-pie", tmp_path_factory.mktemp("in-place") / "c-pie")


def _standalone(pprof_cmd: str, *args: str) -> str:
    env = dict(os.environ, PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"), HOME=os.environ.get("HOME", "/tmp"))
    r = subprocess.run([pprof_cmd, *args], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("flags", [["-top"], ["-traces"], ["-raw"], ["-top", "-lines", "-nodecount=5"], ["-peek=hot"]])
def test_binary_before_the_profile_is_its_main_binary(moved_program, pprof_cmd, flags):
    moved, prof = moved_program
    rc, out, err = run_cli(*flags, str(moved), str(prof))
    assert rc == 0, err
    assert out.decode() == _standalone(pprof_cmd, *flags, str(moved), str(prof))
    if flags in (["-traces"], ["-raw"]):
        assert "hot" in out.decode()  # symbolized from the named binary alone
    if flags == ["-top"]:
        assert out.decode().startswith("File: moved-binary\n")


def test_binary_before_the_profile_reaches_the_listings(moved_program):
    moved, prof = moved_program
    rc, out, err = run_cli("-disasm=hot", str(moved), str(prof))
    assert rc == 0, err
    assert "ROUTINE ======================== hot" in out.decode()


def test_one_binary_alone_is_still_read_as_a_source(moved_program):
    rc, out, err = run_cli("-top", str(moved_program[0]))
    assert rc == 2 and "ELF binary" in err


@requires_go
@pytest.mark.parametrize("name", ["small.cpuprofile", "small.jfr"])
def test_a_profile_without_mappings_gets_pprofs_placeholder(pprof, tmp_path, name):
    src = str(DATA / name)
    assert len(pprofcore.load(src).mappings) == 0
    converted = tmp_path / "converted.pb.gz"
    assert run_cli("-proto", f"-output={converted}", src)[0] == 0
    assert len(pprofcore.load(converted).mappings) == 1  # what pprof's -proto writes too
    want, err = pprof.run("-raw", str(converted))
    assert err is None
    assert "\n1: 0x0/0x0/0x0   \n" in want
    for path in (src, str(converted)):
        rc, out, stderr = run_cli("-raw", path)
        assert rc == 0, stderr
        assert out.decode() == want, path


@pytest.mark.parametrize("flags", [["-top"], ["-traces"], ["-raw"], ["-top", "-lines", "-nodecount=5"], ["-peek=hot"]])
def test_a_profile_is_symbolized_from_its_binaries_by_default(program_in_place, pprof_cmd, flags):
    exe, prof = program_in_place
    rc, out, err = run_cli(*flags, str(prof))
    assert rc == 0, err
    assert out.decode() == _standalone(pprof_cmd, *flags, str(prof))
    if flags == ["-traces"]:
        assert "hot" in out.decode()
        rc, plain, err = run_cli(*flags, "-symbolize=none", str(prof))
        assert rc == 0 and "hot" not in plain.decode()  # addresses only, as asked


def test_a_missing_binary_is_said_on_stderr_in_pprofs_words(moved_program):
    _, prof = moved_program
    rc, out, err = run_cli("-top", str(prof))
    assert rc == 0 and "File: c-pie" in out.decode()
    assert "Local symbolization failed for c-pie: " in err
    assert "Try setting PPROF_BINARY_PATH to the search path for local binaries." in err


def test_the_implicit_symbolization_asks_no_debuginfod_server(tmp_path, monkeypatch):
    import gzip
    import socket

    from wirebuild import profile_from_json

    mapping = dict(id=1, start=0x1000, limit=0x2000, offset=0, file="/nonexistent/app", build_id="ab" * 20)
    mapping.update(has_functions=False, has_filenames=False, has_line_numbers=False, has_inline_frames=False)
    location = dict(id=1, mapping_id=1, address=0x1100, lines=[], is_folded=False)
    d = dict(sample_types=[["samples", "count"]], samples=[dict(locations=[1], values=[1])])
    d.update(mappings=[mapping], locations=[location], functions=[])
    path = tmp_path / "app.pb.gz"
    path.write_bytes(gzip.compress(profile_from_json(d)))
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(4)
        server.settimeout(0.2)
        monkeypatch.setenv("DEBUGINFOD_URLS", f"http://127.0.0.1:{server.getsockname()[1]}")
        monkeypatch.setenv("PPROF_BINARY_PATH", str(tmp_path))
        rc, out, err = run_cli("-top", str(path))
        assert rc == 0 and "Local symbolization failed for app: " in err
        with pytest.raises(socket.timeout):
            server.accept()  # nobody called


# Mapping files pprof's driver keeps or clears (Go's url.Parse with a scheme, and no build id)
URLISH = [
    "https://example.com/static/app.js",
    "http://host:80/a",
    "http://host:abc/a",
    "http://[::1]:8080/x",
    "http://x/%zz",
    "http://x/a#%zz",
    "http://x/a?q=%zz",
    "file:///srv/app",
    "C:\\app.exe",
    "mailto:x",
    "x:%zz",
    "jar:file:/x.jar!/A.class",
    "1abc:foo",
    ":foo",
    "a%zz:b",
    "/usr/bin/x",
    "relative/x",
    "[vdso]",
    "//anon",
    "tab\there:x",
]


def _mappings_profile(files, build_id="", has_functions=False):
    import gzip

    from wirebuild import profile_from_json

    mappings, locations, samples, functions, lines = [], [], [], [], []
    for i, f in enumerate(files):
        start = 0x10000 * (i + 1)
        m = dict(id=i + 1, start=start, limit=start + 0x1000, offset=0, file=f, build_id=build_id)
        m.update(has_functions=has_functions, has_filenames=False, has_line_numbers=False, has_inline_frames=False)
        mappings.append(m)
        if has_functions:
            functions.append(dict(id=i + 1, name=f"f{i}", system_name=f"f{i}", filename="", start_line=0))
            lines = [dict(function_id=i + 1, line=1)]
        locations.append(dict(id=i + 1, mapping_id=i + 1, address=start + 0x10, lines=lines, is_folded=False))
        samples.append(dict(locations=[i + 1], values=[i + 1]))
    d = dict(sample_types=[["samples", "count"]], samples=samples, mappings=mappings, locations=locations)
    d["functions"] = functions
    return gzip.compress(profile_from_json(d))


@requires_go
@pytest.mark.parametrize("has_functions", [False, True])
@pytest.mark.parametrize("flags", [["-raw"], ["-top"], ["-traces"]])
def test_mappings_named_by_a_url_lose_their_file_as_in_pprof(tmp_path, has_functions, flags):
    from testenv import go_pprof

    for first in (0, 1, 3, 8, 15):  # the first mapping names the report's "File:"
        files = URLISH[first:] + URLISH[:first]
        path = tmp_path / f"urls-{first}.pb.gz"
        path.write_bytes(_mappings_profile(files, has_functions=has_functions))
        rc, out, err = run_cli(*flags, str(path))
        assert rc == 0, err
        assert out.decode() == go_pprof(*flags, str(path)), files[0]


@requires_go
def test_a_url_with_a_build_id_keeps_its_file(tmp_path):
    from testenv import go_pprof

    path = tmp_path / "built.pb.gz"
    path.write_bytes(_mappings_profile(URLISH[:3], build_id="abcd", has_functions=True))
    rc, out, err = run_cli("-raw", str(path))
    assert rc == 0 and "https://example.com/static/app.js" in out.decode()
    assert out.decode() == go_pprof("-raw", str(path))
