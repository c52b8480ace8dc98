"""pprof's legacy formats, read by `load`/`loads` the way google/pprof's
`profile.Parse` reads them, checked against pprof's own parse of the same file.

The inputs come from real producers: Go's runtime/pprof with debug=1 (heap,
allocs, block, mutex, goroutine, threadcreate and a custom pprof.NewProfile; the
local corpus), a C program run under gperftools' CPU and heap profilers (built
here), the shared corpus's legacy files when present, and the gperftools CPU
profile rewritten into each word size and byte order. The comparison is
`rawdump` (profile.Parse + String(), i.e. `go tool pprof -raw`) of the original
against `rawdump` of pprofcore's profile encoded as profile.proto.
"""

from __future__ import annotations

import difflib
import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pprof_oracle import ZERO_BYTES_LABEL, assert_same_as_pprof, rawdumps
from testenv import TESTS, corpus_files, corpus_path, legacy_read_by_pprofcore, requires_go

import pprofcore
from pprofcore import DecodeError

LIBDIR = Path("/usr/lib/x86_64-linux-gnu")


# ---------------------------------------------------------------- corpora

LEGACY_ROWS = corpus_files(legacy_read_by_pprofcore)


@requires_go
def test_corpus_legacy_files_match_pprof(tmp_path):
    """Every legacy file (shared corpus and the tests' own Go debug=1 output) that
    pprof parses with a format pprofcore reads gives pprof's dump."""
    rows = [p.values[0] for p in LEGACY_ROWS if p.values and p.values[0] is not None]
    if not rows:
        pytest.skip("no legacy files: no shared corpus and no local corpus (needs Go)")
    assert_same_as_pprof([corpus_path(r) for r in rows], tmp_path)


@requires_go
def test_go_debug1_kinds_are_all_read():
    """The local corpus's Go producer writes every debug=1 kind; all but the
    threadcreate dump with empty stacks (which pprof refuses too) load."""
    from testenv import local_manifest

    rows = [r for r in local_manifest() if r["format"] == "legacy"]
    if not rows:
        pytest.skip("no local corpus (needs Go)")
    kinds = {Path(r["file"]).name.split(".debug1")[0]: r for r in rows}
    assert {
        "go-heap",
        "go-allocs",
        "go-mutex",
        "go-block",
        "go-goroutine",
        "go-threadcreate",
        "go-pprofcore.test-connections",
    } <= set(kinds)
    types = {
        k: pprofcore.load(r["file"]).sample_types
        for k, r in kinds.items()
        if r["parses_with_google_pprof"].startswith("yes")
    }
    assert types["go-heap"] == [
        ("alloc_objects", "count"),
        ("alloc_space", "bytes"),
        ("inuse_objects", "count"),
        ("inuse_space", "bytes"),
    ]
    assert types["go-mutex"] == [("contentions", "count"), ("delay", "nanoseconds")]
    assert types["go-pprofcore.test-connections"] == [("pprofcore.test/connections", "count")]
    if not kinds["go-threadcreate"]["parses_with_google_pprof"].startswith("yes"):
        with pytest.raises(DecodeError, match=r"Go threadcreate profile \(debug=1 text\)") as info:
            pprofcore.load(kinds["go-threadcreate"]["file"])
        assert info.value.field.startswith("line ")


@requires_go
def test_gzipped_legacy_text_is_read(tmp_path):
    from testenv import local_manifest

    rows = [r for r in local_manifest() if r["file"].endswith("go-heap.debug1.txt")]
    if not rows:
        pytest.skip("no local corpus (needs Go)")
    raw = Path(rows[0]["file"]).read_bytes()
    assert pprofcore.loads(gzip.compress(raw)) == pprofcore.loads(raw)


# ---------------------------------------------------------------- gperftools


