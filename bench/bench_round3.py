#!/usr/bin/env python3
"""Issue 35's measurements in one run: every workload against its peer in
interleaved rounds, quiet or with one competing busy-loop process.

Each round runs, one after the other, every workload's contenders (each in a
fresh process) and takes the ratio peer / pprofcore *within* the round; the
report is the median over rounds of those same-round ratios, with the load
average (1 min) at the start of each round. Workloads (``--only``):

- ``decode``: ``pprofcore.loads`` of ``gen-bigheap-500k`` and ``large.cpu``
  against Debian's google/pprof ``profile.Parse`` (``tools/goref/parsebench``)
  and against the fastest gunzip of the build (``_core.gunzip`` with each
  inflater, timed in the same process as ``loads``, interleaved; the ratio
  there is loads / gunzip, target at most 1.3), and the minor page faults of
  each call in that process after the timing (``faults_per_call`` in the
  JSON: memory the heap gave back and faulted in again shows there);
- ``flamegraph``: ``Profile.flamegraph()`` + ``to_html()`` of ``large.cpu``
  (``bench_flamegraph.time_flamegraph``) as a share of pprof's Parse of the
  same file in the same round (best times of each, target at most 0.2);
- ``merge``: the 1,000-file fleet (fleet/cpu x 10) against Debian's and,
  when given, upstream google/pprof (``bench_peers``' ``merge-synth``), with
  pprofcore's output at ``level="fast"`` and at the default level 6 (the
  level pprof writes), each a row of its own;
- ``delta``: 500 heap deltas, gzip (both levels, as merge) and raw, against
  fastdelta when given (``delta-heap``, ``delta-heap-raw``);
- ``series``: ``ProfileSet.series`` of the 1,000 files against pprof's
  Parse + per-function sums (``tools/goref/fleetseries``).

``--load-one`` keeps one busy-looping process alive for the whole run (what
a laptop or a shared CI runner usually has). The peers that ``bench_peers``
takes from ``$PPROFCORE_BENCH_PPROF_UPSTREAM`` and
``$PPROFCORE_BENCH_FASTDELTA`` are used when set and skipped with a note
otherwise.

    PYTHONPATH=python python3 bench/bench_round3.py [--rounds 5] [--load-one]
        [--only decode,flamegraph,merge,delta,series] [--json OUT]

Prints one Markdown table and writes every round's numbers as JSON to
``bench/results/round3-{quiet,load1}.json`` (or ``--json``). Never run from
the tests; timings are not asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import bench_peers  # noqa: E402
from bench_decode_rounds import burn, run_go  # noqa: E402
from bench_merge import run  # noqa: E402

DECODE_FILES = {
    "gen-bigheap-500k": "go/generated/gen-bigheap-500k.pb.gz",
    "large.cpu": "go/pprof__internal_proftest_testdata_large.cpu",
}
FLAME_FILE = "large.cpu"
# bench_peers' workloads, by the name of ours they answer
PEER_WORKLOADS = {"merge": ["merge-synth"], "delta": ["delta-heap", "delta-heap-raw"], "series": ["series"]}
ALL = ("decode", "flamegraph", "merge", "delta", "series")
# Timed calls per process: a stable median of short calls, a bounded run of long ones.
REPS_SMALL, REPS_LARGE = 20, 5
REPS_FLAME = 3


def decode_worker(path: str, reps: int) -> None:
    """In a fresh process: ``loads`` and every inflater's gunzip of one file,
    interleaved call by call; prints each one's times as JSON."""
    import pprofcore
    from pprofcore import _core

    data = Path(path).read_bytes()
    fns = {"loads": lambda: pprofcore.loads(data)}
    for b in C.inflaters():
        fns[f"gunzip {b}"] = lambda b=b: _core.gunzip(data, backend=b)
    got = C.timeit_many(fns, reps=reps)
    out: dict = {k: t.times for k, t in got.items()}
    out["faults_per_call"] = {k: faults_per_call(fn, reps) for k, fn in fns.items()}
    print(json.dumps(out))


