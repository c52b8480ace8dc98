"""Reading profiles: :func:`load`, :func:`loads`, :func:`load_many`."""

from __future__ import annotations

import os
import stat
from typing import IO, TYPE_CHECKING, Dict, Iterable, List, Literal, Optional, Tuple, Union, overload

from . import _core
from ._lazy import lazy_module
from ._profile import Profile

if TYPE_CHECKING:
    from . import _foreign, _repair
    from ._repair import RepairReport
else:  # other profilers' formats and repair mode: imported when an input needs them
    _foreign = lazy_module("pprofcore._foreign")
    _repair = lazy_module("pprofcore._repair")

#: Default cap on the size of the profile.proto bytes: what a gzip input may
#: inflate to (all members together; a gzip-bomb guard) and the most a raw input
#: may hold.
DEFAULT_MAX_DECOMPRESSED_SIZE = _core.DEFAULT_MAX_DECOMPRESSED_SIZE

PathLike = Union[str, "os.PathLike[str]"]


def path_bytes(path) -> bytes:
    """The path as the OS's bytes (``os.fsencode``), refusing a NUL byte as
    ``open()`` does: the OS would stop at it and read another file. Bytes go to
    the core because a file name need not be UTF-8: a ``str`` from
    ``os.fsdecode`` (with surrogate escapes) or a ``bytes`` path opens the same
    file, and errors name it as ``os.fsdecode`` does."""
    path = os.fsencode(path)
    if b"\0" in path:
        raise ValueError("embedded null byte")
    return path


def _is_bytes_path(source) -> bool:
    """Whether a ``bytes`` given to :func:`load` is a file name (as ``open()``
    takes one) rather than profile data passed by mistake: one line, no NUL,
    not a compressor's magic, at most PATH_MAX bytes."""
    return (
        isinstance(source, bytes)
        and 0 < len(source) <= 4096
        and b"\0" not in source
        and b"\n" not in source
        and not source.startswith((b"\x1f\x8b", b"\x28\xb5\x2f\xfd"))
    )


def batch_path_bytes(paths, function: str) -> list:
    """The paths of a batch call; a lone str or bytes is refused rather than
    iterated character by character."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(f"{function}() takes an iterable of paths, not a single path; use {function}([path])")
    return [path_bytes(p) for p in paths]


def read_foreign(data, max_decompressed_size: int, path: Optional[bytes]) -> Optional[Profile]:
    """The profile of another profiler's format (``_foreign``) in ``data`` or
    the file ``path``, or ``None`` when it is none pprofcore reads. Errors of
    a reader name the file as the core's do. Only regular files are read
    again: the core has already consumed a pipe (pass its bytes to
    :func:`loads`, or a file object to :func:`load`, for other formats)."""
    try:
        if path is not None:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None  # a pipe or device cannot be read a second time
            with open(path, "rb") as f:
                data = f.read(64 << 10)  # enough to tell; the rest only for a format read here
                if _foreign.detect_head(data) is None:
                    return None
                # Read again from the start: appending the rest would copy it all once more.
                f.seek(0)
                data = f.read(_core.max_input_size(max_decompressed_size, True) + 1)
        return _foreign.read(data, max_decompressed_size)
    except _core.DecodeError as e:
        if path is not None:
            e.path = os.fsdecode(path)
            e.args = (f"{e.path}: {e.args[0]}",)
        raise
    except OSError:
        return None


def failed_on_foreign_file(error: Exception, max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE) -> bool:
    """Whether ``error``, raised by a C++ batch over files (merge, series),
    is the core's refusal of a file in another profiler's format, which only
    :func:`load` (and :func:`load_many`) read: the caller then does its work
    again through those."""
    if not isinstance(error, _core.DecodeError) or isinstance(error, _core.GzipError):
        return False
    path = getattr(error, "path", None)
    return path is not None and read_foreign(None, max_decompressed_size, os.fsencode(path)) is not None


def _foreign_or_raise(error: Exception, data, max_decompressed_size: int, repair: bool, path: Optional[bytes]):
    """What :func:`load`/:func:`loads` return when the core refused the input:
    a foreign format's profile (with an empty repair report under
    ``repair=True``), or the core's error."""
    if isinstance(error, _core.GzipError):
        raise error
    p = read_foreign(data, max_decompressed_size, path)
    if p is None:
        raise error
    return (p, _repair.RepairReport._from_core({})) if repair else p


