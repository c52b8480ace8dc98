"""``pprofcore.fleet.collect`` against many targets: CPU seconds per profile
and peak memory, at an accelerated interval, extrapolated to one profile a
minute per target; in the same run, the cron-job peer (``go tool pprof -proto
URL``, one process per profile) on the same targets.

- Targets: ``--targets`` (default 200) sockets on 127.0.0.1 served by one
  asyncio process (pinned to the last CPU), each answering any GET with a real
  Go CPU profile: the 100 files of the corpus's ``fleet/cpu`` in turn (a
  different one each fetch), or, without the corpus, the bundled example scaled
  by 1..100. One connection per request, as a Go server answers a scraper.
- Collector: a fresh process (pinned to CPU 0), pandas and pyarrow imported
  before its clock starts, running ``collect(...)`` for ``--duration`` seconds
  at ``every = 60 s / --speedup`` and ``commit_every = 10 s / --speedup`` (so
  a batch holds as many profiles as at the real rate); it reports its CPU time
  (``getrusage``, all threads) over the collection, the profiles committed and
  its peak RSS (``VmHWM``).
- Peer: ``go tool pprof -proto URL > /dev/null`` run ``--peer-runs`` times;
  CPU of the children (``getrusage(RUSAGE_CHILDREN)``).

Run: ``PYTHONPATH=python python3 bench/bench_collect.py [--targets 200]
[--speedup 10] [--duration 60]``. Prints a table and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from _common import DEFAULT_CORPUS, child_env

SERVER = """
import asyncio, json, sys
from pathlib import Path
n, files = int(sys.argv[1]), sys.argv[2:]
bodies = [Path(f).read_bytes() for f in files]
turn = [0]
async def answer(reader, writer):
    try:
        while (await reader.readline()) not in (b"\\r\\n", b"\\n", b""):
            pass
        body = bodies[turn[0] % len(bodies)]
        turn[0] += 1
        writer.write(b"HTTP/1.1 200 OK\\r\\nContent-Type: application/octet-stream\\r\\n"
                     b"Content-Length: %d\\r\\nConnection: close\\r\\n\\r\\n" % len(body) + body)
        await writer.drain()
    finally:
        writer.close()
async def main():
    servers = [await asyncio.start_server(answer, "127.0.0.1", 0, backlog=256) for _ in range(n)]
    print(json.dumps([s.sockets[0].getsockname()[1] for s in servers]), flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""

COLLECTOR = """
import json, resource, sys, time
import pandas, pyarrow.parquet  # what the first commit imports: start-up, not per profile
import pprofcore.fleet
store, every, commit_every, duration, *urls = sys.argv[1:]
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
c0, t0, rss0 = cpu(), time.monotonic(), rss()
c = pprofcore.fleet.collect(store, urls, every=float(every), commit_every=float(commit_every),
                            duration=float(duration), concurrency=8)
print(json.dumps({"cpu_s": cpu() - c0, "wall_s": time.monotonic() - t0, "rss_start": rss0,
                  "rss_peak": rss(), **c.stats, "errors": len(c.errors)}))
"""


def profiles(n: int = 100) -> list:
    """Real Go CPU profiles for the targets to serve (paths)."""
    fleet = sorted((DEFAULT_CORPUS / "fleet" / "cpu").glob("*.pb.gz"))
    if fleet:
        return [str(p) for p in fleet[:n]]
    import pprofcore

    d = Path(tempfile.mkdtemp(prefix="bench-collect-"))
    base = pprofcore.load(pprofcore.example_path("cpu"))
    out = []
    for k in range(1, n + 1):
        base.scale(k).save(d / f"cpu-{k:03d}.pb.gz")
        out.append(str(d / f"cpu-{k:03d}.pb.gz"))
    return out


def pinned(cmd: list, cpu: int) -> list:
    return ["taskset", "-c", str(cpu), *cmd] if shutil.which("taskset") else cmd


def peer(urls: list, runs: int) -> dict:
    """CPU seconds of ``go tool pprof -proto URL`` per profile."""
    if not shutil.which("go"):
        return {"skipped": "no go"}
    env = dict(os.environ, PPROF_TMPDIR=tempfile.mkdtemp(prefix="bench-pprof-"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    for i in range(runs):
        subprocess.run(
            pinned(["go", "tool", "pprof", "-proto", urls[i % len(urls)]], 0),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=True,
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"runs": runs, "cpu_s": cpu, "cpu_per_profile_s": cpu / runs, "wall_s": time.monotonic() - t0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", type=int, default=200)
    ap.add_argument("--speedup", type=float, default=10.0, help="interval = 60 s / speedup")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of collection")
    ap.add_argument("--peer-runs", type=int, default=20)
    args = ap.parse_args()
    files = profiles()
    ncpu = os.cpu_count() or 1
    server = subprocess.Popen(
        pinned([sys.executable, "-c", textwrap.dedent(SERVER), str(args.targets), *files], ncpu - 1),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        ports = json.loads(server.stdout.readline())
        urls = [f"http://127.0.0.1:{p}/debug/pprof/profile" for p in ports]
        every, commit_every = 60.0 / args.speedup, 10.0 / args.speedup
        with tempfile.TemporaryDirectory(prefix="bench-collect-store-") as store:
            r = subprocess.run(
                pinned(
                    [sys.executable, "-c", textwrap.dedent(COLLECTOR), store, str(every), str(commit_every)]
                    + [str(args.duration), *urls],
                    0,
                ),
                env=child_env(),
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(r.stdout.strip().splitlines()[-1])
            store_mb = sum(f.stat().st_size for f in Path(store).rglob("*") if f.is_file()) / 2**20
        p = peer(urls, args.peer_runs)
    finally:
        server.kill()
    n = got["committed"]
    per = got["cpu_s"] / max(n, 1)
    expected = args.targets * args.duration / every
    real_rate = args.targets / 60.0  # profiles per second at one a minute each
    load = os.getloadavg()
    print(f"targets {args.targets}, interval {every:g}s ({args.speedup:g}x faster than 60s), {args.duration:g}s")
    print(f"profiles committed      {n} of about {expected:.0f} due ({n / expected:.0%}); errors {got['errors']}")
    print(f"collector CPU           {got['cpu_s']:.2f}s over {got['wall_s']:.1f}s wall: {per * 1e3:.2f} ms per profile")
    print(f"peak RSS                {got['rss_peak'] / 2**20:.0f} MiB (at start {got['rss_start'] / 2**20:.0f} MiB)")
    print(f"store                   {store_mb:.1f} MiB")
    print(
        f"at 1/min per target     {per * real_rate:.1%} of one core for {args.targets} targets "
        f"({real_rate:.2f} profiles/s)"
    )
    if "cpu_per_profile_s" in p:
        print(
            f"peer: go tool pprof -proto URL, one process per profile: {p['cpu_per_profile_s'] * 1e3:.0f} ms CPU "
            f"per profile ({p['cpu_per_profile_s'] / per:.1f}x collect's)"
        )
    print(f"load average            {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(
        json.dumps(
            {
                "targets": args.targets,
                "every_s": every,
                "duration_s": args.duration,
                "collector": got,
                "cpu_per_profile_s": per,
                "store_mib": store_mb,
                "peer": p,
                "load": load,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
