"""Text reports of the bundled examples (example-cpu.pb.gz, example-heap.pb.gz)
against golden files in tests/data/golden (pprof's testdata naming:
example-cpu.top.txt, ...), checked without Go.

The goldens of `top`, `top -cum`, `tree`, `peek` and `traces` are the bytes
`go tool pprof` prints (TZ=UTC); when Go is present a second test asks pprof
again, so a stale golden is caught. `tags` follows current upstream pprof's
format, not Debian's (docs/conformance.md), and `folded` is pprofcore's own
format: their goldens are pprofcore's output, checked against Debian's pprof
by content (`-tags` keys, values and totals; the stacks and sums of `-traces`).

After an intended change: python -m pytest tests/reports/test_text_goldens.py
--update-goldens, review `git diff tests/data/golden`, and run it again with Go."""

from __future__ import annotations

import os
import time

import pytest
from pprof_oracle import PprofReporter, assert_tags_match, folded_from_traces
from testenv import DATA, requires_go

import pprofcore
from pprofcore.cli import main as cli_main

EXAMPLES = {"cpu": "ns", "heap": "B"}  # example -> its default sample type's unit, as pprof's -unit spells it
# report -> pprof's flags (pprofcore's CLI takes the same spelling)
PPROF_TEXT = {
    "top": ["-top"],
    "top_cum": ["-top", "-cum"],
    "tree": ["-tree"],
    "peek": ["-peek=main\\."],
    "traces": ["-traces"],
}
OURS = {**PPROF_TEXT, "tags": ["-tags"], "folded": ["folded"]}
CASES = [(example, report) for example in EXAMPLES for report in OURS]


def _name(example, report):
    return f"example-{example}.{report}.txt"


@pytest.fixture
def utc(monkeypatch):
    """The reports' Time line in UTC, as the goldens have it."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _ours(capsys, example, report):
    capsys.readouterr()
    assert cli_main([*OURS[report], pprofcore.example_path(example)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("example,report", CASES, ids=[_name(*c) for c in CASES])
def test_report_matches_golden(check_golden, utc, capsys, example, report):
    check_golden(_name(example, report), _ours(capsys, example, report))


def _golden(example, report):
    with open(DATA / "golden" / _name(example, report), encoding="utf-8", newline="") as f:
        return f.read()


@pytest.fixture(scope="module")
def pprof_utc():
    """google/pprof's report driver running with TZ=UTC."""
    reporter = PprofReporter(env=dict(os.environ, TZ="UTC"))
    yield reporter
    reporter.close()


def _pprof(reporter, flags, example):
    # The driver keeps the last request's sort, granularity and unit: spell them out.
    sort = [] if "-cum" in flags else ["-flat"]
    unit = [] if any(f.startswith("-unit=") for f in flags) else ["-unit=minimum"]
    text, err = reporter.run(*flags, *sort, *unit, "-functions", pprofcore.example_path(example))
    assert err is None, err
    return text


PPROF_CASES = [(example, report) for example in EXAMPLES for report in PPROF_TEXT]


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize("example,report", PPROF_CASES, ids=[_name(*c) for c in PPROF_CASES])
def test_golden_is_what_pprof_prints(pprof_utc, example, report):
    assert _golden(example, report) == _pprof(pprof_utc, PPROF_TEXT[report], example), (
        f"{_name(example, report)} is not what go tool pprof prints now: regenerate it (see this file's docstring)"
    )


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize("example", EXAMPLES)
def test_tags_golden_agrees_with_pprof(pprof_utc, example):
    assert_tags_match(_golden(example, "tags"), _pprof(pprof_utc, ["-tags"], example))


@requires_go
@pytest.mark.oracle
@pytest.mark.parametrize("example", EXAMPLES)
def test_folded_golden_has_pprofs_stacks(pprof_utc, example):
    got: dict = {}
    for line in _golden(example, "folded").splitlines():
        stack, value = line.rsplit(" ", 1)
        got[stack] = got.get(stack, 0) + int(value)
    want = folded_from_traces(_pprof(pprof_utc, ["-traces", f"-unit={EXAMPLES[example]}"], example))
    assert got == want