def _decode(data, path: Optional[bytes], max_decompressed_size: int, inflater: str, repair: bool):
    """What :func:`loads` (``data``) and :func:`load` (``path``) return: the
    core's profile (and repair report), else a foreign format's."""
    source = data if path is None else path
    plain, repairing = (
        (_core.decode, _core.decode_repair) if path is None else (_core.decode_file, _core.decode_file_repair)
    )
    try:
        if repair:
            core, report = repairing(source, max_decompressed_size, inflater)
            return Profile._wrap(core), _repair.RepairReport._from_core(report)
        return Profile._wrap(plain(source, max_decompressed_size, inflater))
    except _core.DecodeError as e:
        return _foreign_or_raise(e, data, max_decompressed_size, repair, path)


@overload
def loads(
    data: Union[bytes, bytearray, memoryview],
    *,
    max_decompressed_size: int = ...,
    inflater: str = ...,
    repair: Literal[False] = ...,
) -> Profile: ...
@overload
def loads(
    data: Union[bytes, bytearray, memoryview],
    *,
    max_decompressed_size: int = ...,
    inflater: str = ...,
    repair: Literal[True],
) -> Tuple[Profile, RepairReport]: ...
@overload
def loads(
    data: Union[bytes, bytearray, memoryview], *, max_decompressed_size: int = ..., inflater: str = ..., repair: bool
) -> Union[Profile, Tuple[Profile, RepairReport]]: ...
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
        shows for the same file. Go goroutine dumps (``debug=2``, panic and
        SIGQUIT tracebacks) become goroutine profiles with one sample per
        goroutine and ``state``/``wait``/``goid``/``created_by`` labels.
        OpenTelemetry OTLP profiles (protobuf or JSON) holding one profile
        are read too (:func:`load_otlp` reads every profile of a message;
        docs/otlp.md). Other profilers' formats are read too, detected by
        content (see docs/producers.md): JFR recordings, V8 ``.cpuprofile``
        and ``.heapprofile``, Chrome traces, the Firefox Profiler's processed
        profiles (samply) and Firefox's Gecko profiles, Valgrind's DHAT,
        Massif and Callgrind, heaptrack, Scalene, stackprof (Ruby), Sentry profiles, memray captures, speedscope JSON,
        pyinstrument JSON, async-profiler's text output, collapsed stacks (folded, py-spy ``raw``, austin),
        cProfile/pstats dumps, ``perf script`` text and ``perf.data``
        (through ``perf script``).
        Input that is none of these is refused with a message naming what it
        is not.
    max_decompressed_size : int, optional
        Refuse input whose profile.proto is larger than this many bytes
        (default 4 GiB): gzip or zstd input stops decompressing there (all
        members or frames together), and raw input longer than that is
        refused. Raise it for very large profiles.
    inflater : {"auto", "zlib", "libdeflate", "isal"}, optional
        gzip backend. ``"auto"`` picks the fastest in this build: for large
        inputs with ISA-L available it inflates on a second thread while
        decoding what has arrived; otherwise libdeflate, else zlib.
        ``"isal"`` always takes the overlapped path.
    repair : bool, optional
        Fix what can be fixed instead of raising (dangling references, missing
        functions, id 0 and duplicate ids, samples with the wrong number of
        values, a non-empty ``string_table[0]``, string indexes past the table)
        and return ``(profile, report)``; see :class:`RepairReport` and
        docs/robustness.md. Wire-format and gzip errors still raise.

    Returns
    -------
    Profile
        Or ``(Profile, RepairReport)`` when ``repair=True``.

    Raises
    ------
    DecodeError
        If the input is not a valid profile; the message names the problem, the
        field and the byte offset. :class:`GzipError` for gzip problems.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> pprofcore.loads(p.to_bytes()) == p
    True
    >>> pprofcore.loads(b"\\x08")
    Traceback (most recent call last):
        ...
    pprofcore._core.DecodeError: wrong wire type for field number 1: ... (field Profile.sample_type) at byte offset 0
    """
    if isinstance(data, str):
        raise TypeError("loads() takes bytes; to read a file use pprofcore.load(path)")
    return _decode(data, None, max_decompressed_size, inflater, repair)


@overload
def load(
    source: Union[PathLike, IO[bytes]],
    *,
    max_decompressed_size: int = ...,
    inflater: str = ...,
    repair: Literal[False] = ...,
) -> Profile: ...
@overload
def load(
    source: Union[PathLike, IO[bytes]], *, max_decompressed_size: int = ..., inflater: str = ..., repair: Literal[True]
) -> Tuple[Profile, RepairReport]: ...
@overload
def load(
    source: Union[PathLike, IO[bytes]], *, max_decompressed_size: int = ..., inflater: str = ..., repair: bool
) -> Union[Profile, Tuple[Profile, RepairReport]]: ...
def load(
    source: Union[PathLike, IO[bytes]],
    *,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    inflater: str = "auto",
    repair: bool = False,
) -> Union[Profile, Tuple[Profile, RepairReport]]:
    """Read a profile from a path or a binary file-like object.

    The file is only read, never modified. Paths are read and decoded in C++
    with the GIL released. A path may be ``str``, ``bytes`` (a file name that
    is not UTF-8) or path-like; errors name it as ``os.fsdecode`` does (in
    ``.path`` and ``OSError.filename``; the message shows bytes that are not
    UTF-8 as ``\\xNN``). A ``bytes`` that looks like profile data rather than
    a file name (a NUL or newline, a gzip or zstd magic) raises ``TypeError``. See :func:`loads` for the parameters;
    ``max_decompressed_size`` also caps what is read: a larger file is refused
    from its size, a pipe or device once the limit is passed, and input that
    cannot be a profile from its first bytes.

    Raises
    ------
    DecodeError
        As :func:`loads`, with the path in the message and in ``.path``.
    OSError
        The subclass for the OS error, e.g. ``FileNotFoundError`` or
        ``IsADirectoryError``, naming the path.
    ValueError
        For a path with a NUL byte (``"embedded null byte"``, as ``open()``).

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
    if isinstance(source, (bytes, bytearray, memoryview)) and not _is_bytes_path(source):
        raise TypeError("load() takes a path or file object; for bytes use pprofcore.loads(data)")
    if hasattr(source, "read"):
        # One byte past the limit is enough to know a raw input is too large;
        # gzip input may be somewhat larger than what it inflates to.
        data = source.read(max_decompressed_size + 1)
        if len(data) > max_decompressed_size and data[:2] == b"\x1f\x8b":
            data += source.read(_core.max_input_size(max_decompressed_size, True) + 1 - len(data))
        return loads(data, max_decompressed_size=max_decompressed_size, inflater=inflater, repair=repair)
    return _decode(None, path_bytes(source), max_decompressed_size, inflater, repair)


