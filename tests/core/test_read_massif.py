"""Valgrind Massif's output read by `load` (the peak snapshot) and `load_all`
(every detailed snapshot): a real `valgrind --tool=massif` run of a C program
whose live heap at its peak is known (sizes per call site, a call inlined
into its caller, a recursion from one call site, two allocations below the
threshold), every snapshot's total equal to the file's own `mem_heap_B`; a
small file exactly; bad files refused naming the line."""

from __future__ import annotations

import re
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
NOINLINE void* small_a(void) { return leaf_a(100); }
NOINLINE void* small_b(void) { return leaf_a(60); }
int main(void) {
  void* keep[10];
  void* s1 = small_a();
  void* s2 = small_b();
  for (int i = 0; i < 10; i++) keep[i] = leaf_a(1000 * (i + 1));
  void* o = outer(20000);
  void* r = rec(5, 6400);
  for (int i = 0; i < 10; i++) free(keep[i]);
  free(o); free(r); free(s1); free(s2);
  return 0;
}
"""
)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    return record(tmp_path_factory.mktemp("massif"), "massif", PROGRAM)


def _heap_sizes(path: Path) -> dict:
    """mem_heap_B of each snapshot with a heap tree, from the file's own fields."""
    out, number, size = {}, None, None
    for line in path.read_text().splitlines():
        if line.startswith("snapshot="):
            number = int(line[9:])
        elif line.startswith("mem_heap_B="):
            size = int(line[11:])
        elif line.startswith("heap_tree=") and line[10:] in ("detailed", "peak"):
            out[f"snapshot={number}" + (" (peak)" if line.endswith("peak") else "")] = size
    return out


def test_real_massif_peak_is_the_programs_live_heap(recorded):
    p = pprofcore.load(recorded)
    assert p.sample_types == [("inuse_space", "bytes")]
    stacks = _stacks(p, "inuse_space")
    below = [k for k in stacks if k[-1].startswith("in 2 places")]
    assert len(below) == 1 and stacks.pop(below[0]) == 160  # small_a's 100 and small_b's 60
    assert stacks == {
        ("leaf_a", "main"): sum(1000 * (i + 1) for i in range(10)),
        ("inl", "outer", "main"): 20000,
        ("leaf_a",) + ("rec",) * 6 + ("main",): 6400,
    }
    assert re.match(r"Massif peak snapshot \d+ at time=\d+ \(instructions\) of \./prog", p.comments[0])


def test_real_massif_every_snapshot_totals_its_mem_heap_b(recorded):
    profiles = pprofcore.load_all(recorded)
    sizes = _heap_sizes(recorded)
    assert list(profiles) == list(sizes) and len(profiles) >= 2
    assert {k: p.total("inuse_space") for k, p in profiles.items()} == sizes
    peak = [k for k in profiles if k.endswith("(peak)")]
    assert len(peak) == 1 and profiles[peak[0]].total("inuse_space") == 55000 + 20000 + 6400 + 160


def test_small_file_exactly():
    path = DATA / "producers" / "small.massif.out"
    p = pprofcore.load(path)
    assert _stacks(p, "inuse_space") == {
        ("Cache::grow(unsigned long)", "Cache::insert(Key const&)", "Server::handle(Request&)"): 5000,
        ("Cache::grow(unsigned long)", "main"): 1000,
        ("?",): 3000,
        ("in 3 places, all below massif's threshold (1.00%)",): 200,
    }
    s = p.strings
    assert [s[f] for f in p.mappings.filename] == ["/usr/lib/x86_64-linux-gnu/libssl.so.3"]
    assert "time=95 (milliseconds)" in p.comments[0] and "mem_heap_extra_B=64" in p.comments[1]
    every = pprofcore.load_all(path)
    assert list(every) == ["snapshot=1", "snapshot=2 (peak)"]
    assert _stacks(every["snapshot=1"], "inuse_space") == {("Cache::grow(unsigned long)", "main"): 2000, ("?",): 1000}


def _replaced(old: str, new: str) -> str:
    text = (DATA / "producers" / "small.massif.out").read_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    "text, says",
    [
        (_replaced("n0: 1000 0x401300", "n0: 1500 0x401300"), "children hold more bytes than their parent"),
        (_replaced("n2: 6000 0x4011A0", "n3: 6000 0x4011A0"), "names 1 more children than follow it"),
        (_replaced("  n0: 1000 0x401300", "     n0: 1000 0x401300"), "is not a child of the node before it"),
        (_replaced("time=95", "tim=95"), r"at line \d+: expected a snapshot field"),
        (_replaced("snapshot=2", "snapshot=two"), "does not give a snapshot number"),
        (_replaced("heap_tree=detailed", "heap_tree=empty"), "whose heap_tree is not detailed or peak"),
        (_replaced("heap_tree=peak", "heap_tree=empty").replace("heap_tree=detailed", "heap_tree=empty"), None),
    ],
)
def test_bad_files_name_the_line(text, says, tmp_path):
    path = tmp_path / "massif.out.7"
    if says is None:  # no tree at all: every node line is then misplaced
        text = "\n".join(x for x in text.splitlines() if not re.match(r" *n\d+:", x)) + "\n"
        says = "no snapshot has a heap tree"
    path.write_text(text)
    with pytest.raises(DecodeError, match="Massif") as e:
        pprofcore.load(path)
    assert e.match(says)
