"""JFR import: pprofcore.load vs the JDK's own parse of the same recording
(`jfr print --json` of the event types pprofcore reads, output discarded).

The JVM's start (and the printer's class loading) is measured apart as
`jfr print --json` of a tiny recording and subtracted; `jfr summary` of the
large recording (which walks every event without printing) is printed too.
pprofcore's time is its process CPU time for `load` (the reader is
single-threaded), so MB/s is per core.

Input: the files given, else a recording made here by a small Java program
(three threads computing, allocating and contending on a lock; execution
samples every millisecond, every TLAB allocation) whose chunks are repeated
until the file is at least 50 MB (a recording is a sequence of independent
chunks, as a long recording is). Needs java and jfr (openjdk-17-jdk-headless).

Usage: python bench/bench_jfr.py [--seconds 20] [--min-mb 50] [FILE ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pprofcore

EVENTS = (
    "jdk.ExecutionSample,jdk.NativeMethodSample,jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB,"
    "jdk.ObjectAllocationSample,jdk.JavaMonitorEnter,jdk.ThreadPark"
)

PROGRAM = """
import java.util.*;
public class Work {
  static volatile long sink;
  static long leaf(int n){long s=0;for(int i=0;i<n;i++)s+=i*(long)i%7;return s;}
  static long mid(int n){return leaf(n)+leaf(n/2);}
  static long deep(int d,int n){return d==0?mid(n):deep(d-1,n)+1;}
  static List<int[]> alloc(int k){
    List<int[]> l=new ArrayList<>();for(int i=0;i<2000;i++)l.add(new int[64+(i*k)%300]);return l;}
  static final Object lock=new Object();
  public static void main(String[] a) throws Exception {
    long end=System.nanoTime()+Long.parseLong(a[0])*1_000_000_000L;
    Runnable r=()->{int k=0;while(System.nanoTime()<end){
      k++;synchronized(lock){sink+=deep(k%40,2000);}sink+=alloc(k).size();}};
    Thread[] ts=new Thread[3];for(int i=0;i<3;i++){ts[i]=new Thread(r,"w"+i);ts[i].start();}
    for(Thread t:ts)t.join();
  }
}
"""


def record(tmp: Path, seconds: int) -> Path:
    (tmp / "Work.java").write_text(PROGRAM)
    flags = (
        "filename=rec.jfr,settings=profile,jdk.ObjectAllocationInNewTLAB#enabled=true,"
        "jdk.ObjectAllocationOutsideTLAB#enabled=true,jdk.ExecutionSample#period=1ms,jdk.JavaMonitorEnter#threshold=0ms"
    )
    subprocess.run(
        ["java", f"-XX:StartFlightRecording={flags}", "Work.java", str(seconds)],
        cwd=tmp,
        check=True,
        capture_output=True,
    )
    return tmp / "rec.jfr"


def repeated(src: Path, min_bytes: int, out: Path) -> Path:
    data = src.read_bytes()
    out.write_bytes(data * max(1, -(-min_bytes // len(data))))
    return out


def wall(cmd: list) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def ours(path: Path, reps: int = 3) -> tuple:
    best_cpu = best_wall = float("inf")
    for _ in range(reps):
        c, w = time.process_time(), time.perf_counter()
        p = pprofcore.load(path)
        best_cpu, best_wall = min(best_cpu, time.process_time() - c), min(best_wall, time.perf_counter() - w)
    return best_cpu, best_wall, p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--min-mb", type=float, default=50)
    ap.add_argument("files", nargs="*", type=Path)
    args = ap.parse_args(argv)
    if not (shutil.which("java") and shutil.which("jfr")):
        print("bench_jfr: needs java and jfr (openjdk-17-jdk-headless)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        small = Path(__file__).resolve().parent.parent / "tests/data/producers/small.jfr"
        files = args.files or [repeated(record(tmp, args.seconds), int(args.min_mb * 1e6), tmp / "large.jfr")]
        jvm = min(wall(["jfr", "print", "--json", "--events", EVENTS, str(small)]) for _ in range(2))
        print(
            f"load average {os.getloadavg()}; JVM start + printer (jfr print of a {small.stat().st_size} B file): "
            f"{jvm:.2f} s"
        )
        print(
            f"{'file':12} {'MB':>7} {'ours cpu s':>10} {'ours wall s':>11} {'MB/s/core':>9} {'jfr print s':>11} "
            f"{'- JVM s':>8} {'jfr summary s':>13} {'ratio':>6} {'samples':>9}"
        )
        for path in files:
            size = path.stat().st_size
            cpu, w, p = ours(path)
            printed = wall(["jfr", "print", "--json", "--events", EVENTS, str(path)])
            summary = wall(["jfr", "summary", str(path)])
            ratio = (printed - jvm) / w
            print(
                f"{path.name[:12]:12} {size / 1e6:7.1f} {cpu:10.3f} {w:11.3f} {size / 1e6 / cpu:9.0f} {printed:11.2f} "
                f"{printed - jvm:8.2f} {summary:13.2f} {ratio:5.1f}x {p.values.shape[0]:9,}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
