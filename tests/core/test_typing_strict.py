"""The package's typing is complete for its users: a script over the public API
(tests/data/typing/user_script.py: load, reports, flame graph, merge, delta,
ProfileSet, the testing asserts, errors) passes `mypy --strict`, the package is
marked typed (py.typed), and the stubs of the compiled module (_core.pyi) name
exactly what `_core` holds, classes' members included."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from testenv import REPO

import pprofcore
from pprofcore import _core

PACKAGE = Path(pprofcore.__file__).parent
STUB = PACKAGE / "_core.pyi"


def test_user_script_passes_mypy_strict(tmp_path):
    pytest.importorskip("mypy", reason="needs mypy: pip install '.[test]'")
    # --follow-imports=silent: the package is checked as an installed, typed
    # library is (its own code is tools/lint.sh's mypy run); only the script's errors count.
    cmd = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--config-file", os.devnull]
    cmd += ["--cache-dir", str(tmp_path / "cache"), str(REPO / "tests" / "data" / "typing" / "user_script.py")]
    env = dict(os.environ)
    if not {"site-packages", "dist-packages"} & set(PACKAGE.parts):
        env["MYPYPATH"] = str(PACKAGE.parent)  # a checkout (mypy finds an installed package by itself)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_package_is_marked_typed():
    assert (PACKAGE / "py.typed").exists()


def stub_names(body) -> set:
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def public(names) -> set:
    return {n for n in names if not n.startswith("_")}


def test_stub_names_what_the_core_module_holds():
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    module_names = public(stub_names(tree.body))
    runtime = public(n for n in dir(_core) if not isinstance(getattr(_core, n), type(sys)))
    assert runtime - module_names == set(), "in _core but not in _core.pyi"
    assert module_names - runtime == set(), "in _core.pyi but not in _core"
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        runtime_members = public(vars(getattr(_core, cls.name)))
        stub_members = public(stub_names(cls.body))
        assert runtime_members - stub_members == set(), f"_core.{cls.name} members missing from _core.pyi"
        if not issubclass(getattr(_core, cls.name), Exception):  # DecodeError's attributes are per instance
            assert stub_members - runtime_members == set(), f"_core.pyi's {cls.name} has members _core lacks"
