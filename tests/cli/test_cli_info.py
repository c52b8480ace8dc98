"""`pprofcore info` (text and JSON, a bad file), `pprofcore demo` and a usage
error, run as `python -m pprofcore` in a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from testenv import pprofcore_env

import pprofcore

CPU = pprofcore.example_path("cpu")
HEAP = pprofcore.example_path("heap")


def _cli(*args):
    env = pprofcore_env()
    return subprocess.run(
        [sys.executable, "-m", "pprofcore", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_info_text():
    r = _cli("info", CPU)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{CPU}:")
    p = pprofcore.load(CPU)
    assert f"{len(p):,} samples" in r.stdout and f"{len(p.functions):,} functions" in r.stdout
    assert "cpu/nanoseconds" in r.stdout


def test_cli_info_json(tmp_path):
    r = _cli("info", "--format", "json", CPU, HEAP)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [d["file"] for d in out] == [CPU, HEAP]
    p = pprofcore.load(HEAP)
    assert out[1]["samples"] == len(p) and out[1]["functions"] == len(p.functions)
    assert out[1]["file_bytes"] == os.path.getsize(HEAP)


def test_cli_info_bad_file(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("goroutine profile: total 1\n1 @\n")  # a sample with no stack: pprof refuses it too
    r = _cli("info", CPU, str(bad))
    assert r.returncode == 2
    assert "Go goroutine profile" in r.stderr and str(bad) in r.stderr
    assert r.stdout.startswith(f"{CPU}:")  # the good file is still summarized
    r = _cli("info", str(tmp_path / "missing.pb"))
    assert r.returncode == 2 and "missing.pb" in r.stderr


def test_cli_demo():
    r = _cli("demo")
    assert r.returncode == 0, r.stderr
    assert "round trip equal: True" in r.stdout


def test_cli_usage_error():
    r = _cli()
    assert r.returncode == 2 and "usage" in r.stderr.lower()


def test_cli_info_names_other_profilers_files():
    """Files of other profilers are named by their producer, not guessed from
    sample types that happen to look like Go's (samples/count and
    cpu/nanoseconds)."""
    from testenv import DATA

    expected = {
        "small.firefox.json": "Firefox Profiler processed profile",
        "small.gecko.json": "Firefox Gecko profile",
        "small.dhat.json": "Valgrind DHAT heap profile",
        "small.massif.out": "Valgrind Massif heap snapshot",
        "small.callgrind.out": "Callgrind/Cachegrind profile",
        "small.heaptrack": "heaptrack heap profile",
        "small.scalene.json": "Scalene profile",
        "small.stackprof.dump": "stackprof profile (Ruby)",
        "small.stackprof.json": "stackprof profile (Ruby)",
        "small.sentry.json": "Sentry profile",
        "small.jfr": "Java Flight Recorder recording",
    }
    files = [str(DATA / "producers" / name) for name in expected]
    r = _cli("info", "--format", "json", *files)
    assert r.returncode == 0, r.stderr
    for name, got in zip(expected, json.loads(r.stdout)):
        producer = "; ".join(got["producer_hints"])
        assert producer.startswith(expected[name]), (name, producer)
        assert "Go runtime/pprof" not in producer, name
