"""What every test folder shares besides fixtures: where the repository, the
test data and the corpus are, the manifest rows of the shared and the local
corpus as pytest params, the Go oracles (`go tool pprof`, helpers built against
google/pprof's `profile` package), Go programs built and run by a test, and
the environment of a child process that must import the same pprofcore. Tests
import these names from here (conftest.py re-exports them for older code);
conftest.py keeps the fixtures and hooks."""

from __future__ import annotations

import csv
import fcntl
import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
DATA = TESTS / "data"
HELPERS = TESTS / "helpers"
CORPUS = Path(os.environ.get("PPROFCORE_CORPUS", REPO.parent / "shared" / "corpus"))
GOREF = REPO / "tools" / "goref"
GOPATH = os.environ.get("PPROFCORE_GOPATH", "/usr/share/gocode")


def _read_manifest(manifest: Path) -> list:
    with open(manifest, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@functools.lru_cache(maxsize=None)
def local_manifest() -> list:
    """Rows of the corpus the tests make themselves (tests/helpers/local_corpus.py): real Go
    profiles and hand-written ones, described by oracles. Their `file` is an
    absolute path, so `CORPUS / row["file"]` names them too. [] without Go."""
    import local_corpus

    manifest = local_corpus.build()
    return _read_manifest(manifest) if manifest else []


@functools.lru_cache(maxsize=None)
def corpus_manifest() -> list:
    """Rows of the shared corpus MANIFEST.tsv (when present) and of the local corpus."""
    manifest = CORPUS / "MANIFEST.tsv"
    shared = _read_manifest(manifest) if manifest.exists() else []
    return shared + local_manifest()


def corpus_files(pred=lambda row: True) -> list:
    """pytest params (id = corpus path, `local/...` for the local corpus) of manifest rows matching `pred`."""
    rows = [r for r in corpus_manifest() if pred(r)]
    if not rows:
        return [
            pytest.param(
                None,
                marks=pytest.mark.skip(reason=f"corpus not found at {CORPUS} and no local corpus (needs Go)"),
                id="no-corpus",
            )
        ]
    return [pytest.param(r, id=r.get("id") or r["file"]) for r in rows]


def corpus_glob(pattern: str) -> list:
    """Sorted paths matching `pattern` in the shared corpus, else in the local one."""
    import local_corpus

    shared = sorted(str(p) for p in CORPUS.glob(pattern))
    if shared:
        return shared
    local_manifest()
    return sorted(str(p) for p in (local_corpus.ROOT / "files").glob(pattern))


def parses_with_pprof(row) -> bool:
    return row["parses_with_google_pprof"] == "yes"


def legacy_read_by_pprofcore(row) -> bool:
    """A legacy corpus file google/pprof parses: pprofcore reads every legacy
    format pprof's parsers read (tests/core/test_legacy.py compares the results)."""
    return row["format"] == "legacy" and row["parses_with_google_pprof"].startswith("yes")


def read_only_by_pprofcore(row) -> bool:
    """A corpus file google/pprof refuses that pprofcore reads: jemalloc's heap_v2
    text (tests/core/test_legacy_jemalloc.py compares it with jeprof), and the
    one-profile OTLP message of async-profiler, of opentelemetry-proto v1.7.0's
    layout (tests/core/test_otlp_older.py checks it)."""
    notes = row.get("notes", "")
    return not parses_with_pprof(row) and ("jemalloc heap_v2" in notes or "OTLP profile from async-profiler" in notes)


def corpus_path(row) -> Path:
    return CORPUS / row["file"]  # local rows hold absolute paths, which the join keeps


def have_go() -> bool:
    return shutil.which("go") is not None and (Path(GOPATH) / "src/github.com/google/pprof/profile").is_dir()


requires_go = pytest.mark.skipif(
    not have_go(),
    reason="needs `go` and google/pprof sources (apt-get install golang-go golang-github-google-pprof-dev)",
)


def go_build_once(out: Path, sources: list, cwd: Path, env: dict) -> str:
    """`go build -o out` in `cwd` unless `out` is newer than every source.
    Test processes running side by side (pytest-xdist) share `out`: one
    builds under a lock, into a temporary name renamed into place, so no
    process runs a half-written binary."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_name(out.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        newest = max(p.stat().st_mtime for p in sources)
        if not out.exists() or out.stat().st_mtime < newest:
            partial = out.with_name(f"{out.name}.{os.getpid()}.partial")
            subprocess.run(["go", "build", "-o", str(partial), "."], cwd=cwd, env=env, check=True)
            os.replace(partial, out)
    return str(out)


@functools.lru_cache(maxsize=None)
def go_helper(name: str) -> str:
    """Builds tools/goref/<name>/main.go against google/pprof (GOPATH mode, so
    it may import ``../common``) and returns the binary's path. Cached per
    session and on disk."""
    src = GOREF / name
    sources = [*src.glob("*.go"), *(GOREF / "common").glob("*.go")]
    return go_build_once(GOREF / "bin" / name, sources, src, dict(os.environ, GOPATH=GOPATH, GO111MODULE="off"))


def run_go_program(directory: Path, source: str, output: str) -> Path:
    """Builds `source` (package main) in `directory` in GOPATH mode, runs it
    with the path of the file it writes (`output`, in `directory`) and
    returns that path. The caller skips without Go."""
    directory = Path(directory)
    (directory / "main.go").write_text(source)
    env = {"GO111MODULE": "off", "GOPATH": str(directory / "gopath"), "GOCACHE": str(directory / "cache")}
    env.update({k: v for k, v in os.environ.items() if k in ("PATH", "HOME")})
    subprocess.run(["go", "build", "-o", str(directory / "prog"), "."], cwd=directory, env=env, check=True)
    subprocess.run([str(directory / "prog"), str(directory / output)], check=True, capture_output=True)
    return directory / output


def go_call_chain(prefix: str, levels: int, at_stop: str, at_end: str) -> str:
    """Go functions `<prefix>0(stop int)` ... `<prefix><levels-1>`, each calling
    the next until level `stop`, which runs `at_stop` (a statement); the last
    runs `at_end`. One function a level, so a stack's frames name their depth."""
    chain = "".join(
        f"//go:noinline\nfunc {prefix}{i}(stop int) {{\n"
        f"\tif stop == {i} {{\n\t\t{at_stop}\n\t\treturn\n\t}}\n\t{prefix}{i + 1}(stop)\n}}\n\n"
        for i in range(levels - 1)
    )
    return chain + f"//go:noinline\nfunc {prefix}{levels - 1}(stop int) {{ {at_end} }}\n"


def go_pprof(*args: str, timeout: float = 300) -> str:
    """Runs `go tool pprof ARGS` and returns stdout (raises on failure)."""
    env = dict(os.environ, PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"), HOME=os.environ.get("HOME", "/tmp"))
    r = subprocess.run(["go", "tool", "pprof", *args], capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"go tool pprof {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout


def pprofcore_env(helpers: bool = False) -> dict:
    """Environment for a subprocess that must import the same pprofcore as the
    tests (an installed wheel in CI, the in-tree dev build while developing);
    ``helpers``: it may also import the modules of tests/helpers."""
    import pprofcore

    # absolute(), not resolve(): the sanitizer runs import a package of symlinks
    # whose _core is the sanitized build; resolving would leave it behind.
    here = str(Path(pprofcore.__file__).absolute().parent.parent)
    if helpers:
        here += os.pathsep + str(Path(__file__).absolute().parent)
    return dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))


def reportable_corpus_profile(row):
    """``(path, profile)`` of a corpus row for a report compared with pprof's;
    skips a profile that sets drop_frames (pprof prunes those frames before
    reporting, a different concern than the report's)."""
    import pprofcore

    path = CORPUS / row["file"]
    p = pprofcore.load(path)
    if p.drop_frames:
        pytest.skip("profile sets drop_frames; pprof prunes those frames before reporting")
    return path, p


def one_per_producer(pred, most: int) -> list:
    """pytest params of at most ``most`` manifest rows matching ``pred``, one
    per producer directory (a ``None`` param, id ``no-corpus``, when none)."""
    seen, picked = set(), []
    for r in corpus_manifest():
        d = r["file"].split("/")[0]
        if d not in seen and pred(r):
            seen.add(d)
            picked.append(r)
    return [pytest.param(r, id=r["file"]) for r in picked[:most]] or [pytest.param(None, id="no-corpus")]


def load_with_samples(row):
    """The profile of a :func:`one_per_producer` row; skips, saying why, when
    there is no corpus, the file does not load or it has no samples."""
    import pprofcore

    if row is None:
        pytest.skip(f"no corpus at {CORPUS}")
    try:
        p = pprofcore.load(CORPUS / row["file"])
    except ValueError as e:  # pprofcore.errors are ValueErrors
        pytest.skip(f"not loadable: {e}")
    if not len(p.sample_types) or not len(p.values):
        pytest.skip("no samples")
    return p
