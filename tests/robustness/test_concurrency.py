"""Concurrency: many Python threads decoding, encoding, comparing and summarising
at once (the C++ work runs with the GIL released) get exactly the results of a
serial run; a bounded stress test mixes the operations at random.

EXTENSION POINT: when merge / reports land on main, add them to OPERATIONS.
"""

from __future__ import annotations

import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from testenv import CORPUS, corpus_manifest

import pprofcore

THREADS = 8
STRESS_SECONDS = float(os.environ.get("PPROFCORE_STRESS_SECONDS", "5"))


def _inputs() -> list:
    """The two bundled examples plus a spread of corpus files of moderate size."""
    paths = [pprofcore.example_path("cpu"), pprofcore.example_path("heap")]
    rows = [r for r in corpus_manifest() if r["parses_with_google_pprof"] == "yes" and int(r["bytes"]) < 300_000]
    rows.sort(key=lambda r: r["file"])
    paths += [str(CORPUS / r["file"]) for r in rows[:: max(1, len(rows) // 12)]]
    return paths


PATHS = _inputs()


def _digest(p: pprofcore.Profile) -> tuple:
    return (p.to_bytes(compress=False), tuple(p.values.sum(axis=0).tolist()) if len(p) else (), repr(p))


@pytest.fixture(scope="module")
def reference():
    """Serial results: raw bytes of each input, the digest of its decoding, and
    the same for the profile written as OTLP."""
    ref = {}
    for path in PATHS:
        with open(path, "rb") as f:
            data = f.read()
        p = pprofcore.loads(data)
        otlp = p.to_otlp()
        ref[path] = (data, p, _digest(p), otlp, _digest(pprofcore.loads(otlp)))
    return ref


def op_load(ref, path):
    assert _digest(pprofcore.load(path)) == ref[path][2]


def op_loads(ref, path):
    assert _digest(pprofcore.loads(ref[path][0])) == ref[path][2]


def op_encode_gzip(ref, path):
    p = ref[path][1]  # one Profile shared by all threads
    assert pprofcore.loads(p.to_bytes(compress=True, level=1)) == p


def op_compare(ref, path):
    p = ref[path][1]
    q = pprofcore.loads(ref[path][0])
    assert p == q and not (p != q)


def op_views(ref, path):
    p = ref[path][1]
    assert np.array_equal(p.values, pprofcore.loads(ref[path][0]).values)
    assert p.total() == ref[path][1].total()


def op_repair(ref, path):
    p, report = pprofcore.loads(ref[path][0], repair=True)
    assert not report and p == ref[path][1]


def op_load_many(ref, path):
    out = pprofcore.load_many([path, path], threads=2)
    assert all(_digest(p) == ref[path][2] for p in out)


def op_otlp(ref, path):
    """OTLP decodes share one set of kept intermediate tables per process: a
    decode that fails half-way and others beside it get nothing of each other's."""
    otlp = ref[path][3]
    with pytest.raises(pprofcore.errors.DecodeError):
        pprofcore.loads(otlp[: len(otlp) // 2])
    assert _digest(pprofcore.loads(otlp)) == ref[path][4]


OPERATIONS = [op_load, op_loads, op_encode_gzip, op_compare, op_views, op_repair, op_load_many, op_otlp]


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda f: f.__name__[3:])
def test_threads_agree_with_serial(reference, op):
    jobs = [path for path in PATHS for _ in range(3)]
    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(lambda path: op(reference, path), jobs))


def test_stress_mixed_operations(reference):
    """All operations at random from THREADS threads for PPROFCORE_STRESS_SECONDS."""
    deadline = time.monotonic() + STRESS_SECONDS
    errors: list = []
    counts = [0] * THREADS

    def worker(k: int) -> None:
        rng = random.Random(k)
        while time.monotonic() < deadline and not errors:
            try:
                rng.choice(OPERATIONS)(reference, rng.choice(PATHS))
            except BaseException as e:  # report, don't hang the other threads
                errors.append(e)
                return
            counts[k] += 1

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    assert sum(counts) >= THREADS


def test_shared_profile_outlives_its_name_across_threads(reference):
    """Views taken in threads keep their Profile alive after the name is gone."""
    data = reference[PATHS[0]][0]
    p = pprofcore.loads(data)
    views = []
    barrier = threading.Barrier(THREADS)

    def take() -> None:
        barrier.wait()
        views.append((p.values, p.stack_locations))  # noqa: F821 (p is deleted below, after the threads ran)

    threads = [threading.Thread(target=take) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = pprofcore.loads(data).values.copy()
    del p
    for values, _ in views:
        assert np.array_equal(values, expected)