def faults_per_call(fn, reps: int) -> float:
    """Minor page faults of one call of fn (the mean of reps calls, each
    result freed before the next call, as in the timing)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(reps):
        out = fn()
        del out
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / reps


def flame_worker(path: str, reps: int) -> None:
    """In a fresh process: the flame graph page of one file (best of reps)."""
    from bench_flamegraph import time_flamegraph

    wall, tree, size, nodes, _ = time_flamegraph(Path(path), reps)
    print(json.dumps({"best_s": wall, "tree_s": tree, "html_bytes": size, "nodes": nodes}))


def child(args: list) -> dict:
    r = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, env=C.child_env(), timeout=600
    )
    if r.returncode != 0:
        raise RuntimeError(f"{args} failed:\n{r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def decode_round(paths: dict, flame: bool, have_go: bool) -> dict:
    """One round of decode (and the flame graph, which shares large.cpu's Parse)."""
    out = {}
    for name, path in paths.items():
        reps = REPS_SMALL if path.stat().st_size < 5_000_000 else REPS_LARGE
        ours = child(["--decode-worker", str(path), str(reps)])
        gunzips = {k: statistics.median(v) for k, v in ours.items() if k.startswith("gunzip")}
        fastest = min(gunzips, key=gunzips.get) if gunzips else None
        row = {"loads_s": statistics.median(ours["loads"]), "gunzip_s": gunzips, "fastest_gunzip": fastest}
        row["faults_per_call"] = ours["faults_per_call"]
        if fastest:
            row["loads_over_gunzip"] = row["loads_s"] / gunzips[fastest]
        if have_go:
            go = run_go(str(path), reps)["times_s"]
            row["pprof_s"] = statistics.median(go)
            row["pprof_best_s"] = min(go)
            row["pprof_over_loads"] = row["pprof_s"] / row["loads_s"]
        if flame and name == FLAME_FILE:
            fg = child(["--flame-worker", str(path), str(REPS_FLAME)])
            row["flamegraph"] = fg
            if have_go:
                row["flame_over_parse"] = fg["best_s"] / row["pprof_best_s"]
        out[name] = row
    return out


def peers_round(work: dict, r: int) -> dict:
    """One round of bench_peers' workloads: {workload: {contender: wall_s}}."""
    out = {}
    for wl, cs in work.items():
        order = cs[r % len(cs) :] + cs[: r % len(cs)]  # rotate: nobody always runs first
        out[wl] = {name: run(argv, env)[0] for name, argv, env in order}
    return out


def summary(rounds: list, work: dict) -> list:
    """Rows of (measurement, peer, target, median ratio, per-round ratios)."""
    rows = []

    def add(what, peer, target, ratios):
        ratios = [x for x in ratios if x is not None]
        if ratios:
            rows.append((what, peer, target, statistics.median(ratios), ratios))

    def decoded(name, key):
        return [rd["decode"][name].get(key) for rd in rounds if name in rd.get("decode", {})]

    for name in DECODE_FILES:
        add(f"decode `{name}`", "Debian pprof Parse", "", decoded(name, "pprof_over_loads"))
        add(f"decode `{name}`, loads / fastest gunzip", "gunzip", "<= 1.3", decoded(name, "loads_over_gunzip"))
    add(
        f"flame graph page `{FLAME_FILE}` / Parse",
        "Debian pprof Parse",
        "<= 0.2",
        decoded(FLAME_FILE, "flame_over_parse"),
    )
    for wl, cs in work.items():
        # each of our contenders (merge and delta: level="fast" and the default
        # level 6, the one pprof writes) against each peer
        ours = [name for name, _, _ in cs if name.startswith("pprofcore")]
        for mine in ours:
            for peer, _, _ in cs:
                if peer not in ours:
                    what = f"{wl} ({mine.removeprefix('pprofcore').strip()})" if len(ours) > 1 else wl
                    add(what, peer, "", [rd["peers"][wl][peer] / rd["peers"][wl][mine] for rd in rounds])
    return rows


def markdown(rows: list, rounds: list, load_one: bool) -> str:
    loads = ", ".join(f"{rd['loadavg'][0]:.2f}" for rd in rounds if rd["loadavg"])
    out = [
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {len(rounds)} interleaved rounds, "
        f"{'one busy-loop process running' if load_one else 'no added load'}; "
        f"load average (1 min) per round: {loads}",
        "",
        "| measurement | peer | median same-run ratio | per-round ratios | target |",
        "|---|---|---:|---|---|",
    ]
    for what, peer, target, med, ratios in rows:
        per = " ".join(f"{x:.2f}" for x in ratios)
        out.append(f"| {what} | {peer} | {med:.2f}{'' if target else 'x'} | {per} | {target} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--load-one", action="store_true", help="keep one busy-looping process running")
    ap.add_argument("--only", default=",".join(ALL), help=f"comma-separated, of {','.join(ALL)}")
    ap.add_argument("--corpus", type=Path, default=C.DEFAULT_CORPUS)
    ap.add_argument("--json", type=Path, help="default: bench/results/round3-{quiet,load1}.json")
    ap.add_argument("--decode-worker", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--flame-worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.decode_worker:
        decode_worker(a.decode_worker[0], int(a.decode_worker[1]))
        return 0
    if a.flame_worker:
        flame_worker(a.flame_worker[0], int(a.flame_worker[1]))
        return 0

    only = set(a.only.split(","))
    unknown = only - set(ALL)
    if unknown:
        ap.error(f"unknown workloads: {', '.join(sorted(unknown))}")
    have_go = C.go_available()
    if not have_go:
        print("note: go or Debian's google/pprof missing: no pprof peers", file=sys.stderr)
    paths = {k: a.corpus / v for k, v in DECODE_FILES.items()}
    missing = [str(p) for p in paths.values() if not p.exists()]
    if missing and only & {"decode", "flamegraph"}:
        print(f"error: missing files (corpus at {a.corpus}?): {', '.join(missing)}", file=sys.stderr)
        return 2
    if "flamegraph" in only and "decode" not in only:
        paths = {FLAME_FILE: paths[FLAME_FILE]}
    wanted = [w for k, ws in PEER_WORKLOADS.items() if k in only for w in ws]

    burner = multiprocessing.Process(target=burn, daemon=True) if a.load_one else None
    rounds: list = []
    with tempfile.TemporaryDirectory() as tmp:
        work = {}
        if wanted and have_go:
            peer_args = argparse.Namespace(
                pprof_upstream=None, fastdelta=None, baseline=None, levels="fast,default", only=",".join(wanted)
            )
            # a workload whose peers are all absent has nothing to compare
            work = {k: cs for k, cs in bench_peers.contenders(peer_args, tmp).items() if len(cs) > 1}
        if burner:
            burner.start()
            time.sleep(2)  # the load average and the scheduler see it
        try:
            for r in range(a.rounds):
                rd: dict = {"round": r, "loadavg": C.loadavg()}
                if only & {"decode", "flamegraph"}:
                    rd["decode"] = decode_round(paths, "flamegraph" in only, have_go)
                rd["peers"] = peers_round(work, r)
                rounds.append(rd)
                print(f"round {r + 1}/{a.rounds}: load {rd['loadavg']}", file=sys.stderr, flush=True)
        finally:
            if burner:
                burner.terminate()
    rows = summary(rounds, work)
    print(markdown(rows, rounds, a.load_one))
    dest = a.json or C.BENCH / "results" / f"round3-{'load1' if a.load_one else 'quiet'}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    meta = {"machine": C.machine_info(), "load_one": a.load_one, "only": sorted(only)}
    table = [{"what": w, "peer": p, "target": t, "median": m, "ratios": rs} for w, p, t, m, rs in rows]
    dest.write_text(json.dumps({"meta": meta, "rounds": rounds, "summary": table}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
