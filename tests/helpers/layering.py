"""The package's import graph stays one-way (docs/development.md, "Layout").

Modules are in ranked groups: leaves (no profile), helpers (shared by several
rooms: filter totals, regex matching, frames), rooms (act on a profile and
return ``p._derive(core)``), the ``Profile`` class, constructors (make profiles
from bytes, files or other profiles), and entry points (CLI, plugins, fleets).
At run time (``TYPE_CHECKING`` blocks aside) a module imports only from its own
group or lower ones, so only constructors and entry points import ``_profile``;
every import of a pprofcore module is at the top of its file (so the file says
what it needs; optional dependencies such as pandas stay inside functions); no
``_name`` is imported from another module (a shared helper has a plain name);
and the whole graph has no cycle.

Imports on use go through ``pprofcore._lazy``, the one module that calls
``importlib.import_module`` (nothing else calls it or ``__import__``), and are
written where a reader sees them, at the top of the importing module:

- a module-level ``LAZY_IMPORTS`` table (name -> ``".module"`` or
  ``".module:attribute"``) read by ``lazy_import`` from a PEP 562
  ``__getattr__``, in the packages ``LAZY_TABLE_MODULES`` names (the
  package's ``__init__``, the CLI's, ``reports``);
- ``lazy_module("pprofcore.x")`` and ``lazy_function("pprofcore.x", "name")``
  calls outside any function (``LAZY_CALLS``), with the module named by a
  literal.

Each entry or call counts as a run-time import of the module that holds it
(direction and cycles are checked as for the others; inside a function it is
a function-level import) and must name a module that exists. So the rooms a
command's first answer does not use stay unloaded (``pprofcore -http``'s first
page, ``pprofcore -top``) without hiding an edge from this checker.

``problems(root)`` checks a package tree and returns what breaks those rules;
``tests/core/test_layering.py`` runs it on pprofcore, and
``tests/core/test_layering_rules.py`` on small trees that break each rule on purpose.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from testenv import REPO

PACKAGE = REPO / "python" / "pprofcore"

# Rank of each module by name (a package's name covers its submodules).
GROUPS: List[Tuple[str, Set[str]]] = [
    (
        "leaf",
        {
            "errors",
            "_atomic",
            "_escapes",
            "_core",
            "_units",
            "_columns",
            "_deferred",
            "_optional",
            "_tabular",
            "_wire",
            "_args",
            "_build_info",
            "_fetch",
            "_proto_fields",
            "_report_defaults",
            "_lazy",
        },
    ),
    # Helpers shared by several rooms; they import leaves and one another, never a room.
    (
        "helper",
        {"_report_base", "_report_text", "_match", "_frames", "_summary", "_comments", "_timestamps", "_timed_samples"},
    ),
    (
        "room",
        {
            "_labels",
            "_filter",
            "_transform",
            "reports",
            "display",
            "testing",
            "_repair",
            "_go_repairs",
            "_demangle",
            "_main_binary",
            "_to_otlp",
            "_to_chrome_trace",
            "_to_firefox",
            "symbolize",
            "web",
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
            "_from_otlp",
            "_build",
            "_foreign",
            "_from_cpuprofile",
            "_from_chrome_trace",
            "_from_firefox",
            "_from_gecko",
            "_from_scalene",
            "_from_sentry",
            "_from_dhat",
            "_from_massif",
            "_from_heaptrack",
            "_from_callgrind",
            "_valgrind_frames",
            "_from_pyinstrument",
            "_from_heapprofile",
            "_from_speedscope",
            "_from_collapsed",
            "_from_pstats",
            "_marshal_subset",
            "_from_stackprof",
            "_from_async_profiler",
            "_from_memray",
            "_ruby_marshal",
            "_from_perf_script",
            "_from_perf_data",
            "_from_jfr",
        },
    ),
    ("entry", {"fleet", "dask", "cli", "_pytest", "__init__", "__main__"}),
]

# Entry points that may use the public names of the package (``import pprofcore``).
USE_PUBLIC_NAMES = ("cli", "fleet", "__main__", "_pytest")

# The modules that may import on use through a LAZY_IMPORTS table; _lazy
# holds the functions that call importlib for them and for LAZY_CALLS.
LAZY_TABLE_MODULES = ("__init__", "cli", "reports")
LAZY_TABLE = "LAZY_IMPORTS"
LAZY_CALLS = ("lazy_module", "lazy_function")
IMPORTER = "_lazy"

# (run-time imports, of which function-level) of each module.
Graph = Dict[str, Tuple[Set[str], Set[str]]]


def group_of(module: str, groups=GROUPS) -> int:
    """The rank of ``module``'s group; -1 when it is in none."""
    head = module.split(".")[0]
    for rank, (_, names) in enumerate(groups):
        if head in names:
            return rank
    return -1


