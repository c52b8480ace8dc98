"""The layering checker of test_layering.py fails when it should: run on small
package trees that each break one rule (a test of the test)."""

from __future__ import annotations

import textwrap

import pytest
from layering import import_graph, problems

# The one module that imports on use, and the package's __init__ with a table.
LAZY = """
import importlib


def lazy_import(table, name, package):
    module, _, attribute = table[name].partition(":")
    loaded = importlib.import_module(module, package)
    return getattr(loaded, attribute) if attribute else loaded


def lazy_module(name):
    return importlib.import_module(name)
"""
LAZY_INIT = """
from ._lazy import lazy_import

LAZY_IMPORTS = {"load": "._io:load", "reports": ".reports"}
"""

CLEAN = {
    "__init__.py": "from ._io import load\n",
    "errors.py": "class ProfileError(ValueError):\n    pass\n",
    "_units.py": "from .errors import ProfileError\n",
    "_frames.py": "import pandas\n\nfrom . import _units\n\n\ndef f():\n    import pyarrow\n    return pyarrow\n",
    "reports/__init__.py": "from .._frames import f\n",
    "_profile.py": "from . import _frames, reports\n",
    "_io.py": "from ._profile import Profile\n",
    "cli/__init__.py": "import pprofcore\n\nfrom .. import _io\n",
    "_lazy.py": LAZY,
}


