"""Fixtures and hooks for every test folder: the corpus directory, the
long-lived google/pprof driver, `--update-goldens` and the count of oracle
comparisons.

The tests are grouped by room and kind (core/, reports/, views/, cli/, fleet/,
testing/, oracles/, robustness/; docs/development.md). The modules they share
live in tests/helpers/, put on sys.path here, so every folder imports them by
their plain names (`import wirebuild`, `from testenv import requires_go`). The
folders are not packages: a test file's basename is unique in the whole tree
(tests/core/test_tests_layout.py checks it), and this is the only conftest.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pprofcore

HELPERS = Path(__file__).resolve().parent / "helpers"
if str(HELPERS) not in sys.path:
    sys.path.insert(0, str(HELPERS))
# The helpers' asserts explain their failures as a test's do.
pytest.register_assert_rewrite(*sorted(p.stem for p in HELPERS.glob("*.py")))

# `browser`: the fixture of the browser tests. The testenv names are re-exported
# for code that still imports them from conftest; new code imports testenv.
from chromium import browser  # noqa: E402, F401
from testenv import (  # noqa: E402, F401
    CORPUS,
    DATA,
    GOPATH,
    GOREF,
    REPO,
    TESTS,
    corpus_files,
    corpus_glob,
    corpus_manifest,
    corpus_path,
    go_helper,
    go_pprof,
    have_go,
    legacy_read_by_pprofcore,
    local_manifest,
    parses_with_pprof,
    pprofcore_env,
    requires_go,
)


def pytest_addoption(parser):
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite the golden files under tests/data/golden from the current output instead of comparing "
        "(then review the diff with git diff tests/data/golden)",
    )


@pytest.fixture
def check_golden(request):
    """`check_golden(name, text)`: compares `text` with tests/data/golden/NAME, or
    writes it there when pytest runs with --update-goldens."""
    from goldens import check

    update = request.config.getoption("--update-goldens")
    return lambda name, text: check(name, text, update=update, test=request.node.nodeid)


@pytest.fixture(scope="module")
def cpu():
    """The bundled example CPU profile (python/pprofcore/data/example-cpu.pb.gz)."""
    return pprofcore.load(pprofcore.example_path("cpu"))


@pytest.fixture(scope="module")
def heap():
    """The bundled example heap profile."""
    return pprofcore.load(pprofcore.example_path("heap"))


@pytest.fixture(scope="module")
def sp():
    """wirebuild's small profile with every header field set (every value known)."""
    from wirebuild import small

    return pprofcore.loads(small(comments=[9, 5], drop_frames=5, keep_frames=7, default_sample_type=3, doc_url=8))


@pytest.fixture(scope="module")
def pprof_cmd(tmp_path_factory):
    """google/pprof's standalone command built from Debian's sources (for
    -symbolize=local and -disasm, which `go tool pprof` runs the same way)."""
    import native_programs as native

    exe = native.standalone_pprof(tmp_path_factory.mktemp("pprofbin"))
    if exe is None:
        pytest.skip("standalone pprof needs go and golang-github-google-pprof-dev")
    return exe


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpus directory; local rows' absolute paths join onto it too."""
    if not (CORPUS / "MANIFEST.tsv").exists() and not local_manifest():
        pytest.skip(f"corpus not found at {CORPUS} (set PPROFCORE_CORPUS) and no local corpus (needs Go)")
    return CORPUS


@pytest.fixture(scope="session")
def pprof():
    """One long-lived google/pprof driver (tools/goref/pprofreport) shared by the
    report oracle tests; it resets pprof's flags on every request."""
    from pprof_oracle import PprofReporter

    reporter = PprofReporter()
    yield reporter
    reporter.close()


# ------------------------------------------- the oracle comparisons, counted
ORACLE_MODULES = ("test_protobuf_diff",)  # compared with the `protobuf` package, not Go


def pytest_collection_modifyitems(config, items):
    """Marks as `oracle` every test that needs Go (google/pprof) or compares with protobuf."""
    for item in items:
        needs_go = any(m.kwargs.get("reason") == requires_go.kwargs["reason"] for m in item.iter_markers("skipif"))
        if needs_go or "pprof" in getattr(item, "fixturenames", ()) or item.module.__name__ in ORACLE_MODULES:
            item.add_marker(pytest.mark.oracle)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    """The oracle line comes after everything pytest prints (its skip list and
    the final counts), so it is the last line of the run."""
    result = yield
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    line = oracle_summary(reporter.stats) if reporter is not None else None
    if line:
        reporter.write_line(line)
    return result


def oracle_summary(stats: dict):
    """One line: how many oracle comparisons ran, and which were skipped and why."""
    ran, failed, skipped = 0, 0, {}
    for outcome in ("passed", "failed", "error", "skipped"):
        for rep in stats.get(outcome, []):
            if "oracle" not in getattr(rep, "keywords", {}):
                continue
            if outcome == "skipped":
                reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
                reason = reason.removeprefix("Skipped: ")
                skipped[reason] = skipped.get(reason, 0) + 1
            elif rep.when == "call" or outcome == "error":
                ran += 1
                failed += outcome != "passed"
    if not ran and not skipped:
        return None
    why = "; ".join(f"{n} x {reason}" for reason, n in sorted(skipped.items(), key=lambda kv: -kv[1]))
    line = f"oracle comparisons: {ran} ran ({failed} failed), {sum(skipped.values())} skipped"
    return line + (f": {why}" if why else "")
