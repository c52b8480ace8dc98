"""Imports on first use: the one place pprofcore imports a module of its own
later than the top of the file that needs it.

Three forms, each written at the top of the importing module, where a reader
(and ``tests/helpers/layering.py``, which counts them as run-time imports in
the room order and the cycle check) sees the dependency:

- ``symbolize = lazy_module("pprofcore.symbolize")``: a stand-in whose first
  attribute read imports the module (under the import lock, so two threads
  reading at once get one import);
- ``disasm = lazy_function("pprofcore.reports.disasm", "disassembly")`` in a
  class body: the attribute becomes that function the first time it is read,
  so ``Profile.disasm`` keeps the report's signature and docstring;
- a package's ``LAZY_IMPORTS`` table (name -> ``".module"`` or
  ``".module:attribute"``) read by :func:`lazy_import` from its PEP 562
  ``__getattr__`` (``pprofcore``, ``pprofcore.reports``, the CLI).

They keep the rooms a command's first answer does not use (symbolization,
disassembly, the weblist, callgrind, the trace exports, the foreign readers,
the repairs) out of its start-up: ``pprofcore -http`` answers its first page
without them. ``importlib.util.LazyLoader`` is not used: before Python 3.12
two threads touching a module it deferred could see it half loaded.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, Optional


def lazy_import(table: Dict[str, str], name: str, package: str) -> Any:
    """``table[name]`` imported: a ``module:attribute`` entry gives the
    attribute, a ``module`` entry the module (relative to ``package``)."""
    module, _, attribute = table[name].partition(":")
    loaded = importlib.import_module(module, package)
    return getattr(loaded, attribute) if attribute else loaded


class LazyModule:
    """Module ``name`` (absolute), imported when one of its attributes is
    first read; what :func:`lazy_module` returns."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Optional[Any] = None

    def __getattr__(self, attribute: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` (absolute: ``"pprofcore.symbolize"``)
    that imports it when one of its attributes is first read. Assign it at
    the top of a module, under the module's own name, with the real import in
    an ``if TYPE_CHECKING:`` block above for type checkers."""
    return LazyModule(name)


class lazy_function:  # noqa: N801 - used like a function, in a class body
    """A class attribute that becomes ``module.attribute`` (a function, bound
    as a method) the first time it is read: the module is imported then."""

    def __init__(self, module: str, attribute: str) -> None:
        self.module = module
        self.attribute = attribute
        self.name = attribute
        self.owner: Optional[type] = None

    def __set_name__(self, owner: type, name: str) -> None:
        self.owner, self.name = owner, name

    def __get__(self, instance: Any, owner: Optional[type] = None) -> Any:
        function = getattr(importlib.import_module(self.module), self.attribute)
        if self.owner is not None:
            setattr(self.owner, self.name, function)  # later reads find the function itself
        return function if instance is None else function.__get__(instance, owner)
