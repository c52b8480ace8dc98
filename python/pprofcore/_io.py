"""Reading profiles: :func:`load`, :func:`loads`, :func:`load_many`."""

from __future__ import annotations

import os
from typing import IO, Iterable, List, Optional, Tuple, Union

from . import _core
from ._profile import Profile
from ._repair import RepairReport
from .errors import DecodeError

#: Default cap on the decompressed size of a gzip input (a gzip-bomb guard).
DEFAULT_MAX_DECOMPRESSED_SIZE = 4 << 30

PathLike = Union[str, "os.PathLike[str]"]


def loads(
    data: Union[bytes, bytearray, memoryview],
    *,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    inflater: str = "auto",
    repair: bool = False,
) -> Union[Profile, Tuple[Profile, RepairReport]]:
    """Decode a profile from bytes (``profile.proto``, raw, gzip or zstd, or
    one of pprof's legacy formats).

    Parameters
    ----------
    data : bytes-like
        The serialized profile. gzip and zstd are detected from their magic
        bytes; several concatenated gzip members (zstd frames) are joined, as
        ``gunzip`` does. Input that is not ``profile.proto`` is read with
        pprof's legacy parsers when one recognises it (Go ``debug=1`` text,
        gperftools CPU and heap profiles, contention, threadz and Java
        profiles; see docs/formats.md), giving what ``go tool pprof -raw``
        shows for the same file.
    max_decompressed_size : int, optional
        Refuse gzip or zstd input that decompresses to more than this many
        bytes (default 4 GiB). Raise it for very large profiles.
    inflater : {"auto", "zlib", "libdeflate", "isal"}, optional
        gzip backend. ``"auto"`` picks the fastest in this build: for large
        inputs with ISA-L available it inflates on a second thread while
        decoding what has arrived; otherwise libdeflate, else zlib.
        ``"isal"`` always takes the overlapped path.
    repair : bool, optional
        Fix what can be fixed instead of raising (dangling references, missing
        functions, id 0 and duplicate ids, samples with the wrong number of
        values) and return ``(profile, report)``; see :class:`RepairReport` and
        docs/robustness.md. Wire-format, string-table and gzip errors still raise.

    Returns
    -------
    Profile
        Or ``(Profile, RepairReport)`` when ``repair=True``.

    Raises
    ------
    DecodeError
        If the input is not a valid profile; the message names the problem, the
        field and the byte offset. :class:`GzipError` for gzip problems.
    """
    if isinstance(data, str):
        raise TypeError("loads() takes bytes; to read a file use pprofcore.load(path)")
    if repair:
        core, report = _core.decode_repair(data, max_decompressed_size, inflater)
        return Profile._wrap(core), RepairReport._from_core(report)
    return Profile._wrap(_core.decode(data, max_decompressed_size, inflater))


def load(
    source: Union[PathLike, IO[bytes]],
    *,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    inflater: str = "auto",
    repair: bool = False,
) -> Union[Profile, Tuple[Profile, RepairReport]]:
    """Read a profile from a path or a binary file-like object.

    The file is only read, never modified. Paths are read and decoded in C++
    with the GIL released. See :func:`loads` for the parameters.

    Examples
    --------
    >>> import pprofcore
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> p.sample_types
    [('samples', 'count'), ('cpu', 'nanoseconds')]

    With ``repair=True`` a ``(profile, report)`` pair is returned:

    >>> p, report = pprofcore.load(pprofcore.example_path(), repair=True)
    >>> report
    RepairReport(no repairs)
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        raise TypeError("load() takes a path or file object; for bytes use pprofcore.loads(data)")
    if hasattr(source, "read"):
        return loads(source.read(), max_decompressed_size=max_decompressed_size, inflater=inflater, repair=repair)
    path = os.fspath(source)
    try:
        if repair:
            core, report = _core.decode_file_repair(path, max_decompressed_size, inflater)
            return Profile._wrap(core), RepairReport._from_core(report)
        core = _core.decode_file(path, max_decompressed_size, inflater)
    except DecodeError as e:
        raise _with_path(e, path) from None
    return Profile._wrap(core)


def load_many(
    paths: Iterable[PathLike],
    threads: Optional[int] = None,
    *,
    errors: str = "raise",
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    inflater: str = "auto",
) -> List[Optional[Union[Profile, Exception]]]:
    """Decode many files in parallel, in C++ threads with the GIL released.

    Parameters
    ----------
    paths : iterable of path-like
    threads : int, optional
        Worker threads; default all cores.
    errors : {"raise", "skip", "return"}
        What to do with a file that fails: raise its exception (after all files
        were tried), leave it out of the result, or put the exception object in
        its place.

    Returns
    -------
    list
        Profiles in the order of ``paths``.
    """
    if errors not in ("raise", "skip", "return"):
        raise ValueError("errors must be 'raise', 'skip' or 'return'")
    paths = [os.fspath(p) for p in paths]
    raw = _core.load_many(paths, threads or 0, max_decompressed_size, inflater)
    out: list = []
    first_error: Optional[Exception] = None
    for path, item in zip(paths, raw):
        if isinstance(item, _core.Profile):
            out.append(Profile._wrap(item))
            continue
        message, field, offset, is_decode_error = item
        if is_decode_error:
            exc: Exception = DecodeError(f"{path}: {message}")
            exc.reason, exc.field, exc.offset = message, field, (offset if offset >= 0 else None)
            exc.path = path
        else:
            exc = OSError(f"{path}: {message}")
        if first_error is None:
            first_error = exc
        if errors == "return":
            out.append(exc)
    if first_error is not None and errors == "raise":
        raise first_error
    return out


def _with_path(e: DecodeError, path: str) -> DecodeError:
    new = type(e)(f"{path}: {e}")
    new.reason, new.field, new.offset, new.path = e.reason, e.field, e.offset, path
    return new
