"""pprofcore: fast, complete analysis of pprof profiles from Python.

Read a profile (gzip or raw ``profile.proto``) into columnar NumPy arrays::

    import pprofcore
    p = pprofcore.load("cpu.pb.gz")
    p.sample_types          # [('samples', 'count'), ('cpu', 'nanoseconds')]
    p.values                # int64 (n_samples, n_types), zero-copy, read-only
    p.to_bytes()            # deterministic re-encoding

``import pprofcore`` imports only NumPy; pandas and pyarrow are optional.
"""

from . import _io
from ._build_info import build_info
from ._build_info import version as _package_version
from ._delta import DeltaComputer
from ._from_folded import from_folded
from ._from_otlp import OtlpProfile, load_otlp
from ._io import load, load_all, load_many, loads
from ._merge import Merger, merge, merge_files
from ._profile import Profile
from ._repair import RepairReport
from ._transform import harmonize_units
from .errors import DecodeError, FilterWarning, GzipError, ProfileError
from .fleet import ProfileSet, open_store
from .reports.table import ReportTable
from .testing import compare

#: The size limit of the decompressed input that ``load``, ``loads``,
#: ``load_many`` and ``merge_files`` apply unless given ``max_decompressed_size=``
#: (4 GiB): a guard against gzip bombs. Larger input raises ``GzipError``.
#:
#: Examples
#: --------
#: >>> pprofcore.DEFAULT_MAX_DECOMPRESSED_SIZE == 4 << 30
#: True
DEFAULT_MAX_DECOMPRESSED_SIZE: int = _io.DEFAULT_MAX_DECOMPRESSED_SIZE

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


def __getattr__(name: str):
    # ``__version__`` is looked up on first use (PEP 562): importlib.metadata
    # costs start-up time that a command line reading one file does not need.
    if name == "__version__":
        return _package_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    # dir() and tab completion list the public names only, not the submodules
    # (reports, testing, fleet ...) that importing the package binds as
    # attributes; they stay importable by name (boost-histogram does the same).
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
