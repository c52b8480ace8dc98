"""The pytest plugin of pprofcore (registered with the ``pytest11`` entry point).

- ``pytest_assertrepr_compare`` explains a failed ``Profile == Profile`` and
  ``ReportTable == ReportTable``: the first differences in a fixed order.
- The ``pprof_baseline`` fixture compares a profile with a baseline stored
  beside the test module, ``__pprof_baselines__/<module>/<test>[-name].pb.gz``,
  with :func:`pprofcore.testing.assert_no_regression`'s rules.
- ``--pprof-update-baselines`` writes or replaces baselines instead.

Every pytest run in an environment with pprofcore loads this module (and so
the ``pprofcore`` package: NumPy and the compiled core, no pandas); it adds
one option, one fixture and a hook that returns at once unless both operands
are pprofcore objects. pprofcore.testing is imported when first needed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional

import pytest

BASELINE_DIR = "__pprof_baselines__"
UPDATE_OPTION = "--pprof-update-baselines"
_WRITTEN = pytest.StashKey[List[str]]()  # baselines written in this session


def pytest_addoption(parser) -> None:
    group = parser.getgroup("pprofcore")
    group.addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="write or replace the profile baselines of the pprof_baseline fixture instead of comparing with them",
    )


def pytest_configure(config) -> None:
    config.stash[_WRITTEN] = []


def pytest_assertrepr_compare(config, op: str, left, right) -> Optional[List[str]]:
    if op != "==":
        return None
    from pprofcore import Profile, ReportTable

    if isinstance(left, Profile) and isinstance(right, Profile):
        from pprofcore.testing import _cap, profile_differences

        diffs = profile_differences(left, right)
        head = f"Profile == Profile: {len(diffs)} difference{'s' if len(diffs) != 1 else ''} in content"
        if not diffs:
            diffs = ["same canonical content; the tables differ in ids, order or the string table"]
        return [head, f"[left]:  {left!r}", f"[right]: {right!r}"] + _cap(diffs)
    if isinstance(left, ReportTable) and isinstance(right, ReportTable):
        from pprofcore.testing import _cap, table_differences

        diffs = table_differences(left, right)
        return [f"ReportTable == ReportTable: {len(diffs)} difference{'s' if len(diffs) != 1 else ''}"] + _cap(diffs)
    return None


def baseline_path(request) -> Path:
    """Where the baseline of the running test lives (without the ``-name`` part)."""
    module = Path(str(request.node.fspath))
    return module.parent / BASELINE_DIR / module.stem / _safe(request.node.name)


def _safe(text: str) -> str:
    """A file name for a test id (parametrized ids contain ``[``, ``/`` ...)."""
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", text).strip("_") or "test"


class BaselineChecker:
    """The ``pprof_baseline`` fixture's value: call it with a profile."""

    def __init__(self, request):
        self._request = request
        self._update = request.config.getoption(UPDATE_OPTION)

    def path(self, name: Optional[str] = None) -> Path:
        """The baseline file for this test (and ``name``)."""
        stem = baseline_path(self._request)
        if name is not None:
            stem = stem.with_name(stem.name + "-" + _safe(str(name)))
        return stem.with_name(stem.name + ".pb.gz")

    def __call__(self, profile, *, name: Optional[str] = None, **tolerances) -> None:
        """Compare ``profile`` with this test's baseline (or write it under
        ``--pprof-update-baselines``). ``tolerances`` are the keyword arguments
        of :func:`pprofcore.testing.assert_no_regression` (``rel``, ``abs``,
        ``min_share``, ``by``, ``sample_type``, ``normalize``, ``cum``)."""
        __tracebackhide__ = True
        import pprofcore
        from pprofcore.testing import assert_no_regression

        path = self.path(name)
        if self._update:
            path.parent.mkdir(parents=True, exist_ok=True)
            profile.save(path)
            self._request.config.stash[_WRITTEN].append(str(path))
            return
        if not path.exists():
            pytest.fail(
                f"no profile baseline at {path}\nrun `pytest {self._request.node.nodeid} {UPDATE_OPTION}` to create it",
                pytrace=False,
            )
        assert_no_regression(pprofcore.load(path), profile, **tolerances)


@pytest.fixture
def pprof_baseline(request) -> BaselineChecker:
    """``pprof_baseline(profile, *, name=None, **tolerances)`` compares
    ``profile`` with the baseline stored beside the test module in
    ``__pprof_baselines__/<module>/<test>[-name].pb.gz`` using
    :func:`pprofcore.testing.assert_no_regression`; ``pytest
    --pprof-update-baselines`` writes or replaces the baselines instead."""
    return BaselineChecker(request)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    written = config.stash.get(_WRITTEN, [])
    if written:
        terminalreporter.write_sep("-", f"pprofcore: wrote {len(written)} profile baseline(s)")
        for p in written:
            terminalreporter.write_line(p)