@overload
def load_many(
    paths: Iterable[PathLike],
    threads: Optional[int] = None,
    *,
    errors: Literal["raise", "skip"] = "raise",
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    inflater: str = "auto",
) -> List[Profile]: ...


@overload
def load_many(
    paths: Iterable[PathLike],
    threads: Optional[int] = None,
    *,
    errors: str,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    inflater: str = "auto",
) -> List[Union[Profile, Exception]]: ...


def load_many(
    paths: Iterable[PathLike],
    threads: Optional[int] = None,
    *,
    errors: str = "raise",
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
    inflater: str = "auto",
) -> Union[List[Profile], List[Union[Profile, Exception]]]:
    """Decode many files in parallel, in C++ threads with the GIL released.

    Ctrl-C (any signal whose handler raises) cancels the batch between files:
    the workers finish the file they hold and the exception is raised.
    ``max_decompressed_size`` applies to each file as in :func:`load`.

    Parameters
    ----------
    paths : iterable of path-like
        ``str``, ``bytes`` or path-like, as :func:`load` takes them. Not a
        single ``str``: that raises ``TypeError``.
    threads : int, optional
        Worker threads; default all cores.
    errors : {"raise", "skip", "return"}
        What to do with a file that fails: raise its exception (after all files
        were tried), leave it out of the result, or put the exception object in
        its place. A file's exception is one :func:`load` documents
        (``DecodeError``, ``OSError``), whatever bytes the file or its name
        holds, so ``"skip"`` and ``"return"`` never abort the batch.

    Returns
    -------
    list
        Profiles in the order of ``paths``.

    Examples
    --------
    >>> paths = [pprofcore.example_path("cpu"), pprofcore.example_path("heap")]
    >>> [len(p) for p in pprofcore.load_many(paths)]
    [496, 216]
    >>> pprofcore.load_many(paths + ["missing.pb.gz"], errors="return")[2]
    FileNotFoundError(2, 'No such file or directory')
    """
    if errors not in ("raise", "skip", "return"):
        raise ValueError("errors must be 'raise', 'skip' or 'return'")
    paths = batch_path_bytes(paths, "load_many")
    raw = _core.load_many(paths, threads or 0, max_decompressed_size, inflater)
    out: list = []
    first_error: Optional[Exception] = None
    for path, item in zip(paths, raw):  # a Profile, or the exception load() raises for that file
        if isinstance(item, _core.Profile):
            out.append(Profile._wrap(item))
            continue
        if isinstance(item, _core.DecodeError) and not isinstance(item, _core.GzipError):
            try:  # another profiler's format, read in Python as load() does
                foreign = read_foreign(None, max_decompressed_size, path)
            except _core.DecodeError as e:
                foreign, item = None, e
            if foreign is not None:
                out.append(foreign)
                continue
        exc: Exception = item
        if first_error is None:
            first_error = exc
        if errors == "return":
            out.append(exc)
    if first_error is not None and errors == "raise":
        raise first_error
    return out


