"""The package of a function, as the ``packages`` granularity groups nodes
(the C++ core reads each function's name once per aggregation, see
``cpp/src/packages.cpp``); this is the same rule for one name, for users and
tests that group other tables the same way."""

from __future__ import annotations

from .. import _core


def package_of(name: str, file: str = "") -> str:
    """package_of returns the package of function ``name`` defined in ``file``.

    The file's extension decides the language when it has one (``.go``,
    ``.java``, ``.py``, C/C++ and Rust sources), else the name's shape does:

    - Go: the import path, ``github.com/x/y/pkg.(*T[...]).M.func1`` ->
      ``github.com/x/y/pkg`` (type parameters and closures ignored, ``%2e``
      read as ``.``);
    - Java: ``com.foo.Bar$Inner.method(I)V`` and ``com/foo/Bar.method`` ->
      ``com.foo``;
    - C++ and Rust: the namespace path, ``ns::sub::Class<T>::fn(int)`` ->
      ``ns::sub``, ``crate::module::fn::h0123456789abcdef`` -> ``crate::module``;
    - Python: the module, ``pkg/mod.py:func`` (or ``func`` in file
      ``pkg/mod.py``) -> ``pkg.mod``, ``pkg.mod.Class.meth`` -> ``pkg.mod``.

    Returns ``""`` when the name has no package part (a C function, a bare
    name); the ``packages`` granularity shows those under their binary.

    Examples
    --------
    >>> from pprofcore.reports import package_of
    >>> package_of("github.com/acme/shop/cart.(*Cart).Add")
    'github.com/acme/shop/cart'
    >>> package_of("com.acme.shop.Cart.add", "Cart.java")
    'com.acme.shop'
    >>> package_of("acme::shop::Cart::add(int)")
    'acme::shop'
    """
    return _core.package_of(name, file)
