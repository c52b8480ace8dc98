"""heaptrack's data files read by `load`: a real heaptrack run of a C program
whose allocations are known gives heaptrack_print's own totals (calls,
temporary allocations, peak, leaked) and the program's stacks; a small
hand-written file exactly (operator new dropped from the top, inlined
frames, the peak's share per stack); bad files refused naming the line."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from stack_values import stacks_by_name
from testenv import DATA
from valgrind_runs import ALLOCATORS, heaptrack_record

import pprofcore
from pprofcore import DecodeError

SMALL = DATA / "producers" / "small.heaptrack"

PROGRAM = (
    ALLOCATORS
    + r"""
NOINLINE void* leaked(void) { return leaf_a(777); }
int main(void) {
  void* keep[4];
  for (int i = 0; i < 10; i++) free(leaf_a(100 + i));
  for (int i = 0; i < 4; i++) keep[i] = outer(5000);
  for (int i = 0; i < 4; i++) free(keep[i]);
  free(rec(5, 64));
  leaked();
  return 0;
}
"""
)


def _print_totals(path) -> dict:
    if not shutil.which("heaptrack_print"):
        pytest.skip("needs heaptrack_print (Debian package heaptrack)")
    text = subprocess.run(["heaptrack_print", str(path)], capture_output=True, text=True, check=True).stdout
    got = {}
    for key, pattern in (
        ("calls", r"calls to allocation functions: (\d+)"),
        ("temporary", r"temporary memory allocations: (\d+)"),
        ("leaked", r"total memory leaked: ([\d.]+)([KMG]?)B?"),
        ("suppressed", r"suppressed leaks: ([\d.]+)([KMG]?)B?"),
        ("peak", r"peak heap memory consumption: ([\d.]+)([KMG]?)B?"),
    ):
        m = re.search(pattern, text)
        if m is None and key == "suppressed":
            got[key] = 0.0  # nothing a built-in suppression hides
            continue
        assert m, (key, text[-600:])
        value = float(m.group(1))
        if m.lastindex == 2:
            value *= {"": 1, "K": 1000, "M": 1000**2, "G": 1000**3}[m.group(2)]
        got[key] = value
    return got


def test_real_heaptrack_run(tmp_path):
    path = heaptrack_record(tmp_path, PROGRAM)
    p = pprofcore.load(path)
    assert [t for t, _ in p.sample_types][-2:] == ["leaked_objects", "leaked_space"]
    assert p.default_sample_type == "peak_space"
    oracle = _print_totals(path)
    assert p.total("alloc_objects") == oracle["calls"]
    assert p.total("temporary_objects") == oracle["temporary"]
    # heaptrack_print leaves out leaks its built-in suppressions match (C library internals); pprofcore keeps them.
    assert p.total("leaked_space") == oracle["leaked"] + oracle["suppressed"]
    assert stacks_by_name(p, "leaked_space")[next(k for k in stacks_by_name(p, "leaked_space") if "leaked" in k)] == 777
    assert abs(p.total("peak_space") - oracle["peak"]) <= 0.01 * oracle["peak"]  # heaptrack_print rounds to 3 digits
    mine = {k: v for k, v in stacks_by_name(p, "alloc_space").items() if "main" in k}
    rec = ("leaf_a",) + ("rec",) * 6 + ("main",)
    assert {k[: k.index("main") + 1]: v for k, v in mine.items()} == {
        ("leaf_a", "main"): sum(100 + i for i in range(10)),
        ("inl", "outer", "main"): 4 * 5000,
        rec: 64,
        ("leaf_a", "leaked", "main"): 777,
    }
    assert stacks_by_name(p, "peak_space")[next(k for k in mine if k[:2] == ("inl", "outer"))] == 4 * 5000
    assert p.strings[p.mappings.filename[0]].endswith("/prog")  # the program's binary names the profile


def test_small_file_exactly():
    p = pprofcore.load(SMALL)
    stacks = {t: stacks_by_name(p, t) for t, _ in p.sample_types}
    grow = ("grow", "main", "main")  # operator new dropped; grow inlined into main, called from main
    # grow's own allocation and the one through operator new share a stack once operator new is dropped.
    assert stacks["alloc_objects"] == {grow: 4, ("fresh", "main"): 1}
    assert len(p) == 3 and len({tuple(p.stack(i)) for i in range(len(p))}) == 2
    assert p.total("alloc_space") == 2 * 256 + 2 * 64 + 16
    # 64 and 16 bytes freed right away; and, as heaptrack_print counts, info 0
    # freed after another free (its "last allocation" is then 0).
    assert p.total("temporary_objects") == 3
    assert stacks["peak_space"] == {grow: 512, ("fresh", "main"): 16}
    assert p.total("leaked_objects") == 2 and p.total("leaked_space") == 256 + 64
    s = p.strings
    assert s[p.mappings.filename[0]] == "/usr/bin/cache" and p.duration_nanos == 8_000_000
    assert p.comments == ["heaptrack profile of ./cache --size 4"]


@pytest.mark.parametrize(
    "change, says",
    [
        (("+ 2\n", "+ 9\n"), r"line \d+: allocation '9' is not among the 3 defined"),
        (("t 4 1\n", "t 4\n"), "a 't' line needs"),
        (("s 4 main\n", "s 40 main\n"), "a string of 64 bytes holds 4"),
        (("a 10 4\n", "a 10 zz\n"), "'zz' is not a hexadecimal number"),
        (("c 8\n", "x 1 2\n"), "raw heaptrack file"),
        (("v 10400 3\n", "v 10400 9\n"), "file format version 9 is newer"),
        (("t 4 1\n", "t 4 4\n"), "cycle"),
    ],
)
def test_bad_files_name_the_place(change, says, tmp_path):
    text = SMALL.read_text()
    assert change[0] in text
    path = tmp_path / "heaptrack.cache.1"
    path.write_text(text.replace(change[0], change[1], 1))
    with pytest.raises(DecodeError, match="heaptrack") as e:
        pprofcore.load(path)
    assert e.match(says)