def load_all(
    source: Union[PathLike, IO[bytes], bytes],
    *,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> Dict[str, Profile]:
    """Every profile a file (path, file object or bytes) holds, by name.

    A Java Flight Recorder recording gives one profile per kind of event,
    each with its own samples and sample types: ``"cpu"`` (execution
    samples), ``"wall"`` (native method samples), ``"alloc"`` (allocation
    samples) and ``"lock"`` (monitor enter and park contention), as
    async-profiler's converter splits them; :func:`load` returns them as one
    profile with all the sample types side by side. Valgrind Massif's output
    gives one profile per snapshot with a heap tree (``"snapshot=12"``; the
    peak's key ends ``" (peak)"``), where :func:`load` returns the peak. Any
    other input gives ``{"": load(source)}``.

    Examples
    --------
    A pprof file holds one profile, under the name ``""``:

    >>> pprofcore.load_all(pprofcore.example_path()).keys()
    dict_keys([''])

    A JFR recording holds one per kind of event:

    >>> profiles = pprofcore.load_all("recording.jfr")  # doctest: +SKIP
    >>> profiles["alloc"].top(sample_type="alloc_space")  # doctest: +SKIP
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif hasattr(source, "read"):
        data = source.read(_core.max_input_size(max_decompressed_size, True) + 1)
    else:
        with open(path_bytes(source), "rb") as f:
            data = f.read(_core.max_input_size(max_decompressed_size, True) + 1)
    try:
        got = _foreign.read_all(data, max_decompressed_size)
    except _core.DecodeError as e:
        if not isinstance(source, (bytes, bytearray, memoryview)) and not hasattr(source, "read"):
            e.path = os.fsdecode(path_bytes(source))
            e.args = (f"{e.path}: {e.args[0]}",)
        raise
    if got is not None:
        return got
    if isinstance(source, (bytes, bytearray, memoryview)) or hasattr(source, "read"):
        return {"": loads(data, max_decompressed_size=max_decompressed_size)}
    return {"": load(source, max_decompressed_size=max_decompressed_size)}
