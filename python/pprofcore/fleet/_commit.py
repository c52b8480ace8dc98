"""The store's one commit path: how parts become visible, who may write, and
which files a reader takes. Used by the local ingest (``_store``), the Dask
ingest (``dask/_ingest``) and any other producer; none writes parts another way.

A batch of profiles is written as part files, each to a temporary name that is
flushed and renamed into place (``_atomic``), then committed by one last atomic
step: ``_commits/<batch>.json`` naming its parts. Readers take only the parts
that a commit names, so a writer killed at any point leaves either the whole
batch or none of it visible; the parts it left behind are listed as incomplete
(the next ingest, which holds the lock, removes those pprofcore made; foreign
files are never removed).

Writers hold ``DIR/.lock`` (``flock``, released by the OS when the process
dies, so a crash leaves no stale lock) from the moment they read the store's
ids until their last commit: two ingests run one after the other, and each
numbers its profiles after the other's. Stores written before commits existed
have no ``_commits/`` folder: every part is read, and the first ingest into
such a store commits its existing parts as one ``legacy`` batch."""

from __future__ import annotations

import json
import os
import shutil
import uuid
import warnings
from pathlib import Path
from typing import Dict, List, Optional

from .. import _atomic
from ..errors import DecodeError

TABLES = ("profiles", "samples", "stacks", "locations", "functions", "mappings")
COMMITS = "_commits"
LOCK = ".lock"
STAGING = "_staging-"  # prefix of the Dask ingest's staging folders
FORMAT = 1


class IncompleteStoreWarning(UserWarning):
    """A store holds files no commit names: parts of an ingest that was
    killed (or is still running), or files put there by something else.
    They are not read; ``Store.incomplete`` lists them.

    Examples
    --------
    >>> issubclass(pprofcore.fleet.IncompleteStoreWarning, UserWarning)
    True
    """


def store_error(directory: Path, path, message: str) -> DecodeError:
    """A :class:`~pprofcore.DecodeError` naming the store and the file."""
    e = DecodeError(f"fleet store {directory}: {path}: {message}")
    e.path, e.reason = str(path), message
    return e


class Lock:
    """An exclusive ``flock`` on ``DIR/.lock`` (a context manager). The OS
    drops it when the holder dies; where ``fcntl`` is missing (Windows) it
    locks nothing, and concurrent ingests into one store are not supported."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / LOCK
        self.fd: Optional[int] = None

    def __enter__(self) -> "Lock":
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return self
        fcntl.flock(self.fd, fcntl.LOCK_EX)  # waits for another ingest to finish
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = None


def write_part(path: Path, table) -> None:
    """Write an Arrow table as a Parquet part, atomically (not yet visible:
    a commit must name it)."""
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    _atomic.write_with(path, lambda tmp: pq.write_table(table, tmp))


def commit(directory: Path, batch: str, parts: List[str]) -> None:
    """Make the parts (paths relative to ``directory``) visible together: the
    batch's commit file is the last thing written. Committing a batch again
    (a retried task) replaces its commit with the same content."""
    # the parts' renames are on disk already (write_part and move_part flush their folders)
    _write_commit(Path(directory) / COMMITS, batch, parts)


def _write_commit(folder: Path, batch: str, parts: List[str]) -> None:
    """The commit file of ``batch`` in ``folder``, written atomically."""
    doc = {"format": FORMAT, "batch": batch, "parts": sorted(parts)}
    _atomic.write_text(folder / f"{batch}.json", json.dumps(doc, indent=1))


def move_part(source: Path, target: Path) -> None:
    """Move a part written (atomically) elsewhere on the same filesystem into
    place, durably; like :func:`write_part`, not visible until committed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)
    _atomic.fsync_dir(str(target.parent))


def new_batch() -> str:
    return uuid.uuid4().hex


