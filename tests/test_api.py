"""The Profile API contract that later work builds on: header properties, column
dtypes and read-only views, load/loads/load_many, inflaters, pickling,
equality, repr, lifetime, thread safety and the CLI."""

from __future__ import annotations

import gc
import io
import json
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, pprofcore_env
from wirebuild import SMALL_STRINGS, function, line, location, profile, sample, small, value_type

import pprofcore
from pprofcore import DecodeError, Profile

CPU = pprofcore.example_path("cpu")
HEAP = pprofcore.example_path("heap")


def test_dir_lists_exactly_the_public_names():
    assert dir(pprofcore) == sorted(pprofcore.__all__)
    assert all(hasattr(pprofcore, name) for name in pprofcore.__all__)
    assert pprofcore.testing.canonical and pprofcore.reports.top  # submodules stay reachable, only unlisted


@pytest.fixture(scope="module")
def cpu() -> Profile:
    return pprofcore.load(CPU)


@pytest.fixture(scope="module")
def sp() -> Profile:
    """The wirebuild small profile (every value known)."""
    return pprofcore.loads(small(comments=[9, 5], drop_frames=5, keep_frames=7, default_sample_type=3, doc_url=8))


# ------------------------------------------------------------------ header


def test_header_properties(sp):
    assert sp.sample_types == [("samples", "count"), ("cpu", "nanoseconds")]
    assert sp.period_type == ("cpu", "nanoseconds")
    assert sp.period == 10_000_000
    assert sp.time_nanos == 1_700_000_000_000_000_000
    assert sp.duration_nanos == 10_000_000_000
    assert sp.comments == ["thread", "main"]
    assert sp.drop_frames == "main"
    assert sp.keep_frames == "worker"
    assert sp.default_sample_type == "cpu"
    assert sp.doc_url == "/bin/app"
    assert list(sp.strings) == list(SMALL_STRINGS)
    assert len(sp.strings) == len(SMALL_STRINGS) and sp.strings[0] == ""
    assert sp.sample_type_index() == 1 and sp.total() == 60 and sp.total("samples") == 6


def test_header_defaults():
    p = pprofcore.loads(profile(sample_types=[value_type(1, 2)], strings=("", "a", "b")))
    assert p.period_type is None
    assert p.period == 0 and p.time_nanos == 0 and p.duration_nanos == 0
    assert p.comments == [] and p.drop_frames == "" and p.keep_frames == ""
    assert p.default_sample_type == "" and p.doc_url == ""
    assert len(p) == 0 and p.values.shape == (0, 1)


def test_period_type_present_but_empty_is_not_none():
    """An explicitly written (empty) period_type differs from an absent one, as in pprof."""
    p = pprofcore.loads(profile(sample_types=[value_type(1, 2)], strings=("", "a", "b"), period_type=b""))
    assert p.period_type == ("", "")


# ------------------------------------------------------------------ columns

COLUMNS = {
    "values": np.int64,
    "stack_offsets": np.int64,
    "stack_locations": np.int32,
    "label_offsets": np.int64,
    "labels.key": np.int32,
    "labels.str": np.int32,
    "labels.num": np.int64,
    "labels.num_unit": np.int32,
    "locations.id": np.uint64,
    "locations.mapping": np.int32,
    "locations.address": np.uint64,
    "locations.is_folded": np.uint8,
    "locations.line_offsets": np.int64,
    "lines.function": np.int32,
    "lines.line": np.int64,
    "lines.column": np.int64,
    "functions.id": np.uint64,
    "functions.name": np.int32,
    "functions.system_name": np.int32,
    "functions.filename": np.int32,
    "functions.start_line": np.int64,
    "mappings.id": np.uint64,
    "mappings.memory_start": np.uint64,
    "mappings.memory_limit": np.uint64,
    "mappings.file_offset": np.uint64,
    "mappings.filename": np.int32,
    "mappings.build_id": np.int32,
    "mappings.has_functions": np.uint8,
    "mappings.has_filenames": np.uint8,
    "mappings.has_line_numbers": np.uint8,
    "mappings.has_inline_frames": np.uint8,
}


def _column(p, name):
    table, _, col = name.partition(".")
    return getattr(getattr(p, table), col) if col else getattr(p, table)


@pytest.mark.parametrize("name,dtype", list(COLUMNS.items()), ids=list(COLUMNS))
def test_column_dtype_and_read_only(cpu, name, dtype):
    a = _column(cpu, name)
    assert isinstance(a, np.ndarray)
    assert a.dtype == dtype
    assert a.flags.c_contiguous
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a.setflags(write=True)  # a view of immutable C++ memory cannot be made writable
    if a.size:
        with pytest.raises(ValueError, match="read-only"):
            a[(0,) * a.ndim] = 1


