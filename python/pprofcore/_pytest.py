"""The pytest plugin of pprofcore (registered with the ``pytest11`` entry point).

- ``pytest_assertrepr_compare`` explains a failed ``Profile == Profile`` and
  ``ReportTable == ReportTable``: the first differences in a fixed order.
- The ``pprof_baseline`` fixture compares a profile with a baseline stored
  beside the test module, ``__pprof_baselines__/<module>/<stem>.pb.gz``
  (:func:`baseline_stem`: one file per test id and name, never shared), with
  :func:`pprofcore.testing.assert_no_regression`'s rules.
- ``--pprof-update-baselines`` writes or replaces baselines instead, after
  checking the tolerances against the profile (a misspelled ``sample_type``
  fails at once, not on the next run).

Every pytest run in an environment with pprofcore loads this module (and so
the ``pprofcore`` package: NumPy and the compiled core, no pandas); it adds
one option, one fixture and a hook that returns at once unless both operands
are pprofcore objects (pprofcore.testing, which it uses, comes with the package).
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from pathlib import Path
from typing import List, Optional

import pytest

import pprofcore
from pprofcore import Profile, ReportTable
from pprofcore.errors import unknown_sample_type
from pprofcore.testing import assert_no_regression, profile_differences, regression_table, table_differences
from pprofcore.testing._format import cap_lines

BASELINE_DIR = "__pprof_baselines__"
UPDATE_OPTION = "--pprof-update-baselines"
_WRITTEN = pytest.StashKey[List[str]]()  # baselines written in this session
_DESELECTED = pytest.StashKey[list]()  # tests collected but not run: they may own a baseline too
_PLAIN_TEST = re.compile(r"[A-Za-z0-9_]+")  # a test id without parameters (no "-", "~" or "[")
MAX_READABLE = 120  # characters of a test id kept readable in a file name


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
    config.stash[_DESELECTED] = []


def pytest_deselected(items) -> None:
    if items:
        items[0].config.stash.setdefault(_DESELECTED, []).extend(items)


def pytest_assertrepr_compare(config, op: str, left, right) -> Optional[List[str]]:
    if op != "==":
        return None
    if isinstance(left, Profile) and isinstance(right, Profile):
        diffs = profile_differences(left, right)
        head = f"Profile == Profile: {len(diffs)} difference{'s' if len(diffs) != 1 else ''} in content"
        if not diffs:
            diffs = ["same canonical content; the tables differ in ids, order or the string table"]
        return [head, f"[left]:  {left!r}", f"[right]: {right!r}"] + cap_lines(diffs)
    if isinstance(left, ReportTable) and isinstance(right, ReportTable):
        diffs = table_differences(left, right)
        head = f"ReportTable == ReportTable: {len(diffs)} difference{'s' if len(diffs) != 1 else ''}"
        return [head] + cap_lines(diffs)
    return None


def baseline_stem(test: str, name: Optional[str] = None) -> str:
    """The file name (without ``.pb.gz``) of the baseline of test id ``test``
    (``request.node.name``) and ``name``; different ``(test, name)`` pairs
    always get different stems.

    A plain test name and a name made of ``[A-Za-z0-9_.=+-]`` are used as they
    are (``test_cpu``, ``test_cpu-flat``: the test part never holds a "-",
    so the pair can be read back). Anything else, parametrized ids included,
    is made readable (other characters become "_") and gets ``~`` and 10 hex
    digits of the SHA-256 of the exact pair (``test_p_a_b~3f1c...``): ``[a/b]``
    and ``[a b]`` or ``test_a[b]`` and ``test_a_b`` no longer share a file."""
    readable = _safe(test) + ("" if name is None else "-" + _safe(name))
    if _PLAIN_TEST.fullmatch(test) and (name is None or _safe(name) == name) and len(readable) <= MAX_READABLE:
        return readable
    digest = hashlib.sha256(json.dumps([test, name]).encode("utf-8")).hexdigest()[:10]
    return f"{readable[:MAX_READABLE]}~{digest}"


def _old_stem(test: str, name: Optional[str]) -> str:
    """The stem pprofcore used before :func:`baseline_stem` (not one-to-one)."""
    return _safe(test) + ("" if name is None else "-" + _safe(name))


def baseline_path(request) -> Path:
    """Where the baselines of the running test live: the directory, and the
    file of the test without a ``name`` (as ``<dir>/<stem>``, no suffix)."""
    module = Path(str(request.node.fspath))
    return module.parent / BASELINE_DIR / module.stem / baseline_stem(request.node.name)


def _safe(text: str) -> str:
    """Readable file-name characters for a test id (parametrized ids contain ``[``, ``/`` ...)."""
    return re.sub(r"[^A-Za-z0-9_.=+-]+", "_", text).strip("_") or "test"


class BaselineChecker:
    """The ``pprof_baseline`` fixture's value: call it with a profile."""

    def __init__(self, request):
        self._request = request
        self._update = request.config.getoption(UPDATE_OPTION)

    def path(self, name: Optional[str] = None) -> Path:
        """The baseline file for this test (and ``name``)."""
        stem = baseline_stem(self._request.node.name, None if name is None else str(name))
        return baseline_path(self._request).parent / (stem + ".pb.gz")

    def __call__(self, profile, *, name: Optional[str] = None, **tolerances) -> None:
        """Compare ``profile`` with this test's baseline (or write it under
        ``--pprof-update-baselines``, once ``tolerances`` are known to apply
        to ``profile``). ``tolerances`` are the keyword arguments of
        :func:`pprofcore.testing.assert_no_regression` (``rel``, ``abs``,
        ``min_share``, ``by``, ``sample_type``, ``normalize``, ``cum``)."""
        __tracebackhide__ = True
        path = self.path(name)
        if self._update:
            _check_tolerances(profile, tolerances, path)
            path.parent.mkdir(parents=True, exist_ok=True)
            profile.save(path)
            self._request.config.stash[_WRITTEN].append(str(path))
            return
        if not path.exists():
            old = self._old_baseline(name)
            if old is None:
                pytest.fail(
                    f"no profile baseline at {path}\n"
                    f"run `pytest {self._request.node.nodeid} {UPDATE_OPTION}` to create it",
                    pytrace=False,
                )
            warnings.warn(
                pytest.PytestWarning(
                    f"pprof_baseline: using {old}, written under pprofcore's old file names; "
                    f"rename it to {path.name} (or run with {UPDATE_OPTION})"
                ),
                stacklevel=2,
            )
            path = old
        assert_no_regression(pprofcore.load(path), profile, **tolerances)

    def _old_baseline(self, name: Optional[str]) -> Optional[Path]:
        """This test's baseline under the old, not one-to-one file names, when
        it exists and no other test of the module (run or deselected in this
        session, or a plain test function of the same name) can own it."""
        node = self._request.node
        name = None if name is None else str(name)
        old = _old_stem(node.name, name)
        path = self.path(name).parent / (old + ".pb.gz")
        if old == baseline_stem(node.name, name) or not path.exists():
            return None
        holder = getattr(node, "cls", None) or getattr(node, "module", None)
        plain = old.split("-", 1)[0]
        if plain != getattr(node, "originalname", node.name) and hasattr(holder, plain):
            return None  # e.g. test_a_b's file seen from test_a[b]
        config = self._request.config
        for item in list(self._request.session.items) + list(config.stash.get(_DESELECTED, [])):
            if item is node or item.path != node.path or item.name == node.name:
                continue
            if old in (_old_stem(item.name, name), baseline_stem(item.name, name)):
                return None
        return path


def _check_tolerances(profile, tolerances: dict, path: Path) -> None:
    """Fails the test when ``tolerances`` cannot be used with ``profile`` (the
    baseline would be written, and every later run would fail)."""
    __tracebackhide__ = True
    sample_type = tolerances.get("sample_type")
    types = [t for t, _ in profile.sample_types]
    problem = None
    if isinstance(sample_type, str) and sample_type not in types:
        problem = str(unknown_sample_type(sample_type, types))
    else:
        try:  # every other tolerance (an index out of range too), checked by the comparison itself
            regression_table(profile, profile, **tolerances)
        except (TypeError, ValueError) as e:
            problem = f"{e} (sample types: {', '.join(types)})"
    if problem:
        pytest.fail(f"pprof_baseline: {problem}; baseline {path} not written", pytrace=False)


@pytest.fixture
def pprof_baseline(request) -> BaselineChecker:
    """``pprof_baseline(profile, *, name=None, **tolerances)`` compares
    ``profile`` with the baseline stored beside the test module in
    ``__pprof_baselines__/<module>/<test>[-name].pb.gz`` (parametrized ids
    and other names as :func:`baseline_stem` spells them) using
    :func:`pprofcore.testing.assert_no_regression`; ``pytest
    --pprof-update-baselines`` writes or replaces the baselines instead."""
    return BaselineChecker(request)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    written = config.stash.get(_WRITTEN, [])
    if written:
        terminalreporter.write_sep("-", f"pprofcore: wrote {len(written)} profile baseline(s)")
        for p in written:
            terminalreporter.write_line(p)
