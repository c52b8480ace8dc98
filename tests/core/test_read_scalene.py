"""Scalene's JSON read by `load`: a real `scalene run` of a program (where
Scalene is installed) gives its stacks with their sample counts and Python
and native times, and its memory stacks; a small file exactly, including a
file name with a space and an older release's bare counts; bad documents
refused naming the place."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from stack_values import stacks_by_name
from testenv import DATA

import pprofcore
from pprofcore import DecodeError

SMALL = DATA / "producers" / "small.scalene.json"

WORK = """
import time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def alloc():
    return [list(range(1000)) for _ in range(2000)]
def main():
    t = time.time()
    while time.time() - t < 1.5:
        leaf(200000)
        alloc()
main()
"""


def test_small_file_exactly():
    p = pprofcore.load(SMALL)
    assert p.sample_types == [
        ("samples", "count"),
        ("cpu", "nanoseconds"),
        ("python_cpu", "nanoseconds"),
        ("native_cpu", "nanoseconds"),
        ("alloc_space", "bytes"),
    ]
    assert p.default_sample_type == "cpu"
    assert stacks_by_name(p, "cpu") == {
        ("price", "handle", "<module>"): 600_000_000,
        ("handle", "<module>"): 100_000_000,
        ("dumps", "<module>"): 0,
        ("load_catalog", "<module>"): 0,
    }
    assert stacks_by_name(p, "native_cpu")[("price", "handle", "<module>")] == 250_000_000
    assert stacks_by_name(p, "samples")[("dumps", "<module>")] == 4  # an older release's bare count
    assert p.total("alloc_space") == round(24.5 * 2**20)
    s = p.strings
    files = {(s[n], s[f]) for n, f in zip(p.functions.name, p.functions.filename)}
    assert ("dumps", "/srv/my app/json.py") in files and ("price", "/srv/pricing.py") in files
    assert p.duration_nanos == 1_500_000_000 and p.time_nanos == 1_795_927_875_500_000_000


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda d: d["stacks"][0][0].__setitem__(1, "handle"), r"stacks\[0\]\[0\]\[1\] = 'handle' is not a frame"),
        (lambda d: d["stacks"][1][1].__setitem__("python_time", -1), r"stacks\[1\]\.python_time = -1"),
        (lambda d: d["stacks"].__setitem__(0, {"a": 1}), r"stacks\[0\] is not a \[frames, stats\] pair"),
        (lambda d: d["memory_stacks"][0].__setitem__(1, "lots"), r"memory_stacks\[0\]\[1\] = 'lots'"),
        (lambda d: d.__setitem__("stacks", 7), "'stacks' and 'memory_stacks' must be lists"),
    ],
)
def test_bad_documents_name_the_place(change, says, tmp_path):
    doc = json.loads(SMALL.read_text())
    change(doc)
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(DecodeError, match="Scalene JSON") as e:
        pprofcore.load(path)
    assert e.match(says)


def test_real_scalene_run(tmp_path):
    if importlib.util.find_spec("scalene") is None:
        pytest.skip("needs Scalene (pip install scalene)")
    (tmp_path / "work.py").write_text(WORK)
    out = tmp_path / "profile.json"
    r = subprocess.run(
        [sys.executable, "-m", "scalene", "run", "-o", str(out), "work.py"],
        cwd=tmp_path,
        capture_output=True,
        timeout=180,
    )
    if r.returncode != 0 or not out.exists():
        pytest.skip(f"scalene could not profile here: {r.stderr.decode()[-300:]}")
    doc = json.loads(out.read_text())
    if not doc.get("stacks"):
        pytest.skip("this Scalene release writes no stacks")
    p = pprofcore.load(out)
    python = sum(st["python_time"] for _, st in doc["stacks"])
    native = sum(st["c_time"] for _, st in doc["stacks"])
    assert abs(p.total("python_cpu") - python * 1e9) <= len(doc["stacks"])
    assert abs(p.total("native_cpu") - native * 1e9) <= len(doc["stacks"])
    assert p.total("samples") == sum(st["count"] for _, st in doc["stacks"])
    leaves = {k[0] for k, v in stacks_by_name(p, "cpu").items() if v}
    assert leaves & {"leaf", "alloc.<locals>.<listcomp>", "alloc"}, leaves
    if doc.get("memory_stacks"):
        mb = sum(v for _, v in doc["memory_stacks"])
        assert abs(p.total("alloc_space") - mb * 2**20) <= len(doc["memory_stacks"])
