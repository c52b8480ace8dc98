"""Repair mode (load/loads(..., repair=True)): each repair on a hand-made input,
the odd/ corpus files, and inputs that must still be rejected."""

from __future__ import annotations

import numpy as np
import pytest
from _pb import profile
from testenv import CORPUS

import pprofcore
from pprofcore import DecodeError, RepairReport

STRINGS = ("", "samples", "count", "main", "work")
TYPES = [(1, 2)]


def repaired(data: bytes):
    p, report = pprofcore.loads(data, repair=True)
    p._core.check_invariants()
    # The repaired profile is valid: it round-trips and decodes without repair.
    assert pprofcore.loads(p.to_bytes()) == p
    return p, report


CASES = [
    pytest.param(
        dict(samples=[([1, 9], [5])], locations=[(1, 0, [1])], functions=[(1, 3)]),
        "dangling reference to location id 9",
        dict(dangling_location_refs=1),
        id="dangling-location",
    ),
    pytest.param(
        dict(samples=[([0, 1], [5])], locations=[(1, 0, [1])], functions=[(1, 3)]),
        "reference to location id 0 \\(no location\\)",
        dict(zero_location_refs=1),
        id="zero-location-ref",
    ),
    pytest.param(
        dict(samples=[([1], [5])], locations=[(1, 4, [1])], functions=[(1, 3)], mappings=[(1,)]),
        None,  # accepted without repair too, as google/pprof does; repair still counts it
        dict(dangling_mapping_refs=1),
        id="dangling-mapping",
    ),
    pytest.param(
        dict(samples=[([1], [5])], locations=[(1, 0, [0, 7, 7])], functions=[(1, 3)]),
        "reference to function id 0",
        dict(missing_function_refs=3, stub_functions=2),
        id="missing-functions",
    ),
    pytest.param(
        dict(samples=[([1], [5])], locations=[(1, 0, [1])], functions=[(1, 3), (0, 4)]),
        "found function with reserved id 0",
        dict(zero_ids=1),
        id="function-id-0",
    ),
    pytest.param(
        dict(samples=[([1], [5])], locations=[(1, 0, [1]), (1, 0, [1])], functions=[(1, 3)]),
        "multiple locations with same id 1",
        dict(duplicate_ids=1),
        id="duplicate-location-id",
    ),
    pytest.param(
        dict(samples=[([1], [5]), ([1], [6, 7]), ([1], [8])], locations=[(1, 0, [1])], functions=[(1, 3)]),
        "sample 1 has 2 values, sample 0 has 1",
        dict(value_count_mismatch=1, dropped_values_sum=13),
        id="value-count-mismatch",
    ),
    pytest.param(
        dict(samples=[([1], [6, 7]), ([1], [5])], locations=[(1, 0, [1])], functions=[(1, 3)]),
        "sample 1 has 1 values, sample 0 has 2",
        dict(value_count_mismatch=1, dropped_values_sum=13),
        id="value-count-mismatch-first-sample",
    ),
]


@pytest.mark.parametrize("spec, message, expected", CASES)
def test_each_repair_is_counted(spec, message, expected):
    data = profile(strings=STRINGS, sample_types=TYPES, **spec)
    if message is None:
        strict = pprofcore.loads(data)
    else:
        with pytest.raises(DecodeError, match=message):
            pprofcore.loads(data)
    p, report = repaired(data)
    if message is None:
        assert p == strict
    assert report == RepairReport(**expected)
    assert report and report.total >= 1
    for key in expected:
        assert key in repr(report)


def test_dangling_location_keeps_sample_and_values():
    data = profile(
        strings=STRINGS,
        sample_types=TYPES,
        samples=[([9, 1, 9], [5]), ([9], [3])],
        locations=[(1, 0, [1])],
        functions=[(1, 3)],
    )
    p, report = repaired(data)
    assert report.dangling_location_refs == 3
    assert p.values[:, 0].tolist() == [5, 3]
    assert [p.stack(i).tolist() for i in range(2)] == [[0], []]


