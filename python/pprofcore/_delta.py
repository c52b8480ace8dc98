"""Deltas of cumulative profiles (Datadog fastdelta's semantics):
:class:`DeltaComputer`. The state and the subtraction live in C++."""

from __future__ import annotations

from typing import Optional, Sequence

from . import _args, _core
from ._io import DEFAULT_MAX_DECOMPRESSED_SIZE
from ._profile import Profile


class DeltaComputer:
    """Turn a series of cumulative profiles into deltas (Datadog fastdelta's semantics).

    The first profile passes through unchanged. For each later profile,
    duplicate samples (equal merge keys) are aggregated, the values of the
    named sample types have the previous profile's values subtracted, other
    types (e.g. a Go heap profile's ``inuse_*``) pass through, and samples whose
    values are then all zero are dropped. As fastdelta's, a delta keeps only the
    locations, functions, mappings and strings its samples reference (ids kept),
    its ``time_nanos`` is the current profile's and its ``duration_nanos`` the
    time since the previous profile. The state kept between calls is one
    row per distinct sample; once a series is in steady state the C++ core
    allocates nothing per call.

    Parameters
    ----------
    sample_types : sequence of str
        Sample type names to subtract, e.g. ``["alloc_objects", "alloc_space"]``
        for Go heap profiles or ``["contentions", "delay"]`` for mutex/block.
        Empty means all types.

    Examples
    --------
    >>> import pprofcore
    >>> dc = pprofcore.DeltaComputer(["alloc_objects", "alloc_space"])
    >>> heap = pprofcore.load(pprofcore.example_path("heap"))
    >>> first = dc.delta(heap)          # passes through
    >>> second = dc.delta(heap)         # allocations since `first`: none
    >>> second.total("alloc_space")
    0
    """

    #: fastdelta's defaults for Go's cumulative profiles.
    GO_HEAP = ("alloc_objects", "alloc_space")
    GO_MUTEX = ("contentions", "delay")
    GO_BLOCK = ("contentions", "delay")

    def __init__(self, sample_types: Sequence[str] = ()) -> None:
        if isinstance(sample_types, str):
            sample_types = [sample_types]
        self.sample_types = list(sample_types)
        self._d = _core.DeltaComputer(self.sample_types)

    def delta(self, profile: Profile) -> Profile:
        """Delta of ``profile`` against the previous one (the first passes through)."""
        return Profile._wrap(self._d.delta(_core_of(profile)))

    def delta_bytes(
        self,
        data,
        *,
        compress: bool = True,
        level: Optional[int] = None,
        max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    ) -> bytes:
        """Like :meth:`delta` on serialized profiles: bytes in, pprof bytes out
        (gzip-compressed unless ``compress=False``), ready to save or upload.
        No Python Profile is created."""
        return self._d.delta_bytes(data, compress, _args.check_level(level), max_decompressed_size)

    @property
    def num_states(self) -> int:
        """Distinct samples remembered between calls."""
        return self._d.num_states

    @property
    def memory_bytes(self) -> int:
        return self._d.memory_bytes()

    def __repr__(self) -> str:
        return f"<pprofcore.DeltaComputer types={self.sample_types} calls={self._d.num_calls} states={self.num_states}>"


def _core_of(profile) -> "_core.Profile":
    if not isinstance(profile, Profile):
        raise TypeError(f"expected pprofcore.Profile, got {type(profile).__name__}")
    return profile._core