@pytest.fixture(scope="module")
def gperftools_profiles(tmp_path_factory):
    """A C program built with -g and run under gperftools' CPU profiler and heap
    profiler (Debian's libgoogle-perftools-dev): {"cpu": path, "heap": [paths]}."""
    profiler, tcmalloc = LIBDIR / "libprofiler.so", LIBDIR / "libtcmalloc.so"
    cc = shutil.which("cc") or shutil.which("gcc")
    if not (profiler.exists() and tcmalloc.exists() and cc):
        pytest.skip("gperftools not installed (apt-get install libgoogle-perftools-dev) or no C compiler")
    d = tmp_path_factory.mktemp("gperftools")
    exe = d / "work"
    subprocess.run(
        [cc, "-g", "-O1", "-fno-omit-frame-pointer", "-o", str(exe), str(TESTS / "producers/gperftools/work.c")],
        check=True,
    )
    env = dict(os.environ, CPUPROFILE=str(d / "work.prof"), CPUPROFILE_FREQUENCY="500", LD_PRELOAD=str(profiler))
    subprocess.run([str(exe)], env=env, check=True, capture_output=True, timeout=120)
    env = dict(
        os.environ, HEAPPROFILE=str(d / "work"), HEAP_PROFILE_ALLOCATION_INTERVAL="65536", LD_PRELOAD=str(tcmalloc)
    )
    subprocess.run([str(exe)], env=env, check=True, capture_output=True, timeout=120)
    heaps = sorted(d.glob("work.*.heap"))
    assert (d / "work.prof").exists() and heaps, "gperftools wrote no profiles"
    return {"cpu": d / "work.prof", "heap": heaps}


def _rewrite_words(data: bytes, size: int, order: str) -> bytes:
    """A 64-bit little-endian gperftools CPU profile with its words rewritten in
    another size and byte order (32-bit words keep the low half of addresses)."""
    words, i = [], 0

    def word():
        nonlocal i
        w = int.from_bytes(data[i : i + 8], "little")
        i += 8
        return w

    header = [word() for _ in range(5)]
    words += header
    while i < len(data):
        count, depth = word(), word()
        pcs = [word() for _ in range(depth)]
        words += [count, depth, *pcs]
        if count == 0 and depth == 1 and pcs == [0]:
            break
    mask = (1 << (8 * size)) - 1
    return b"".join((w & mask).to_bytes(size, order) for w in words) + data[i:]


@requires_go
def test_gperftools_profiles_match_pprof(gperftools_profiles, tmp_path):
    paths = [gperftools_profiles["cpu"], *gperftools_profiles["heap"]]
    assert_same_as_pprof(paths, tmp_path)
    cpu = pprofcore.load(gperftools_profiles["cpu"])
    assert cpu.sample_types == [("samples", "count"), ("cpu", "nanoseconds")] and len(cpu.stack_offsets) > 1
    assert cpu.period_type == ("cpu", "nanoseconds") and cpu.period == 2_000_000  # CPUPROFILE_FREQUENCY=500
    assert any(cpu.strings[f].endswith("/work") for f in cpu.mappings.filename)  # the main binary's mapping


@requires_go
@pytest.mark.parametrize("size, order", [(4, "little"), (4, "big"), (8, "big")], ids=["32le", "32be", "64be"])
def test_gperftools_cpu_word_layouts_match_pprof(gperftools_profiles, size, order, tmp_path):
    data = _rewrite_words(gperftools_profiles["cpu"].read_bytes(), size, order)
    path = tmp_path / f"cpu-{size}{order}.prof"
    path.write_bytes(data)
    assert_same_as_pprof([path], tmp_path)


@settings(max_examples=150, deadline=None)
@given(
    cut=st.integers(min_value=0, max_value=4096),
    flip=st.integers(min_value=0, max_value=4095),
    byte=st.integers(min_value=0, max_value=255),
)
def test_damaged_cpu_profiles_load_or_raise(cut, flip, byte):
    """Truncated or corrupted binary CPU profiles never crash: a profile or a DecodeError."""
    words = [0, 3, 0, 10000, 0]
    for k in range(40):
        words += [k + 1, 3, 0x401000 + k, 0x402000 + k, 0x403000]
    words += [0, 1, 0]
    data = bytearray(b"".join(w.to_bytes(8, "little") for w in words) + b"00400000-00500000 r-xp 0 00:00 0 /bin/x\n")
    data[flip % len(data)] = byte
    try:
        pprofcore.loads(bytes(data[: cut % (len(data) + 1)]))._core.check_invariants()
    except DecodeError:
        pass


# ---------------------------------------------------------------- malformed text

