"""The Profile API contract that later work builds on: the public names, header
properties, column dtypes and read-only views, the string table, pickling,
equality and lifetime (a view or table outlives its profile)."""

from __future__ import annotations

import gc
import os
import pickle

import numpy as np
import pytest
from wirebuild import SMALL_STRINGS, profile, small, value_type

import pprofcore

CPU = pprofcore.example_path("cpu")


def test_dir_lists_exactly_the_public_names():
    assert dir(pprofcore) == sorted(pprofcore.__all__)
    assert all(hasattr(pprofcore, name) for name in pprofcore.__all__)
    assert pprofcore.testing.canonical and pprofcore.reports.top  # submodules stay reachable, only unlisted


# ------------------------------------------------------------ header
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


# ----------------------------------------------------------- columns
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


# ----------------------------------------------- pickle and equality
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


# ---------------------------------------------------------- lifetime
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
