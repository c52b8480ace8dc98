"""Shared fixtures: the corpus, the Go oracles (`go tool pprof`, helpers built
against google/pprof's `profile` package) and small hand-made profiles."""

from __future__ import annotations

import csv
import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CORPUS = Path(os.environ.get("PPROFCORE_CORPUS", REPO.parent / "shared" / "corpus"))
GOREF = REPO / "tools" / "goref"
GOPATH = os.environ.get("PPROFCORE_GOPATH", "/usr/share/gocode")


@functools.lru_cache(maxsize=None)
def corpus_manifest() -> list:
    """Rows of the corpus MANIFEST.tsv ([] when the corpus is absent)."""
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    with open(manifest, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def corpus_files(pred=lambda row: True) -> list:
    """pytest params (id = corpus path) of manifest rows matching `pred`."""
    rows = [r for r in corpus_manifest() if pred(r)]
    if not rows:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"corpus not found at {CORPUS}"), id="no-corpus")]
    return [pytest.param(r, id=r["file"]) for r in rows]


def parses_with_pprof(row) -> bool:
    return row["parses_with_google_pprof"] == "yes"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    if not (CORPUS / "MANIFEST.tsv").exists():
        pytest.skip(f"corpus not found at {CORPUS} (set PPROFCORE_CORPUS)")
    return CORPUS


def have_go() -> bool:
    return shutil.which("go") is not None and (Path(GOPATH) / "src/github.com/google/pprof/profile").is_dir()


requires_go = pytest.mark.skipif(not have_go(), reason="needs `go` and google/pprof sources (apt-get install golang-go golang-github-google-pprof-dev)")


@functools.lru_cache(maxsize=None)
def go_helper(name: str) -> str:
    """Builds tools/goref/<name>/main.go against google/pprof (GOPATH mode) and
    returns the binary's path. Cached per session and on disk."""
    src = GOREF / name
    out = GOREF / "bin" / name
    newest = max(p.stat().st_mtime for p in src.glob("*.go"))
    if not out.exists() or out.stat().st_mtime < newest:
        env = dict(os.environ, GOPATH=GOPATH, GO111MODULE="off")
        subprocess.run(["go", "build", "-o", str(out), "."], cwd=src, env=env, check=True)
    return str(out)


def go_pprof(*args: str, timeout: float = 300) -> str:
    """Runs `go tool pprof ARGS` and returns stdout (raises on failure)."""
    env = dict(os.environ, PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"), HOME=os.environ.get("HOME", "/tmp"))
    r = subprocess.run(["go", "tool", "pprof", *args], capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"go tool pprof {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout


def pprofcore_env() -> dict:
    """Environment for a subprocess that must import the same pprofcore as the
    tests (an installed wheel in CI, the in-tree dev build while developing)."""
    import pprofcore

    # absolute(), not resolve(): the sanitizer runs import a package of symlinks
    # whose _core is the sanitized build; resolving would leave it behind.
    here = str(Path(pprofcore.__file__).absolute().parent.parent)
    return dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))


@pytest.fixture(scope="session")
def pprof():
    """One long-lived google/pprof driver (tools/goref/pprofreport) shared by the
    report oracle tests; it resets pprof's flags on every request."""
    from pprof_oracle import PprofReporter

    reporter = PprofReporter()
    yield reporter
    reporter.close()

