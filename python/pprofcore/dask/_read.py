"""Inputs of the Dask operations: paths, fsspec URLs and glob patterns cut
into chunks, and the decoding of one chunk on a worker under the caller's
error policy (``"raise"`` or ``"skip"``, with a :class:`Skipped` report).

Local paths (and ``file://`` URLs) are decoded by the C++ reader straight from
the file; other URLs are fetched with fsspec and decoded from bytes. Failures
carry the same exception types and fields as :func:`pprofcore.load`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterator, List, Sequence, Tuple

from .._io import DEFAULT_MAX_DECOMPRESSED_SIZE, load_many, loads
from ..errors import DecodeError

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile

ERRORS = ("raise", "skip")
#: Files decoded at once inside a task (bounds a task's memory).
DECODE_BATCH = 8

Item = Tuple[int, str]  # (position in the caller's list, path or URL)


class Skipped:
    """The files an ``errors="skip"`` call left out, in input order.

    ``paths[i]`` failed with ``errors[i]``: the exception :func:`pprofcore.load`
    raises for it (``DecodeError`` with ``reason``/``field``/``offset``/``path``,
    ``OSError`` subclasses such as ``FileNotFoundError``...). ``len()`` is the
    count; iterating gives ``(path, error)`` pairs.

    Examples
    --------
    >>> from pprofcore import dask as pdask
    >>> merged, skipped = pdask.merge([pprofcore.example_path(), "missing.pb.gz"], errors="skip")
    >>> len(skipped), skipped.paths
    (1, ['missing.pb.gz'])
    >>> type(skipped.errors[0]).__name__
    'FileNotFoundError'
    """

    __slots__ = ("paths", "errors")

    def __init__(self, paths: Sequence[str] = (), errors: Sequence[BaseException] = ()) -> None:
        self.paths: List[str] = list(paths)
        self.errors: List[BaseException] = list(errors)

    @property
    def count(self) -> int:
        return len(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self):
        return iter(zip(self.paths, self.errors))

    def __add__(self, other: "Skipped") -> "Skipped":
        return Skipped(self.paths + other.paths, self.errors + other.errors)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Skipped):
            return NotImplemented
        return self.paths == other.paths and [repr(e) for e in self.errors] == [repr(e) for e in other.errors]

    def __repr__(self) -> str:
        if not self.paths:
            return "Skipped(no files)"
        shown = "; ".join(f"{type(e).__name__}: {e}" for e in self.errors[:3])
        more = f"; ... and {len(self) - 3} more" if len(self) > 3 else ""
        return f"Skipped({len(self)} file{'s' if len(self) != 1 else ''}: {shown}{more})"

    def __getstate__(self):
        return self.paths, self.errors

    def __setstate__(self, state) -> None:
        self.paths, self.errors = state


def concat_skipped(reports: Sequence[Skipped]) -> Skipped:
    out = Skipped()
    for r in reports:
        out.paths += r.paths
        out.errors += r.errors
    return out


def check_errors(errors: str) -> None:
    if errors not in ERRORS:
        raise ValueError(f"errors must be 'raise' or 'skip', not {errors!r}")


def local_path(path: str) -> str:
    """A plain path for ``file://`` URLs (what the C++ reader opens)."""
    return path[len("file://") :] if path.startswith("file://") else path


def is_remote(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def expand(paths) -> List[str]:
    """The list of inputs: a str or path-like is a glob pattern (fsspec syntax,
    ``**`` recurses; URLs allowed), expanded here in sorted order; any other
    iterable is taken as is (each item a path or URL)."""
    if isinstance(paths, bytes):
        raise TypeError("paths must be str, a path-like or an iterable of them, not bytes")
    if isinstance(paths, (str, os.PathLike)):
        pattern = os.fspath(paths)
        import fsspec

        fs, _, found = fsspec.core.get_fs_token_paths(pattern, mode="rb", expand=True)
        files = sorted(p for p in found if fs.isfile(p))
        if not files:
            raise FileNotFoundError(f"no files match {pattern!r}")
        local = not is_remote(pattern)
        return [p if local else fs.unstrip_protocol(p) for p in files]
    out = []
    for i, p in enumerate(paths):
        if isinstance(p, bytes):
            p = os.fsdecode(p)
        if not isinstance(p, (str, os.PathLike)):
            raise TypeError(f"paths[{i}]: expected a path or URL, got {type(p).__name__}")
        out.append(os.fspath(p))
    return out


def chunks(items: Sequence[str], size: int) -> List[List[Item]]:
    """``items`` with their positions, ``size`` at a time, in order."""
    return [[(i, items[i]) for i in range(a, min(a + size, len(items)))] for a in range(0, len(items), size)]


def _fetch(urls: List[str], max_size: int) -> list:
    """Profiles (or the exception of each) of remote URLs, fetched with fsspec."""
    import fsspec

    out: list = []
    for url in urls:
        try:
            with fsspec.open(url, "rb") as f:
                data = f.read()
        except Exception as e:  # noqa: BLE001 - the error is reported per file, as load_many does
            out.append(e)
            continue
        try:
            out.append(loads(data, max_decompressed_size=max_size))
        except DecodeError as e:
            out.append(_named(e, url))
    return out


def _named(e: DecodeError, url: str) -> DecodeError:
    """``e`` (raised for a URL's bytes) as :func:`pprofcore.load` raises it for
    a file: the same type and fields, with the URL as ``path``."""
    named = type(e)(f"{url}: {e}")
    named.reason, named.field, named.offset, named.path = e.reason, e.field, e.offset, url
    return named


def decode(
    chunk: Sequence[Item], errors: str, skipped: Skipped, max_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE
) -> Iterator[Tuple[int, str, "Profile"]]:
    """Yield ``(position, path, profile)`` for each file of ``chunk`` in order,
    decoding :data:`DECODE_BATCH` files at a time on this thread (the task's
    core). A file that fails raises its exception (``errors="raise"``) or is
    added to ``skipped``."""
    for a in range(0, len(chunk), DECODE_BATCH):
        batch = chunk[a : a + DECODE_BATCH]
        local = [k for k, (_, p) in enumerate(batch) if not is_remote(p)]
        got: list = [None] * len(batch)
        if local:
            for k, item in zip(
                local,
                load_many([local_path(batch[k][1]) for k in local], 1, errors="return", max_decompressed_size=max_size),
            ):
                got[k] = item  # a profile, or the exception load() raises for that file
        remote = [k for k in range(len(batch)) if got[k] is None]
        if remote:
            for k, item in zip(remote, _fetch([batch[k][1] for k in remote], max_size)):
                got[k] = item
        for (pos, path), item in zip(batch, got):
            if isinstance(item, BaseException):
                if errors == "raise":
                    raise item
                skipped.paths.append(path)
                skipped.errors.append(item)
                continue
            yield pos, path, item
