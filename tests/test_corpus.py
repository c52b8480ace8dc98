"""Every corpus file: those google/pprof accepts decode and agree with MANIFEST.tsv;
legacy formats and odd inputs raise DecodeError with a message that says what
the input is or what is wrong with it."""

from __future__ import annotations

import pytest

import pprofcore
from pprofcore import DecodeError

from conftest import corpus_files, parses_with_pprof


def _fmt_types(types) -> str:
    return ",".join(f"{t}/{u}" for t, u in types)


@pytest.mark.parametrize("row", corpus_files(parses_with_pprof))
def test_pprof_accepted_file_matches_manifest(row, corpus_dir):
    p = pprofcore.load(corpus_dir / row["file"])
    assert len(p) == int(row["n_samples"])
    assert len(p.locations) == int(row["n_locations"])
    assert len(p.functions) == int(row["n_functions"])
    assert len(p.mappings) == int(row["n_mappings"])
    assert len(p.strings) == int(row["n_strings"])
    assert _fmt_types(p.sample_types) == row["sample_types"]
    period_type = "/".join(p.period_type) if p.period_type else "/"
    assert period_type == row["period_type"]
    # Internal consistency of the columns.
    assert p.values.shape == (len(p), len(p.sample_types))
    assert p.stack_offsets[0] == 0 and p.stack_offsets[-1] == len(p.stack_locations)
    assert p.label_offsets[-1] == len(p.labels)
    assert p.locations.line_offsets[-1] == len(p.lines)
    if len(p.stack_locations):
        assert 0 <= p.stack_locations.min() and p.stack_locations.max() < len(p.locations)
    if len(p.lines):
        assert 0 <= p.lines.function.min() and p.lines.function.max() < len(p.functions)
    if len(p.locations):
        assert p.locations.mapping.max() < len(p.mappings) and p.locations.mapping.min() >= -1


# What each rejected file is; the message must say so (and never be a bare wire error).
REJECTED = {
    "legacy/generated/gen-go-block.debug1.txt": "legacy contention profile (text)",
    "legacy/generated/gen-go-mutex.debug1.txt": "legacy contention profile (text)",
    "legacy/generated/gen-go-goroutine.debug1.txt": "Go goroutine profile (debug=1 text)",
    "legacy/go-profiler-notes__examples_goroutine_1.pprof.lookup.goroutine.debug1.txt":
        "Go goroutine profile (debug=1 text)",
    "legacy/generated/gen-go-heap.debug1.txt": "legacy heap profile (text)",
    "legacy/generated/gen-gperftools-heap.heap": "legacy heap profile (text)",
    "legacy/pprof__profile_testdata_cppbench.growth": "legacy heap profile (text)",
    "legacy/pprof__profile_testdata_cppbench.heap": "legacy heap profile (text)",
    "legacy/pprof__profile_testdata_gobench.heap": "legacy heap profile (text)",
    "legacy/pprof__profile_testdata_java.heap": "legacy heap profile (text)",
    "legacy/generated/gen-gperftools-cpu.prof": "legacy gperftools CPU profile (binary)",
    "legacy/pprof__fuzz_corpus_cppbench.cpu.pb": "legacy gperftools CPU profile (binary)",
    "legacy/pprof__fuzz_corpus_go.crc32.cpu.pb": "legacy gperftools CPU profile (binary)",
    "legacy/pprof__fuzz_corpus_gobench.cpu.pb": "legacy gperftools CPU profile (binary)",
    "legacy/pprof__profile_testdata_java.cpu": "legacy 32-bit gperftools CPU profile",
    "legacy/pprof__internal_driver_testdata_cppbench.contention": "legacy contention profile (text)",
    "legacy/pprof__profile_testdata_java.contention": "legacy contention profile (text)",
    "legacy/pprof__profile_testdata_cppbench.thread": "legacy thread profile (text)",
    "legacy/pprof__profile_testdata_go.godoc.thread": "Go threadcreate profile (debug=1 text)",
    "odd/generated/gen-go-threadcreate.debug1.txt": "Go threadcreate profile (debug=1 text)",
    "odd/pprof__fuzz_testdata_7e3c92482f6f39fc502b822ded792c589849cca8": "legacy heap profile (text)",
    "odd/pprof__profile_testdata_jemalloc.heap": "jemalloc heap_v2 text profile",
    "odd/pyroscope__pkg_experiment_gtbl_symbolized_profile.pb~b1a0336c": "reference to function id 0 (no function)",
    "odd/pyroscope__pkg_og_convert_pprof_testdata_dotnet-pprof-3.pb.gz": "found function with reserved id 0",
    "odd/pyroscope__pkg_test_integration_testdata_otel-ebpf-profile.pb.bin":
        "OpenTelemetry OTLP ExportProfilesServiceRequest",
}

# Field and offset where they are tied to one place (checked with go tool pprof's verdict in MANIFEST).
REJECTED_AT = {
    "odd/pyroscope__pkg_experiment_gtbl_symbolized_profile.pb~b1a0336c": "Profile.location[0] (id 1).line.function_id",
    "odd/pyroscope__pkg_og_convert_pprof_testdata_dotnet-pprof-3.pb.gz": "Profile.function[0].id",
}


@pytest.mark.parametrize("row", corpus_files(lambda r: not parses_with_pprof(r)))
def test_rejected_file_explains_itself(row, corpus_dir):
    name = row["file"]
    assert name in REJECTED, f"new rejected corpus file {name}: add its expected message"
    with pytest.raises(DecodeError) as info:
        pprofcore.load(corpus_dir / name)
    e = info.value
    assert REJECTED[name] in e.reason, e.reason
    assert str(corpus_dir / name) in str(e)  # load() names the file
    if row["format"] == "legacy" or name.endswith((".txt", ".heap")):
        assert "convert with `go tool pprof -proto`" in e.reason or "legacy" in e.reason
    if name in REJECTED_AT:
        assert e.field == REJECTED_AT[name]
        assert isinstance(e.offset, int) and e.offset > 0


@pytest.mark.parametrize("row", corpus_files(lambda r: r["format"] == "legacy"))
def test_legacy_files_point_to_the_converter(row, corpus_dir):
    with pytest.raises(DecodeError, match=r"pprofcore reads profile\.proto only \(convert with `go tool pprof -proto`\)"):
        pprofcore.load(corpus_dir / row["file"])


def test_load_many_over_corpus_matches_load(corpus_dir):
    """The batch path agrees with one-by-one decoding, errors included."""
    from conftest import corpus_manifest

    rows = [r for r in corpus_manifest() if int(r["uncompressed_bytes"] or 0) < 2_000_000]
    paths = [corpus_dir / r["file"] for r in rows]
    results = pprofcore.load_many(paths, threads=2, errors="return")
    assert len(results) == len(paths)
    for row, path, got in zip(rows, paths, results):
        if parses_with_pprof(row):
            assert isinstance(got, pprofcore.Profile), (path, got)
            assert got == pprofcore.load(path)
        else:
            assert isinstance(got, DecodeError), path
            assert REJECTED[row["file"]] in got.reason
