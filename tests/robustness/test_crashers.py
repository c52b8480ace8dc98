"""Regression tests for fuzzer-found inputs: every file in tests/data/crashers/
(minimized libFuzzer reproducers and hand-picked nasty inputs) must decode, or
raise DecodeError, in both normal and repair mode, and never crash. A decoded
result must round-trip."""

from __future__ import annotations

import pytest
from testenv import DATA

import pprofcore
from pprofcore import DecodeError
from pprofcore._build_info import inflaters

CRASHERS = DATA / "crashers"
FILES = sorted(p for p in CRASHERS.iterdir() if p.is_file() and p.name != "README.md") if CRASHERS.is_dir() else []


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
@pytest.mark.parametrize("repair", [False, True], ids=["plain", "repair"])
def test_crasher_decodes_or_raises_decode_error(path, repair):
    data = path.read_bytes()
    try:
        result = pprofcore.loads(data, repair=repair, max_decompressed_size=16 << 20)
    except DecodeError as e:
        assert str(e)  # every rejection explains itself
        return
    p = result[0] if repair else result
    p._core.check_invariants()
    assert pprofcore.loads(p.to_bytes()) == p
    if repair:
        _repair_leaves_valid_input_alone(data, p, result[1])


def _repair_leaves_valid_input_alone(data: bytes, repaired, report) -> None:
    """Input that plain decoding accepts comes out of repair unchanged, with no
    repairs reported (dangling mapping ids aside: both modes accept them)."""
    try:
        plain = pprofcore.loads(data, max_decompressed_size=16 << 20)
    except DecodeError:
        return
    assert repaired == plain
    assert report.total == report.dangling_mapping_refs, report


OPEN = CRASHERS.parent / "crashers-open"  # known, unfixed findings (see its README.md)
OPEN_FILES = sorted(p for p in OPEN.iterdir() if p.is_file() and p.name != "README.md") if OPEN.is_dir() else []
GZIP_FILES = [pytest.param(p, id=p.name) for p in FILES if p.read_bytes()[:2] == b"\x1f\x8b"] + [
    pytest.param(p, id=p.name, marks=pytest.mark.xfail(reason=f"open finding, see {OPEN.name}/README.md"))
    for p in OPEN_FILES
]


@pytest.mark.parametrize("path", OPEN_FILES, ids=[p.name for p in OPEN_FILES])
def test_open_findings_never_crash(path):
    """Unfixed findings still decode or raise DecodeError (the bug is a disagreement, not a crash)."""
    try:
        pprofcore.loads(path.read_bytes(), max_decompressed_size=16 << 20)
    except DecodeError:
        pass


@pytest.mark.parametrize("path", GZIP_FILES)
def test_gzip_backends_agree(path):
    """Every inflate backend gives the same bytes, or every one raises GzipError."""
    from pprofcore import GzipError, _core

    data = path.read_bytes()
    results = {}
    for backend in inflaters():
        try:
            results[backend] = _core.gunzip(data, 16 << 20, backend)
        except GzipError as e:
            results[backend] = f"GzipError: {e.reason if hasattr(e, 'reason') else e}"
    assert len({r if isinstance(r, bytes) else "error" for r in results.values()}) == 1, results
