"""The package's import graph stays one-way: the rules and the checker are in
``tests/helpers/layering.py``; these tests run it on pprofcore."""

from __future__ import annotations

import pytest
from layering import (
    GROUPS,
    PACKAGE,
    cycle_problems,
    function_level_problems,
    group_of,
    group_problems,
    import_graph,
    package_modules,
    private_name_problems,
    problems,
)

MODULES = package_modules(PACKAGE)
GRAPH = import_graph(PACKAGE)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_lower_or_same_group(module):
    assert not group_problems(GRAPH, module), "\n".join(group_problems(GRAPH, module))


def test_only_constructors_and_entry_points_import_profile():
    importers = sorted(m for m, (runtime, _) in GRAPH.items() if "_profile" in runtime)
    for m in importers:
        assert GROUPS[group_of(m)][0] in ("constructor", "entry"), f"pprofcore.{m} imports _profile at run time"


def test_no_function_level_imports_of_pprofcore():
    found = function_level_problems(GRAPH)
    assert not found, "\n".join(found)


def test_no_private_names_cross_modules():
    found = private_name_problems(PACKAGE)
    assert not found, "\n".join(found)


def test_import_graph_has_no_cycle():
    found = cycle_problems(GRAPH)
    assert not found, "\n".join(found)


def test_the_checker_sees_imports():
    """The resolver finds relative, package and plain imports (the tests above
    would pass vacuously if it found none)."""
    assert "_profile" in GRAPH["_io"][0]
    assert "reports.table" in GRAPH["reports"][0]
    assert {"testing._keys", "_units"} <= GRAPH["testing.regressions"][0]  # `from . import` and `from .. import`
    assert "__init__" in GRAPH["cli.delta"][0]  # `import pprofcore`
    assert {"_io", "fleet"} <= GRAPH["__init__"][0]  # the LAZY_IMPORTS table of pprofcore/__init__.py
    assert "cli.top" in GRAPH["cli"][0]  # and of the CLI's
    assert {"reports._weblist", "reports.disasm", "reports.callgrind"} <= GRAPH["reports"][0]  # and of reports'
    assert {"symbolize", "_to_otlp", "reports.disasm"} <= GRAPH["_profile"][0]  # lazy_module, lazy_function
    assert {"_foreign", "_repair"} <= GRAPH["_io"][0] and not GRAPH["_io"][1]  # run-time, not function-level
    assert not problems(PACKAGE)
