"""The package's import graph stays one-way (docs/development.md, "Layout").

Modules are in ranked groups: leaves (no profile), rooms (act on a profile and
return ``p._derive(core)``), the ``Profile`` class, constructors (make profiles
from bytes, files or other profiles), and entry points (CLI, plugins, fleets).
At run time (``TYPE_CHECKING`` blocks aside) a module imports only from its own
group or lower ones, so only constructors and entry points import ``_profile``;
``_profile`` imports its rooms at the top; and the whole graph has no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "pprofcore"

# Rank of each module by name (a package's name covers its submodules).
GROUPS: List[Tuple[str, Set[str]]] = [
    (
        "leaf",
        {"errors", "_atomic", "_escapes", "_core", "_units", "_columns", "_optional", "_tabular", "_wire", "_args"},
    ),
    (
        "room",
        {
            "_frames",
            "_match",
            "_labels",
            "_filter",
            "_transform",
            "reports",
            "_summary",
            "_repr",
            "_comments",
            "display",
            "testing",
            "_repair",
            "symbolize",
        },
    ),
    ("profile", {"_profile"}),
    (
        "constructor",
        {
            "_io",
            "_merge",
            "_delta",
            "_from_folded",
            "_build",
            "_foreign",
            "_from_cpuprofile",
            "_from_speedscope",
            "_from_collapsed",
            "_from_pstats",
            "_from_perf_script",
            "_from_jfr",
        },
    ),
    ("entry", {"fleet", "dask", "cli", "_pytest", "__init__", "__main__"}),
]


def _group(module: str) -> int:
    head = module.split(".")[0]
    for rank, (_, names) in enumerate(GROUPS):
        if head in names:
            return rank
    raise AssertionError(f"pprofcore.{module} is in no group of tests/test_layering.py: add it to the right one")


def _modules() -> Dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_package(module: str) -> bool:
    return MODULES.get(module) is not None and MODULES[module].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom) -> List[str]:
    """The pprofcore modules an import statement loads (parents included)."""
    if node.level == 0:
        if not (node.module or "").startswith("pprofcore"):
            return []
        base = node.module.split(".")[1:]
    else:
        here = module.split(".") if module != "__init__" else []
        if not _is_package(module):
            here = here[:-1]
        base = here[: len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
    targets = []
    for alias in node.names:
        sub = ".".join(base + [alias.name])
        targets.append(sub if (sub in MODULES or sub == "_core") else ".".join(base))
    out = []
    for t in targets:
        parts = t.split(".") if t else ["__init__"]
        for i in range(1, len(parts) + 1):
            out.append(".".join(parts[:i]))
    # A submodule's own parent packages are already being imported: no edge.
    own = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
    return [t for t in out if t != module and t not in own]


def _imports(module: str) -> Tuple[Set[str], Set[str]]:
    """(run-time imports, of which function-level) of ``module``."""
    tree = ast.parse(MODULES[module].read_text())
    runtime, nested = set(), set()

    def visit(node: ast.AST, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other, depth)
                continue
            if isinstance(child, ast.ImportFrom):
                found = _resolve(module, child)
                runtime.update(found)
                if depth:
                    nested.update(found)
            inner = depth + isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, inner)

    visit(tree, 0)
    return runtime, nested


GRAPH = {m: _imports(m) for m in MODULES}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_lower_or_same_group(module):
    rank = _group(module)
    for target in sorted(GRAPH[module][0]):
        if target == "__init__" and module.split(".")[0] in ("cli", "fleet", "__main__", "_pytest"):
            continue  # entry points may use the public names
        t = _group(target)
        assert t <= rank, (
            f"pprofcore.{module} ({GROUPS[rank][0]}) imports pprofcore.{target} ({GROUPS[t][0]}) at run time"
        )
        if GROUPS[rank][0] == "leaf":
            assert GROUPS[t][0] == "leaf", f"leaf pprofcore.{module} imports pprofcore.{target}"


def test_only_constructors_and_entry_points_import_profile():
    importers = sorted(m for m, (runtime, _) in GRAPH.items() if "_profile" in runtime)
    for m in importers:
        assert GROUPS[_group(m)][0] in ("constructor", "entry"), f"pprofcore.{m} imports _profile at run time"


def test_profile_imports_its_rooms_at_the_top():
    assert not GRAPH["_profile"][1], f"function-level imports in _profile.py: {sorted(GRAPH['_profile'][1])}"


# Call-time imports that close a cycle, each with its reason. Keep this short.
ALLOWED_CYCLE_EDGES = {
    # ProfileSet.to_parquet writes a Store, and Store.profile_set reads back a
    # ProfileSet: the writer is imported when to_parquet is called.
    ("fleet._set", "fleet._store"),
}


def test_import_graph_has_no_cycle():
    state: Dict[str, int] = {}
    path: List[str] = []

    def walk(m: str) -> None:
        state[m] = 1
        path.append(m)
        for t in sorted(GRAPH.get(m, (set(), set()))[0]):
            if t not in MODULES or ((m, t) in ALLOWED_CYCLE_EDGES and t in GRAPH[m][1]):
                continue
            if state.get(t) == 1:
                cycle = path[path.index(t) :] + [t]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if t not in state:
                walk(t)
        path.pop()
        state[m] = 2

    for m in sorted(MODULES):
        if m not in state:
            walk(m)


def test_the_checker_sees_imports():
    """The resolver finds relative, package and function-level imports (the
    tests above would pass vacuously if it found none)."""
    assert "_profile" in GRAPH["_io"][0]
    assert "reports.table" in GRAPH["reports"][0]
    assert {"testing._keys", "_units"} <= GRAPH["testing.regressions"][0]  # `from . import` and `from .. import`
    assert any(GRAPH[m][1] for m in MODULES), "no function-level import found anywhere"
