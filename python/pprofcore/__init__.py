"""pprofcore: fast, complete analysis of pprof profiles from Python.

Read a profile (gzip or raw ``profile.proto``) into columnar NumPy arrays::

    import pprofcore
    p = pprofcore.load("cpu.pb.gz")
    p.sample_types          # [('samples', 'count'), ('cpu', 'nanoseconds')]
    p.values                # int64 (n_samples, n_types), zero-copy, read-only
    p.to_bytes()            # deterministic re-encoding

``import pprofcore`` imports only the C++ core; the public names are loaded
on first use (``LAZY_IMPORTS``). pandas and pyarrow are optional.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List

from . import _core
from ._build_info import build_info
from ._build_info import version as _package_version
from ._lazy import lazy_import
from .errors import DecodeError, FilterWarning, GzipError, ProfileError

if TYPE_CHECKING:  # what LAZY_IMPORTS gives, for type checkers and editors
    from . import display as display
    from . import fleet as fleet
    from . import reports as reports
    from . import symbolize as symbolize
    from . import testing as testing
    from . import web as web
    from ._delta import DeltaComputer
    from ._from_folded import from_folded
    from ._from_otlp import OtlpProfile, load_otlp
    from ._io import load, load_all, load_many, loads
    from ._merge import Merger, merge, merge_files
    from ._profile import Profile
    from ._repair import RepairReport
    from ._transform import harmonize_units
    from .fleet import ProfileSet, open_store
    from .reports.table import ReportTable
    from .testing import compare

#: Where each public name (``module:name``) and public subpackage (``module``)
#: lives. They are imported on first use (PEP 562 ``__getattr__``), so that
#: ``import pprofcore`` costs ``_core`` alone and a command line loads only
#: what it runs (``pprofcore -top FILE`` never imports NumPy's users it does
#: not need, pandas, the views or the fleet). Imports on use are ``_lazy``'s
#: (tables like this one, ``lazy_module``, ``lazy_function``);
#: ``tests/core/test_layering.py`` reads this table as imports of this file,
#: and ``tests/core/test_lazy_imports.py`` holds it to ``__all__`` and to the
#: ``TYPE_CHECKING`` block above.
LAZY_IMPORTS = {
    "DeltaComputer": "._delta:DeltaComputer",
    "from_folded": "._from_folded:from_folded",
    "OtlpProfile": "._from_otlp:OtlpProfile",
    "load_otlp": "._from_otlp:load_otlp",
    "load": "._io:load",
    "load_all": "._io:load_all",
    "load_many": "._io:load_many",
    "loads": "._io:loads",
    "Merger": "._merge:Merger",
    "merge": "._merge:merge",
    "merge_files": "._merge:merge_files",
    "Profile": "._profile:Profile",
    "RepairReport": "._repair:RepairReport",
    "harmonize_units": "._transform:harmonize_units",
    "ProfileSet": ".fleet:ProfileSet",
    "open_store": ".fleet:open_store",
    "ReportTable": ".reports.table:ReportTable",
    "compare": ".testing:compare",
    "display": ".display",
    "fleet": ".fleet",
    "reports": ".reports",
    "symbolize": ".symbolize",
    "testing": ".testing",
    "web": ".web",
}

#: The size limit of the decompressed input that ``load``, ``loads``,
#: ``load_many`` and ``merge_files`` apply unless given ``max_decompressed_size=``
#: (4 GiB): a guard against gzip bombs. Larger input raises ``GzipError``.
#:
#: Examples
#: --------
#: >>> pprofcore.DEFAULT_MAX_DECOMPRESSED_SIZE == 4 << 30
#: True
DEFAULT_MAX_DECOMPRESSED_SIZE: int = _core.DEFAULT_MAX_DECOMPRESSED_SIZE

__all__ = [
    "DEFAULT_MAX_DECOMPRESSED_SIZE",
    "DecodeError",
    "FilterWarning",
    "DeltaComputer",
    "Merger",
    "OtlpProfile",
    "harmonize_units",
    "merge",
    "merge_files",
    "GzipError",
    "Profile",
    "ProfileSet",
    "ProfileError",
    "RepairReport",
    "ReportTable",
    "build_info",
    "compare",
    "example_path",
    "from_folded",
    "load",
    "load_all",
    "load_many",
    "load_otlp",
    "loads",
    "open_store",
]


def __getattr__(name: str) -> Any:
    # PEP 562: called only for names not set yet. ``__version__`` is looked
    # up on use too: importlib.metadata costs start-up time.
    if name == "__version__":
        return _package_version()
    if name not in LAZY_IMPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = lazy_import(LAZY_IMPORTS, name, __name__)
    return value


def __dir__() -> List[str]:
    # dir() and tab completion list the public names only, not the submodules
    # (reports, testing, fleet ...); they stay importable by name
    # (boost-histogram does the same).
    return list(__all__)


def example_path(kind: str = "cpu") -> str:
    """Path of an example profile shipped with the package.

    ``kind`` is ``"cpu"`` (Go CPU profile with labels) or ``"heap"`` (Go heap profile).

    Examples
    --------
    >>> path = pprofcore.example_path("heap")
    >>> path.endswith("example-heap.pb.gz")
    True
    >>> pprofcore.load(path).sample_types[0]
    ('alloc_objects', 'count')
    """
    if kind not in ("cpu", "heap"):
        raise ValueError("kind must be 'cpu' or 'heap'")
    from importlib import resources  # on use: it costs ~60 ms of `import pprofcore`

    return str(resources.files(__name__) / "data" / f"example-{kind}.pb.gz")
