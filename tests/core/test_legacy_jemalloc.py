"""jemalloc's heap profiles (``heap_v2`` text, ``MALLOC_CONF=prof:true``), read
by `load`/`loads` with jeprof's semantics and checked against jeprof itself.

The real producer: a C program (tests/producers/jemalloc/allocs.c) built here
and run under Debian's libjemalloc, its profile symbolized by pprofcore and
compared per function with ``jeprof --text``. Texts generated here add the
shapes that run lacks (many threads per stack, thread names, random counts and
sample periods): their values must equal jeprof's unsampling redone in Python
exactly, and jeprof's report per address within rounding. Every entry point
reads tests/data/producers/small.jemalloc.heap (a run of allocs.c) in
tests/core/test_foreign_entry_points.py.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from testenv import CORPUS, TESTS

import pprofcore
from pprofcore import DecodeError

LIBJEMALLOC = Path("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2")
JEPROF = shutil.which("jeprof")
requires_jeprof = pytest.mark.skipif(JEPROF is None, reason="jeprof not installed (apt-get install libjemalloc-dev)")

TYPES = {  # pprofcore's sample type -> jeprof's option
    "inuse_space": "--inuse_space",
    "inuse_objects": "--inuse_objects",
    "alloc_space": "--alloc_space",
    "alloc_objects": "--alloc_objects",
}


def jeprof_text(program: str, profile: Path, sample_type: str):
    """``jeprof --text --show_bytes``: (total, {name: (flat, cum)})."""
    r = subprocess.run(
        [JEPROF, "--text", "--show_bytes", TYPES[sample_type], program, str(profile)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    total = int(re.search(r"^Total: (\d+)", r.stdout, re.M).group(1))
    rows = {}
    for line in r.stdout.splitlines():
        f = line.split(None, 5)
        if len(f) == 6 and f[1].endswith("%"):
            rows[f[5]] = (int(f[0]), int(f[3]))
    return total, rows


def our_rows(p, sample_type: str, by: str):
    """pprofcore's top: {name: (flat, cum)} of every node."""
    t = p.top(sample_type=sample_type, by=by, nodefraction=0).to_pandas()
    return {n: (int(f), int(c)) for n, f, c in zip(t["name"], t["flat"], t["cum"])}


def assert_close(ours: int, theirs: int, slack: float, what: str):
    """Within rounding: pprofcore keeps the nearest integer per sample, jeprof
    sums the fractions and truncates the sum."""
    assert abs(ours - theirs) <= slack, f"{what}: pprofcore {ours}, jeprof {theirs} (slack {slack})"


# ---------------------------------------------------------------- the real producer


@pytest.fixture(scope="module")
def jemalloc_run(tmp_path_factory):
    """allocs.c built with -g and run under jemalloc's profiler: (binary, heap profile)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if not (LIBJEMALLOC.exists() and cc):
        pytest.skip("jemalloc (apt-get install libjemalloc-dev) or a C compiler not installed")
    d = tmp_path_factory.mktemp("jemalloc")
    exe = d / "allocs"
    src = TESTS / "producers" / "jemalloc" / "allocs.c"
    subprocess.run([cc, "-g", "-O1", "-fno-omit-frame-pointer", "-o", str(exe), str(src), "-lpthread"], check=True)
    env = dict(
        os.environ,
        LD_PRELOAD=str(LIBJEMALLOC),
        MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:12,prof_accum:true",
    )
    subprocess.run([str(exe)], env=env, cwd=d, check=True, capture_output=True, timeout=120)
    heaps = sorted(d.glob("jeprof.*.heap"))
    assert heaps, "jemalloc wrote no profile (built without --enable-prof?)"
    return exe, heaps[-1]


def test_real_profile_types_period_and_mappings(jemalloc_run):
    exe, heap = jemalloc_run
    p = pprofcore.load(heap)
    p._core.check_invariants()
    assert p.sample_types == [
        ("alloc_objects", "count"),
        ("alloc_space", "bytes"),
        ("inuse_objects", "count"),
        ("inuse_space", "bytes"),
    ]
    assert p.period_type == ("space", "bytes") and p.period == 4096  # lg_prof_sample:12
    assert any(p.strings[f] == str(exe) for f in p.mappings.filename)  # MAPPED_LIBRARIES


@requires_jeprof
@pytest.mark.parametrize("sample_type", ["inuse_space", "alloc_objects"])
def test_real_profile_matches_jeprof_per_function(jemalloc_run, sample_type):
    """Symbolized locally, with jemalloc's own frames hidden as jeprof hides
    them, every function of the program has jeprof's flat and cum."""
    exe, heap = jemalloc_run
    p, _ = pprofcore.load(heap).symbolize()
    p = p.hide("libjemalloc")
    total, theirs = jeprof_text(str(exe), heap, sample_type)
    ours = our_rows(p, sample_type, "functions")
    slack = len(p) / 2 + 1
    assert_close(p.total(sample_type), total, slack, "total")
    functions = {"main", "build", "small_blocks", "big_blocks", "worker"} | (
        {"churn"} if sample_type.startswith("alloc") else set()
    )
    assert functions <= set(theirs), theirs
    for name in functions:
        assert_close(ours[name][0], theirs[name][0], slack, f"{name} flat")
        assert_close(ours[name][1], theirs[name][1], slack, f"{name} cum")


