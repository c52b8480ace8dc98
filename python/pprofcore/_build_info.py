"""What this build of pprofcore can do: its version and the optional native
libraries the C++ core was compiled with.

A leaf module (it imports only ``_core``): the CLI's ``--version``, the tests
and the benchmarks ask it instead of probing ``_core`` each in their own way.
"""

from __future__ import annotations

import functools
import sys

from . import _core


@functools.lru_cache(maxsize=None)
def version() -> str:
    """The installed distribution's version: pyproject.toml's [project]
    version is the one place it is written. Looked up on first use:
    importlib.metadata is slow to import, and most commands never ask."""
    from importlib import metadata

    try:
        return metadata.version("pprofcore")
    except metadata.PackageNotFoundError:  # a source tree on sys.path, never installed
        return "0+unknown"


def inflaters() -> list[str]:
    """The gzip backends compiled in, in the spelling ``_core.gunzip`` takes.

    zlib is always there; libdeflate and ISA-L only where the build found them.
    """
    out = ["zlib"]
    if _core.have_libdeflate():
        out.append("libdeflate")
    if _core.have_isal():
        out.append("isal")
    return out


def build_info() -> dict[str, object]:
    """The version and features of this pprofcore build.

    Returns
    -------
    dict
        ``version`` (str), ``python`` (the running interpreter, e.g. ``"3.11.7"``),
        ``platform`` (``sys.platform`` and machine), ``inflaters`` (gzip backends
        compiled in, fastest last), ``zstd`` (whether zstd-compressed profiles can
        be read) and ``extension`` (the path of the loaded C++ module).

    Examples
    --------
    >>> import pprofcore
    >>> info = pprofcore.build_info()
    >>> "zlib" in info["inflaters"]
    True
    """
    import platform  # imported on use, as importlib.metadata above

    return {
        "version": version(),
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
        "inflaters": inflaters(),
        "zstd": bool(_core.have_zstd()),
        "extension": getattr(_core, "__file__", ""),
    }


def describe() -> str:
    """``build_info()`` as the lines ``pprofcore --version`` prints."""
    info = build_info()
    missing = [] if info["zstd"] else ["zstd (rebuild with libzstd-dev to read zstd-compressed profiles)"]
    lines = [
        f"pprofcore {info['version']}",
        f"python {info['python']} on {info['platform']}",
        "gzip: " + ", ".join(inflaters()),
        f"zstd: {'yes' if info['zstd'] else 'no'}",
    ]
    if missing:
        lines.append("missing: " + "; ".join(missing))
    return "\n".join(lines)
