"""The `test` extra of pyproject.toml installs everything the tests import: a
clean `pip install ".[test]"` runs the suite without skips for a missing
Python package (the system's tools, Go, chromium, are .ci/run's business)."""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata

import pytest
from testenv import REPO

tomllib = pytest.importorskip("tomllib", reason="reads pyproject.toml with tomllib (Python 3.11+)")

TESTS = REPO / "tests"
SOURCES = sorted([*TESTS.glob("*/test_*.py"), TESTS / "conftest.py", *TESTS.glob("helpers/*.py")])
LOCAL = {p.stem for p in TESTS.glob("helpers/*.py")} | {"pprofcore", "conftest", "pprofcore_docs"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(requirement: str) -> set:
    """``dask[dataframe,distributed]>=2024.4`` -> {dask, dataframe, distributed}: an
    extra of a requirement names the package it installs (distributed)."""
    name, _, extras = re.split(r"[\s<>=!~;]", requirement, maxsplit=1)[0].partition("[")
    return {normalized(n) for n in [name, *extras.rstrip("]").split(",")] if n}


def imported_modules() -> dict:
    """Top-level module -> the first test file importing it (stdlib and local modules left out)."""
    found: dict = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "importorskip"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names = [node.args[0].value]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in LOCAL and top != "__future__":
                    found.setdefault(top, path.relative_to(REPO))
    return found


def test_test_extra_has_every_package_the_tests_import():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    # The site's tests (tests/core/test_api_reference.py) need the docs extra, as tools/docs.sh does.
    requirements = project["dependencies"] + extras["test"] + extras["docs"]
    declared = set().union(*(requirement_names(r) for r in requirements))
    distributions = metadata.packages_distributions()
    missing = []
    for module, where in sorted(imported_modules().items()):
        names = {normalized(d) for d in distributions.get(module, [module])}
        if not names & declared:
            missing.append(f"{module} ({where}; distribution {', '.join(sorted(names))})")
    assert not missing, "imported by the tests but not in the test extra: " + "; ".join(missing)
