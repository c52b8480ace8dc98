"""Reading profiles: load/loads from every kind of source, argument and error
contracts, load_many (order, threads, errors), the inflaters and the overlapped
decode against the serial one, and threads decoding the same bytes."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from testenv import CORPUS
from wirebuild import small

import pprofcore
from pprofcore import DecodeError, Profile

CPU = pprofcore.example_path("cpu")
HEAP = pprofcore.example_path("heap")


@pytest.fixture(scope="module")
def cpu() -> Profile:
    return pprofcore.load(CPU)


# -------------------------------------------------------------- load
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


# --------------------------------------------------------- load_many
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


# ----------------------------------- inflaters and overlapped decode
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
    split = pprofcore._core.decode(data, limit, "auto", 2)
    assert serial.equals(split)
    split.check_invariants()
    # A value-count mismatch in the helper's half is still reported with its sample index.
    p = pprofcore.loads(data)
    assert len(p) > 100_000


# ----------------------------------------------------------- threads
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
