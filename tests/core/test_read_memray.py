"""memray captures (``memray run -o out.bin``) read by load through memray's
reader: a small program is recorded by the test, and every stack's values
at the high-water mark and leaked equal memray's own ``memray transform
csv`` of the same capture (and ``--leaks``); the peak total is memray's
peak memory. memray is in the ``test`` extra (Linux and macOS wheels)."""

from __future__ import annotations

import csv
import random
import subprocess
import sys
from collections import Counter

import pytest

import pprofcore
from pprofcore import DecodeError

memray = pytest.importorskip("memray")

PROGRAM = """
import threading

def leaf(n):
    return [bytearray(1000) for _ in range(n)]

def middle():
    return [leaf(20) for _ in range(50)]

def worker(out):
    out.append([bytes(3000) for _ in range(40)])

def main():
    kept = middle()
    tmp = [bytes(5000) for _ in range(100)]
    del tmp
    out = []
    t = threading.Thread(target=worker, args=(out,), name="worker")
    t.start()
    t.join()
    return kept, out

LEAK = main()
"""


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """The program recorded compressed (memray's default) and with --no-compress."""
    d = tmp_path_factory.mktemp("memray")
    (d / "app.py").write_text(PROGRAM)
    out = {}
    for name, flags in (("lz4", []), ("raw", ["--no-compress"])):
        path = d / f"{name}.bin"
        subprocess.run(
            [sys.executable, "-m", "memray", "run", "-q", *flags, "-o", str(path), "app.py"],
            cwd=d,
            check=True,
            capture_output=True,
        )
        out[name] = path
    return out


def _memray_csv(path, *flags):
    """memray's own table of a capture as folded lines per allocator and
    column: (allocator, "n" or "size") -> {root-first stack: value}."""
    out = path.with_suffix(".csv" if not flags else ".leaks.csv")
    subprocess.run(
        [sys.executable, "-m", "memray", "transform", "csv", "-f", *flags, "-o", str(out), str(path)],
        check=True,
        capture_output=True,
    )
    rows: dict = {}
    with open(out, newline="") as f:
        for r in csv.DictReader(f):
            frames = [frame.split(";")[0] for frame in r["stack_trace"].split("|")] if r["stack_trace"] else []
            stack = ";".join(reversed(frames))
            for column, field in (("n", "num_allocations"), ("size", "size")):
                table = rows.setdefault((r["allocator"].lower(), column), Counter())
                table[stack] += int(r[field])
    return rows


def _ours(p, objects, space):
    """The profile's values in the same form."""
    rows: dict = {}
    for allocator, part in p.split_by_label("allocator").items():
        for column, sample_type in (("n", objects), ("size", space)):
            table: Counter = Counter()
            for line in part.to_folded(sample_type=sample_type).splitlines():
                stack, value = line.rsplit(" ", 1)
                if int(value):
                    table[stack] += int(value)
            if table:
                rows[(allocator, column)] = table
    return rows


@pytest.mark.parametrize("kind", ["lz4", "raw"])
def test_values_equal_memrays_own_tables(captures, kind):
    path = captures[kind]
    p = pprofcore.load(path)
    assert p.sample_types == [
        ("inuse_objects", "count"),
        ("inuse_space", "bytes"),
        ("leaked_objects", "count"),
        ("leaked_space", "bytes"),
    ]
    assert p.default_sample_type == "inuse_space"
    assert _ours(p, "inuse_objects", "inuse_space") == _memray_csv(path)
    assert _ours(p, "leaked_objects", "leaked_space") == _memray_csv(path, "--leaks")
    meta = memray.FileReader(str(path)).metadata
    assert p.total("inuse_space") == meta.peak_memory
    assert p.time_nanos == round(meta.start_time.timestamp() * 1000) * 10**6  # memray keeps milliseconds


def test_threads_labels_and_names(captures):
    p = pprofcore.load(captures["lz4"])
    assert "worker" in set(p.to_pandas()["thread"])
    top = str(p.top(sample_type="leaked_space"))
    assert "leaf" in top and "<listcomp>" in top and "<unknown>" not in top
    assert any(c.startswith("memray capture of pid") for c in p.comments)


def test_damaged_captures_are_decode_errors(captures):
    """memray's reader raises on some damaged records (names that are not
    UTF-8) and crashes on others (SIGSEGV, abort); it runs in a child
    interpreter, so each is a DecodeError naming memray, and this process
    lives on."""
    data = captures["raw"].read_bytes()
    rng = random.Random(7)
    for _ in range(25):
        d = bytearray(data)
        for _ in range(8):
            d[rng.randrange(16, len(d))] = rng.randrange(256)
        try:
            pprofcore.loads(bytes(d))
        except DecodeError as e:
            assert "memray capture" in str(e)


def test_without_memray_the_package_is_named(captures, monkeypatch):
    monkeypatch.setitem(sys.modules, "memray", None)
    with pytest.raises(DecodeError, match="pip install memray"):
        pprofcore.load(captures["lz4"])


def test_a_reader_that_crashes_is_a_decode_error(captures, monkeypatch):
    """A crash of memray's reader (here an abort in the child) is reported,
    and this process is untouched."""
    from pprofcore import _from_memray

    monkeypatch.setattr(_from_memray, "_CHILD", "import os; os.abort()")
    with pytest.raises(DecodeError, match=r"memray's reader crashed \(signal 6\)"):
        pprofcore.load(captures["lz4"])
