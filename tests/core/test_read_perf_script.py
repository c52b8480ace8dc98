"""`perf script` text read by `load` (issue 32, item 3), raw and gzip. Where
`perf record` is permitted the input is real and perf's own text is the
oracle (events and periods counted line by line); a hand-written file pins
frames, mappings and labels exactly. perf.data itself reads as its `perf
script` text does (load runs perf script)."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import sys

import pytest
from testenv import DATA as DATA_ROOT

import pprofcore
from pprofcore import DecodeError

DATA = DATA_ROOT / "producers"
WORK = "import time\nt = time.time()\nwhile time.time() - t < 0.3: sum(i * i for i in range(1000))\n"


def _run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """perf script text of `perf record -g` (callchains) and of plain `perf record`."""
    if not shutil.which("perf"):
        pytest.skip("perf is not installed (Debian package linux-perf)")
    tmp = tmp_path_factory.mktemp("perf")
    out = {}
    for name, flags in (("g", ["-g"]), ("flat", [])):
        data = tmp / f"{name}.data"
        r = _run(["perf", "record", "-q", *flags, "-o", str(data), "--", sys.executable, "-c", WORK], tmp)
        if r.returncode != 0:
            pytest.skip(f"perf record is not permitted here: {r.stderr.decode()[-200:]}")
        text = _run(["perf", "script", "-i", str(data)], tmp).stdout
        out[name] = tmp / f"{name}.txt"
        out[name].write_bytes(text)
        out[name + ".data"] = data
    return out


_EVENT = re.compile(rb"^\s*\S.*?\s+\d+\s+\d+\.\d+:\s+(\d+)\s+cpu-clock", re.M)


@pytest.mark.parametrize("kind", ["g", "flat"])
def test_real_perf_totals(recorded, kind):
    text = recorded[kind].read_bytes()
    periods = [int(x) for x in _EVENT.findall(text)]
    assert periods, text[:300]
    p = pprofcore.load(recorded[kind])
    assert p.sample_types == [("samples", "count"), ("cpu-clock", "nanoseconds")]
    assert p.total("samples") == len(periods)
    assert p.total("cpu-clock") == sum(periods)
    df = p.to_pandas("samples")
    assert (df["comm"].str.startswith("python")).mean() > 0.5
    assert df["timestamp_ns"].is_monotonic_increasing
    # The main binary is the first mapping, the one reports name on their File: line.
    assert "python" in p.strings[p.mappings["filename"][0]].rsplit("/", 1)[-1]  # python3.11 or libpython3.11.so


def test_real_perf_callchains_reach_the_interpreter(recorded):
    p = pprofcore.load(recorded["g"])
    depth = p.to_pandas("samples")["depth"]
    assert depth.max() > 3
    names = set(p.top(nodefraction=0).to_pandas()["name"])
    assert any(n.startswith(("_Py", "Py")) for n in names), sorted(names)[:20]


def test_small_file_exactly(tmp_path):
    p = pprofcore.load(DATA / "small.perf.txt")
    assert sorted(p.to_folded().splitlines()) == [
        "__libc_start_main;main;work 500000",
        "helper;<unknown>;do_syscall_64 250000",
    ]
    df = p.to_pandas("samples")
    assert list(df["pid"]) == [100, 100, 100] and list(df["tid"]) == [101, 101, 102]
    assert list(df["cpu"]) == [2, 2, 3]
    assert list(df["timestamp_ns"]) == [5000000100000, 5000000350000, 5000000600000]
    assert sorted(p.strings[i] for i in p.mappings["filename"]) == [
        "/usr/bin/app",
        "/usr/lib/libc.so.6",
        "[kernel.kallsyms]",
    ]
    assert p.strings[p.mappings["filename"][0]] == "/usr/bin/app"  # the command's binary comes first
    gz = tmp_path / "perf.txt.gz"
    gz.write_bytes(gzip.compress((DATA / "small.perf.txt").read_bytes()))
    assert pprofcore.load(gz).total() == p.total()


def test_several_events_give_several_types():
    text = (
        b"app 7 1.000000: 1000 cycles:u: \n\t401000 f+0x0 (/a)\n\n"
        b"app 7 1.000001: 3 instructions:u: \n\t401000 f+0x0 (/a)\n\n"
        b"app 7 1.000002: 1000 cycles:u: \n\t401004 g+0x4 (/a)\n\n"
    )
    p = pprofcore.loads(text)
    assert p.sample_types == [("samples", "count"), ("cycles", "count"), ("instructions", "count")]
    assert [p.total(i) for i in range(3)] == [3, 2000, 3]


def test_cli_top(capsys):
    from pprofcore.cli import main

    assert main(["-top", str(DATA / "small.perf.txt")]) == 0
    assert "do_syscall_64" in capsys.readouterr().out


def test_bad_frame_line_is_named():
    good = (DATA / "small.perf.txt").read_bytes()
    bad = good.replace(b"\t    401b00 main+0x20 (/usr/bin/app)\n", b"\tthis is not a frame\n", 1)
    with pytest.raises(DecodeError, match=r"perf script at line 3: expected a frame"):
        pprofcore.loads(bad)


@pytest.mark.parametrize("kind", ["g", "flat"])
def test_perf_data_reads_as_its_perf_script_text(recorded, kind, tmp_path):
    data = recorded[kind + ".data"]
    want = pprofcore.load(recorded[kind])
    for got in (pprofcore.load(data), pprofcore.loads(data.read_bytes())):
        assert got.sample_types == want.sample_types
        assert got.to_folded() == want.to_folded()
        assert got.total("samples") == want.total("samples")
    gz = tmp_path / "perf.data.gz"
    gz.write_bytes(gzip.compress(data.read_bytes()))
    assert pprofcore.load(gz).to_folded() == want.to_folded()


def test_damaged_perf_data_names_perf_script(recorded):
    data = recorded["g.data"].read_bytes()
    with pytest.raises(DecodeError, match="perf.data.*`perf script` could not read the recording"):
        pprofcore.loads(data[:200])
