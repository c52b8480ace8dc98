"""The Callgrind format read by `load`: a real `valgrind --tool=callgrind` run
gives, for every function and source file, the self cost callgrind_annotate
prints (the oracle), and for the program's own functions (no recursion) the
inclusive cost `callgrind_annotate --inclusive=yes` prints as their cum; a
small file with name compression, relative and hexadecimal positions,
inlined code in another file, calls into another object and two events,
exactly; recursion and a cycle read without running away; Xdebug's event
units; bad files refused naming the line."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from stack_values import stacks_by_name as _stacks
from testenv import DATA
from valgrind_runs import record

import pprofcore
from pprofcore import DecodeError

PROGRAM = r"""
#define NOINLINE __attribute__((noinline))
volatile long sink;
NOINLINE long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }
NOINLINE long helper(int n) { return work(n) + work(n / 2); }
NOINLINE long a(void) { return helper(20000); }
NOINLINE long b(void) { return helper(60000) + work(10000); }
int main(void) { sink = a() + b(); return 0; }
"""

SMALL = DATA / "producers" / "small.callgrind.out"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    return record(tmp_path_factory.mktemp("callgrind"), "callgrind", PROGRAM)


def _annotate(path: Path, *flags: str) -> dict:
    """{(file, function): cost} as callgrind_annotate prints it."""
    if not shutil.which("callgrind_annotate"):
        pytest.skip("needs callgrind_annotate (Debian package valgrind)")
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", *flags, str(path)], capture_output=True, text=True, check=True
    ).stdout
    got = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+([^=\s].*?):(\S.*?)(?: \[.*\])?$", line)
        if m and "PROGRAM TOTALS" not in line:
            got[(m.group(2), m.group(3))] = int(m.group(1).replace(",", ""))
    return got


def _flat_by_file(p: pprofcore.Profile) -> dict:
    s = p.strings
    out: dict = {}
    for i in range(len(p)):
        k = p.locations.line_offsets[p.stack(i)[0]]
        f = p.lines.function[k]
        key = (s[p.functions.filename[f]], s[p.functions.name[f]])
        out[key] = out.get(key, 0) + int(p.values[i, 0])
    return {k: v for k, v in out.items() if v}


def test_real_run_flat_is_callgrind_annotate_self_cost(recorded):
    p = pprofcore.load(recorded)
    assert p.sample_types[0] == ("Ir", "count") and p.default_sample_type == "Ir"
    oracle = _annotate(recorded)
    assert len(oracle) > 50
    assert _flat_by_file(p) == oracle
    assert "Callgrind profile (Ir) of ./prog" in p.comments[0]


def test_real_run_cum_is_the_inclusive_cost(recorded):
    p = pprofcore.load(recorded)
    inclusive = {name: v for (_, name), v in _annotate(recorded, "--inclusive=yes").items()}
    s = p.strings
    cum = {}
    for i in range(len(p)):
        names = set()
        for row in p.stack(i):
            k = p.locations.line_offsets[row]
            names.add(s[p.functions.name[p.lines.function[k]]])
        for n in names & {"main", "a", "b", "helper", "work"}:
            cum[n] = cum.get(n, 0) + int(p.values[i, 0])
    for name in ("main", "a", "b", "helper", "work"):
        assert abs(cum[name] - inclusive[name]) <= 4, name  # shares are rounded per path
    # work is called from helper (twice per call) and from b: its cost is split between the call sites.
    stacks = _stacks(p, "Ir")
    via_b = sum(v for k, v in stacks.items() if k[:2] == ("work", "b"))
    assert via_b > 0 and via_b < cum["work"] // 4


def test_small_file_exactly():
    p = pprofcore.load(SMALL)
    assert p.sample_types == [("Ir", "count"), ("Dr", "count")]
    assert _stacks(p, "Ir") == {
        ("main",): 9,
        ("handle", "main"): 60,
        ("parse", "handle", "main"): 400,
        ("memcpy", "parse", "handle", "main"): 200,
        ("memcpy", "handle", "main"): 240,
    }
    assert _stacks(p, "Dr") == {
        ("main",): 2,
        ("handle", "main"): 20,
        ("parse", "handle", "main"): 150,
        ("memcpy", "parse", "handle", "main"): 50,
        ("memcpy", "handle", "main"): 80,
    }
    assert p.total("Ir") == 909 and p.total("Dr") == 302  # the file's totals: line
    s = p.strings
    files = {(s[p.functions.name[f]], s[p.functions.filename[f]]) for f in range(len(p.functions.name))}
    assert ("handle", "src/inline.h") in files and ("handle", "src/handle.c") in files  # fi= code keeps its file
    assert {s[m] for m in p.mappings.filename} == {"/opt/shop/bin/shop", "/usr/lib/x86_64-linux-gnu/libc.so.6"}
    addresses = {int(a) for a in p.locations.address}
    assert {0x401000, 0x401004, 0x40100C, 0x401100, 0x401110, 0x401114, 0x401116, 0x9000} <= addresses


def _load(text: str, tmp_path) -> pprofcore.Profile:
    path = tmp_path / "callgrind.out.9"
    path.write_text(text)
    return pprofcore.load(path)


def test_recursion_and_cycles_read_without_running_away(tmp_path):
    text = """# callgrind format