def package_modules(root: Path) -> Dict[str, Path]:
    """Dotted module name (relative to the package) -> file."""
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(module: str, node: ast.AST, modules: Dict[str, Path]) -> List[str]:
    """The pprofcore modules an import statement loads (parents included)."""
    if isinstance(node, ast.Import):
        names = [a.name.split(".")[1:] for a in node.names if a.name.split(".")[0] == "pprofcore"]
        targets = [".".join(n) for n in names]
    else:
        assert isinstance(node, ast.ImportFrom)
        if node.level == 0:
            if not (node.module or "").startswith("pprofcore"):
                return []
            base = node.module.split(".")[1:]
        else:
            here = module.split(".") if module != "__init__" else []
            if modules.get(module) is None or modules[module].name != "__init__.py":
                here = here[:-1]
            base = here[: len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
        targets = []
        for alias in node.names:
            sub = ".".join(base + [alias.name])
            targets.append(sub if (sub in modules or sub == "_core") else ".".join(base))
    out = []
    for t in targets:
        parts = t.split(".") if t else ["__init__"]
        for i in range(1, len(parts) + 1):
            out.append(".".join(parts[:i]))
    # A submodule's own parent packages are already being imported: no edge.
    own = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
    return [t for t in out if t != module and t not in own]


def lazy_table(tree: ast.Module) -> Dict[str, str]:
    """The module-level ``LAZY_IMPORTS`` dict of a parsed module ({} when none)."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == LAZY_TABLE for t in targets) and node.value is not None:
            return ast.literal_eval(node.value)
    return {}


def lazy_targets(module: str, modules: Dict[str, Path], table: Dict[str, str]) -> List[str]:
    """The pprofcore modules a ``LAZY_IMPORTS`` table names, as ``_resolve`` names them."""
    package = module if modules[module].name == "__init__.py" and module != "__init__" else module.rpartition(".")[0]
    out = []
    for entry in table.values():
        relative = entry.partition(":")[0]
        dots = len(relative) - len(relative.lstrip("."))
        base = package.split(".") if package else []
        base = base[: len(base) - (dots - 1)] if dots > 1 else base
        out.append(".".join(base + [relative.lstrip(".")]))
    return out


def lazy_call_target(node: ast.AST) -> Optional[str]:
    """For a ``lazy_module("pprofcore.x")``/``lazy_function("pprofcore.x", ...)``
    call: the module it names, relative to the package (``"x"``; ``""`` when
    the name is not a ``pprofcore.`` literal); None for any other node."""
    if not isinstance(node, ast.Call):
        return None
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name not in LAZY_CALLS:
        return None
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith("pprofcore."):
        return first.value[len("pprofcore.") :]
    return ""


def _imports(module: str, modules: Dict[str, Path]) -> Tuple[Set[str], Set[str]]:
    tree = ast.parse(modules[module].read_text())
    # a table's entries (and their parent packages, not the module's own) are run-time imports
    own = {".".join(module.split(".")[: i + 1]) for i in range(module.count(".") + 1)}
    runtime = {
        ".".join(t.split(".")[: i + 1])
        for t in lazy_targets(module, modules, lazy_table(tree))
        for i in range(t.count(".") + 1)
    } - own
    nested: Set[str] = set()

    def visit(node: ast.AST, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other, depth)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found = _resolve(module, child, modules)
            else:  # a lazy_module/lazy_function call: the module (and its parents) it imports on use
                target = lazy_call_target(child)
                parts = target.split(".") if target else []
                found = [".".join(parts[: i + 1]) for i in range(len(parts))]
                found = [t for t in found if t != module and not module.startswith(t + ".")]
            runtime.update(found)
            if depth:
                nested.update(found)
            inner = depth + isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, inner)

    visit(tree, 0)
    return runtime, nested


def import_graph(root: Path) -> Graph:
    modules = package_modules(root)
    return {m: _imports(m, modules) for m in modules}


def group_problems(graph: Graph, module: str, groups=GROUPS) -> List[str]:
    """``module`` is in no group, or imports upward (or, as a leaf, a non-leaf)."""
    rank = group_of(module, groups)
    if rank < 0:
        return [f"pprofcore.{module} is in no group of tests/helpers/layering.py: add it to the right one"]
    out = []
    for target in sorted(graph[module][0]):
        if target == "__init__" and module.split(".")[0] in USE_PUBLIC_NAMES:
            continue  # entry points may use the public names
        t = group_of(target, groups)
        if t > rank:
            out.append(
                f"pprofcore.{module} ({groups[rank][0]}) imports pprofcore.{target} ({groups[t][0]}) at run time"
            )
        elif groups[rank][0] == "leaf" and t >= 0 and groups[t][0] != "leaf":
            out.append(f"leaf pprofcore.{module} imports pprofcore.{target}")
    return out


def function_level_problems(graph: Graph) -> List[str]:
    """Imports of pprofcore modules inside functions: each belongs at the top of
    its file (a cycle it would dodge is a design problem to fix, not to hide)."""
    return [
        f"pprofcore.{m} imports pprofcore.{t} inside a function: move it to the top of the file"
        for m in sorted(graph)
        for t in sorted(graph[m][1])
    ]


def private_name_problems(root: Path) -> List[str]:
    """Names starting with ``_`` imported from another pprofcore module: a
    helper used across modules is public to the package and gets a plain name
    in its (private) home module. Private modules themselves may be imported."""
    modules = package_modules(root)
    out = []
    for module, path in sorted(modules.items()):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or not _resolve(module, node, modules):
                continue
            for alias in node.names:
                targets = _resolve(module, ast.ImportFrom(node.module, [alias], node.level), modules)
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and alias.name != "_core" and not any(t.endswith(alias.name) for t in targets):
                    out.append(f"pprofcore.{module} imports the private name {alias.name} from another module")
    return out


def lazy_import_problems(root: Path) -> List[str]:
    """Imports on use outside the one mechanism: a ``LAZY_IMPORTS`` table in a
    module not in ``LAZY_TABLE_MODULES``, a table entry or ``lazy_module`` call
    naming no module, or a call of ``importlib.import_module``/``__import__``
    outside ``_lazy``."""
    modules = package_modules(root)
    out = []
    for module, path in sorted(modules.items()):
        tree = ast.parse(path.read_text())
        table = lazy_table(tree)
        if table and module not in LAZY_TABLE_MODULES:
            out.append(f"pprofcore.{module} has a {LAZY_TABLE} table: only {', '.join(LAZY_TABLE_MODULES)} may")
        for target in lazy_targets(module, modules, table):
            if target not in modules:
                out.append(f"{LAZY_TABLE} of pprofcore.{module} names pprofcore.{target}, which does not exist")
        for node in ast.walk(tree):
            target = lazy_call_target(node)
            if target == "":
                out.append(f"pprofcore.{module} calls a lazy import without a literal 'pprofcore.' module name")
            elif target is not None and target not in modules:
                out.append(f"pprofcore.{module} imports pprofcore.{target} on use, which does not exist")
            if not isinstance(node, ast.Call) or module == IMPORTER:
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("import_module", "__import__"):
                out.append(
                    f"pprofcore.{module} calls {name}: import at the top, or on use through a {LAZY_TABLE} table"
                )
    return out


def cycle_problems(graph: Graph) -> List[str]:
    state: Dict[str, int] = {}
    path: List[str] = []
    out: List[str] = []

    def walk(m: str) -> None:
        state[m] = 1
        path.append(m)
        for t in sorted(graph.get(m, (set(), set()))[0]):
            if t not in graph:
                continue
            if state.get(t) == 1:
                out.append("import cycle: " + " -> ".join(path[path.index(t) :] + [t]))
            elif t not in state:
                walk(t)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m)
    return out


def problems(root: Path, groups=GROUPS) -> List[str]:
    """Every rule of this file that the package under ``root`` breaks."""
    graph = import_graph(root)
    out = [p for m in sorted(graph) for p in group_problems(graph, m, groups)]
    out += function_level_problems(graph) + private_name_problems(root) + lazy_import_problems(root)
    return out + cycle_problems(graph)
