"""End to end: a real Go benchmark (tests/data/gobench) run with
``go test -bench . -cpuprofile``, checked with assert_share (its numbers
against ``go tool pprof -top -cum``) and with the pprof_baseline fixture in a
pytester session: create the baseline, pass on a second run, fail naming the
function on a run with a regression (GOBENCH_SLOW_RENDER=8 makes ``render``
do eight times the work)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pprof_oracle import parse_top
from testenv import DATA, go_pprof

import pprofcore
from pprofcore.testing import assert_share

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.skipif(shutil.which("go") is None, reason="needs `go` (apt-get install golang-go)")


def run_benchmark(workdir: Path, out: Path, **env) -> Path:
    """``go test -bench . -cpuprofile OUT`` in a copy of tests/data/gobench
    (go test writes its test binary beside the profile, never into the repo).
    4000 iterations give some 400 samples whatever the machine's load (CPU
    time is sampled): with 1500 (about 150), two plain runs once differed by
    57% in a 25% stage, past the 50% threshold."""
    src = workdir / "gobench"
    if not src.exists():
        shutil.copytree(DATA / "gobench", src)
    full_env = dict(os.environ, GO111MODULE="on", GOFLAGS="", GOPROXY="off", GOTOOLCHAIN="local", **env)
    subprocess.run(
        ["go", "test", "-run", "^$", "-bench", ".", "-benchtime", "4000x", "-cpuprofile", str(out)],
        cwd=src,
        env=full_env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return out


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    """Profiles of three benchmark runs: two as is, one with the slow render."""
    d = tmp_path_factory.mktemp("gobench")
    return {
        "first": run_benchmark(d, d / "first.pb.gz"),
        "second": run_benchmark(d, d / "second.pb.gz"),
        "slow": run_benchmark(d, d / "slow.pb.gz", GOBENCH_SLOW_RENDER="8"),
    }


def test_shares_of_the_pipeline(bench):
    p = pprofcore.load(bench["first"])
    assert p.sample_types == [("samples", "count"), ("cpu", "nanoseconds")]
    assert len(p) > 50
    # The benchmark loop holds nearly everything; each stage holds a part.
    assert assert_share(p, r"gobench\.Handle$", min=0.7) <= 1
    for stage in ("parse", "checksum", "rank", "render"):
        assert_share(p, rf"gobench\.{stage}$", min=0.01, max=0.7)
    slow = pprofcore.load(bench["slow"])
    with pytest.raises(AssertionError, match=r"gobench\.render"):
        assert_share(slow, r"gobench\.render$", max=assert_share(p, r"gobench\.render$", max=1) + 0.1)


def test_shares_match_go_tool_pprof(bench):
    """assert_share of one function = its cum% in ``go tool pprof -top -cum``."""
    _, rows = parse_top(go_pprof("-top", "-cum", "-nodecount=0", str(bench["first"])))
    p = pprofcore.load(bench["first"])
    checked = 0
    for flat, flat_pct, _, cum, cum_pct, name in rows:
        name = re.sub(r" \((partial-)?inline\)$", "", name)
        if "gobench" not in name and checked > 8:
            continue
        share = assert_share(p, "^" + re.escape(name) + "$", max=1)
        assert share * 100 == pytest.approx(float(cum_pct.rstrip("%")), abs=0.006), name
        flat_share = assert_share(p, "^" + re.escape(name) + "$", max=1, cum=False)
        assert flat_share * 100 == pytest.approx(float(flat_pct.rstrip("%")), abs=0.006), name
        checked += 1
    assert checked > 8


BASELINE_TEST = """
    import os
    import pprofcore

    def test_handle(pprof_baseline):
        # runtime.asyncPreempt is where the Go scheduler's preemption signal
        # lands: its share follows the machine's load (22% to 34% between two
        # plain runs at load 15), not the code; hidden, its samples go to
        # their callers.
        p = pprofcore.load(os.environ["GOBENCH_PROFILE"]).hide(r"^runtime\\.")
        # cum shares of the functions holding >= 30% (render, about 47%, and
        # rank, 25-35%): with some 400 samples a small stage can move from 8%
        # to 15% between two plain runs, while these move by about 10% (one
        # standard deviation of rank's share). The slow render takes render to
        # about 82% (+75%).
        pprof_baseline(p, cum=True, rel=0.5, min_share=0.3)
"""


def test_baseline_catches_the_slow_render(bench, pytester, monkeypatch):
    pytester.makepyfile(test_gobench_baseline=BASELINE_TEST)
    monkeypatch.setenv("GOBENCH_PROFILE", str(bench["first"]))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(failed=1)  # no baseline yet
    pytester.runpytest("-p", "no:cacheprovider", "--pprof-update-baselines").assert_outcomes(passed=1)
    assert (pytester.path / "__pprof_baselines__" / "test_gobench_baseline" / "test_handle.pb.gz").exists()

    monkeypatch.setenv("GOBENCH_PROFILE", str(bench["second"]))
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)

    monkeypatch.setenv("GOBENCH_PROFILE", str(bench["slow"]))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*Profile regressed*", "*example.com/gobench.render *%*%*+*%*"])