MALFORMED = [  # (input, message fragment, field)
    (
        b"heap profile: 1: 2 [3: 4] @ heap/8192\n1: 2 [3: 4] @ 0x1\n1: 2 [3:\n",
        "legacy heap profile (text): expected",
        "line 3",
    ),
    (
        b"heap profile: 1: 2 [3: 4] @ heap/8192\n1: 99999999999999999999 [3: 4] @ 0x1\n",
        'bytes "99999999999999999999" out of range',
        "line 2",
    ),
    (b"heap profile: 1: 2 [3: 4] @ heap/8192\n0: 5 [0: 0] @ 0x1\n", "in-use count is 0 but its bytes are 5", "line 2"),
    (
        b"heap profile: 1: 2 [3: 4] @ heap/8192\n1: 2 [3: 4] @ 0x1 0x12345678901234567\n",
        "address 0x12345678901234567 does not fit in 64 bits",
        "line 2",
    ),
    (b"goroutine profile: total 2\n1 @ 0x10 0xzz\n", "Go goroutine profile (debug=1 text): bad hex address", "line 2"),
    (b"goroutine profile: total 2\n\n99999999999999999999 @ 0x1\n", "is not a number in range", "line 3"),
    (b"goroutine profile: total 2\n1 @\n", 'expected "<count> @ 0x<address> ..."', "line 2"),
    (b"--- mutex:\ncycles/second=fast\n", 'value of "cycles/second" is not a number in range', "line 2"),
    (
        b"--- mutex:\ncycles/second=1000\nsampling period=1\n12 @ 0x1\nabc\n",
        "legacy contention profile (text): expected",
        "line 5",
    ),
    (b"--- contention:\nbogus=1\n", 'unknown attribute "bogus"', "line 2"),
]


@requires_go
@pytest.mark.parametrize("data, fragment, field", MALFORMED, ids=[m[2] + ":" + m[1][:30] for m in MALFORMED])
def test_malformed_legacy_text(data, fragment, field, tmp_path):
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(data)
    e = info.value
    assert fragment in e.reason and e.field == field
    line = int(field.split()[1])
    assert e.offset == len(b"".join(data.split(b"\n")[: line - 1])) + line - 1  # the line's first byte
    # pprof refuses every one of them too.
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    assert rawdumps([path])[str(path)].startswith("ERROR")


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b"heap profile: 1: 2 [3:] @ heap/2\n", "legacy heap profile (text)"),  # header values missing
        (
            b"\0" * 4 + b"\3\0\0\0" + b"\0" * 4 + b"\x10\0\0\0\0\0\0\0" + b"\5\0\0\0\7\0\0\0",
            "legacy gperftools CPU profile (binary) with 32-bit words: record of 7 frames runs past the end",
        ),
    ],
)
def test_unrecognised_or_truncated_legacy(data, fragment):
    with pytest.raises(DecodeError, match=re.escape(fragment)):
        pprofcore.loads(data)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "1: 2 [3: 4] @ 0x1 0x2",
                "0: 0 [0: 0] @",
                "-1: -9223372036854775808 [1: 1] @ 0x0",
                "# comment",
                "",
                "MAPPED_LIBRARIES:",
                "00400000-00500000 r-xp 00000000 00:00 0 /bin/x",
                "1: 2 [",
                "@ 0x",
                "x=y",
                "  12 34 @ 0xffffffffffffffff",
                "--- x",
                "7 @ 0x1",
                "--- Thread 1 (name: a/b/2) stack: ---",
                "[same as previous thread]",
                "0x1 f (F.java:3)",
                "0x2 g (/a/b)",
                "resolution = bytes",
                "---- no stack trace for x",
                "  100 2 @ 0x1 0x2",
                "00400000-00500000: /bin/y",
                "  t*: 1: 4096 [2: 8192]",
                "  t3: 1: 4096 [0: 0] name",
                "@ 0x401001 0x402002",
            ]
        ),
        min_size=0,
        max_size=12,
    ),
    st.sampled_from(
        [
            "heap profile: 1: 2 [3: 4] @ heap/1048576",
            "heap profile: 1: 2 [1: 2] @ heapprofile",
            "goroutine profile: total 1",
            "--- mutex:",
            "--- contention:",
            "heap profile: 1: 1 [1: 1] @ growthz",
            "--- threadz 1 ---",
            "--- Thread 7f (name: m/1) stack: ---",
            "--- heapz 1 ---\nformat = java",
            "--- contentionz 1 ---\nformat = java\nresolution = ms",
            "--- Memory map: ---",
            "heap_v2/524288",
        ]
    ),
)
def test_legacy_text_never_crashes(lines, header):
    """Any mix of sample, comment and map lines under any header: a valid profile or a DecodeError."""
    try:
        p = pprofcore.loads("\n".join([header, *lines]).encode())
    except DecodeError as e:
        assert e.field.startswith("line ") or "legacy" in e.reason or "looks like" in e.reason
    else:
        p._core.check_invariants()


