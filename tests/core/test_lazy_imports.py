"""``pprofcore/__init__.py``'s ``LAZY_IMPORTS`` (PEP 562): every public name
is the object its module defines, loaded on first use; the table, ``__all__``
and the ``TYPE_CHECKING`` block that type checkers read name the same things;
and ``import pprofcore`` alone loads the C++ core and the leaves, not NumPy.
(tests/core/test_layering.py reads the table as imports of ``__init__``.)"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import pytest
from testenv import REPO, pprofcore_env

import pprofcore

INIT = REPO / "python" / "pprofcore" / "__init__.py"


def type_checking_names() -> set:
    """The names the ``if TYPE_CHECKING:`` block of ``__init__`` imports."""
    tree = ast.parse(INIT.read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
    return {a.asname or a.name for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names}


def test_table_all_and_type_checking_agree():
    table = set(pprofcore.LAZY_IMPORTS)
    assert type_checking_names() == table
    attributes = {name for name, entry in pprofcore.LAZY_IMPORTS.items() if ":" in entry}
    eager = set(pprofcore.__all__) - attributes
    # the names not in the table are defined by __init__ itself, without an import on use
    assert eager == {
        "DEFAULT_MAX_DECOMPRESSED_SIZE",
        "DecodeError",
        "FilterWarning",
        "GzipError",
        "ProfileError",
        "build_info",
        "example_path",
    }
    assert attributes <= set(pprofcore.__all__)


@pytest.mark.parametrize("name", sorted(pprofcore.LAZY_IMPORTS))
def test_each_entry_is_what_its_module_defines(name):
    module, _, attribute = pprofcore.LAZY_IMPORTS[name].partition(":")
    home = importlib.import_module(module, "pprofcore")
    want = getattr(home, attribute) if attribute else home
    assert getattr(pprofcore, name) is want
    assert pprofcore.__dict__[name] is want  # kept: __getattr__ runs once per name


def test_unknown_names_still_fail():
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        pprofcore.nope  # noqa: B018
    from pprofcore import load  # a from-import goes through __getattr__ too

    assert load is pprofcore.load


def test_import_pprofcore_loads_only_the_core():
    code = "import sys, pprofcore; print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('pprofcore')))"
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=pprofcore_env(),
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(["pprofcore", "pprofcore._build_info", "pprofcore._core", "pprofcore.errors"])


def test_the_explorers_first_page_leaves_numpy_ma_unloaded():
    """NumPy 2's ``unique`` imports ``numpy.ma`` (about 10 ms of the
    time to ``pprofcore -http``'s first page): the Graph view's data avoid it."""
    code = (
        "import sys, pprofcore\n"
        "from pprofcore.web import Session\n"
        "from pprofcore.web._app import warm\n"
        "warm(Session([('p', pprofcore.load(pprofcore.example_path()))]))\n"
        "print('numpy.ma' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=pprofcore_env(), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"
