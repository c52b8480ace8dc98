"""``pprofcore.dask.ingest``: write the fleet's Parquet store (docs/fleet.md)
from many workers at once, readable by :func:`pprofcore.open_store`.

Each task writes the ``profiles`` and ``samples`` of its chunk as one part
per day partition into a staging folder of the store, and returns the
content rows (stacks, locations, functions, mappings) its profiles use. The
content rows are deduplicated by id in a tree; the last task drops the ids
the store already has, writes them, moves the staged parts into place and
commits them all as one batch through the store's one commit path
(``fleet._commit``): until that commit, none of the call's rows is visible,
so a kill anywhere leaves the store as it was. The caller holds the store's
lock from reading its next profile id to the commit.
A file that cannot be read fails its task's chunk without raising there:
the error travels up the tree, so the last task runs only once every chunk
is done, removes the staging folder and the call raises, leaving the store
as it was. Part names are fixed per call and chunk, so a task that is run
again after its worker died overwrites its own files instead of adding more."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from .._io import DEFAULT_MAX_DECOMPRESSED_SIZE
from ..errors import DecodeError
from ..fleet import _commit, _store
from ..fleet._store import Store, Writer, header_row, next_profile_id
from . import _client, _read
from ._read import Item, Skipped

CONTENT = ("stacks", "locations", "functions", "mappings")
_ID = {"stacks": "stack_id", "locations": "location_id", "functions": "function_id", "mappings": "mapping_id"}


class IngestPart:
    """Content rows (Arrow tables, one row per distinct id), skipped files,
    and the first error of the chunks below (``errors="raise"``)."""

    __slots__ = ("content", "skipped", "n", "error")

    def __init__(
        self, content: Dict[str, Any], skipped: Skipped, n: int, error: Optional[BaseException] = None
    ) -> None:
        self.content, self.skipped, self.n, self.error = content, skipped, n, error

    def __getstate__(self):
        return self.content, self.skipped, self.n, self.error

    def __setstate__(self, state) -> None:
        self.content, self.skipped, self.n, self.error = state


def _unique(table, column: str):
    """The first row of each id of ``table``."""
    if table is None or table.num_rows == 0:
        return table
    _, first = np.unique(table.column(column).to_numpy(), return_index=True)
    return table.take(np.sort(first))


def ingest_chunk(
    chunk: Sequence[Item],
    staging: str,
    name: str,
    first_id: int,
    metadata,
    errors: str = "raise",
    max_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
) -> IngestPart:
    """Leaf task: stage the profiles and samples of ``chunk``; return its content rows.

    Profile ids are ``first_id + position`` (input order, as a local ingest numbers them)."""
    import pyarrow as pa

    w = Writer(Path(staging), first_id=first_id)
    skipped = Skipped()
    n = 0
    try:
        for pos, path, p in _read.decode(chunk, errors, skipped, max_size):
            if metadata is None:
                extra = {}
            elif callable(metadata):
                extra = dict(metadata(path) or {})
            else:
                extra = dict(metadata[pos])
            t = p.time_nanos
            day = np.datetime64(t, "ns").astype("datetime64[D]").astype(str) if t else "none"
            w.next_id = first_id + pos
            w.add(p, {"day": day, "row": header_row(p, path, extra)})
            n += 1
    except (DecodeError, OSError) as e:  # an unreadable file: reported by the last task
        return IngestPart({table: None for table in CONTENT}, skipped, n, e)
    content: Dict[str, Any] = {}
    for table in CONTENT:
        pieces = w.pending[table]
        content[table] = pa.concat_tables(pieces, promote_options="permissive") if pieces else None
        w.pending[table] = []
    w.flush(name, commit=False)  # committed by the last task, with everything else
    return IngestPart(content, skipped, n)


def combine(parts: List[IngestPart]) -> IngestPart:
    """Inner task: the content rows of ``parts``, each id once."""
    import pyarrow as pa

    content = {}
    for t in CONTENT:
        pieces = [x.content[t] for x in parts if x.content[t] is not None]
        content[t] = _unique(pa.concat_tables(pieces, promote_options="permissive"), _ID[t]) if pieces else None
    error = next((x.error for x in parts if x.error is not None), None)
    return IngestPart(content, _read.concat_skipped([x.skipped for x in parts]), sum(x.n for x in parts), error)


def commit(root: IngestPart, directory: str, staging: str, name: str, batch: str) -> IngestPart:
    """Last task: write the content rows the store lacks, move the staged
    parts into the store, and commit them all as one batch (the last step);
    then remove the staging folder. Run again (its worker died), it redoes
    what is missing and commits the same batch."""
    d, stage = Path(directory), Path(staging)
    if root.error is not None:
        shutil.rmtree(stage, ignore_errors=True)
        root.content = {t: None for t in CONTENT}
        return root
    snap = _commit.Snapshot(d)  # committed rows only: this call's own parts are not yet
    parts = []
    for t in CONTENT:
        table = root.content[t]
        if table is None or table.num_rows == 0:
            continue
        ids = table.column(_ID[t]).to_numpy()
        fresh = ~np.isin(ids, _store.existing_ids(snap, t))
        if fresh.any():
            _commit.write_part(d / t / name, table.filter(fresh))
            parts.append(f"{t}/{name}")
    for f in sorted(stage.rglob("*.parquet")):  # written atomically in the staging folder
        _commit.move_part(f, d / f.relative_to(stage))
    prefix = name[: -len(".parquet")] + "-"  # the leaves' part names (see ingest)
    for t in ("profiles", "samples"):
        parts += [f.relative_to(d).as_posix() for f in (d / t).rglob(prefix + "*.parquet")] if (d / t).is_dir() else []
    if parts:
        _commit.commit(d, batch, parts)
    shutil.rmtree(stage, ignore_errors=True)
    root.content = {t: None for t in CONTENT}  # nothing more to carry back
    return root


def _directory(directory) -> Path:
    d = os.fspath(directory)
    if _read.is_remote(d):
        raise ValueError(f"ingest() writes to a filesystem path every worker can reach (a shared disk), not {d!r}")
    return Path(d[len("file://") :] if d.startswith("file://") else d)


def ingest(
    paths,
    directory,
    *,
    metadata=None,
    client=None,
    chunk_size: Optional[int] = None,
    split_every: int = 8,
    errors: str = "raise",
    retries: int = 0,
    max_decompressed_size: int = DEFAULT_MAX_DECOMPRESSED_SIZE,
):
    """Write (or append) many profile files to the fleet's Parquet store in
    parallel; returns the :class:`~pprofcore.fleet.Store`.

    The store is the one :meth:`pprofcore.ProfileSet.to_parquet` writes and
    :func:`pprofcore.open_store` reads (layout in docs/fleet.md), and holds
    the same rows: profile ids follow input order from the store's next id,
    content rows are written once. One part file per task and day.

    Parameters
    ----------
    paths : iterable of path-like or URL, or a str glob pattern
        As :func:`pprofcore.dask.merge`.
    directory : path-like
        The store: a directory every worker can write and the caller can
        read (a shared filesystem; ``file://`` URLs accepted).
    metadata : callable or DataFrame, optional
        Extra ``profiles`` columns, as :class:`pprofcore.ProfileSet` takes
        them: ``metadata(path) -> dict`` (run on the workers) or a DataFrame
        with one row per input.
    errors : {"raise", "skip"}
        ``"raise"``: an unreadable file fails the call, naming it, and the
        store is left unchanged. ``"skip"``: such files are left out (their
        profile ids stay unused) and the call returns ``(store, skipped)``.
    client, chunk_size, split_every, retries
        As :func:`pprofcore.dask.merge`.

    Examples
    --------
    >>> from pprofcore import dask as pdask
    >>> store = pdask.ingest([pprofcore.example_path()] * 2, "store")
    >>> store.sql("select count(*) as n from profiles")["n"].tolist()
    [2]
    >>> store.close()
    """
    dask = _client.require_dask()
    _read.check_errors(errors)
    items = _read.expand(paths)
    if not items:
        raise ValueError("ingest(): no files")
    rows = None
    if metadata is not None and not callable(metadata):
        if len(metadata) != len(items):
            raise ValueError(f"metadata has {len(metadata)} rows for {len(items)} profiles")
        rows = metadata.reset_index(drop=True).to_dict("records")
    d = _directory(directory)
    d.mkdir(parents=True, exist_ok=True)
    with _commit.Lock(d):  # held until the commit task is done: ids stay ours
        part = _run(
            dask,
            items,
            d,
            next_profile_id(_commit.prepare(d)),
            metadata,
            rows,
            client,
            chunk_size,
            split_every,
            errors,
            retries,
            max_decompressed_size,
        )
    if part.error is not None:
        raise part.error
    store = Store(d)
    return (store, part.skipped) if errors == "skip" else store


def _run(dask, items, d, first_id, metadata, rows, client, chunk_size, split_every, errors, retries, max_size):
    """Build and compute the ingest's task graph (the caller holds the lock)."""
    client = _client.resolve(client)
    size = _client.chunk_size(len(items), client, chunk_size)
    token = dask.base.tokenize(items, str(d), first_id, errors, size)
    stage = d / f"_staging-{token}"
    name = f"part-{token}.parquet"
    leaves = []
    for k, c in enumerate(_read.chunks(items, size)):
        md = metadata if rows is None else {pos: rows[pos] for pos, _ in c}
        leaves.append(
            dask.delayed(ingest_chunk, pure=True)(
                c,
                str(stage),
                f"part-{token}-{k:06d}.parquet",
                first_id,
                md,
                errors,
                max_size,
                dask_key_name=f"pprofcore-ingest-{token}-{k}",
            )
        )
    root = _client.tree(leaves, combine, split_every, f"pprofcore-ingest-{token}")
    done = dask.delayed(commit, pure=True)(
        root, str(d), str(stage), name, f"dask-{token}", dask_key_name=f"pprofcore-ingest-{token}-commit"
    )
    try:
        (part,) = _client.compute([done], client, retries)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)  # best effort: tasks may still be running
        raise
    return part
