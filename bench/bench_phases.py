#!/usr/bin/env python3
"""Where pprofcore's decode time goes, seen from the public API.

For one file (default: gen-bigheap-500k.pb.gz) times ``pprofcore.loads`` on
variants of the same profile and reports the differences:

* ``gz``: the file's bytes (inflate + decode);
* ``raw``: the inflated bytes (decode only);
* ``no_samples``: the inflated bytes with every top-level ``sample`` field cut
  out (header, strings, functions, locations, mappings only);
* ``no_labels``: samples kept, their labels dropped (re-encoded with protobuf);
* gunzip alone with each backend.

From these: inflate cost = gz - raw, sample section = raw - no_samples,
labels = raw - no_labels, and inflate/decode overlap = fastest gunzip +
raw - gz (0 when inflate and decode run one after the other). Every variant
is also timed by its busiest thread's CPU time, an estimate of its wall-clock
time on idle cores (multi-threaded builds overlap inflate and decode, which a
busy machine hides); it is only meaningful for calls of tens of
milliseconds or more (a short-lived helper thread can exit before the 1 ms
sampler sees it).

Usage::

    python bench/bench_phases.py [--corpus DIR] [--file F] [--reps 7] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402


def _varint(buf: bytes, i: int):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def drop_top_level_field(raw: bytes, field: int) -> bytes:
    """``raw`` without the top-level fields numbered ``field`` (length-delimited
    or varint fields only, which is all profile.proto has)."""
    out, i, n = [], 0, len(raw)
    while i < n:
        start = i
        key, i = _varint(raw, i)
        wire = key & 7
        if wire == 0:
            _, i = _varint(raw, i)
        elif wire == 2:
            ln, i = _varint(raw, i)
            i += ln
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"unexpected wire type {wire} at {start}")
        if key >> 3 != field:
            out.append(raw[start:i])
    return b"".join(out)


def drop_labels(raw: bytes) -> bytes:
    from _pb_schema import Profile

    msg = Profile.FromString(raw)
    for s in msg.sample:
        del s.label[:]
    return msg.SerializeToString()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=C.DEFAULT_CORPUS)
    ap.add_argument("--file", default="go/generated/gen-bigheap-500k.pb.gz")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    import pprofcore
    from pprofcore import _core

    path = Path(args.file) if Path(args.file).is_absolute() else args.corpus / args.file
    data = path.read_bytes()
    raw = C.gunzip_py(data) if C.is_gzip(data) else data
    variants = {"raw": raw, "no_samples": drop_top_level_field(raw, 2)}
    try:
        variants["no_labels"] = drop_labels(raw)
    except ImportError:
        pass
    if C.is_gzip(data):
        variants = {"gz": data, **variants}
    fns = {f"loads_{name}": (lambda b=buf: pprofcore.loads(b)) for name, buf in variants.items()}
    if C.is_gzip(data):
        for b in C.inflaters():
            fns[f"gunzip_{b}"] = lambda b=b: _core.gunzip(data, backend=b)
    if C.is_gzip(data):
        for b in C.inflaters():
            fns[f"loads_gz_{b}"] = lambda b=b: pprofcore.loads(data, inflater=b)
    t = C.timeit_many(fns, args.reps)  # interleaved: every variant sees the same load
    # Busiest thread's CPU time per call (best of reps, interleaved): on idle
    # cores a multi-threaded call takes about that long, whatever the load now.
    busiest = {k: [] for k in fns}
    threads = {k: None for k in fns}
    for _ in range(args.reps):
        for k, fn in fns.items():
            per = [x for x in C.per_thread_cpu(fn) if x > 0.0005]
            if per:
                busiest[k].append(per[0])
                if threads[k] is None or per[0] < threads[k][0]:
                    threads[k] = per

    rows = []
    for key in ("best_s", "best_cpu_s", "busiest"):
        if key == "busiest":
            if not all(busiest.values()):
                continue
            b = {k: min(v) for k, v in busiest.items()}
        else:
            b = {k: v.best if key == "best_s" else min(v.cpu_times) for k, v in t.items()}
        d = {"measure": {"best_s": "wall", "best_cpu_s": "CPU", "busiest": "busiest thread CPU"}[key]}
        d.update({k: v for k, v in b.items()})
        if "loads_no_samples" in b:
            d["sample_section"] = b["loads_raw"] - b["loads_no_samples"]
        if "loads_no_labels" in b:
            d["labels"] = b["loads_raw"] - b["loads_no_labels"]
        if "loads_gz" in b:
            g = min(v for k, v in b.items() if k.startswith("gunzip_"))
            d["inflate_in_loads"] = b["loads_gz"] - b["loads_raw"]
            d["fastest_gunzip"] = g
            d["overlap"] = g + b["loads_raw"] - b["loads_gz"]
            d["total_over_gunzip"] = b["loads_gz"] / g
        if key == "busiest":  # differences of busiest-thread times mean nothing
            for k in ("sample_section", "labels", "inflate_in_loads", "overlap"):
                d[k] = None
        rows.append(d)
    sizes = {k: len(v) for k, v in variants.items()}
    report = {
        "machine": C.machine_info(),
        "file": str(path.relative_to(args.corpus)) if path.is_relative_to(args.corpus) else path.name,
        "sizes": sizes,
        "times": {k: v.as_dict() for k, v in t.items()},
        "phases": rows,
        "loadavg": C.loadavg(),
        "busiest_thread_cpu_s": busiest,
        "thread_cpu_s_of_best": threads,
    }
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    print(f"`{args.file}`: " + ", ".join(f"{k} {v:,} bytes" for k, v in sizes.items()) + "\n")
    cols = [c for c in rows[0] if c != "measure"]
    print("| best | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for d in rows:
        cells = [
            "" if d.get(c) is None else f"{d[c]:.2f}x" if c == "total_over_gunzip" else f"{d[c] * 1e3:.1f}"
            for c in cols
        ]
        print(f"| {d['measure']} ms | " + " | ".join(cells) + " |")
    print()
    print(
        "Rows: best wall-clock time, best CPU time of the process, and best CPU time of the busiest thread "
        "(sampled from /proc/self/task/*/schedstat), which estimates the wall-clock time on idle cores of a call "
        "that uses several threads. `loads_gz_<backend>` pick the inflater; `loads_gz` is the default ('auto'). "
        "Thread CPU times of the best run: "
        + "; ".join(f"{k} {'+'.join(f'{x * 1e3:.0f}' for x in v)} ms" for k, v in threads.items() if v and len(v) > 1)
        + "."
    )
    print(f"Load average after: {', '.join(map(str, C.loadavg()))}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
