"""Writing a file so that readers see the old content or the new one, never a
part: the bytes go to a temporary file beside the target, are flushed to disk,
and the temporary file is renamed over the target (one ``os.replace``).

Used by every writer of the package (``Profile.save``, each CLI ``-o``, the
views' ``save`` methods, the fleet store's parts and commits). A failed write
removes the temporary file and leaves the target as it was. Not for special
files (``/dev/stdout``, pipes): those are written in place, since they cannot
be renamed over."""

from __future__ import annotations

import os
import stat
from typing import Callable, Union

#: Suffix of temporary files (``NAME.tmp-<hex>``); readers of a folder skip them.
TMP_MARK = ".tmp-"

PathLike = Union[str, "os.PathLike[str]"]


def temp_name(path: str) -> str:
    """A fresh temporary name in the folder of ``path``."""
    # 16 random bytes, as uuid4 takes, without importing uuid (and platform) at start-up
    return f"{path}{TMP_MARK}{os.urandom(16).hex()}"


def fsync_dir(directory: str) -> None:
    """Flush a folder's entries (a rename is durable only after this); a
    no-op where folders cannot be opened (Windows)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _mode_for(path: str) -> int:
    """The target's permission bits when it exists, else what ``open()`` would
    give a new file (0o666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)  # reading the umask means setting it: put it back at once
        return 0o666 & ~mask


def write_with(path: PathLike, fill: Callable[[str], None]) -> None:
    """Let ``fill(tmp)`` write the file ``tmp``, then make it ``path`` atomically.

    ``fill`` writes a complete file at the name it is given (a Parquet writer,
    say). If it raises, or the flush or rename fails, the temporary file is
    removed and ``path`` is untouched."""
    p = os.fspath(path)
    if os.path.islink(p):
        p = os.path.realpath(p)  # write the file the link names and keep the link, as open() would
    if os.path.exists(p) and not os.path.isfile(p):
        # a device or a pipe (``-o /dev/stdout``): nothing to rename over
        fill(p)
        return
    tmp = temp_name(p)
    try:
        fill(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, _mode_for(p))
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(os.path.dirname(os.path.abspath(p)))


def write_bytes(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`write_with`)."""

    def fill(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(data)

    write_with(path, fill)


def write_text(path: PathLike, text: str) -> None:
    """Write ``text`` as UTF-8 to ``path`` atomically (see :func:`write_with`)."""
    write_bytes(path, text.encode("utf-8"))


def claim_numbered(directory: str, prefix: str, suffix: str) -> str:
    """A new empty file ``PREFIX001SUFFIX`` in ``directory`` (the first free
    number, pprof's naming of saved profiles and reports), created with
    ``O_EXCL`` so two processes never take the same one; its path."""
    for index in range(1, 10000):
        path = os.path.join(directory, f"{prefix}{index:03d}{suffix}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return path
    raise OSError(f"could not create a file {prefix}NNN{suffix} in {directory or '.'}")
