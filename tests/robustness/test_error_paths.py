"""One error path: the same bad input raises the same exception, with the same
``reason``, ``field``, ``offset`` and ``path``, from every entry point that
reads files (and from ``loads`` for the bytes). Semantic refusals are
``ProfileError``; broken internal contracts are ``RuntimeError``."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pytest

import pprofcore
from pprofcore import _core

EXAMPLE = pprofcore.example_path()


def _truncated_gzip(d):
    data = open(EXAMPLE, "rb").read()
    return data[: len(data) // 2]


def _wrong_wire_type(d):
    return bytes([0x10, 0x01])  # Profile.location (2) as a varint


def _gzip_of_wrong_wire_type(d):
    return gzip.compress(bytes([0x0A, 0x03, 0x08, 0x01]) + bytes([0x10, 0x01]))


BAD_BYTES = {
    "truncated gzip": _truncated_gzip,
    "wrong wire type": _wrong_wire_type,
    "gzip of wrong wire type": _gzip_of_wrong_wire_type,
}


def _load(path):
    return pprofcore.load(path)


def _load_repair(path):
    return pprofcore.load(path, repair=True)


def _load_many(path):
    return pprofcore.load_many([EXAMPLE, path])


def _load_many_return(path):
    out = pprofcore.load_many([EXAMPLE, path], errors="return")
    assert isinstance(out[0], pprofcore.Profile)
    raise out[1]


def _merge_files(path):
    return pprofcore.merge_files([EXAMPLE, path], threads=2)


def _merger_add_file(path):
    m = pprofcore.Merger()
    m.add_file(EXAMPLE)
    m.add_file(path)


def _profile_set(path):
    return pprofcore.ProfileSet([EXAMPLE, path]).merge()


FILE_ENTRY_POINTS = {
    "load": _load,
    "load repair": _load_repair,
    "load_many": _load_many,
    "load_many errors=return": _load_many_return,
    "merge_files": _merge_files,
    "Merger.add_file": _merger_add_file,
    "ProfileSet.merge": _profile_set,
}


def _signature(e: BaseException) -> tuple:
    return (
        type(e),
        str(e),
        getattr(e, "reason", None),
        getattr(e, "field", None),
        getattr(e, "offset", None),
        getattr(e, "path", None),
        getattr(e, "errno", None),
        getattr(e, "filename", None),
    )


@pytest.mark.parametrize("bad", sorted(BAD_BYTES))
def test_bad_bytes_raise_the_same_error_everywhere(tmp_path, bad):
    data = BAD_BYTES[bad](tmp_path)
    path = str(tmp_path / "bad.pb.gz")
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(pprofcore.DecodeError) as loads_error:
        pprofcore.loads(data)
    e0 = loads_error.value
    assert e0.path is None
    seen = {}
    for name, entry in FILE_ENTRY_POINTS.items():
        with pytest.raises(pprofcore.DecodeError) as info:
            entry(path)
        seen[name] = _signature(info.value)
        e = info.value
        # The file's error is the bytes' error with the path added.
        assert type(e) is type(e0), name
        assert (e.reason, e.field, e.offset) == (e0.reason, e0.field, e0.offset), name
        assert e.path == path, name
        assert str(e) == f"{path}: {e0}", name
    assert len(set(seen.values())) == 1, seen
    with pytest.raises(type(e0)) as delta_error:
        pprofcore.DeltaComputer().delta_bytes(data)
    assert _signature(delta_error.value) == _signature(e0)


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_os_errors_name_the_path_once(tmp_path, kind):
    path = str(tmp_path / "nothing.pb.gz")
    if kind == "directory":
        os.mkdir(path)
    expected = FileNotFoundError if kind == "missing" else IsADirectoryError
    seen = {}
    for name, entry in FILE_ENTRY_POINTS.items():
        with pytest.raises(expected) as info:
            entry(path)
        assert info.value.filename == path, name
        assert str(info.value).count(path) == 1, (name, str(info.value))
        seen[name] = _signature(info.value)
    assert len(set(seen.values())) == 1, seen


def test_size_limit_is_one_constant():
    assert pprofcore.DEFAULT_MAX_DECOMPRESSED_SIZE == _core.DEFAULT_MAX_DECOMPRESSED_SIZE == 4 << 30
    import inspect

    for fn in (
        pprofcore.load,
        pprofcore.loads,
        pprofcore.load_many,
        pprofcore.merge_files,
        pprofcore.Merger.add_file,
        pprofcore.DeltaComputer.delta_bytes,
    ):
        default = inspect.signature(fn).parameters["max_decompressed_size"].default
        assert default == pprofcore.DEFAULT_MAX_DECOMPRESSED_SIZE, fn


def test_size_limit_error_is_the_same_everywhere(tmp_path):
    path = str(tmp_path / "big.pb.gz")
    with open(path, "wb") as f:
        f.write(open(EXAMPLE, "rb").read())
    limit = 1000
    seen = {}
    for name, call in {
        "load": lambda: pprofcore.load(path, max_decompressed_size=limit),
        "load_many": lambda: pprofcore.load_many([path], max_decompressed_size=limit),
        "merge_files": lambda: pprofcore.merge_files([path], max_decompressed_size=limit),
        "Merger.add_file": lambda: pprofcore.Merger().add_file(path, max_decompressed_size=limit),
    }.items():
        with pytest.raises(pprofcore.GzipError) as info:
            call()
        assert info.value.path == path
        seen[name] = _signature(info.value)
    assert len(set(seen.values())) == 1, seen


def test_semantic_refusals_are_profile_errors():
    p = pprofcore.load(EXAMPLE)
    heap = pprofcore.load(pprofcore.example_path("heap"))
    with pytest.raises(pprofcore.ProfileError, match="no profiles to merge"):
        pprofcore.merge([])
    with pytest.raises(pprofcore.ProfileError, match="no profiles to merge"):
        pprofcore.merge(iter(()))
    with pytest.raises(pprofcore.ProfileError, match="incompatible"):
        pprofcore.merge([p, heap])
    with pytest.raises(pprofcore.ProfileError, match="sample type"):
        pprofcore.harmonize_units([p, heap])
    with pytest.raises(pprofcore.ProfileError, match="common sample type"):
        pprofcore.merge([p, heap], compatible="intersect")


def test_internal_contract_failures_are_runtime_errors():
    p = pprofcore.load(EXAMPLE)
    with pytest.raises(RuntimeError, match="^pprofcore internal error: keep_samples"):
        _core.keep_samples(p._core, np.zeros(len(p) + 3, dtype=np.uint8))
    with pytest.raises(RuntimeError, match="^pprofcore internal error"):
        _core.keep_labels(p._core, np.zeros(len(p.labels.key) + 1, dtype=np.uint8))


@pytest.mark.parametrize(
    "data, quoted",
    [
        pytest.param(b"--- mutex:\n\xff=", "\\xff", id="contention-attribute"),
        pytest.param(b"\xd2 profile: total 4\n0", "\\xd2", id="count-profile-name"),
        pytest.param(b"--- contention:\n\xed\xa0\x80=1", "\\xed\\xa0\\x80", id="surrogate"),
    ],
)
def test_messages_quoting_bad_bytes_are_text(data, quoted):
    """A message that quotes input which is not UTF-8 escapes those bytes as
    \\xNN, so Python can build the DecodeError's str (fuzzer finding: it raised
    UnicodeDecodeError instead)."""
    with pytest.raises(pprofcore.DecodeError) as e:
        pprofcore.loads(data)
    assert quoted in str(e.value)
    assert quoted in e.value.reason
