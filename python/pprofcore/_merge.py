"""Merging: :func:`pprofcore.merge`, :class:`pprofcore.Merger` and
:func:`pprofcore.merge_files`, with google/pprof's semantics at native speed.
All per-sample work runs in C++ with the GIL released."""

from __future__ import annotations

import os
from typing import Callable, Iterable, Optional

from . import _core, _transform
from ._io import (
    DEFAULT_MAX_DECOMPRESSED_SIZE,
    batch_path_bytes,
    failed_on_foreign_file,
    load_many,
    path_bytes,
    read_foreign,
)
from ._profile import Profile
from .errors import ProfileError


def _cores(profiles: Iterable[Profile]) -> list:
    out = []
    for p in profiles:
        if not isinstance(p, Profile):
            raise TypeError(f"expected pprofcore.Profile, got {type(p).__name__}")
        out.append(p._core)
    return out


def merge(profiles: Iterable[Profile], *, compatible: str = "strict", harmonize_units: bool = False) -> Profile:
    """Merge profiles exactly as google/pprof's ``profile.Merge`` does.

    Samples with equal keys (stack of merged locations, string labels, numeric
    labels with units) have their values summed; all-zero samples are dropped;
    mappings, locations and functions are deduplicated by content. The header
    takes the earliest ``time_nanos`` (pprof's rule: a later zero resets it),
    the summed ``duration_nanos``, the largest ``period``, the deduplicated
    comments, and the first profile's sample types, period type and
    drop/keep frames. The first profile's first mapping stays first.

    Parameters
    ----------
    profiles : iterable of Profile
    compatible : {"strict", "intersect"}
        ``"strict"`` requires identical sample and period types (else
        :class:`ProfileError`); ``"intersect"`` keeps only the sample types
        common to all profiles (pprof's ``CompatibilizeSampleTypes``).
    harmonize_units : bool
        Convert units first (e.g. ``milliseconds`` and ``nanoseconds`` to
        ``nanoseconds``), as ``go tool pprof`` does before merging.

    Returns
    -------
    Profile

    Examples
    --------
    >>> import pprofcore
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> m = pprofcore.merge([p, p])
    >>> m.total("cpu") == 2 * p.total("cpu")
    True
    """
    profiles = list(profiles)
    if not profiles:
        raise ProfileError("no profiles to merge")
    if compatible not in ("strict", "intersect"):
        raise ValueError("compatible must be 'strict' or 'intersect'")
    if compatible == "intersect":
        profiles = _transform.intersect_sample_types(profiles)
    if harmonize_units:
        profiles = _transform.harmonize_units(profiles)
    return Profile._wrap(_core.merge(_cores(profiles)))


class Merger:
    """Incremental merge: memory grows with the *distinct* content seen, not with
    the number of profiles added.

    Examples
    --------
    >>> import pprofcore
    >>> m = pprofcore.Merger()
    >>> m.add(pprofcore.load(pprofcore.example_path()))
    >>> m.add_file(pprofcore.example_path())
    >>> len(m)
    2
    >>> merged = m.result()
    """

    def __init__(self) -> None:
        self._m = _core.Merger()

    def add(self, profile: Profile) -> None:
        """Merge ``profile`` in (raises :class:`ProfileError` if incompatible)."""
        self._m.add(_cores([profile])[0])

    def add_file(self, path, *, max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE) -> None:
        """Decode ``path`` and merge it in, without creating a Python Profile.
        Errors and limits as :func:`pprofcore.load`; another profiler's format
        (JFR, ``.cpuprofile``, ...) is read by content as :func:`pprofcore.load`
        reads it."""
        path = path_bytes(path)
        try:
            self._m.add_file(path, max_decompressed_size)
        except _core.DecodeError as e:
            foreign = None if isinstance(e, _core.GzipError) else read_foreign(None, max_decompressed_size, path)
            if foreign is None:
                raise
            self._m.add(foreign._core)

    def result(self) -> Profile:
        """The merged profile so far; the Merger stays usable."""
        return Profile._wrap(self._m.result())

    def __len__(self) -> int:
        return self._m.num_inputs

    @property
    def memory_bytes(self) -> int:
        """Approximate bytes held by the merged tables and hash indexes."""
        return self._m.memory_bytes()

    def __repr__(self) -> str:
        return f"<pprofcore.Merger {len(self)} profiles, {self._m.num_samples} distinct samples>"


def merge_files(
    paths: Iterable,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    *,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> Profile:
    """Decode and merge many files on all cores with the GIL released.

    Worker threads decode ahead (a few files each at most) while the calling
    thread merges in input order, so the result is identical to
    ``merge(load_many(paths))`` for any thread count, and memory stays bounded
    by the distinct content rather than the number of files. Whenever the file
    it must merge next is not decoded yet, the calling thread decodes the next
    one itself (a regular file of at most 8 MiB), so the cores stay busy
    whether decoding or merging costs more.

    Ctrl-C, or an exception raised by ``progress``, stops the merge: the
    decoder threads finish the file they hold and are joined, then the
    exception is raised. Each file is read within ``max_decompressed_size``
    as by :func:`pprofcore.load`.

    Parameters
    ----------
    paths : iterable of path-like
        Not a single ``str``: that raises ``TypeError``.
    threads : int, optional
        Decoder threads besides the calling thread (default: one fewer than
        the cores, at least one).
    progress : callable, optional
        ``progress(done, total)`` called after each merged file. Anything but a
        callable or ``None`` raises ``TypeError`` before any work starts.

    Examples
    --------
    >>> import pprofcore
    >>> m = pprofcore.merge_files([pprofcore.example_path()] * 3, threads=2)
    >>> m.total("cpu") == 3 * pprofcore.load(pprofcore.example_path()).total("cpu")
    True
    """
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable progress(done, total) or None, not {type(progress).__name__}")
    paths = batch_path_bytes(paths, "merge_files")
    if not paths:
        raise ProfileError("no profiles to merge")
    reported = [0]

    def report(done: int, total: int) -> None:
        reported[0] = done
        if progress is not None:
            progress(done, total)

    try:
        return Profile._wrap(_core.merge_files(paths, threads or 0, max_decompressed_size, report))
    except _core.DecodeError as e:
        # Another profiler's format (read in Python): merge again through
        # load_many, which reads those, in the same order.
        if not failed_on_foreign_file(e, max_decompressed_size):
            raise
    return _merge_loaded(paths, threads, max_decompressed_size, progress, reported[0])


def _merge_loaded(paths: list, threads: Optional[int], max_decompressed_size: int, progress, reported: int) -> Profile:
    """``merge(load_many(paths))`` a batch at a time (memory bounded by the
    batch); ``progress`` hears only of files past those already reported."""
    m = _core.Merger()
    batch = max(1, threads or os.cpu_count() or 1) * 8
    for start in range(0, len(paths), batch):
        for p in load_many(paths[start : start + batch], threads, max_decompressed_size=max_decompressed_size):
            assert isinstance(p, Profile)  # errors="raise": profiles only
            m.add(p._core)
        done = min(start + batch, len(paths))
        if progress is not None and done > reported:
            progress(done, len(paths))
    return Profile._wrap(m.result())