# ---------------------------------------------------------------- generated texts


def generated_heap(rnd: random.Random, accumulated: bool) -> str:
    """A heap_v2 text in jemalloc's layout: header totals (with thread names),
    stacks whose counts are split over one to three threads, a memory map."""
    period = rnd.choice([1, 4096, 524288])
    pool = [0x401000 + rnd.randrange(0x10000) for _ in range(8)]
    lines = [f"heap_v2/{period}", "  t*: 1: 2 [3: 4]", "  t0: 1: 2 [3: 4] main", "  t1: 0: 0 [0: 0] worker 1"]
    for _ in range(rnd.randint(1, 14)):
        lines.append("@ " + " ".join(hex(rnd.choice(pool)) for _ in range(rnd.randint(1, 5))))
        size = rnd.choice([8, 48, 4096, 40000, 1 << 20])
        objs = rnd.randint(0, 60)
        acc = objs + rnd.randint(0, 200) if accumulated else 0
        lines.append(f"  t*: {objs}: {objs * size} [{acc}: {acc * size}]")
        for t in range(rnd.randint(1, 3)):  # shares that need not add up: they are not read
            lines.append(f"  t{t}: {objs // (t + 1)}: {objs // (t + 1) * size} [{acc // 2}: {acc // 2 * size}]")
    lines += ["", "MAPPED_LIBRARIES:", "00400000-00420000 r-xp 00000000 08:01 11 /srv/main"]
    return "\n".join(lines) + "\n"


def jeprof_values(text: str):
    """jeprof's ReadThreadedHeapProfile and AdjustSamples redone: per "t*" line
    the (in-use objects, bytes, accumulated objects, bytes), unsampled, unrounded."""
    period = int(text.split("\n", 1)[0].split("/")[1])
    out, in_stack = [], False
    for line in text.splitlines()[1:]:
        line = line.strip()
        if line.startswith("MAPPED_LIBRARIES:"):
            break
        in_stack |= line.startswith("@")
        m = re.fullmatch(r"t\*: (\d+): (\d+) \[(\d+): (\d+)\]", line)
        if m and in_stack:
            v = [float(x) for x in m.groups()]
            for i in (0, 2):
                if v[i]:
                    scale = 1 / (1 - math.exp(-(v[i + 1] / v[i]) / period))
                    v[i], v[i + 1] = v[i] * scale, v[i + 1] * scale
            out.append(v)
    return out


@pytest.mark.parametrize("accumulated", [True, False], ids=["accumulated", "in-use-only"])
def test_generated_values_are_jeprofs_unsampling(accumulated):
    """Differential against jeprof's arithmetic: 40 random texts, every sample
    equals the nearest integer of jeprof's unsampled value."""
    rnd = random.Random(7 + accumulated)
    for _ in range(40):
        text = generated_heap(rnd, accumulated)
        p = pprofcore.loads(text.encode())
        p._core.check_invariants()
        want = jeprof_values(text)
        has_alloc = any(v[2] or v[3] for v in want)
        names = [t for t, _ in p.sample_types]
        assert names == (["alloc_objects", "alloc_space"] if has_alloc else []) + ["inuse_objects", "inuse_space"]
        columns = (2, 3, 0, 1) if has_alloc else (0, 1)
        assert p.values.tolist() == [[round(v[c]) for c in columns] for v in want], text
        # The per-thread lines are not read: without them the profile is the same.
        stripped = "\n".join(ln for ln in text.split("\n") if not re.match(r"\s*t\d", ln))
        assert pprofcore.loads(stripped.encode()) == p


