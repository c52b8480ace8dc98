"""Stable content ids for the store: 63-bit hashes of a row's content, the same
in every profile and every run, so the tables deduplicate across profiles.

Strings are hashed once each (BLAKE2b); rows and sequences combine those with
SplitMix64 in NumPy, vectorized over all rows of a table."""

from __future__ import annotations

import hashlib
from typing import List

import numpy as np

_M1, _M2, _GOLD = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)
_POSITIVE = np.uint64((1 << 63) - 1)


def mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer over a uint64 array (wrap-around is intended)."""
    z = np.asarray(x, dtype=np.uint64) + _GOLD
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def strings(values: List[str]) -> np.ndarray:
    """uint64 hash of each string."""
    return np.fromiter(
        (
            int.from_bytes(hashlib.blake2b(s.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
            for s in values
        ),
        dtype=np.uint64,
        count=len(values),
    )


class StringHashes:
    """:func:`strings` with a cache: a fleet's profiles share most strings."""

    LIMIT = 1 << 20  # entries kept before the cache starts over

    def __init__(self) -> None:
        self._cache: dict = {}

    def __call__(self, values: List[str]) -> np.ndarray:
        cache = self._cache
        if len(cache) > self.LIMIT:
            cache.clear()
        out = np.empty(len(values), dtype=np.uint64)
        for i, s in enumerate(values):  # one per string of the table, not per sample
            h = cache.get(s)
            if h is None:
                h = cache[s] = int(strings([s])[0])
            out[i] = h
        return out


def rows(tag: int, *columns) -> np.ndarray:
    """Hash of each row of equally long columns (any integer dtype)."""
    with np.errstate(over="ignore"):
        h = mix(np.full(len(columns[0]), tag, dtype=np.uint64))
        for c in columns:
            h = mix(h ^ np.asarray(c).astype(np.int64, copy=False).view(np.uint64))
    return h


def segments(tag: int, elements: np.ndarray, off: np.ndarray) -> np.ndarray:
    """Hash of each sequence ``elements[off[i]:off[i+1]]`` (order matters)."""
    off = np.asarray(off, dtype=np.int64)
    lens = np.diff(off)
    with np.errstate(over="ignore"):
        pos = np.arange(len(elements), dtype=np.int64) - np.repeat(off[:-1], lens)
        v = mix(np.asarray(elements, dtype=np.uint64) ^ mix(pos.view(np.uint64)))
        cs = np.zeros(len(v) + 1, dtype=np.uint64)
        np.cumsum(v, out=cs[1:])
        return rows(tag, cs[off[1:]] - cs[off[:-1]], lens)


def as_id(h: np.ndarray) -> np.ndarray:
    """Non-negative int64 ids (Parquet and SQL have no uint64 everywhere)."""
    return (h & _POSITIVE).astype(np.int64)
