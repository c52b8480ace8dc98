"""Where the graphs run: the caller's ``distributed.Client``, the default one,
or dask's local scheduler; chunk sizes from the number of worker threads."""

from __future__ import annotations

import math
import os
from typing import Optional


def require_dask():
    """The ``dask`` module, or an ImportError saying what to install."""
    try:
        import dask
        import dask.delayed  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("pprofcore.dask needs dask: pip install 'pprofcore[dask]'") from None
    return dask


def resolve(client):
    """``client``, else the current ``distributed`` client, else None (dask's
    local threaded scheduler runs the graph)."""
    if client is not None:
        return client
    try:
        from distributed import default_client
    except ImportError:  # pragma: no cover - distributed not installed
        return None
    try:
        return default_client()
    except ValueError:
        return None


def chunk_size(n: int, client, chunk: Optional[int]) -> int:
    """Files per task: ``chunk`` when given, else about two tasks per worker
    thread and at least 8 files each. Few, large leaves: a leaf's memory is
    bounded by its distinct content, not its file count, while every extra
    leaf adds its partial result to encode, move and merge again."""
    if chunk is not None:
        if int(chunk) < 1:
            raise ValueError(f"chunk_size must be at least 1, not {chunk}")
        return int(chunk)
    threads = os.cpu_count() or 1
    if client is not None:
        try:
            threads = max(1, sum(client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a client without workers yet: guess from this machine
            pass
    return max(8, math.ceil(n / (2 * threads)))


def compute(objs: list, client, retries: int = 0) -> list:
    """Compute ``objs`` together (shared tasks run once) and return their values."""
    dask = require_dask()
    if client is not None:
        futures = client.compute(objs, retries=retries)
        return client.gather(futures)
    return list(dask.compute(*objs))


def tree(parts: list, combine, split_every: int, name: str) -> object:
    """A tree reduction of the delayed ``parts`` (in order): ``combine`` takes
    a list of at most ``split_every`` values and returns one, level by level."""
    dask = require_dask()
    if int(split_every) < 2:
        raise ValueError(f"split_every must be at least 2, not {split_every}")
    level = 0
    while len(parts) > 1:
        parts = [
            parts[i]
            if len(parts[i : i + split_every]) == 1
            else dask.delayed(combine, pure=True)(
                parts[i : i + split_every], dask_key_name=f"{name}-combine-{level}-{i // split_every}"
            )
            for i in range(0, len(parts), split_every)
        ]
        level += 1
    return parts[0]