def write_tree(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_a_clean_tree_passes(tmp_path):
    # optional dependencies inside functions and the public names in entry points are allowed
    assert problems(write_tree(tmp_path, CLEAN)) == []


@pytest.mark.parametrize(
    "module, text, expected",
    [
        pytest.param(
            "_frames.py",
            "def f():\n    from . import _units\n    return _units\n",
            "pprofcore._frames imports pprofcore._units inside a function",
            id="function-level-relative",
        ),
        pytest.param(
            "_frames.py",
            "def f():\n    from pprofcore.errors import ProfileError\n    return ProfileError\n",
            "pprofcore._frames imports pprofcore.errors inside a function",
            id="function-level-absolute",
        ),
        pytest.param(
            "cli/__init__.py",
            "class C:\n    def run(self):\n        import pprofcore\n        return pprofcore\n",
            "pprofcore.cli imports pprofcore.__init__ inside a function",
            id="function-level-plain-import",
        ),
        pytest.param(
            "_units.py",
            "from ._frames import f\n",
            "pprofcore._units (leaf) imports pprofcore._frames (helper) at run time",
            id="upward",
        ),
        pytest.param(
            "_frames.py",
            "from ._io import load\n",
            "pprofcore._frames (helper) imports pprofcore._io (constructor) at run time",
            id="helper-imports-constructor",
        ),
        pytest.param(
            "_frames.py",
            "def f():\n    from ._profile import Profile\n    return Profile\n",
            "pprofcore._frames (helper) imports pprofcore._profile (profile) at run time",
            id="upward-inside-a-function",
        ),
        pytest.param(
            "_frames.py",
            "from . import reports\n",
            "pprofcore._frames (helper) imports pprofcore.reports (room) at run time",
            id="helper-imports-room",
        ),
        pytest.param(
            "_frames.py",
            "from ._units import _ratio\n",
            "pprofcore._frames imports the private name _ratio from another module",
            id="private-name",
        ),
        pytest.param("_extra.py", "x = 1\n", "pprofcore._extra is in no group", id="no-group"),
        pytest.param("errors.py", "from . import _units\n", "import cycle: _units -> errors -> _units", id="cycle"),
    ],
)
def test_a_broken_rule_is_found(tmp_path, module, text, expected):
    assert_found(tmp_path, module, text, expected)


def assert_found(tmp_path, module, text, expected):
    """The checker names ``expected`` for the clean tree with ``module`` replaced by ``text``."""
    root = write_tree(tmp_path, {**CLEAN, module: text})
    found = problems(root)
    assert any(expected in p for p in found), found


IMPORT_MODULE = "import importlib\n\n\ndef f():\n    return importlib.import_module('pprofcore._units')\n"
# Imports on use outside the one mechanism: (file, its text, the problem named).
LAZY_BREAKS = {
    "table-outside-the-packages": ("_frames.py", 'LAZY_IMPORTS = {"f": "._units:f"}\n', "only __init__, cli, reports"),
    "entry-names-no-module": ("__init__.py", LAZY_INIT.replace("._io:", "._nope:"), "pprofcore._nope, which does not"),
    "import-module-call": ("_frames.py", IMPORT_MODULE, "pprofcore._frames calls import_module: import at the top"),
    "dunder-import": ("cli/__init__.py", "def f():\n    return __import__('pprofcore.errors')\n", "calls __import__"),
    "cycle-through-an-entry": (
        "__init__.py",
        LAZY_INIT.replace('"reports": ".reports"', '"main": ".cli:main"'),
        "import cycle: __init__ -> cli -> __init__",
    ),
}


@pytest.mark.parametrize("module, text, expected", list(LAZY_BREAKS.values()), ids=list(LAZY_BREAKS))
def test_imports_on_use_outside_the_table_are_found(tmp_path, module, text, expected):
    assert_found(tmp_path, module, text, expected)


def test_a_lazy_table_is_allowed_and_read_as_imports(tmp_path):
    cli = 'from .._lazy import lazy_import\n\nLAZY_IMPORTS = {"top": ".top"}\n'
    files = {**CLEAN, "__init__.py": LAZY_INIT, "cli/__init__.py": cli, "cli/top.py": "from .. import _io\n"}
    root = write_tree(tmp_path, files)
    assert problems(root) == []
    graph = import_graph(root)
    assert {"_io", "reports"} <= graph["__init__"][0] and "cli.top" in graph["cli"][0]
    assert not graph["__init__"][1]  # on use, yet not a function-level import statement


def test_private_modules_may_be_imported(tmp_path):
    text = "from . import _units\nfrom ._units import ProfileError\n"
    assert problems(write_tree(tmp_path, {**CLEAN, "_frames.py": text})) == []


def test_type_checking_imports_are_not_run_time_imports(tmp_path):
    text = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from ._profile import Profile\n"
    assert problems(write_tree(tmp_path, {**CLEAN, "_frames.py": text})) == []


LAZY_MODULE = "from ._lazy import lazy_module\n\n"
# lazy_module/lazy_function calls are imports: (file, its text, the problem named).
LAZY_CALL_BREAKS = {
    "upward": (
        "_frames.py",
        LAZY_MODULE + 'io = lazy_module("pprofcore._io")\n',
        "pprofcore._frames (helper) imports pprofcore._io (constructor) at run time",
    ),
    "inside-a-function": (
        "_frames.py",
        LAZY_MODULE + 'def f():\n    return lazy_module("pprofcore._units")\n',
        "pprofcore._frames imports pprofcore._units inside a function",
    ),
    "names-no-module": (
        "_frames.py",
        LAZY_MODULE + 'nope = lazy_module("pprofcore._nope")\n',
        "imports pprofcore._nope on use, which does not exist",
    ),
    "not-a-literal": (
        "_frames.py",
        LAZY_MODULE + 'NAME = "pprofcore._units"\nunits = lazy_module(NAME)\n',
        "without a literal 'pprofcore.' module name",
    ),
    "cycle": (
        "errors.py",
        'from ._lazy import lazy_function\n\n\nclass C:\n    u = lazy_function("pprofcore._units", "f")\n',
        "import cycle: _units -> errors -> _units",
    ),
}


@pytest.mark.parametrize("module, text, expected", list(LAZY_CALL_BREAKS.values()), ids=list(LAZY_CALL_BREAKS))
def test_lazy_module_calls_are_checked_as_imports(tmp_path, module, text, expected):
    assert_found(tmp_path, module, text, expected)


def test_a_lazy_module_at_the_top_is_allowed_and_read_as_an_import(tmp_path):
    text = (
        "from typing import TYPE_CHECKING\n\nfrom ._lazy import lazy_function, lazy_module\n\n"
        "if TYPE_CHECKING:\n    from . import _units\nelse:\n    _units = lazy_module('pprofcore._units')\n\n\n"
        "class C:\n    f = lazy_function('pprofcore.reports', 'f')\n"
    )
    root = write_tree(tmp_path, {**CLEAN, "_profile.py": text})
    assert problems(root) == []
    runtime, nested = import_graph(root)["_profile"]
    assert {"_units", "reports", "_lazy"} <= runtime and not nested