# ---------------------------------------------------------------- hand-written shapes
# Formats no producer here writes (Google's C++ threadz, pprof's Java formats),
# in the shapes of pprof's own test data, compared with pprof like the rest.

_JAVA_FRAMES = (
    "0x00000003 com.example.Main.run (Main.java:12)\n"
    "0x00000004 com.example.Main.main (/src/com/example/Main.java)\n"
    "0x00000005 generated stub/JIT\n"
    "0x00000006 Thread.sleep\n"
)
_WORDS = [0, 3, 1, 10000, 0, 7, 3, 3, 4, 5, 2, 2, 6, 4, 0, 1, 0]
HAND_WRITTEN = {
    "java-heap": (
        "--- heapz 1 ---\nformat = java\nresolution = bytes\n"
        "  7048  1 @ 0x00000003 0x00000004\n  4752  9 @ 0x00000005 0x00000004\n" + _JAVA_FRAMES
    ).encode(),
    "java-contention": (
        "--- contentionz 1 ---\nformat = java\nresolution = microseconds\nsampling period = 100\n"
        "ms since reset = 6019923\n  1  1 @ 0x00000003 0x00000004\n  14  2 @ 0x00000006 0x00000004\n" + _JAVA_FRAMES
    ).encode(),
    "java-cpu-32le": b"".join(w.to_bytes(4, "little") for w in _WORDS) + _JAVA_FRAMES.encode(),
    "threadz": (
        b"--- threadz 1 ---\n\n--- Thread 7f79 (name: main/14748) stack: ---\n  PC:  0x00bc8f1c: helper(arg *)\n"
        b"  0x0040be31: main\n--- Thread 7f80 (name: w/1/14751) stack: ---\n  PC: 0xbc8f1c 0xbc8f1b 0x40be31\n"
        b"--- Thread 7f81 (name: w/14752) stack: ---\n  [same as previous thread]\n--- Memory map: ---\n"
        b"  00400000-00fcb000: /srv/server_main\n  7f794964f000-7f7949652000: /lib/libc-2.15.so\n"
    ),
    "contentionz-cpp": (
        b"--- contentionz 1 ---\ncycles/second = 2000000000\nsampling period = 10\n"
        b"  200 3 @ 0x401001 0x402002\n--- Memory map: ---\n00400000-00500000 r-xp 0 00:00 0 /bin/srv\n"
    ),
    "growthz": b"heap profile: 2: 4096 [ 2: 4096] @ growthz\n 1: 2048 [ 1: 2048] @ 0x401001 0x402002\n",
}


def _cpu(*leaves: int) -> bytes:
    """A 64-bit gperftools CPU profile with one-frame samples and a memory map whose
    second mapping was listed without its first piece (offset 0x1000)."""
    words = [0, 3, 0, 10000, 0]
    for a in leaves:
        words += [1, 1, a]
    words += [0, 1, 0]
    maps = (
        b"00400000-00500000 r-xp 00000000 08:01 1 /srv/main\n"
        b"7f0000001000-7f0000002000 r-xp 00001000 08:01 2 /lib/libx.so.1\n"
        b"7f0000003000-7f0000004000 r--p 00000000 08:01 2 /lib/libx.so.1\n"
    )
    return b"".join(w.to_bytes(8, "little") for w in words) + maps


# pprof's mapping rules in order: the first mapping holding the address, then
# (only while no placeholder exists) the repair that extends a mapping down by its
# offset, then the placeholder mapping, which from then on holds every address.
HAND_WRITTEN["cpu-mapping-repair-first"] = _cpu(0x401000, 0x7F0000000500, 0x12345, 0x7F0000000600)
HAND_WRITTEN["cpu-placeholder-first"] = _cpu(0x12345, 0x7F0000000500, 0x401000)


@requires_go
def test_hand_written_legacy_shapes_match_pprof(tmp_path):
    paths = []
    for name, data in HAND_WRITTEN.items():
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(path)
    assert_same_as_pprof(paths, tmp_path)
    heap = pprofcore.loads(HAND_WRITTEN["java-heap"])
    names = {heap.strings[c] for c in heap.functions.name}
    assert {"com.example.Main.run", "com.example.Main.main", "STUB"} <= names


