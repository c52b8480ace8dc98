"""The documentation site's API reference names every public name: each entry
of `pprofcore.__all__` and of the public submodules' `__all__` is in the
inventory (objects.inv) of the site that tools/docs.sh built, under its own
name or, for a re-export, under the submodule that documents it."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import pytest
from testenv import REPO

import pprofcore

sys.path.insert(0, str(REPO / "docs" / "_ext"))
docs_ext = pytest.importorskip("pprofcore_docs", reason="the site's extension needs sphinx: pip install '.[docs]'")
pytest.importorskip("sphinx", reason="the documentation site needs sphinx: pip install '.[docs]'")

INVENTORY = REPO / "docs" / "_build" / "html" / "objects.inv"
PUBLIC_NAMES = [
    (module, name) for module in docs_ext.PUBLIC_MODULES for name in importlib.import_module(module).__all__
]


def test_every_public_submodule_is_documented():
    # The CLI has its own reference page (generated from the parser), not an API section.
    public = {f"pprofcore.{m.name}" for m in pkgutil.iter_modules(pprofcore.__path__) if not m.name.startswith("_")}
    # pprofcore.display imports nothing at load time: its flame graph module is the documented one.
    packages = {".".join(m.split(".")[:2]) for m in docs_ext.PUBLIC_MODULES}
    assert public - {"pprofcore.cli"} == packages - {"pprofcore"}
    for module in docs_ext.PUBLIC_MODULES:
        assert hasattr(importlib.import_module(module), "__all__"), f"{module} has no __all__"


def test_api_page_lists_every_public_name():
    page = docs_ext.api_page()
    for module, name in PUBLIC_NAMES:
        home = docs_ext.home(module, name)
        row = f"   {name}" if home == module else f"   ~{home.removeprefix(module + '.')}.{name}"
        assert row in page.splitlines(), f"{module}.{name} is missing from the API page"


def documented_names() -> set:
    from sphinx.util.inventory import InventoryFile

    with open(INVENTORY, "rb") as f:
        inventory = InventoryFile.load(f, "", lambda base, uri: uri)
    items = inventory.data if hasattr(inventory, "data") else inventory
    names = set()
    for role, entries in items.items():
        if role.startswith("py:"):
            names.update(entries)
    return names


@pytest.mark.skipif(not INVENTORY.exists(), reason="the site is not built: bash tools/docs.sh")
def test_built_site_documents_every_public_name():
    names = documented_names()
    missing = [
        f"{module}.{name}" for module, name in PUBLIC_NAMES if f"{docs_ext.home(module, name)}.{name}" not in names
    ]
    assert not missing, f"not in docs/_build/html/objects.inv (rebuild with tools/docs.sh): {missing}"
