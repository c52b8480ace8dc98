"""The report subcommands accept pprof's filter flags (shared with `pprofcore filter`)."""

from __future__ import annotations

import json
import subprocess
import sys

from testenv import pprofcore_env

import pprofcore

CPU = pprofcore.example_path("cpu")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pprofcore", *args], capture_output=True, text=True, timeout=120, env=pprofcore_env()
    )


def top_json(*args: str) -> dict:
    r = run("top", "--format", "json", *args, CPU)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_top_focus_matches_the_python_api():
    p = pprofcore.load(CPU).remove_uninteresting().filter(focus="sort")
    out = top_json("--focus", "sort", "--sample-index", "cpu")
    expected = p.top(sample_type="cpu")
    assert [r["name"] for r in out["rows"]] == list(expected["name"])
    assert sum(r["flat"] for r in out["rows"]) == p.total("cpu")


def test_tagfocus_matching_nothing_warns_and_reports_nothing():
    r = run("top", "--tagfocus", "endpoint=no-such-endpoint", CPU)
    assert r.returncode == 0
    assert "matched no samples" in r.stderr
    out = top_json("--tagfocus", "endpoint=no-such-endpoint")
    assert out["rows"] == []


def test_folded_and_traces_take_filters():
    everything = run("folded", CPU).stdout.splitlines()
    hidden = run("folded", "--hide", "runtime\\.", CPU).stdout.splitlines()
    assert hidden and len(hidden) < len(everything)
    assert not any("runtime." in line.rsplit(" ", 1)[0] for line in hidden)
    r = run("traces", "--ignore", ".*", CPU)
    assert r.returncode == 0 and "matched no samples" not in r.stderr