def test_column_values_of_small_profile(sp):
    assert sp.values.shape == (3, 2) and sp.values.tolist() == [[1, 10], [2, 20], [3, 30]]
    assert sp.stack_offsets.tolist() == [0, 2, 4, 5]
    assert sp.stack_locations.tolist() == [0, 1, 2, 1, 1]
    assert sp.stack(1).tolist() == [2, 1]
    assert sp.label_offsets.tolist() == [0, 1, 3, 3]
    assert sp.labels.key.tolist() == [9, 9, 9]
    assert sp.labels.str.tolist() == [7, 5, -1]
    assert sp.labels.num.tolist() == [0, 0, 3] and sp.labels.num_unit.tolist() == [0, 0, 2]
    assert sp.locations.id.tolist() == [1, 2, 3]
    assert sp.locations.mapping.tolist() == [0, 0, -1]
    assert sp.locations.address.tolist() == [0x401000, 0x402000, 0]
    assert sp.locations.line_offsets.tolist() == [0, 2, 3, 4]
    assert sp.lines.function.tolist() == [1, 0, 0, 1]
    assert sp.lines.line.tolist() == [12, 5, 7, 20] and sp.lines.column.tolist() == [3, 0, 0, 0]
    assert sp.functions.name.tolist() == [5, 7] and sp.functions.start_line.tolist() == [3, 10]
    assert sp.strings.lookup(sp.functions.filename).tolist() == ["main.go", "main.go"]
    assert sp.mappings.memory_start.tolist() == [0x400000] and sp.mappings.has_functions.tolist() == [1]
    assert len(sp.locations) == 3 and len(sp.lines) == 4 and len(sp.functions) == 2 and len(sp.mappings) == 1
    with pytest.raises(AttributeError, match="no column"):
        sp.functions.nope


def test_strings_table_bytes_and_lookup(sp):
    s = sp.strings
    assert s.data.dtype == np.uint8 and s.offsets.dtype == np.int64 and len(s.offsets) == len(s) + 1
    assert s.data.tobytes() == "".join(SMALL_STRINGS).encode()
    assert s.lookup(np.array([5, -1])).tolist() == ["main", None]
    assert s.code_of("worker") == 7 and s.code_of("absent") == -1


# ------------------------------------------------------------------ loading


def test_load_sources_agree(cpu, tmp_path):
    data = Path(CPU).read_bytes()
    assert pprofcore.load(Path(CPU)) == cpu
    with open(CPU, "rb") as f:
        assert pprofcore.load(f) == cpu
    assert pprofcore.load(io.BytesIO(data)) == cpu
    assert pprofcore.loads(data) == cpu
    assert pprofcore.loads(bytearray(data)) == cpu
    assert pprofcore.loads(memoryview(data)) == cpu
    raw = cpu.to_bytes(compress=False)
    assert pprofcore.loads(raw) == cpu
    path = tmp_path / "x.pb"
    cpu.save(path, compress=False)
    assert path.read_bytes() == raw
    cpu.save(str(tmp_path / "y.pb.gz"))
    assert pprofcore.load(tmp_path / "y.pb.gz") == cpu


def test_wrong_argument_kinds(tmp_path):
    with pytest.raises(TypeError, match="loads"):
        pprofcore.load(b"\x1f\x8b")
    with pytest.raises(TypeError, match="load\\(path\\)"):
        pprofcore.loads("profile.pb.gz")
    with pytest.raises(TypeError):
        pprofcore.loads(12345)
    with pytest.raises(TypeError):
        pprofcore.load(12345)
    with pytest.raises(TypeError):
        Profile()
    with pytest.raises(ValueError, match="inflater"):
        pprofcore.loads(small(), inflater="brotli")


def test_load_missing_path(tmp_path):
    missing = tmp_path / "nope.pb.gz"
    with pytest.raises(FileNotFoundError) as info:
        pprofcore.load(missing)
    assert str(missing) in str(info.value)


def test_load_error_names_the_file(tmp_path):
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\x0f garbage")
    with pytest.raises(DecodeError) as info:
        pprofcore.load(bad)
    assert str(bad) in str(info.value) and info.value.path == str(bad)
    assert info.value.reason == "invalid wire type 7" and info.value.offset == 0


def test_decode_error_is_value_error():
    assert issubclass(DecodeError, ValueError) and issubclass(pprofcore.GzipError, DecodeError)


