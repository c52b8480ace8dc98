"""Every public name (the `__all__` of pprofcore and of its public submodules,
as the site's API reference lists them) has a docstring with a numpydoc
Examples section, and those examples run as doctests: a class's examples
include those of its methods. A constant's doc comment (``#:`` above its
assignment, which Sphinx shows) counts as its docstring."""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import sys

import numpy as np
import pytest
from testenv import REPO

import pprofcore

# The public modules, as the site's API reference lists them (its extension
# imports no Sphinx, so this test runs without it).
sys.path.insert(0, str(REPO / "docs" / "_ext"))
PUBLIC_MODULES = importlib.import_module("pprofcore_docs").PUBLIC_MODULES
# Packages an example may need beyond NumPy; without one the example skips.
OPTIONAL = ("pandas", "pyarrow", "duckdb", "dask", "distributed", "starlette", "uvicorn", "anywidget", "IPython")
EXAMPLES = re.compile(r"^Examples\n-{8}\n", re.M)


def public_names():
    seen = set()
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            key = id(obj) if callable(obj) else (module_name, name)
            if key in seen:  # a re-export: one object, one check
                continue
            seen.add(key)
            yield pytest.param(module, name, id=f"{module_name}.{name}")


def doc_comment(module, name: str) -> str:
    """The ``#:`` lines right above ``name = ...`` (or ``name: type = ...``) in the module."""
    lines = inspect.getsource(module).splitlines()
    at = next(i for i, line in enumerate(lines) if re.match(rf"{name}\s*[:=]", line))
    block = []
    for line in reversed(lines[:at]):
        if not line.startswith("#:"):
            break
        block.append(line[3:] if line.startswith("#: ") else line[2:])
    return "\n".join(reversed(block))


def doctests(module, name: str):
    obj = getattr(module, name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    if callable(obj):
        assert EXAMPLES.search(inspect.getdoc(obj) or ""), f"{module.__name__}.{name}: no Examples section"
        return [t for t in finder.find(obj, name, module=False) if t.examples]
    text = doc_comment(module, name)
    assert EXAMPLES.search(text), f"{module.__name__}.{name}: no Examples section in its #: doc comment"
    return [doctest.DocTestParser().get_doctest(text, {}, name, module.__file__, 0)]


@pytest.mark.parametrize("module,name", list(public_names()))
def test_examples_run(module, name, tmp_path, monkeypatch):
    tests = doctests(module, name)
    runnable = [e for t in tests for e in t.examples if not e.options.get(doctest.SKIP)]
    assert runnable, f"{module.__name__}.{name}: its Examples has no example that runs (all are +SKIP)"
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    runner = doctest.DebugRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in tests:
        test.globs = {"pprofcore": pprofcore, "np": np}
        try:
            runner.run(test, clear_globs=True)
        except doctest.UnexpectedException as e:
            error = e.exc_info[1]
            if isinstance(error, ModuleNotFoundError) and error.name.split(".")[0] in OPTIONAL:
                pytest.skip(f"{module.__name__}.{name}'s example needs {error.name}")
            pytest.fail(f"{test.name} line {e.example.lineno}: {e.example.source.strip()}\n raised {error!r}")
        except doctest.DocTestFailure as e:
            pytest.fail(
                f"{test.name} line {e.example.lineno}: {e.example.source.strip()}\n"
                f"expected:\n{e.example.want}got:\n{e.got}"
            )
