#!/usr/bin/env python3
"""Decode benchmark: pprofcore vs google/pprof, Python protobuf, and gunzip alone.

For each file (read into memory once) this measures, in the same run:

* ``pprofcore.loads(data)``: the whole decode (gunzip included);
  for gzip files also ``loads(raw)`` on the already-inflated bytes and
  ``loads(data, inflater=...)`` per backend, a per-phase breakdown;
* google/pprof's ``profile.Parse`` (tools/goref/parsebench, a Go program
  built against Debian's google/pprof package);
* Python ``protobuf`` parsing alone (``Profile.FromString(raw)`` on inflated
  bytes, schema built at runtime in ``_pb_schema.py``);
* protobuf parsing plus building a per-sample table in Python (what notebook
  users write today: resolve the leaf and the stack's function names, one row
  per sample, then a pandas DataFrame, or a list of dicts without pandas);
* gunzip alone: Python's ``zlib``, and pprofcore's inflaters
  (``_core.gunzip(data, backend='zlib' | 'libdeflate' | 'isal')``, those the
  build has).

Peak memory is measured in fresh subprocesses (``--child``): ru_maxrss after
the operation minus ru_maxrss after the imports and after reading the input.

Usage::

    python bench/bench_decode.py [--corpus DIR] [--reps N] [--json OUT] [--quick]

Timings are best and median of several runs (wall clock); ratios use the best
times, which are the least disturbed by other processes on a shared machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402  (sets up sys.path for pprofcore)

FILES = [
    "go/generated/gen-bigheap-500k.pb.gz",
    "go/generated/gen-bigheap-150k.raw.pb",
    "go/pprof__internal_proftest_testdata_large.cpu",
]

TARGETS = {
    "pprof": 10.0,  # at least 10x faster than google/pprof profile.Parse
    "protobuf": 5.0,  # at least 5x faster than protobuf parsing alone
    "protobuf_table": 20.0,  # at least 20x faster than protobuf + per-sample table
    "gunzip": 1.3,  # total decode at most 1.3x gunzip with the fastest inflater
    "memory": 3.0,  # decoded profile at most 3x its uncompressed size
}


# --------------------------------------------------------------------------- #
# The "notebook user" baseline: protobuf message -> one row per sample.


def pb_parse(raw: bytes):
    from _pb_schema import Profile

    return Profile.FromString(raw)


def pb_table(msg, use_pandas: bool = True):
    """Per-sample table from a parsed protobuf message, as a notebook user
    would write it: function names of the leaf and of the whole stack (root
    last, inlined frames expanded), one column per sample type, labels as
    columns."""
    strings = list(msg.string_table)
    func_name = {f.id: strings[f.name] for f in msg.function}
    # Location id -> function names, innermost inlined frame first (pprof order).
    loc_funcs = {loc.id: [func_name[ln.function_id] for ln in reversed(loc.line)] for loc in msg.location}
    types = [strings[st.type] for st in msg.sample_type]
    rows = []
    for s in msg.sample:
        stack = []
        for lid in s.location_id:
            stack.extend(loc_funcs[lid])
        row = {"leaf": stack[0] if stack else "", "stack": tuple(stack)}
        for t, v in zip(types, s.value):
            row[t] = v
        for lab in s.label:
            key = strings[lab.key]
            row[key] = strings[lab.str] if lab.str else lab.num
        rows.append(row)
    if use_pandas:
        import pandas as pd

        return pd.DataFrame(rows)
    return rows


def pb_parse_and_table(raw: bytes, use_pandas: bool = True):
    return pb_table(pb_parse(raw), use_pandas)


# --------------------------------------------------------------------------- #
# Peak-memory children: one operation per fresh interpreter.


def child_main(kind: str, path: str) -> None:
    import pprofcore
    from pprofcore import _core

    if kind.startswith("protobuf"):
        import _pb_schema  # noqa: F401  (import cost not counted)
    if kind == "protobuf_table":
        try:
            import pandas  # noqa: F401
        except ImportError:
            pass
    data = Path(path).read_bytes()
    gc.collect()
    base = C.max_rss_bytes()
    out: dict = {"kind": kind, "file": path, "baseline_rss": base}
    t0 = time.perf_counter()
    if kind == "pprofcore":
        result = pprofcore.loads(data)
        out["memory_bytes"] = result.memory_bytes
    elif kind == "pprofcore_load":
        result = pprofcore.load(path)
        out["memory_bytes"] = result.memory_bytes
    elif kind == "gunzip":
        result = _core.gunzip(data) if C.is_gzip(data) else data
    elif kind == "protobuf":
        raw = C.gunzip_py(data) if C.is_gzip(data) else data
        result = pb_parse(raw)
        del raw
    elif kind == "protobuf_table":
        raw = C.gunzip_py(data) if C.is_gzip(data) else data
        result = pb_parse_and_table(raw, use_pandas=_have_pandas())
        del raw
    else:
        raise SystemExit(f"unknown child kind {kind!r}")
    out["seconds"] = time.perf_counter() - t0
    out["peak_rss"] = C.max_rss_bytes()
    out["peak_delta"] = out["peak_rss"] - base
    del result
    print(json.dumps(out))


def _have_pandas() -> bool:
    try:
        import pandas  # noqa: F401

        return True
    except ImportError:
        return False


# --------------------------------------------------------------------------- #


def bench_file(path: Path, args) -> dict:
    import pprofcore
    from pprofcore import _core

    data = path.read_bytes()
    gz = C.is_gzip(data)
    raw = C.gunzip_py(data) if gz else data
    res: dict = {
        "file": str(path.relative_to(args.corpus)) if path.is_relative_to(args.corpus) else str(path),
        "gzip": gz,
        "file_bytes": len(data),
        "raw_bytes": len(raw),
        "loadavg_before": C.loadavg(),
    }
    reps, small = args.reps, len(raw) < 5_000_000
    min_time = 0.5 if small else 0.0
    table = not args.no_table and not (args.quick and not small)
    t: dict = {}
    log = lambda name: print(f"  {name} ...", file=sys.stderr, flush=True)  # noqa: E731

    log("pprofcore.loads, gunzip (interleaved)")
    fns = {"pprofcore": lambda: pprofcore.loads(data)}
    if gz:
        fns["pprofcore_raw"] = lambda: pprofcore.loads(raw)
        for b in C.inflaters():
            fns[f"pprofcore_{b}"] = lambda b=b: pprofcore.loads(data, inflater=b)
        fns["gunzip_python_zlib"] = lambda: C.gunzip_py(data)
        for b in C.inflaters():
            fns[f"gunzip_{b}"] = lambda b=b: _core.gunzip(data, backend=b)
    if not args.no_protobuf:
        fns["protobuf"] = lambda: pb_parse(raw)
    t.update(C.timeit_many(fns, reps, min_time))
    if gz and not small:
        # Busiest thread's CPU time: the wall-clock time on idle cores of a
        # build that overlaps inflate with decode (hidden on a busy machine).
        # Not for small files: a helper thread living a few milliseconds may
        # exit before the 1 ms sampler sees it.
        est = {k: fns[k] for k in fns if k == "pprofcore" or (k.startswith("gunzip_") and k != "gunzip_python_zlib")}
        busiest: dict = {k: [] for k in est}
        for _ in range(reps):
            for k, fn in est.items():
                per = C.per_thread_cpu(fn)
                if per:
                    busiest[k].append(per[0])
        if all(busiest.values()):
            res["busiest_thread_cpu_s"] = {k: min(v) for k, v in busiest.items()}
    p = pprofcore.loads(data)
    res["n_samples"] = len(p)
    res["memory_bytes"] = p.memory_bytes
    res["memory_breakdown"] = memory_breakdown(p)
    del p
    if not args.no_protobuf:
        if table:
            log("protobuf + table")
            use_pandas = _have_pandas()
            res["table_uses_pandas"] = use_pandas
            t["protobuf_table"] = C.timeit(lambda: pb_parse_and_table(raw, use_pandas), 2 if small else 1, warmup=small)
    res["times"] = {k: v.as_dict() for k, v in t.items()}

    if not args.no_go:
        log("google/pprof profile.Parse")
        try:
            exe = C.go_helper("parsebench")
            go_reps = max(2, reps // 2) if not small else reps
            out = subprocess.run(
                [exe, "-reps", str(go_reps), "-min-time", str(min_time), str(path)],
                capture_output=True,
                text=True,
                timeout=900,
            )
            go = json.loads(out.stdout.strip().splitlines()[-1])
            if go.get("error"):
                res["go_error"] = go["error"]
            else:
                res["go"] = go
                res["times"]["pprof"] = {
                    k: go[k] for k in ("best_s", "median_s", "reps", "times_s", "best_cpu_s", "cpu_times_s") if k in go
                }
        except Exception as e:  # noqa: BLE001 - report, do not abort the whole run
            res["go_error"] = str(e)

    if not args.no_rss:
        log("peak RSS (subprocesses)")
        kinds = ["pprofcore"] + (["gunzip"] if gz else [])
        if not args.no_protobuf:
            kinds.append("protobuf")
            if table:
                kinds.append("protobuf_table")
        res["rss"] = {}
        for kind in kinds:
            try:
                res["rss"][kind] = C.run_child(Path(__file__), ["--child", kind, str(path)])
            except Exception as e:  # noqa: BLE001
                res["rss"][kind] = {"error": str(e)}
    res["loadavg_after"] = C.loadavg()
    res["ratios"] = ratios(res)
    res["ratios_cpu"] = ratios(res, "best_cpu_s")
    b = res.get("busiest_thread_cpu_s")
    if b:
        g = min(v for k, v in b.items() if k.startswith("gunzip_"))
        res["ratios_idle_estimate"] = {"gunzip": b["pprofcore"] / g}
    return res


def memory_breakdown(p) -> dict:
    """Bytes of each NumPy column of a decoded profile (public API only); the
    rest of ``memory_bytes`` is the string table and vector capacity slack."""
    cols = {
        "values": p.values,
        "stack_offsets": p.stack_offsets,
        "stack_locations": p.stack_locations,
        "label_offsets": p.label_offsets,
    }
    for t in ("labels", "locations", "lines", "functions", "mappings"):
        for c, a in getattr(p, t).to_dict().items():
            cols[f"{t}.{c}"] = a
    out = {k: int(a.nbytes) for k, a in sorted(cols.items(), key=lambda kv: -kv[1].nbytes)}
    out["(strings + capacity slack)"] = int(p.memory_bytes) - sum(out.values())
    return out


def ratios(res: dict, key: str = "best_s") -> dict:
    """Speedups of pprofcore against each baseline, and the gunzip and memory
    ratios the targets are stated in, from the best wall-clock times
    (``key="best_s"``) or the best CPU times (``key="best_cpu_s"``)."""
    t = {k: v[key] for k, v in res["times"].items() if key in v}
    ours = t["pprofcore"]
    # The protobuf baselines parse the inflated bytes, so they are compared
    # with pprofcore decoding the same inflated bytes (like for like); the
    # "*_from_file" ratios add Python's gunzip to them and compare with the
    # whole loads() of the file's bytes.
    ours_raw = t.get("pprofcore_raw", ours)
    r: dict = {}
    if "pprof" in t:
        r["pprof"] = t["pprof"] / ours
    for k in ("protobuf", "protobuf_table"):
        if k in t:
            r[k] = t[k] / ours_raw
            if "gunzip_python_zlib" in t:
                r[k + "_from_file"] = (t[k] + t["gunzip_python_zlib"]) / ours
    gunzips = {k: v for k, v in t.items() if k.startswith("gunzip_")}
    if gunzips:
        fastest = min(gunzips, key=gunzips.get)
        r["gunzip_fastest"] = fastest
        r["gunzip"] = ours / gunzips[fastest]
        r["decode_after_gunzip_s"] = t.get("pprofcore_raw")
    if key != "best_s":
        return r
    r["memory"] = res["memory_bytes"] / res["raw_bytes"]
    rss = res.get("rss", {}).get("pprofcore", {})
    if "peak_delta" in rss:
        r["peak_rss"] = rss["peak_delta"] / res["raw_bytes"]
    return r


def verdicts(res: dict, which: str = "ratios") -> dict:
    """target name -> (met, ratio) for one file's results (``which`` is
    "ratios" for wall-clock times or "ratios_cpu" for CPU times)."""
    r = res[which]
    out = {}
    for k in ("pprof", "protobuf", "protobuf_table"):
        if k in r:
            out[k] = (r[k] >= TARGETS[k], r[k])
    if "gunzip" in r:
        out["gunzip"] = (r["gunzip"] <= TARGETS["gunzip"], r["gunzip"])
    if "memory" in r:
        out["memory"] = (r["memory"] <= TARGETS["memory"], r["memory"])
    if "peak_rss" in r:
        out["peak_rss"] = (r["peak_rss"] <= TARGETS["memory"], r["peak_rss"])
    return out


LABELS = {
    "pprofcore": "pprofcore.loads (total)",
    "pprofcore_raw": "pprofcore.loads on inflated bytes (decode only)",
    "pprofcore_zlib": "pprofcore.loads, inflater='zlib'",
    "pprofcore_libdeflate": "pprofcore.loads, inflater='libdeflate'",
    "pprof": "google/pprof profile.Parse",
    "protobuf": "protobuf FromString (inflated bytes)",
    "protobuf_table": "protobuf + per-sample table",
    "gunzip_python_zlib": "gunzip: Python zlib",
    "gunzip_zlib": "gunzip: _core zlib",
    "gunzip_libdeflate": "gunzip: _core libdeflate",
    "pprofcore_isal": "pprofcore.loads, inflater='isal'",
    "gunzip_isal": "gunzip: _core ISA-L",
}


def markdown(results: list) -> str:
    """Results as markdown tables (one per file) plus a verdict table."""
    lines = []
    for res in results:
        raw = res["raw_bytes"]
        lines.append(f"##### `{res['file']}`")
        lines.append("")
        lines.append(
            f"{res['file_bytes']:,} bytes on disk ({'gzip' if res['gzip'] else 'raw'}), "
            f"{raw:,} bytes uncompressed, {res['n_samples']:,} samples; "
            f"load average {res.get('loadavg_before', ['?'])[0]} before, {res.get('loadavg_after', ['?'])[0]} after."
        )
        lines.append("")
        lines.append(
            "pprofcore speedup: baseline best time / pprofcore best time (protobuf rows: vs `loads` of "
            "the inflated bytes; google/pprof: vs `loads` of the file's bytes)."
        )
        lines.append("")
        lines.append(
            "| measurement | best ms | median ms | best CPU ms | reps | MB/s (uncompressed) | pprofcore speedup |"
        )
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        ours = res["times"]["pprofcore"]["best_s"]
        for k, v in res["times"].items():
            base = ours if k == "pprof" else res["times"].get("pprofcore_raw", res["times"]["pprofcore"])["best_s"]
            speed = f"{v['best_s'] / base:.1f}x" if not k.startswith(("pprofcore", "gunzip")) else ""
            cpu = C.ms(v["best_cpu_s"]) if "best_cpu_s" in v else ""
            lines.append(
                f"| {LABELS.get(k, k)} | {C.ms(v['best_s'])} | {C.ms(v['median_s'])} | {cpu} | {v['reps']} | "
                f"{raw / v['best_s'] / 1e6:,.0f} | {speed} |"
            )
        lines.append("")
        mem = [f"`Profile.memory_bytes` = {res['memory_bytes']:,} ({res['memory_bytes'] / raw:.2f}x uncompressed)"]
        rss = res.get("rss", {})
        for kind, label in (
            ("pprofcore", "pprofcore.loads"),
            ("gunzip", "gunzip"),
            ("protobuf", "protobuf parse"),
            ("protobuf_table", "protobuf + table"),
        ):
            if "peak_delta" in rss.get(kind, {}):
                d = rss[kind]["peak_delta"]
                mem.append(f"peak RSS growth {label}: {C.mb(d)} ({d / raw:.2f}x)")
        if "go" in res:
            g = res["go"]
            mem.append(
                f"google/pprof: {C.mb(g['alloc_bytes_per_parse'])} allocated per parse, "
                f"live heap of the parsed profile {C.mb(g['live_heap_bytes'])} ({g['live_heap_bytes'] / raw:.2f}x), "
                f"sampled peak heap {C.mb(g['peak_heap_bytes'])}, process peak RSS {C.mb(g['max_rss_bytes'])}"
            )
        if "go_error" in res:
            mem.append(f"google/pprof: not measured ({res['go_error']})")
        rr, rc = res["ratios"], res["ratios_cpu"]
        ff = [
            f"{label} {rr[k]:.1f}x wall ({rc[k]:.1f}x CPU)"
            for k, label in (
                ("protobuf_from_file", "vs Python gunzip + protobuf"),
                ("protobuf_table_from_file", "vs Python gunzip + protobuf + table"),
            )
            if k in rr and k in rc
        ]
        if ff:
            lines.append("From the file's bytes (loads of the gzip bytes): " + "; ".join(ff) + ".")
            lines.append("")
        lines.append("Memory: " + "; ".join(mem) + ".")
        lines.append("")
        if "memory_breakdown" in res:
            top = list(res["memory_breakdown"].items())
            shown = [f"{k} {C.mb(n)}" for k, n in top[:5]] + [
                f"(strings + capacity slack) {C.mb(res['memory_breakdown']['(strings + capacity slack)'])}"
            ]
            lines.append("Largest columns: " + ", ".join(shown) + ".")
            lines.append("")
    lines.append("##### Targets")
    lines.append("")
    lines.append(
        "Speed ratios from best wall-clock times, then (in parentheses) from best CPU times, which are "
        "less disturbed by other load on a shared machine. google/pprof and gunzip are compared with "
        "`loads()` of the file's bytes; the protobuf baselines parse inflated bytes and are compared with "
        "`loads()` of the same inflated bytes. The idle-core estimate of total / gunzip compares the busiest "
        "thread's CPU time of each call (per-thread CPU from /proc/self/task/*/schedstat), i.e. what the "
        "wall-clock ratio would be if no other process competed for the CPUs."
    )
    lines.append("")
    lines.append(
        "| file | vs pprof (>= 10x) | vs protobuf (>= 5x) | vs protobuf+table (>= 20x) | total / fastest gunzip (<= 1.3x) | memory_bytes / uncompressed (<= 3x) | peak RSS growth / uncompressed (<= 3x) |"  # noqa: E501
    )
    lines.append("|---|---|---|---|---|---|---|")
    for res in results:
        v, vc = verdicts(res), verdicts(res, "ratios_cpu")

        def cell(k):
            if k not in v:
                return "n/a"
            ok, x = v[k]
            text = f"{x:.2f}x"
            if k in vc:
                okc, xc = vc[k]
                text += f" ({xc:.2f}x)"
                ok = ok, okc
            else:
                ok = ok, ok
            verdict = "met" if all(ok) else "**not met**" if not any(ok) else "borderline"
            idle = res.get("ratios_idle_estimate", {}).get(k)
            if idle is not None:
                verdict += f"; idle-core estimate {idle:.2f}x"
            return f"{text} {verdict}"

        lines.append(
            f"| `{Path(res['file']).name}` | {cell('pprof')} | {cell('protobuf')} | {cell('protobuf_table')} | "
            f"{cell('gunzip')} | {cell('memory')} | {cell('peak_rss')} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=C.DEFAULT_CORPUS, help="corpus directory (default: %(default)s)")
    ap.add_argument("--files", nargs="+", default=FILES, help="files relative to the corpus (or absolute)")
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions of the fast measurements")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions, no protobuf table on big files")
    ap.add_argument("--no-go", action="store_true", help="skip google/pprof")
    ap.add_argument("--no-protobuf", action="store_true", help="skip Python protobuf")
    ap.add_argument("--no-table", action="store_true", help="skip protobuf + per-sample table")
    ap.add_argument("--no-rss", action="store_true", help="skip the peak-RSS subprocesses")
    ap.add_argument("--json", type=Path, help="write raw results (JSON) here")
    ap.add_argument("--child", nargs=2, metavar=("KIND", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child_main(*args.child)
        return 0
    if args.quick:
        args.reps = 3
    if not args.no_go and not C.go_available():
        print("note: go or google/pprof sources missing; skipping the pprof comparison", file=sys.stderr)
        args.no_go = True
    if not args.no_protobuf:
        try:
            import _pb_schema  # noqa: F401
        except ImportError:
            print("note: protobuf not installed; skipping the protobuf comparisons", file=sys.stderr)
            args.no_protobuf = True
    args.corpus = args.corpus.resolve()
    paths = [Path(f) if Path(f).is_absolute() else args.corpus / f for f in args.files]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"error: missing files (corpus at {args.corpus}?): {', '.join(missing)}", file=sys.stderr)
        return 2
    info = C.machine_info()
    results = []
    for p in paths:
        print(f"{p}:", file=sys.stderr, flush=True)
        results.append(bench_file(p, args))
    report = {"machine": info, "results": results}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