def test_stub_functions_are_named_after_the_missing_id():
    data = profile(
        strings=STRINGS, sample_types=TYPES, samples=[([1], [5])], locations=[(1, 0, [7, 0, 7])], functions=[(1, 3)]
    )
    p, _ = repaired(data)
    names = [p.strings[c] for c in p.functions.name]
    assert names == ["main", "[missing function id 7]", "[missing function]"]
    ids = p.functions.id.tolist()
    assert len(set(ids)) == 3 and 0 not in ids
    assert [names[f] for f in p.lines.function] == [
        "[missing function id 7]",
        "[missing function]",
        "[missing function id 7]",
    ]


def test_renumbered_ids_are_fresh_and_refs_go_to_first_row():
    data = profile(
        strings=STRINGS,
        sample_types=TYPES,
        samples=[([2], [5])],
        locations=[(2, 0, [5])],
        functions=[(5, 3), (5, 4), (0, 4)],
    )
    p, report = repaired(data)
    assert report == RepairReport(zero_ids=1, duplicate_ids=1)
    assert p.functions.id.tolist() == [5, 6, 7]
    assert p.strings[p.functions.name[p.lines.function[0]]] == "main"


def test_valid_input_reports_nothing_and_equals_plain_load():
    path = pprofcore.example_path()
    p, report = pprofcore.load(path, repair=True)
    assert report == RepairReport() and not report
    assert repr(report) == "RepairReport(no repairs)"
    assert p == pprofcore.load(path)
    with open(path, "rb") as f:
        q, report2 = pprofcore.load(f, repair=True)
    assert q == p and not report2


def test_report_str_is_readable():
    r = RepairReport(dangling_location_refs=2, value_count_mismatch=1, dropped_values_sum=10)
    s = str(r)
    assert s.splitlines()[0] == "3 repair(s):"
    assert "removed from stacks" in s and "dropped" in s
    assert r.as_dict()["zero_ids"] == 0


@pytest.mark.parametrize(
    "data, message",
    [
        pytest.param(b"", "empty input", id="empty"),
        pytest.param(b"\x0a\x05\x08", "runs past the end", id="truncated"),
        pytest.param(
            profile(strings=STRINGS, sample_types=[(1, 2**31)]),
            "string index 2147483648 out of range",
            id="string-index-past-int32",
        ),  # string repairs: test_repair_strings.py
        pytest.param(profile(strings=STRINGS, samples=[([], [1])]), "no sample_type", id="no-sample-type"),
        pytest.param(b"heap profile: 1: 2 [3: 4] @ heapprofile\n1: x\n", "legacy heap profile", id="legacy-text"),
    ],
)
def test_unrepairable_input_still_raises(data, message):
    with pytest.raises(DecodeError, match=message):
        pprofcore.loads(data, repair=True)


ODD = {
    "odd/pyroscope__pkg_experiment_gtbl_symbolized_profile.pb~b1a0336c": RepairReport(
        missing_function_refs=2165, stub_functions=1
    ),
    # .NET writes every function with id 0 and refers to them by position (1..n);
    # fresh ids are handed out in row order, so those references resolve.
    "odd/pyroscope__pkg_og_convert_pprof_testdata_dotnet-pprof-3.pb.gz": RepairReport(zero_ids=41),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_corpus_pprof_files_load_with_honest_report(name):
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"corpus not found at {CORPUS}")
    with pytest.raises(DecodeError):
        pprofcore.load(path)
    p, report = pprofcore.load(path, repair=True)
    assert report == ODD[name]
    p._core.check_invariants()
    assert len(p) > 0 and np.abs(p.values).sum() > 0
    assert pprofcore.loads(p.to_bytes()) == p


@pytest.mark.parametrize(
    "name",
    [
        "odd/pprof__fuzz_testdata_7e3c92482f6f39fc502b822ded792c589849cca8",
        "odd/pyroscope__pkg_test_integration_testdata_otel-ebpf-profile.pb.bin",
    ],
)
def test_odd_non_pprof_files_still_raise(name):
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"corpus not found at {CORPUS}")
    with pytest.raises(DecodeError):
        pprofcore.load(path, repair=True)
