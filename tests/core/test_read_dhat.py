"""DHAT's JSON read by `load`: a real `valgrind --tool=dhat` run of a C program
whose allocations are known (counts, sizes, the block it leaks, a call inlined
into its caller, a recursion from one call site) gives those numbers stack by
stack; the Rust crate's file shape (file:line:column frames, unknown
frames), copy and ad-hoc profiles exactly; bad documents refused with a
DecodeError naming the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stack_values import stacks_by_name as _stacks
from testenv import DATA
from valgrind_runs import ALLOCATORS, record

import pprofcore
from pprofcore import DecodeError

PROGRAM = (
    ALLOCATORS
    + r"""
NOINLINE void* leaked(void) { return leaf_a(777); }
int main(void) {
  for (int i = 0; i < 10; i++) free(leaf_a(100 + i));
  for (int i = 0; i < 3; i++) free(outer(2000));
  free(rec(5, 64));
  leaked();
  return 0;
}
"""
)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    return record(tmp_path_factory.mktemp("dhat"), "dhat", PROGRAM)


def test_real_dhat_run_gives_the_programs_allocations(recorded):
    p = pprofcore.load(recorded)
    types = [t for t, _ in p.sample_types]
    assert types[:2] == ["alloc_objects", "alloc_space"] and p.default_sample_type == "alloc_space"
    assert {"gmax_space", "end_space", "lifetime", "read_space", "write_space"} <= set(types)
    sizes = sum(100 + i for i in range(10))
    rec = ("leaf_a",) + ("rec",) * 6 + ("main",)
    assert _stacks(p, "alloc_space") == {
        ("leaf_a", "main"): sizes,
        ("inl", "outer", "main"): 3 * 2000,
        rec: 64,
        ("leaf_a", "leaked", "main"): 777,
    }
    assert _stacks(p, "alloc_objects") == {
        ("leaf_a", "main"): 10,
        ("inl", "outer", "main"): 3,
        rec: 1,
        ("leaf_a", "leaked", "main"): 1,
    }
    # Only the leaked block is live at exit; every block was written in full.
    assert {k: v for k, v in _stacks(p, "end_space").items() if v} == {("leaf_a", "leaked", "main"): 777}
    assert _stacks(p, "write_space") == _stacks(p, "alloc_space")
    # inl was inlined into outer: one location with two lines, at one address.
    s = p.strings
    lines_per_leaf = {}
    for i in range(len(p)):
        row = p.stack(i)[0]
        lo, hi = p.locations.line_offsets[row], p.locations.line_offsets[row + 1]
        lines_per_leaf[s[p.functions.name[p.lines.function[lo]]]] = hi - lo
    assert lines_per_leaf == {"leaf_a": 1, "inl": 2}
    # Valgrind's replacement malloc is not a frame, nor a mapping.
    assert not any("vgpreload" in s[f] for f in p.mappings.filename)
    assert "DHAT heap profile of ./prog" in p.comments[0]


def test_real_dhat_cli_top(recorded):
    from cli_run import run_cli

    rc, out, err = run_cli("-top", "-sample_index=end_space", str(recorded))
    assert rc == 0, err
    assert b"777B" in out and b"leaked" in out


def test_rust_crate_file_reads_exactly():
    p = pprofcore.load(DATA / "producers" / "small.dhat.json")
    assert p.sample_types == [
        ("alloc_objects", "count"),
        ("alloc_space", "bytes"),
        ("gmax_objects", "count"),
        ("gmax_space", "bytes"),
        ("end_objects", "count"),
        ("end_space", "bytes"),
        ("lifetime", "nanoseconds"),
    ]
    raw = "alloc::raw_vec::RawVec<T,A>::allocate_in"
    assert _stacks(p, "alloc_space") == {
        (raw, "demo::parse::read_block", "demo::parse::read_all", "demo::main"): 4096,
        (raw, "<demo::Table as core::clone::Clone>::clone", "demo::Table::rows", "demo::main"): 600,
        ("?", "demo::main"): 96,
    }
    assert _stacks(p, "lifetime") == {k: v for k, v in zip(_stacks(p, "alloc_space"), (900_000, 31_000, 2000))}
    s = p.strings
    files = {s[n]: s[f] for n, f in zip(p.functions.name, p.functions.filename)}
    assert files["demo::parse::read_block"] == "src/parse.rs" and files[raw] == "alloc/src/raw_vec.rs"
    cols = {int(c) for c in p.lines.column}
    assert {39, 23, 9, 5} <= cols
    unknown = p.stack(2)[0]
    assert p.locations.line_offsets[unknown] == p.locations.line_offsets[unknown + 1]  # ???: an address only
    assert int(p.locations.address[unknown]) == 0x7F1A0C2A2630


def _doc(**over) -> dict:
    doc = json.loads((DATA / "producers" / "small.dhat.json").read_text())
    doc.update(over)
    return doc


def _load(doc, tmp_path) -> pprofcore.Profile:
    path = tmp_path / "dhat.json"
    path.write_text(json.dumps(doc))
    return pprofcore.load(path)


def test_copy_and_ad_hoc_modes(tmp_path):
    doc = _doc(mode="copy", verb="Copied", bklt=False)
    p = _load(doc, tmp_path)
    assert p.sample_types == [("copies", "count"), ("copied", "bytes")]
    assert p.total("copied") == 4096 + 600 + 96
    doc = _doc(mode="rust-ad-hoc", bklt=False, bsu="units", bksu="events")
    p = _load(doc, tmp_path)
    assert p.sample_types == [("events", "count"), ("units", "count")] and p.total("events") == 8


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda d: d.__setitem__("dhatFileVersion", 3), "'dhatFileVersion' is 3, not 2"),
        (lambda d: d.__setitem__("mode", "stack"), "'mode' is 'stack', not heap"),
        (lambda d: d.pop("pps"), "needs 'pps' and 'ftbl'"),
        (lambda d: d["pps"][1]["fs"].__setitem__(2, 99), r"pps\[1\]\.fs\[2\] = 99 is not an index into ftbl"),
        (lambda d: d["pps"][0].__setitem__("tb", -5), r"pps\[0\]\.tb = -5 is not a count"),
        (lambda d: d["pps"][2].__setitem__("eb", 1.5), r"pps\[2\]\.eb = 1\.5 is not a whole number"),
        (lambda d: d["pps"][2].pop("fs"), r"pps\[2\] has no 'fs'"),
        (lambda d: d["ftbl"].__setitem__(4, 7), r"ftbl\[4\] is not a string"),
    ],
)
def test_bad_documents_name_the_place(change, says, tmp_path):
    doc = _doc()
    change(doc)
    with pytest.raises(DecodeError, match="DHAT") as e:
        _load(doc, tmp_path)
    assert e.match(says)