@pytest.fixture(scope="module")
def many_files(tmp_path_factory, cpu):
    d = tmp_path_factory.mktemp("many")
    paths = []
    for i in range(6):
        path = d / f"p{i}.pb.gz"
        # Distinct profiles: the small one with different periods, plus the example.
        path.write_bytes(cpu.to_bytes() if i % 3 == 0 else small(period=i + 1))
        paths.append(path)
    bad = d / "bad.pb"
    bad.write_bytes(b"--- heapz 1 ---\nformat = cpp\n")  # a Java heap profile of another format
    return paths, bad, d / "missing.pb"


@pytest.mark.parametrize("threads", [1, 2])
def test_load_many_order_and_results(many_files, threads):
    paths, _, _ = many_files
    got = pprofcore.load_many(paths, threads=threads)
    assert got == [pprofcore.load(p) for p in paths]
    assert [g.period for g in got] == [pprofcore.load(p).period for p in paths]


def test_load_many_threads_identical(many_files):
    paths, _, _ = many_files
    assert pprofcore.load_many(paths * 3, threads=1) == pprofcore.load_many(paths * 3, threads=2)


def test_load_many_errors(many_files):
    paths, bad, missing = many_files
    mixed = [paths[0], bad, paths[1], missing, paths[2]]
    with pytest.raises(DecodeError, match="legacy Java profile") as info:
        pprofcore.load_many(mixed)
    assert str(bad) in str(info.value)
    skipped = pprofcore.load_many(mixed, errors="skip")
    assert skipped == [pprofcore.load(p) for p in (paths[0], paths[1], paths[2])]
    returned = pprofcore.load_many(mixed, errors="return")
    assert len(returned) == 5
    assert isinstance(returned[1], DecodeError) and returned[1].path == str(bad)
    assert isinstance(returned[3], OSError) and str(missing) in str(returned[3])
    assert returned[0] == pprofcore.load(paths[0]) and returned[4] == pprofcore.load(paths[2])
    with pytest.raises(ValueError, match="errors must be"):
        pprofcore.load_many(paths, errors="ignore")
    assert pprofcore.load_many([]) == []


@pytest.mark.skipif(not pprofcore._core.have_libdeflate(), reason="this build has no libdeflate")
def test_inflaters_agree():
    for path in (CPU, HEAP):
        a = pprofcore.load(path, inflater="zlib")
        b = pprofcore.load(path, inflater="libdeflate")
        c = pprofcore.load(path, inflater="auto")
        assert a == b == c
        assert a.to_bytes(compress=False) == b.to_bytes(compress=False)