# Inputs that once made a reader loop forever or go quadratic: each must end
# (a Profile or a DecodeError), and pprof refuses the ones pprofcore refuses.
PATHOLOGICAL = {
    "thread-header-at-eof": b"--- Thread 1 (name: x/1) stack: ---\n  0x1 0x2\n--- Thread 2 (name: x/1) stack: ---\n",
    "thread-header-only": b"--- Thread 1 (name: x/1) stack: ---",
    "thread-headers-one-line": b"--- Thread 1 (name: x/1) stack: ---" * 20000 + b"\n",
    "thread-openings": b"--- threadz 1 ---\n" + b"--- Thread 1 (name: " * 100000 + b"\n",
    "java-parens": b"--- heapz 1 ---\nformat = java\nresolution = bytes\n 1 1 @ 0x3\n0x3 f" + b" (a" * 100000 + b")\n",
    "java-colons": b"--- heapz 1 ---\nformat = java\nresolution = bytes\n 1 1 @ 0x3\n0x3 f"
    + b" (a:" * 100000
    + b"1)\n",
}


@requires_go
def test_pathological_legacy_inputs_end(tmp_path):
    paths = {}
    for name, data in PATHOLOGICAL.items():
        paths[name] = tmp_path / name
        paths[name].write_bytes(data)
    dumps = rawdumps(list(paths.values()))
    for name, data in PATHOLOGICAL.items():
        try:
            pprofcore.loads(data)._core.check_invariants()
        except DecodeError:
            assert dumps[str(paths[name])].startswith("ERROR"), f"{name}: pprof reads it, pprofcore refuses"
        else:
            assert not dumps[str(paths[name])].startswith("ERROR"), f"{name}: pprof refuses it, pprofcore reads it"


def _random_legacy_text(rnd) -> bytes:
    """A random profile in one of the text grammars, with random values (incl.
    sizes where unsampling rounds), stacks, comments and memory maps."""
    addrs = [rnd.choice([0x400000, 0x7F0000000000, 0x1000]) + rnd.randrange(0, 0x20000) for _ in range(12)]
    stack = lambda: " ".join(hex(rnd.choice(addrs)) for _ in range(rnd.randint(1, 6)))
    kind = rnd.choice(["heap", "heapv2", "heapprofile", "growthz", "contention", "mutex", "count"])
    lines = []
    if kind.startswith("heap") or kind == "growthz":
        rate = rnd.choice([1, 2, 4096, 524288, 1048576])
        tail = {
            "heap": f"heap/{rate}",
            "heapv2": f"heap_v2/{rate}",
            "heapprofile": "heapprofile",
            "growthz": "growthz",
        }[kind]
        a, b = rnd.randint(0, 50), rnd.randint(0, 10**7)
        same = rnd.random() < 0.3
        lines.append(f"heap profile: {a}: {b} [{a if same else a + 3}: {b if same else b * 2}] @ {tail}")
        for _ in range(rnd.randint(0, 8)):
            c1, c2 = rnd.randint(0, 40), rnd.randint(0, 40)
            s1 = c1 * rnd.choice([1, 16, 1000, 77777, 1 << 20]) if c1 else 0
            s2 = c2 * rnd.choice([8, 4096, 123457]) if c2 else 0
            lines.append(f"{c1}: {s1} [{c2}: {s2}] @ {stack()}")
            if rnd.random() < 0.5:
                lines.append("#\t0x401000\tmain.f+0x10\t/src/m.go:3")
    elif kind in ("contention", "mutex"):
        lines.append(f"--- {kind}:")
        lines.append(f"cycles/second={rnd.choice([1000000000, 2494226000, 3000000001])}")
        if kind == "mutex" or rnd.random() < 0.5:
            lines.append(f"sampling period={rnd.choice([0, 1, 5, 100])}")
        for _ in range(rnd.randint(0, 8)):
            lines.append(f"{rnd.randint(0, 10**12)} {rnd.randint(0, 1000)} @ {stack()}")
    else:
        name = rnd.choice(["goroutine", "threadcreate", "my/custom.profile"])
        n = rnd.randint(0, 6)
        lines.append(f"{name} profile: total {n}")
        for _ in range(n):
            lines.append(f"{rnd.randint(1, 9)} @ {stack()}")
            lines.append("#\t0x401000\tmain.f+0x10\t/src/m.go:3")
            lines.append("")
    if rnd.random() < 0.5:
        lines.append(rnd.choice(["--- Memory map: ---", "MAPPED_LIBRARIES:"]))
        lines.append("00400000-00420000 r-xp 00000000 08:01 11 /srv/main")
        lines.append("7f0000000000-7f0000010000 r-xp 00001000 08:01 12 /lib/libc.so.6")
        lines.append("7f0000010000-7f0000020000 r-xp 00011000 08:01 12 /lib/libc.so.6")
        lines.append("7f0000020000-7f0000030000 rw-p 00000000 00:00 0")
    return ("\n".join(lines) + "\n").encode()


