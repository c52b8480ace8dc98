#!/usr/bin/env python3
"""OTLP decode benchmark: pprofcore's OTLP reader against opentelemetry-proto's
generated Python classes (upb) parsing the same bytes, and against pprofcore's
own profile.proto decode of the same samples, in the same run.

Inputs: profiles of the corpus (when present) and a generated one (many
samples with labels and timestamps, so attributes and timestamps are on the
path), each written as OTLP ``ProfilesData`` with ``Profile.to_otlp()``
(uncompressed, so gunzip is not measured) and as raw profile.proto with
``Profile.to_bytes(compress=False)``. Measured, interleaved (``timeit_many``):

* ``pprofcore.loads(otlp)``: OTLP bytes to a ``Profile`` (decode and conversion);
* ``ProfilesData.FromString(otlp)``: upb's parse alone, no conversion;
* the same parse followed by a Python walk reading every sample's stack
  index, attribute indices, link index, values and timestamps (``upb_walk``):
  upb decodes the whole message eagerly into its arena (checked each run:
  ``upb_parses_eagerly``), but makes the Python objects of a message only when
  it is touched, which the plain parse never does (the targets are against
  the plain parse; this shows the difference);
* ``pprofcore.loads(pprof)``: profile.proto bytes to a ``Profile``;
* ``Profile.to_otlp()`` against ``Profile.to_bytes(compress=False)`` (encode).

Targets (issue 31): pprofcore's OTLP decode at least 5x faster than upb and
within 1.5x of its profile.proto decode. ``--rounds`` interleaved rounds (each
runs every measurement of every input once, and records the load average);
best wall-clock times and best CPU times (the process's, all threads); ratios
from the same run.

Usage::

    python bench/bench_otlp.py [--corpus DIR] [--rounds N] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402  (sets up sys.path for pprofcore)
import numpy as np  # noqa: E402

import pprofcore  # noqa: E402
from pprofcore._build import ProfileBuilder  # noqa: E402  (the readers' builder: a large input quickly)

FILES = [
    "go/generated/gen-bigheap-500k.pb.gz",
    "go/generated/gen-bigcpu-labels.pb.gz",
    "go/pprof__internal_proftest_testdata_large.cpu",
]


def generated(n: int = 200_000, seed: int = 1) -> pprofcore.Profile:
    """``n`` samples over 2,000 stacks of 3-30 frames, a thread label and a
    timestamp each: the shape of a profile with per-sample times."""
    rng = np.random.default_rng(seed)
    b = ProfileBuilder(sample_types=[("cpu", "nanoseconds")])
    frames = [b.frame(f"pkg{k % 40}.func{k}", f"pkg{k % 40}/file.go", 10 + k % 300) for k in range(3000)]
    stacks = [b.stack_bytes(rng.choice(frames, size=int(rng.integers(3, 30))).tolist()) for _ in range(2000)]
    threads = np.array([b.string(f"worker-{k}") for k in range(16)], np.int64)
    times = 1_700_000_000_000_000_000 + np.cumsum(rng.integers(1, 20_000_000, n))
    b.add_many(
        stacks,
        rng.integers(0, len(stacks), n),
        rng.integers(1, 100, n) * 10_000_000,
        num_labels=[("timestamp_ns", times, "nanoseconds")],
        str_labels=[("thread", threads[rng.integers(0, 16, n)])],
    )
    return b.build()


def upb_walk(message: bytes) -> int:
    """upb's parse, then every sample's fields touched from Python."""
    from opentelemetry.proto.profiles.v1development.profiles_pb2 import ProfilesData

    seen = 0
    for rp in ProfilesData.FromString(message).resource_profiles:
        for sp in rp.scope_profiles:
            for prof in sp.profiles:
                for s in prof.samples:
                    seen += s.stack_index + s.link_index + len(s.attribute_indices) + len(s.values)
                    seen += len(s.timestamps_unix_nano)
    return seen


def upb_parses_eagerly() -> bool:
    """Whether upb's parse reads nested messages at once: a message whose second
    sample holds a field of wire type 7 (none exists) is refused by the parse
    itself, before anything touches the sample (a lazy parse would accept it)."""
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.profiles.v1development.profiles_pb2 import ProfilesData, Sample

    data = ProfilesData()
    profile = data.resource_profiles.add().scope_profiles.add().profiles.add()
    profile.samples.add().values.append(5)
    profile.samples.add().values.append(1234567890123)
    raw = bytearray(data.SerializeToString())
    at = bytes(raw).find(Sample(values=[1234567890123]).SerializeToString())
    raw[at] |= 7
    try:
        ProfilesData.FromString(bytes(raw))
    except DecodeError:
        return True
    return False


def _once(fn) -> tuple:
    """Wall-clock and CPU seconds of one call."""
    gc.collect()
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    del out
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=C.DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    from opentelemetry.proto.profiles.v1development.profiles_pb2 import ProfilesData

    try:
        from google.protobuf.internal import api_implementation

        backend = api_implementation.Type()
    except ImportError:  # pragma: no cover - old protobuf
        backend = "?"
    inputs = [("generated 200k samples, labels, timestamps", generated())]
    for rel in FILES:
        path = args.corpus / rel
        if path.exists():
            inputs.append((rel, pprofcore.load(path)))
    cases = []
    for name, p in inputs:
        otlp = p.to_otlp()
        raw = p.to_bytes(compress=False)
        assert pprofcore.loads(otlp) == pprofcore.loads(p.to_otlp())  # deterministic, and it reads
        fns = {
            "otlp": lambda otlp=otlp: pprofcore.loads(otlp),
            "upb": lambda otlp=otlp: ProfilesData.FromString(otlp),
            "upb_walk": lambda otlp=otlp: upb_walk(otlp),
            "pprof": lambda raw=raw: pprofcore.loads(raw),
            "to_otlp": lambda p=p: p.to_otlp(),
            "to_bytes": lambda p=p: p.to_bytes(compress=False),
        }
        for fn in fns.values():  # warm up
            fn()
        cases.append((name, p, otlp, raw, fns, {k: C.Timing([], []) for k in fns}))
    loads = []
    for r in range(args.rounds):
        for _, _, _, _, fns, timings in cases:
            for k, fn in fns.items():
                wall, cpu = _once(fn)
                timings[k].times.append(wall)
                timings[k].cpu_times.append(cpu)
        loads.append(C.loadavg()[0])
        print(f"round {r + 1}: load average {loads[-1]}", flush=True)
    eager = upb_parses_eagerly()
    print(
        f"protobuf backend {backend} ({'eager' if eager else 'lazy'} parse of nested messages); "
        f"best of {args.rounds} rounds; ratios (wall, then CPU time)"
    )
    heads = ("samples", "OTLP MB", "otlp ms", "upb ms", "pprof ms", "upb/otlp", "otlp/pprof", "enc ratio")
    print(f"{'input':48} " + " ".join(f"{h:>10}" for h in heads))
    rows = []
    for name, p, otlp, raw, _, t in cases:

        def ratio(a: str, b: str, cpu: bool = False) -> float:
            if cpu:
                return min(t[a].cpu_times) / min(t[b].cpu_times)
            return t[a].best / t[b].best

        row = {
            "input": name,
            "samples": len(p),
            "otlp_bytes": len(otlp),
            "pprof_bytes": len(raw),
            **{f"{k}_best_s": v.best for k, v in t.items()},
            **{f"{k}_best_cpu_s": min(v.cpu_times) for k, v in t.items()},
            "upb_over_otlp": ratio("upb", "otlp"),
            "upb_walk_over_otlp": ratio("upb_walk", "otlp"),
            "otlp_over_pprof": ratio("otlp", "pprof"),
            "to_otlp_over_to_bytes": ratio("to_otlp", "to_bytes"),
            # CPU time: on a shared, loaded machine the wall clock of longer calls counts waiting too
            "upb_over_otlp_cpu": ratio("upb", "otlp", True),
            "otlp_over_pprof_cpu": ratio("otlp", "pprof", True),
            "to_otlp_over_to_bytes_cpu": ratio("to_otlp", "to_bytes", True),
        }
        rows.append(row)
        print(
            f"{name[:48]:48} {len(p):>10} {len(otlp) / 1e6:>10.1f} {C.ms(t['otlp'].best):>10} "
            f"{C.ms(t['upb'].best):>10} {C.ms(t['pprof'].best):>10} "
            f"{row['upb_over_otlp']:>9.2f}x {row['otlp_over_pprof']:>9.2f}x {row['to_otlp_over_to_bytes']:>9.2f}x"
            f"   (CPU time: {row['upb_over_otlp_cpu']:.2f}x, {row['otlp_over_pprof_cpu']:.2f}x, "
            f"{row['to_otlp_over_to_bytes_cpu']:.2f}x; upb parse + walk {C.ms(t['upb_walk'].best)} ms, "
            f"{row['upb_walk_over_otlp']:.1f}x otlp)"
        )
    if args.json:
        out = {"machine": C.machine_info(), "backend": backend, "upb_parses_eagerly": eager, "rounds": args.rounds}
        out["load_per_round"] = loads
        args.json.write_text(json.dumps({**out, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
