"""The test tree mirrors the rooms, and its import rules hold (docs/development.md):
test files live in one of the folders below, never at tests/ itself; a test
file's basename is unique in the whole tree (the folders are not packages, so
pytest imports every test module by its basename); tests/conftest.py is the
only conftest.py; and test modules never import each other: what two of them
share lives in tests/helpers/, which conftest.py puts on sys.path."""

from __future__ import annotations

import ast
import collections
import re

from testenv import HELPERS, TESTS

FOLDERS = {"core", "reports", "views", "cli", "fleet", "testing", "oracles", "robustness"}


def _test_files():
    return sorted(p for p in TESTS.rglob("test_*.py") if "data" not in p.relative_to(TESTS).parts)


def test_test_files_live_in_the_room_folders():
    misplaced = [
        str(p.relative_to(TESTS)) for p in _test_files() if p.parent.name not in FOLDERS or p.parent.parent != TESTS
    ]
    assert not misplaced, f"put these under one of tests/{{{','.join(sorted(FOLDERS))}}}/: {misplaced}"
    assert {p.parent.name for p in _test_files()} == FOLDERS  # no empty folder left in the list


def test_basenames_are_unique():
    seen = collections.defaultdict(list)
    for p in [*_test_files(), *HELPERS.glob("*.py")]:
        seen[p.name].append(str(p.relative_to(TESTS)))
    twice = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not twice, f"two modules with one basename (rename one): {twice}"


def test_one_conftest_and_no_packages():
    conftests = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("conftest.py"))
    assert conftests == ["conftest.py"], "fixtures shared by a folder go into tests/conftest.py or tests/helpers/"
    packages = sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("__init__.py"))
    assert not packages, f"the test folders are not packages: {packages}"


def test_test_modules_import_only_helpers():
    tests = {p.stem for p in _test_files()}
    bad = []
    for p in [*_test_files(), *HELPERS.glob("*.py")]:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            bad += [f"{p.relative_to(TESTS)}: {n}" for n in names if n.split(".")[0] in tests | {"conftest"}]
    assert not bad, f"move what these share into tests/helpers/: {bad}"


def test_named_test_paths_exist():
    """Docs, tools and CI name test files (tools/sanitize.sh silently leaves out
    a path that is gone): every `tests/....py` they name exists."""
    repo = TESTS.parent
    named = re.compile(r"(?<![\w/])tests/[\w/]+\.py")
    sources = [repo / "README.md", repo / "pyproject.toml", repo / ".ci" / "run"]
    sources += [*repo.glob("docs/*.md"), *repo.glob("tools/**/*.sh"), *repo.glob("tools/goref/**/*.go")]
    sources += [*repo.glob("python/pprofcore/**/*.py"), *repo.glob("notebooks/*.py"), *repo.glob("bench/*.py")]
    sources += [*TESTS.rglob("*.py")]
    sources += [*(TESTS / "data").rglob("README.md")]
    gone = sorted(
        f"{src.relative_to(repo)}: {path}"
        for src in sources
        if src.is_file()
        for path in named.findall(src.read_text(encoding="utf-8", errors="replace"))
        if not (repo / path).is_file()
    )
    assert not gone, f"these name test files that do not exist: {gone}"


def test_child_processes_import_the_tested_pprofcore():
    """CI tests an installed wheel, whose _core is not in the checkout's python/:
    a child process that sets PYTHONPATH itself would import a package without
    its core there. Only testenv.pprofcore_env builds that environment."""
    setters = sorted(
        str(p.relative_to(TESTS))
        for p in [*_test_files(), *HELPERS.glob("*.py")]
        if p.name not in ("testenv.py", "test_tests_layout.py") and "PYTHONPATH" in p.read_text(encoding="utf-8")
    )
    assert not setters, f"use testenv.pprofcore_env() for the child's environment: {setters}"