class Snapshot:
    """What a reader sees of a store at one moment.

    ``parts[table]``: the committed part files of each table (sorted paths);
    ``incomplete``: files under the tables' folders that no commit names
    (temporary files, parts of a killed ingest, foreign files) and the
    staging folders of Dask ingests; ``legacy``: the store has no commits
    (written before they existed), so every part is taken."""

    def __init__(self, directory) -> None:
        d = self.directory = Path(directory)
        # commits first, files second: a batch committed in between is then
        # either wholly unseen or (its files listed) reported, never half taken
        named = _named(d)
        on_disk: Dict[str, List[Path]] = {t: _files(d / t) for t in TABLES}
        if named is None and (d / COMMITS).is_dir():
            named = _named(d)  # adopted while we listed (parts come only after that): read as committed
        self.legacy = named is None
        # staging folders of Dask ingests, commit folders of a killed legacy adoption
        self.incomplete: List[Path] = [*d.glob(STAGING + "*"), *d.glob(COMMITS + _atomic.TMP_MARK + "*")]
        if (d / COMMITS).is_dir():
            self.incomplete += [c for c in (d / COMMITS).iterdir() if _atomic.TMP_MARK in c.name]
        self.parts: Dict[str, List[Path]] = {}
        for t, files in on_disk.items():
            if named is None:  # every part of the old layout
                keep = [f for f in files if _atomic.TMP_MARK not in f.name and f.suffix == ".parquet"]
            else:
                keep = sorted(d / rel for rel in named if rel.split("/")[0] == t)
            taken = set(keep)
            self.incomplete += [f for f in files if f not in taken]
            self.parts[t] = keep
        self.incomplete.sort()

    def all_parts(self) -> List[Path]:
        return [f for t in TABLES for f in self.parts[t]]

    def warn(self) -> None:
        if self.incomplete:
            names = ", ".join(str(p) for p in self.incomplete[:5])
            more = f" and {len(self.incomplete) - 5} more" if len(self.incomplete) > 5 else ""
            warnings.warn(
                f"fleet store {self.directory}: not reading {len(self.incomplete)} uncommitted file(s) "
                f"(an ingest killed or still running, or foreign files): {names}{more}",
                IncompleteStoreWarning,
                stacklevel=4,
            )


def _named(d: Path) -> Optional[set]:
    """The parts (relative paths) that the commits name; None without ``_commits/``."""
    cdir = d / COMMITS
    if not cdir.is_dir():
        return None
    named = set()
    for c in sorted(cdir.iterdir()):
        if _atomic.TMP_MARK in c.name or c.suffix != ".json":
            continue
        for rel in _read_commit(d, c):
            if not (d / rel).is_file():
                raise store_error(d, d / rel, f"named by the commit {c.name} but missing (a damaged store)")
            named.add(rel)
    return named


def _files(folder: Path) -> List[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


def _read_commit(d: Path, c: Path) -> List[str]:
    try:
        doc = json.loads(c.read_text(encoding="utf-8"))
        parts = doc["parts"]
        if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
            raise TypeError("parts is not a list of paths")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise store_error(d, c, f"unreadable commit file ({e})") from None
    for p in parts:
        if p.startswith("/") or ".." in p.split("/") or p.split("/")[0] not in TABLES:
            raise store_error(d, c, f"commit names a file outside the store's tables: {p!r}")
    return parts


def prepare(directory: Path) -> Snapshot:
    """Under the lock, before an ingest writes: adopt a legacy store's parts
    as one committed batch (so its data stays visible once commits exist),
    remove what killed ingests left, and return the committed state."""
    d = Path(directory)
    snap = Snapshot(d)
    if snap.legacy:
        parts = [f.relative_to(d).as_posix() for f in snap.all_parts()]
        # the commit folder appears with its first commit in it (one rename),
        # so no reader ever sees an empty _commits/ that would hide the parts
        tmp = d / f"{COMMITS}{_atomic.TMP_MARK}{uuid.uuid4().hex}"
        tmp.mkdir()
        _write_commit(tmp, "legacy", parts)
        os.replace(tmp, d / COMMITS)
        _atomic.fsync_dir(str(d))
        snap = Snapshot(d)
    for f in snap.incomplete:  # no other writer runs: these are a dead ingest's
        if not _ours(f):
            continue  # a foreign file: not read, not removed (nothing the user put there is lost)
        if f.is_dir():
            shutil.rmtree(f, ignore_errors=True)
        else:
            try:
                f.unlink()
            except OSError:
                pass
    snap.incomplete = [f for f in snap.incomplete if f.exists()]
    return snap


def _ours(f: Path) -> bool:
    """A file or folder only a pprofcore ingest makes (a part, a temporary, a staging folder)."""
    return f.name.startswith(("part-", STAGING, COMMITS)) or _atomic.TMP_MARK in f.name