events: Ir
fn=main
1 10
cfn=fact
calls=1 5
2 1000
fn=fact
5 100
cfn=fact
calls=9 5
6 900
cfn=even
calls=1 20
7 0
fn=even
20 7
cfn=odd
calls=1 30
21 50
fn=odd
30 43
cfn=even
calls=1 20
31 7
"""
    p = _load(text, tmp_path)
    by_leaf: dict = {}
    for k, v in _stacks(p, "Ir").items():
        by_leaf[k[0]] = by_leaf.get(k[0], 0) + v
    assert by_leaf == {"main": 10, "fact": 100, "even": 7, "odd": 43}


def test_xdebug_units_and_negative_memory(tmp_path):
    text = """version: 1
creator: xdebug 3.2.1 (PHP 8.2.7)
cmd: /var/www/index.php
part: 1
positions: line
events: Time_(10ns) Memory_(bytes)

fl=(1) php:internal
fn=(1) php::strlen
2 3 0

fl=(2) /var/www/index.php
fn=(2) {main}
0 120 4096
cfl=(1)
cfn=(1)
calls=1 0 0
2 3 0
3 40 -512
"""
    p = _load(text, tmp_path)
    assert p.sample_types == [("Time", "nanoseconds"), ("Memory", "bytes")]
    assert _stacks(p, "Time") == {("{main}",): 1600, ("php::strlen", "{main}"): 30}
    assert {k: v for k, v in _stacks(p, "Memory").items() if v} == {("{main}",): 3584}  # freed memory counts against


@pytest.mark.parametrize(
    "change, says",
    [
        (("calls=3 0x401100 20\n* * 900 300", "calls=3 0x401100 20\ncfn=(9) x"), "must be followed by its cost line"),
        (("fn=(2)\n", "fn=(7)\n"), r"fn=\(7\) names an id that was not defined"),
        (("0x401100 20 30 9", "0x401100 20 30 9 4"), "has 3 costs for 2 events"),
        (("0x401100 20 30 9", "0x401100 20 3O 9"), "'3O' is not a number"),
        (("+4 11 3", "+4"), r"needs 2 position\(s\)"),
        (("events: Ir Dr", "evnts: Ir Dr"), "comes before the 'events' header line"),
        (("fl=(2)\nfn=(2)", "fl=(2)\nfn=(2)\n-0x999999 1 1"), "outside 0 to 2"),
        (("cmd: ./shop", "cmd ./shop"), "expected a header line"),
    ],
)
def test_bad_files_name_the_line(change, says, tmp_path):
    text = SMALL.read_text()
    assert change[0] in text
    with pytest.raises(DecodeError, match="Callgrind") as e:
        _load(text.replace(change[0], change[1], 1), tmp_path)
    assert e.match(says)
    assert re.search(r"at line \d+", str(e.value))


YAPPI_SCRIPT = r"""
import json, sys
import yappi

def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def mid():
    return leaf(200000) + leaf(100000)

def top():
    return mid() + leaf(50000)

yappi.set_clock_type("cpu")
yappi.start()
top(); top()
yappi.stop()
stats = yappi.get_func_stats()
stats.save(sys.argv[1], type="callgrind")
print(json.dumps({s.name: [s.tsub, s.ttot] for s in stats if s.name in ("leaf", "mid", "top")}))
"""


def test_yappi_callgrind_file(tmp_path):
    """yappi (a Python profiler) writes Callgrind with its own names
    (`name file:line`) and microsecond ticks: flat and cum per function are
    yappi's own tsub and ttot."""
    import json
    import sys

    pytest.importorskip("yappi", reason="needs yappi (pip install yappi)")
    out = tmp_path / "yappi.callgrind"
    script = tmp_path / "work.py"
    script.write_text(YAPPI_SCRIPT)
    r = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, check=True, timeout=120)
    oracle = json.loads(r.stdout)
    p = pprofcore.load(out)
    assert p.sample_types == [("Ticks", "count")]
    s = p.strings
    assert {s[p.functions.filename[f]] for f in range(len(p.functions.name))} == {str(script)}
    flat = {name: v for (_, name), v in _flat_by_file(p).items()}
    for name, (tsub, ttot) in oracle.items():
        assert abs(flat[name] - tsub * 1e6) <= 1, name
    cum_top = sum(v for k, v in _stacks(p, "Ticks").items() if "top" in k)
    assert abs(cum_top - oracle["top"][1] * 1e6) <= 5  # the file truncates each cost to whole ticks


def test_cachegrind_file_flat_is_cg_annotate(tmp_path):
    """Cachegrind writes the subset of the format without calls (nine cache
    events): each of the program's functions' flat costs are cg_annotate's,
    event by event."""
    path = record(tmp_path, "cachegrind", PROGRAM)
    if not shutil.which("cg_annotate"):
        pytest.skip("needs cg_annotate (Debian package valgrind)")
    p = pprofcore.load(path)
    events = [t for t, _ in p.sample_types]
    assert events[:4] == ["Ir", "I1mr", "ILmr", "Dr"]
    text = subprocess.run(
        ["cg_annotate", "--threshold=0", str(path)], capture_output=True, text=True, check=True
    ).stdout
    oracle = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) .*\s(\S*prog\.c):(\w+)$", line)
        if m:
            oracle[m.group(3)] = int(m.group(1).replace(",", ""))
    assert {"main", "a", "b", "helper", "work"} <= set(oracle)
    flat = {name: v for (file, name), v in _flat_by_file(p).items() if file.endswith("prog.c")}
    assert {k: flat[k] for k in oracle} == oracle
