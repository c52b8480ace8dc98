"""A made-up but realistic fleet to try the fleet tools on anywhere: CPU
profiles of a small web shop taken once a minute, whose functions and labels
drift in ways worth finding. Built with :class:`pprofcore.ProfileBuilder`
from a seeded random generator, so the same arguments give the same files.

What the series holds (what the notebook finds): requests carry ``endpoint``,
``version`` and a numeric ``payload`` label (bytes); version ``v1.5`` rolls
out from 40% to 60% of the way through and makes ``/api/search`` compile a
regular expression per request (``regexp.Compile`` grows); the share of
``/api/checkout`` grows steadily all along; garbage collection runs without
labels."""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import List

import numpy as np

from .._build import ProfileBuilder

#: The first profile's time (UTC nanoseconds: 2024-05-01 12:00:00).
START_NANOS = 1_714_564_800 * 10**9
PERIOD_NANOS = 10_000_000
SERVE = ["shop/api.(*Server).ServeHTTP", "net/http.serverHandler.ServeHTTP", "net/http.(*conn).serve"]
# Per endpoint: its weight at the start, then (leaf-first frames below the
# handler, weight in v1.4, weight in v1.5) of its stacks.
ENDPOINTS = {
    "/api/search": (
        0.45,
        [
            (["shop/index.(*Index).Lookup", "shop/api.Search"], 6, 6),
            (["encoding/json.Marshal", "shop/api.Search"], 2, 2),
            (["runtime.mallocgc", "shop/index.(*Index).Lookup", "shop/api.Search"], 1, 1),
            (["regexp.compile", "regexp.Compile", "shop/api.parseQuery", "shop/api.Search"], 0, 4),
        ],
    ),
    "/api/cart": (
        0.3,
        [
            (["shop/db.(*Conn).Query", "shop/api.Cart"], 4, 4),
            (["encoding/json.Marshal", "shop/api.Cart"], 2, 2),
            (["runtime.mallocgc", "encoding/json.Marshal", "shop/api.Cart"], 1, 1),
        ],
    ),
    "/api/checkout": (
        0.15,
        [
            (["crypto/sha256.block", "shop/pay.Sign", "shop/api.Checkout"], 3, 3),
            (["shop/db.(*Conn).Exec", "shop/api.Checkout"], 3, 3),
            (["compress/flate.(*compressor).deflate", "compress/gzip.(*Writer).Write", "shop/api.Checkout"], 2, 2),
        ],
    ),
    "/healthz": (0.1, [(["runtime.nanotime", "shop/api.Health"], 1, 1)]),
}
GC = ["runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"]
GC_SHARE = 0.08


def example_fleet(directory, n: int = 240, *, seed: int = 0, samples: int = 400) -> List[str]:
    """Write ``n`` gzip-compressed CPU profiles (one a minute, ~``samples``
    samples of 10 ms each) to ``directory`` as ``shop-NNNN.pb.gz`` and return
    their paths in time order. Existing files of the same names are
    overwritten. See the module docstring for what drifts.

    Examples
    --------
    >>> paths = pprofcore.fleet.example_fleet("shop", n=40)
    >>> paths[0]
    'shop/shop-0000.pb.gz'
    >>> pprofcore.ProfileSet(paths).series(by="label:version").groupby("version")["value"].sum().index.tolist()
    ['v1.4', 'v1.5']
    """
    if n < 1 or samples < 1:
        raise ValueError(f"example_fleet needs n >= 1 and samples >= 1, got n={n}, samples={samples}")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n):
        path = out / f"shop-{i:04d}.pb.gz"
        path.write_bytes(gzip.compress(_profile(i, n, rng, samples), compresslevel=6, mtime=0))
        paths.append(os.fspath(path))
    return paths


def _profile(i: int, n: int, rng, samples: int) -> bytes:
    b = ProfileBuilder([("samples", "count"), ("cpu", "nanoseconds")])
    b.period_type, b.period = ("cpu", "nanoseconds"), PERIOD_NANOS
    b.time_nanos, b.duration_nanos = START_NANOS + i * 60 * 10**9, 10 * 10**9
    progress = i / max(n - 1, 1)
    rollout = float(np.clip((progress - 0.4) / 0.2, 0, 1))
    names = list(ENDPOINTS)
    weights = np.array([ENDPOINTS[e][0] for e in names])
    weights[names.index("/api/checkout")] += 0.25 * progress  # checkout traffic grows
    weights = (1 - GC_SHARE) * weights / weights.sum()
    stacks: List[bytes] = [b.stack_bytes([b.frame(f) for f in GC])]
    endpoint_of, kinds = [0], [[(0, 1.0, 1.0)]]  # per endpoint: (stack, weight v1.4, weight v1.5)
    for e in names:
        kinds.append([])
        for frames, w14, w15 in ENDPOINTS[e][1]:
            kinds[-1].append((len(stacks), w14, w15))
            stacks.append(b.stack_bytes([b.frame(f) for f in frames + SERVE]))
            endpoint_of.append(len(kinds) - 1)
    count = int(rng.poisson(samples))
    which = rng.choice(len(names) + 1, size=count, p=np.r_[GC_SHARE, weights])  # 0 = GC
    new = rng.random(count) < rollout
    stack_index = np.zeros(count, np.int64)
    for k, options in enumerate(kinds):
        for version in (False, True):
            rows = np.flatnonzero((which == k) & (new == version))
            w = np.array([o[2] if version else o[1] for o in options], np.float64)
            stack_index[rows] = rng.choice([o[0] for o in options], size=len(rows), p=w / w.sum())
    endpoint_code = np.array([0] + [b.string(e) for e in names], np.int64)[which]
    version_code = np.where(new, b.string("v1.5"), b.string("v1.4"))
    payload = rng.lognormal(8, 1.5, count).astype(np.int64) + 1
    values = np.stack([np.ones(count, np.int64), np.full(count, PERIOD_NANOS, np.int64)], axis=1)
    req = which != 0  # requests carry labels; garbage collection none
    b.add_many(stacks, stack_index[~req], values[~req])
    b.add_many(
        stacks,
        stack_index[req],
        values[req],
        num_labels=[("payload", payload[req], "bytes")],
        str_labels=[("endpoint", endpoint_code[req]), ("version", version_code[req])],
    )
    return b.encode()
