"""The quick ``-top`` (``pprofcore/cli/quick_top.py``: no ``Profile``, no
NumPy) against the full path of ``top`` (``cli/top.py``, which go tool pprof
checks in the flag matrix): the same bytes on random valid profiles, on the
bundled examples and on corpus files, for the flags it takes; None (the full
path runs) for the rest. And what a start-up loads: ``pprofcore -top FILE``,
through ``python -m pprofcore`` and through the console script's function,
imports neither NumPy nor pandas, the views, the explorer, the fleet or the
``Profile`` class."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest
from cli_run import CPU, HEAP
from hypothesis import HealthCheck, given, settings
from pbprofile import valid_profiles
from testenv import CORPUS, REPO, pprofcore_env

from pprofcore import cli
from pprofcore.cli import quick_top

FLAGS = [
    [],
    ["--cum"],
    ["--nodecount", "5"],
    ["--granularity", "lines"],
    ["--granularity", "files", "--cum"],
    ["--granularity", "addresses", "--noinlines"],
    ["--granularity", "filefunctions", "--nodecount", "4"],
    ["--nodefraction", "0.05"],
    ["--edgefraction", "0.1", "--nodecount", "3"],
    ["--unit", "ms"],
    ["--trim=false"],
    ["--sample-index", "0"],
    ["--sample-index", "-1", "--cum"],
]
# Lines the quick path leaves to the full one.
NOT_QUICK = [
    ["--mean"],
    ["--sample-index", "no_such_type"],
    ["--focus", "main"],
    ["--tagfocus", "endpoint=/api/hash"],
    ["--divide_by", "3"],
    ["--compact_labels"],
    ["--format", "csv"],
    ["--base", HEAP],
    ["--symbolize", "local"],
    ["--output", "/dev/null"],
]


def quick_text(argv):
    """The quick path's stdout for ``top ARGV``, or None when it leaves the line to the full path."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = quick_top.run(list(argv))
    return None if status is None else out.getvalue()


def full_text(argv):
    """The full path's stdout for ``top ARGV`` (``cli/top.py``, never the quick one)."""
    out = io.StringIO()
    args = cli.build_parser("top").parse_args(["top", *argv])
    args.source_cache = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        cli._pprof_options.settle(args)
        assert args._run(args) == 0
    return out.getvalue()


@pytest.mark.parametrize("path", [CPU, HEAP], ids=["cpu", "heap"])
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "defaults")
def test_quick_top_is_the_full_top(path, flags):
    quick = quick_text([*flags, path])
    assert quick is not None, "the quick path refused a common command line"
    assert quick == full_text([*flags, path])


@pytest.mark.parametrize("flags", [["--sample-index", "inuse_space"], ["--sample-index", "alloc_objects", "--cum"]])
def test_sample_types_by_name(flags):
    quick = quick_text([*flags, HEAP])
    assert quick is not None and quick == full_text([*flags, HEAP])


@pytest.mark.parametrize("flags", NOT_QUICK, ids=lambda f: " ".join(f))
def test_other_command_lines_take_the_full_path(flags):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert quick_top.run([*flags, CPU]) is None
    assert out.getvalue() == ""


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(msg=valid_profiles())
def test_quick_top_matches_on_random_profiles(tmp_path_factory, msg):
    path = tmp_path_factory.mktemp("quick") / "p.pb"
    path.write_bytes(msg.SerializeToString())
    for flags in (["--nodecount", "3"], ["--sample-index", "0", "--cum"]):
        argv = [*flags, str(path)]
        quick = quick_text(argv)
        if quick is not None:  # else the full path answers (and words any error)
            assert quick == full_text(argv)


def test_quick_top_matches_on_corpus_files():
    files = sorted(p for p in CORPUS.glob("*/*") if p.is_file() and p.suffix not in (".md", ".tsv"))[::25]
    if not files:
        pytest.skip(f"no corpus at {CORPUS} (../shared/corpus)")
    quick_count = 0
    for path in files:
        for flags in ([], ["--granularity", "lines", "--cum"]):
            quick = quick_text([*flags, str(path)])
            if quick is not None:
                quick_count += 1
                assert quick == full_text([*flags, str(path)]), f"{path} {flags}"
    assert quick_count > len(files) // 2


FORBIDDEN = ("numpy", "pandas", "pprofcore.display", "pprofcore.web", "pprofcore.fleet", "pprofcore._profile")


def imported(*argv: str) -> set:
    """The modules ``python -X importtime ARGV`` imported (it must succeed)."""
    r = subprocess.run(
        [sys.executable, "-X", "importtime", *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(pprofcore_env(), PATH="/usr/bin:/bin"),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.startswith("File: basic\nType: cpu\n")
    return {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize(
    "how",
    [
        ["-m", "pprofcore", "-top", CPU],
        # what the console script `pprofcore` runs (pyproject: pprofcore.cli:main)
        ["-c", "import sys; from pprofcore.cli import main; sys.exit(main())", "-top", CPU],
    ],
    ids=["python -m pprofcore", "console script"],
)
def test_top_imports_only_what_it_needs(how):
    found = imported(*how)
    # importtime leaves out what importlib.import_module loads itself (the
    # subcommand modules), not what those import
    assert "pprofcore._report_text" in found
    loaded = sorted(m for m in found if m.startswith(FORBIDDEN))
    assert not loaded, f"pprofcore -top loaded {loaded}"


def test_the_full_path_still_loads_when_asked():
    found = imported("-m", "pprofcore", "-top", "-focus=main", CPU)
    assert {"numpy", "pprofcore._profile"} <= found