@requires_jeprof
def test_generated_profile_matches_jeprof_per_address(tmp_path):
    """jeprof's report of a generated text, address by address: the leaf as
    written, its callers one byte back."""
    rnd = random.Random(3)
    text = generated_heap(rnd, True)
    while text.count("@") < 6:
        text = generated_heap(rnd, True)
    path = tmp_path / "generated.heap"
    path.write_text(text)
    p = pprofcore.load(path)
    slack = len(p) / 2 + 1
    for sample_type in ("inuse_space", "alloc_objects"):
        total, theirs = jeprof_text("/bin/true", path, sample_type)
        ours = {int(n.split()[0], 16): v for n, v in our_rows(p, sample_type, "addresses").items()}
        assert_close(p.total(sample_type), total, slack, "total")
        theirs = {int(n, 16): v for n, v in theirs.items()}
        assert {a for a, v in ours.items() if v != (0, 0)} == set(theirs)
        for a, (flat, cum) in theirs.items():
            assert_close(ours[a][0], flat, slack, f"{a:#x} flat")
            assert_close(ours[a][1], cum, slack, f"{a:#x} cum")


@requires_jeprof
def test_pprofs_jemalloc_fixture_total_matches_jeprof():
    """The heap_v2 file in google/pprof's test data: 471 stacks, 64 threads."""
    path = CORPUS / "odd" / "pprof__profile_testdata_jemalloc.heap"
    if not path.exists():
        pytest.skip(f"corpus not found at {CORPUS}")
    p = pprofcore.load(path)
    total, _ = jeprof_text("/bin/true", path, "inuse_space")
    assert_close(p.total("inuse_space"), total, len(p) / 2 + 1, "total")
    assert p.period == 1048576 and len(p) == 471


# ---------------------------------------------------------------- bad input

MALFORMED = [  # (input, message fragment, line)
    (b"heap_v2/abc\n", 'expected "heap_v2/<sample period in bytes>"', 1),
    (b"heap_v2/99999999999999999999\n", "sample period", 1),
    (b"heap_v2/8\n@ 0x1\n  t*: 1: 8 [1: 8] x\n", 'expected "t*: <objects>', 3),
    (b"heap_v2/8\n@ 0x1\n  t*: 1: 8\n", 'expected "t*: <objects>', 3),
    (b"heap_v2/8\n@ 0x1\n  t*: 1: 99999999999999999999 [0: 0]\n", "does not fit in 63 bits", 3),
    (b"heap_v2/8\n@ 0x1 0xzz\n", 'address "0xzz" is not a 64-bit hex number', 2),
    (b"heap_v2/8\n@ 0x1 0x12345678901234567\n", "is not a 64-bit hex number", 2),
    (b"heap_v2/8\n@ 0x1\n  t*: 1: 8 [0: 0]\n  t*: 1: 8 [0: 0]\n", 'a second "t*:" line', 4),
    (b"heap_v2/8\n@ 0x1\n  t*: 3: 0 [0: 0]\n", "3 objects of 0 bytes cannot be unsampled", 3),
    (b"heap_v2/8\n@ 0x1\nhello\n", 'expected "@ <addresses>"', 3),
    (b"heap_v2/8\n  t*: 1: 8 [0: 0]\n@ 0x1\n  t3: 1: 8 [0: 0] name\n", 'expected "t*: <objects>', 4),
]


@pytest.mark.parametrize("data, fragment, line", MALFORMED, ids=[f"{m[2]}:{m[1][:24]}" for m in MALFORMED])
def test_malformed_jemalloc_names_the_line(data, fragment, line):
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(data)
    e = info.value
    assert "jemalloc heap profile (heap_v2 text)" in e.reason and fragment in e.reason, e.reason
    assert e.field == f"line {line}"
    assert e.offset == len(b"".join(data.split(b"\n")[: line - 1])) + line - 1  # the line's first byte