@requires_go
def test_random_legacy_text_matches_pprof(tmp_path):
    """Differential: 300 random texts in every text grammar, each read by pprof
    and by pprofcore (same verdict; same dump when pprof reads it)."""
    import random

    rnd = random.Random(15)
    paths, datas = [], []
    for i in range(300):
        data = _random_legacy_text(rnd)
        path = tmp_path / f"random-{i}.txt"
        path.write_bytes(data)
        paths.append(path)
        datas.append(data)
    theirs = rawdumps(paths)
    ours = {}
    for path, data in zip(paths, datas):
        try:
            p = pprofcore.loads(data)
        except DecodeError as e:
            assert theirs[str(path)].startswith("ERROR"), f"{path.name}: pprof reads it, pprofcore says {e}"
            continue
        assert not theirs[str(path)].startswith("ERROR"), f"{path.name}: pprof refuses it: {theirs[str(path)]}"
        out = path.with_suffix(".pb")
        out.write_bytes(p.to_bytes())
        ours[str(path)] = out
    dumps = rawdumps(list(ours.values()))
    for orig, out in ours.items():
        want, got = ZERO_BYTES_LABEL.sub("", theirs[orig]), dumps[str(out)]
        if want != got:
            diff = "".join(
                list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "pprof", "pprofcore"))[:40]
            )
            pytest.fail(f"{orig}:\n{Path(orig).read_text()[:600]}\n{diff}")


def _random_cpu_profile(rnd) -> bytes:
    """A random gperftools CPU profile: any word layout, stacks that often share
    a signal-handler-like second frame or repeat the leaf, a random memory map."""
    size, order = rnd.choice([(4, "little"), (4, "big"), (8, "little"), (8, "big")])
    base = 0x400000 if size == 4 else rnd.choice([0x400000, 0x7F0000000000])
    pcs = [base + rnd.randrange(0, 0x8000) for _ in range(10)]
    handler = base + 0x9000
    words = [0, 3, 0, rnd.choice([1, 100, 10000]), 0]
    for _ in range(rnd.randint(0, 40)):
        stack = [rnd.choice(pcs) for _ in range(rnd.randint(1, 6))]
        if rnd.random() < 0.8 and len(stack) > 1:
            stack[1] = handler
        if rnd.random() < 0.2:
            stack.insert(1, stack[0] + 1)  # the unwinder's copy of the leaf, plus one
        words += [rnd.randint(1, 1000), len(stack), *stack]
    words += [0, 1, 0]
    mask = (1 << (8 * size)) - 1
    data = b"".join((w & mask).to_bytes(size, order) for w in words)
    if rnd.random() < 0.7:
        data += (
            f"{base:08x}-{base + 0x6000:08x} r-xp 00000000 08:01 1 /srv/main\n"
            f"{base + 0x6000:08x}-{base + 0x10000:08x} r-xp 00006000 08:01 1 /srv/main\n"
            f"{base + 0x20000:08x}-{base + 0x30000:08x} r--p 00000000 08:01 2 /lib/x.so\n"
        ).encode()
    return data


@requires_go
def test_random_cpu_profiles_match_pprof(tmp_path):
    """Differential: 200 random binary CPU profiles (all word layouts) read by pprof and pprofcore."""
    import random

    rnd = random.Random(2)
    paths = []
    for i in range(200):
        path = tmp_path / f"cpu-{i}.prof"
        path.write_bytes(_random_cpu_profile(rnd))
        paths.append(path)
    assert_same_as_pprof(paths, tmp_path)