@pytest.mark.skipif(not pprofcore._core.have_isal(), reason="this build has no ISA-L")
def test_overlapped_inflate_matches_serial_decode():
    # inflater="isal" always inflates on a second thread while decoding.
    for path in (CPU, HEAP):
        assert pprofcore.load(path, inflater="isal") == pprofcore.load(path, inflater="zlib")
    data = open(CPU, "rb").read()
    with pytest.raises(pprofcore.GzipError, match="truncated"):
        pprofcore.loads(data[: len(data) // 2], inflater="isal")
    with pytest.raises(ValueError, match="inflater must be"):
        pprofcore.loads(data, inflater="brotli")


def test_large_raw_profile_split_decode_matches_serial():
    # Raw inputs with >= 4 MiB of samples are decoded by two threads (the
    # second half of the samples on a helper); the result must not depend on it.
    path = CORPUS / "go/generated/gen-bigheap-150k.raw.pb"
    if not path.exists():
        pytest.skip(f"{path} not found (shared corpus)")
    data = path.read_bytes()
    limit = pprofcore.DEFAULT_MAX_DECOMPRESSED_SIZE
    serial = pprofcore._core.decode(data, limit, "auto", 1)
    split = pprofcore._core.decode(data, limit, "auto", 0)
    assert serial.equals(split)
    split.check_invariants()
    # A value-count mismatch in the helper's half is still reported with its sample index.
    p = pprofcore.loads(data)
    assert len(p) > 100_000


# ------------------------------------------------------------------ protocols


def test_pickle_round_trip(cpu, sp):
    for p in (cpu, sp):
        q = pickle.loads(pickle.dumps(p))
        assert q == p and q is not p
        assert q.sample_types == p.sample_types and q.comments == p.comments


def test_equality(cpu, sp):
    assert cpu == pprofcore.load(CPU)
    assert cpu != sp
    assert sp != pprofcore.loads(small(period=3))
    assert sp != pprofcore.loads(small())  # header differs (comments, drop_frames, ...)
    assert pprofcore.loads(small()) == pprofcore.loads(small())
    assert (cpu == "x") is False and cpu != 1
    with pytest.raises(TypeError):
        hash(cpu)


def test_len_and_repr(cpu, sp):
    assert len(sp) == 3 and len(cpu) == cpu.values.shape[0] > 0
    r = repr(sp)
    assert "\n" not in r
    assert r.startswith("<pprofcore.Profile ") and r.endswith(">")
    assert "samples/count,cpu/nanoseconds" in r and "3 samples" in r and "2 functions" in r


def test_repr_html_escapes_names():
    strings = ("", "alloc<space>", "by&tes", "std::vector<int>::push_back&", "a.cc", "<b>bold</b> comment")
    data = profile(
        sample_types=[value_type(1, 2)],
        samples=[sample([1], [5])],
        locations=[location(1, 0, 0, [line(1, 3)])],
        functions=[function(1, 3, 3, 4)],
        strings=strings,
        comments=[5],
    )
    h = pprofcore.loads(data)._repr_html_()
    assert "alloc&lt;space&gt;/by&amp;tes" in h
    assert "&lt;b&gt;bold&lt;/b&gt; comment" in h
    assert "<b>bold" not in h and "alloc<space>" not in h
    # No raw '<' or '&' from any name of the profile leaks into the markup.
    for raw in (s for s in strings if "<" in s or "&" in s):
        assert raw not in h
    assert "vector<int>" not in h and "push_back&" not in h
    assert h.count("<table") == h.count("</table>")


# ------------------------------------------------------------------ lifetime and threads


def test_view_outlives_profile():
    p = pprofcore.load(CPU)
    expected_values = p.values.copy()
    expected_names = p.functions.name.copy()
    expected_strings = p.strings.data.tobytes()
    values, names, strings_data = p.values, p.functions.name, p.strings.data
    del p
    gc.collect()
    # Churn the allocator so freed memory would be reused and overwritten.
    junk = [pprofcore.loads(small(period=i + 1)) for i in range(50)]
    junk += [bytearray(os.urandom(len(expected_values.tobytes()))) for _ in range(5)]
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(names, expected_names)
    assert strings_data.tobytes() == expected_strings
    assert values.base is not None
    del junk


def test_table_outlives_profile():
    p = pprofcore.loads(small())
    table = p.locations
    del p
    gc.collect()
    assert table.id.tolist() == [1, 2, 3]


def test_threads_decoding_the_same_bytes():
    data = Path(CPU).read_bytes()
    results, errors = [None] * 8, []
    barrier = threading.Barrier(8)

    def work(i):
        try:
            barrier.wait()
            for _ in range(5):
                results[i] = pprofcore.loads(data)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    reference = pprofcore.loads(data)
    assert all(r == reference for r in results)
    assert len({r.to_bytes(compress=False) for r in results}) == 1


# ------------------------------------------------------------------ CLI


def _cli(*args):
    env = pprofcore_env()
    return subprocess.run(
        [sys.executable, "-m", "pprofcore", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_info_text():
    r = _cli("info", CPU)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{CPU}:")
    p = pprofcore.load(CPU)
    assert f"{len(p):,} samples" in r.stdout and f"{len(p.functions):,} functions" in r.stdout
    assert "cpu/nanoseconds" in r.stdout


def test_cli_info_json(tmp_path):
    r = _cli("info", "--format", "json", CPU, HEAP)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [d["file"] for d in out] == [CPU, HEAP]
    p = pprofcore.load(HEAP)
    assert out[1]["samples"] == len(p) and out[1]["functions"] == len(p.functions)
    assert out[1]["file_bytes"] == os.path.getsize(HEAP)


def test_cli_info_bad_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("goroutine profile: total 1\n1 @\n")  # a sample with no stack: pprof refuses it too
    r = _cli("info", CPU, str(bad))
    assert r.returncode == 2
    assert "Go goroutine profile" in r.stderr and str(bad) in r.stderr
    assert r.stdout.startswith(f"{CPU}:")  # the good file is still summarized
    r = _cli("info", str(tmp_path / "missing.pb"))
    assert r.returncode == 2 and "missing.pb" in r.stderr


def test_cli_demo():
    r = _cli("demo")
    assert r.returncode == 0, r.stderr
    assert "round trip equal: True" in r.stdout


def test_cli_usage_error():
    r = _cli()
    assert r.returncode == 2 and "usage" in r.stderr.lower()
