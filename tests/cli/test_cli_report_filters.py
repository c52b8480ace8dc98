"""The report subcommands accept pprof's filter flags (shared with `pprofcore filter`)."""

from __future__ import annotations

import json
import subprocess
import sys

from testenv import pprofcore_env, requires_go

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


# -------------------------------------------------- samples with empty stacks
# Go's threadcreate profile is one sample of count N with no stack. pprof's name
# filter runs on every report, with or without expressions, and drops such
# samples after the report's total is taken: they leave -raw, -traces and
# -proto, count in -top's total, and leave it with -relative_percentages.
EMPTY_STACK_LINES = [
    ["-raw"],
    ["-traces"],
    ["-top"],
    ["-top", "-relative_percentages"],
    ["-top", "-tagfocus=tenant=t0"],
    ["-top", "-tagfocus=tenant=nobody"],
    ["-top", "-focus=main", "-relative_percentages"],
    ["-tags"],
    ["-tree"],
]


def _empty_stack_profile() -> bytes:
    """main -> work (3 samples, one labelled tenant=t0) and a sample of 4 with no stack."""
    import wirebuild as wb

    strings = ["", "main", "work", "/src/main.go", "/bin/app", "threadcreate", "count", "tenant", "t0"]
    return wb.profile(
        sample_types=[wb.value_type(5, 6)],
        samples=[wb.sample([2, 1], [3], [wb.label(7, 8)]), wb.sample([], [4]), wb.sample([1], [1])],
        mappings=[wb.mapping(1, 0x1000, 0x2000, 0, 4, 0, True, True, True, False)],
        locations=[wb.location(1, 1, 0x1010, [wb.line(1, 10)]), wb.location(2, 1, 0x1020, [wb.line(2, 20)])],
        functions=[wb.function(1, 1, 1, 3, 0), wb.function(2, 2, 2, 3, 0)],
        period_type=wb.value_type(5, 6),
        period=1,
        strings=strings,
    )


@requires_go
def test_samples_with_empty_stacks_leave_reports_as_pprofs(pprof, tmp_path):
    from cli_run import run_cli

    path = tmp_path / "threadcreate.pb"
    path.write_bytes(_empty_stack_profile())
    bad = []
    for flags in EMPTY_STACK_LINES:
        want, err = pprof.run(*flags, str(path))
        rc, out, stderr = run_cli(*flags, str(path))
        if flags == ["-tags"]:  # Debian's pprof words -tags its 2021 way: compare what is shown
            assert "tenant" in out.decode() and "tenant" in want
            continue
        if err is not None or rc != 0 or out.decode() != want:
            bad.append((flags, err, stderr[:200], out.decode(), want))
    assert not bad, bad
    # what -proto writes has no empty stack left either
    written = tmp_path / "written.pb.gz"
    assert run_cli("-proto", f"-output={written}", str(path))[0] == 0
    assert len(pprofcore.load(written)) == 2


def test_a_report_of_a_profile_without_labels_prints_nothing_for_tags(tmp_path):
    from cli_run import run_cli

    path = tmp_path / "threadcreate.pb"
    path.write_bytes(_empty_stack_profile())
    q = pprofcore.load(path).filter(ignore="work")  # the labelled sample goes, the rest has no labels
    written = tmp_path / "nolabels.pb.gz"
    q.save(written)
    assert run_cli("-tags", str(written)) == (0, b"", "")
