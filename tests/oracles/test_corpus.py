"""Every corpus file: those google/pprof accepts decode and agree with MANIFEST.tsv
(legacy formats pprof reads load too: tests/core/test_legacy.py compares them with
pprof, and jemalloc's heap_v2, which only pprofcore reads, tests/core/test_legacy_jemalloc.py
with jeprof); what pprof rejects raises DecodeError with a message that says what the
input is or what is wrong with it."""

from __future__ import annotations

import re

import pytest
from testenv import corpus_files, legacy_read_by_pprofcore, parses_with_pprof, read_only_by_pprofcore

import pprofcore
from pprofcore import DecodeError


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


# What a rejected file is, derived from its manifest row so that a grown corpus needs
# no edit here. Inputs that are not profile.proto at all are recognised by kind (the
# first rule whose pattern occurs in the file name, producer or notes); the message
# must name that kind. profile.proto files that google/pprof rejects are matched by
# pprof's verdict; the message must say the same thing and name the field.
KIND_RULES = [  # (pattern in file/producer/notes, what the message must contain)
    (r"otlp", "OpenTelemetry OTLP"),
    (r"goroutine", "Go goroutine profile (debug=1 text)"),
    (r"threadcreate|godoc\.thread", "Go threadcreate profile (debug=1 text)"),
    (r"\.thread", "legacy thread profile (text)"),
    (r"contention|block|mutex", "legacy contention profile (text)"),
    (r"heapz", "legacy Java profile (text)"),  # "--- heapz 1 ---" is pprof's Java heap format
    (r"heap|growth", "legacy heap profile (text)"),
    (r"java\.cpu", "legacy 32-bit gperftools CPU profile"),
    (r"cpu|\.prof$", "legacy gperftools CPU profile (binary)"),
]
VERDICT_RULES = [  # (google/pprof's verdict, what the message must contain, field it names)
    (
        r"has a line with nil function",
        "reference to function id 0 (no function)",
        r"Profile\.location\[\d+\] \(id \d+\)\.line\.function_id",
    ),
    (r"found function with reserved ID=0", "found function with reserved id 0", r"Profile\.function\[\d+\]\.id"),
]


def expected_rejection(row) -> tuple:
    """(message substring, field regex or None) for a corpus file google/pprof rejects."""
    verdict = row["parses_with_google_pprof"]
    if row["format"] == "profile.proto":
        for pattern, reason, field in VERDICT_RULES:
            if re.search(pattern, verdict):
                return reason, field
        pytest.fail(f"{row['file']}: no rule for google/pprof's verdict {verdict!r}; add one to VERDICT_RULES")
    # The id, not the absolute path: local rows' paths include the checkout's directory name.
    text = " ".join((row.get("id") or row["file"], row["producer"], row["notes"])).lower()
    for pattern, reason in KIND_RULES:
        if re.search(pattern, text):
            return reason, None
    pytest.fail(f"{row['file']}: no rule tells what this input is; add one to KIND_RULES")


def read_by_pprofcore(row) -> bool:
    return parses_with_pprof(row) or legacy_read_by_pprofcore(row) or read_only_by_pprofcore(row)


@pytest.mark.parametrize("row", corpus_files(lambda r: not read_by_pprofcore(r)))
def test_rejected_file_explains_itself(row, corpus_dir):
    name = row["file"]
    reason, field = expected_rejection(row)
    with pytest.raises(DecodeError) as info:
        pprofcore.load(corpus_dir / name)
    e = info.value
    assert reason in e.reason, e.reason
    assert str(corpus_dir / name) in str(e)  # load() names the file
    if field is not None:
        assert re.fullmatch(field, e.field), e.field
        assert isinstance(e.offset, int) and e.offset > 0


def test_load_many_over_corpus_matches_load(corpus_dir):
    """The batch path agrees with one-by-one decoding, errors included."""
    from testenv import corpus_manifest

    rows = [r for r in corpus_manifest() if int(r["uncompressed_bytes"] or 0) < 2_000_000]
    paths = [corpus_dir / r["file"] for r in rows]
    results = pprofcore.load_many(paths, threads=2, errors="return")
    assert len(results) == len(paths)
    for row, path, got in zip(rows, paths, results):
        if read_by_pprofcore(row):
            assert isinstance(got, pprofcore.Profile), (path, got)
            assert got == pprofcore.load(path)
        else:
            assert isinstance(got, DecodeError), path
            assert expected_rejection(row)[0] in got.reason
