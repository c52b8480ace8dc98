"""Helpers shared by the benchmarks: paths, timing, peak-RSS subprocesses, machine info.

Only the public pprofcore API plus ``pprofcore._core.gunzip`` and
``pprofcore._core.have_libdeflate`` are used, so the benchmarks run against
any build of the package.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent


def _default_corpus() -> Path:
    """$PPROFCORE_CORPUS, else ../shared/corpus next to the repo (also looked
    for one level further up, for git worktrees kept in a subdirectory)."""
    if os.environ.get("PPROFCORE_CORPUS"):
        return Path(os.environ["PPROFCORE_CORPUS"])
    candidates = [REPO.parent / "shared" / "corpus", REPO.parent.parent / "shared" / "corpus"]
    return next((c for c in candidates if (c / "MANIFEST.tsv").exists()), candidates[0])


DEFAULT_CORPUS = _default_corpus()
GOREF = REPO / "tools" / "goref"
GOPATH = os.environ.get("PPROFCORE_GOPATH", "/usr/share/gocode")

# The benchmarks import this checkout's package (python/) unless pprofcore is
# importable already (installed, or PYTHONPATH set by the caller).
if str(REPO / "python") not in sys.path and os.environ.get("PPROFCORE_BENCH_INSTALLED") != "1":
    sys.path.insert(0, str(REPO / "python"))
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))


def child_env() -> dict:
    """Environment for benchmark subprocesses: same interpreter, same pprofcore."""
    env = dict(os.environ)
    if env.get("PPROFCORE_BENCH_INSTALLED") != "1":
        env["PYTHONPATH"] = os.pathsep.join([str(REPO / "python"), str(BENCH), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
    return env


def process_times(cmd, env=None) -> tuple:
    """(wall seconds, CPU seconds: user + sys of the process and its children)
    of one run of ``cmd``, its output discarded."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def compile_package(package_dir: Path) -> None:
    """Writes the bytecode of the package measured, as `pip install` does for
    a wheel: with PYTHONDONTWRITEBYTECODE set (the shared machine sets it) a
    checkout's modules would be compiled again by every process timed, and a
    process's start-up would count a compile that an installed package never
    pays."""
    import compileall

    compileall.compile_dir(str(package_dir), quiet=1)


def max_rss_bytes() -> int:
    """Peak resident set size of this process so far, in bytes.

    On Linux this is ``VmHWM`` from /proc/self/status, the high-water mark of
    this process's own address space. ``getrusage(RUSAGE_SELF).ru_maxrss`` is
    the fallback elsewhere; on Linux it is not usable in a subprocess of a big
    process: exec() folds the forked copy of the parent's RSS into the child's
    ru_maxrss, so a child of a 150 MB parent starts with ru_maxrss >= 150 MB.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r if sys.platform == "darwin" else r * 1024


class Timing:
    """Wall-clock and CPU times (seconds) of repeated runs of one measurement."""

    def __init__(self, times, cpu_times=None):
        self.times = list(times)
        self.cpu_times = list(cpu_times or [])

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def as_dict(self) -> dict:
        d = {"best_s": self.best, "median_s": self.median, "reps": len(self.times), "times_s": self.times}
        if self.cpu_times:
            d["best_cpu_s"] = min(self.cpu_times)
            d["cpu_times_s"] = self.cpu_times
        return d


def timeit(fn, reps: int = 5, min_time: float = 0.0, max_reps: int = 50, warmup: bool = True) -> Timing:
    """Runs ``fn()`` once to warm up, then at least ``reps`` times (and until
    ``min_time`` seconds have passed, at most ``max_reps`` times). The garbage
    collector runs before, not during, each timed call; results are dropped
    before the next call so memory does not pile up. Records wall-clock time
    and the process's CPU time (all threads) of each call."""
    if warmup:
        out = fn()
        del out
    times, cpu = [], []
    start = time.perf_counter()
    while len(times) < reps or (time.perf_counter() - start < min_time and len(times) < max_reps):
        gc.collect()
        c0 = time.process_time()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        del out
    return Timing(times, cpu)


def timeit_many(fns: dict, reps: int = 5, min_time: float = 0.0, max_reps: int = 50) -> dict:
    """Like :func:`timeit` for several measurements, interleaved: each round
    runs every function once, so they all see the same background load and
    their ratios are steadier on a shared machine. Returns name -> Timing."""
    for fn in fns.values():
        out = fn()
        del out
    times = {k: [] for k in fns}
    cpu = {k: [] for k in fns}
    start = time.perf_counter()
    rounds = 0
    while rounds < reps or (time.perf_counter() - start < min_time and rounds < max_reps):
        for k, fn in fns.items():
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            out = fn()
            times[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
            del out
        rounds += 1
    return {k: Timing(times[k], cpu[k]) for k in fns}


def _thread_cpu() -> dict:
    """tid -> nanoseconds on CPU (/proc/self/task/*/schedstat), Linux only."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                out[tid] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return out


def per_thread_cpu(fn) -> list:
    """Runs ``fn()`` while a poller thread samples every thread's CPU time
    every millisecond; returns each thread's CPU seconds during the call
    (poller excluded; a worker's last millisecond may be missed)."""
    if not os.path.exists("/proc/self/task"):
        return []
    start = _thread_cpu()
    last: dict = {}
    stop = threading.Event()
    me: list = []

    def poll():
        me.append(str(threading.get_native_id()))
        while not stop.is_set():
            last.update(_thread_cpu())
            time.sleep(0.001)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    try:
        out = fn()
        del out
        last.update(_thread_cpu())
    finally:
        stop.set()
        th.join()
    return sorted(((ns - start.get(tid, 0)) / 1e9 for tid, ns in last.items() if tid not in me), reverse=True)


def inflaters() -> list:
    """gzip backends of this pprofcore build, in `_core.gunzip`'s spelling."""
    import pprofcore

    return list(pprofcore.build_info()["inflaters"])


def gunzip_py(data: bytes) -> bytes:
    """Python's zlib, joining concatenated gzip members (as gunzip does)."""
    out = []
    while data:
        d = zlib.decompressobj(31)
        out.append(d.decompress(data))
        out.append(d.flush())
        data = d.unused_data
        if not d.eof:
            raise ValueError("truncated gzip stream")
    return b"".join(out)


def is_gzip(data: bytes) -> bool:
    return data[:2] == b"\x1f\x8b"


def go_available() -> bool:
    return shutil.which("go") is not None and (Path(GOPATH) / "src/github.com/google/pprof/profile").is_dir()


def go_helper(name: str) -> str:
    """Builds tools/goref/<name>/main.go against Debian's google/pprof and
    returns the binary's path: the tests' builder (tests/helpers/testenv.py),
    so both use one binary."""
    helpers = str(REPO / "tests" / "helpers")
    if helpers not in sys.path:
        sys.path.insert(0, helpers)
    from testenv import go_helper as build

    return build(name)


def run_child(script: Path, args: list, timeout: float = 600) -> dict:
    """Runs ``python SCRIPT ARGS`` in a fresh interpreter and parses the last
    stdout line as JSON (used for peak-RSS measurements)."""
    r = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, env=child_env(), timeout=timeout
    )
    if r.returncode != 0:
        raise RuntimeError(f"{script.name} {' '.join(args)} failed:\n{r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def machine_info() -> dict:
    """nproc, CPU model, versions of the tools the benchmarks compare."""
    info = {"nproc": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            info["mem_total_kib"] = int(f.readline().split()[1])
    except (OSError, ValueError, IndexError):
        pass
    info["loadavg"] = loadavg()
    for mod in ("numpy", "google.protobuf", "pandas"):
        try:
            m = __import__(mod, fromlist=["__version__"])
            info[mod.split(".")[-1]] = m.__version__
        except ImportError:
            info[mod.split(".")[-1]] = None
    try:
        from _pb_schema import implementation

        info["protobuf_impl"] = implementation()
    except Exception:
        pass
    try:
        import pprofcore
        from pprofcore import _core

        info["pprofcore"] = pprofcore.__version__
        pkg = Path(pprofcore.__file__).resolve().parent
        # Relative to the repository when it is this checkout (reports stay machine-independent).
        info["pprofcore_path"] = str(pkg.relative_to(REPO)) if pkg.is_relative_to(REPO) else "installed package"
        # free-form description of the build under test (e.g. "main at abc1234")
        info["pprofcore_build"] = os.environ.get("PPROFCORE_BENCH_LABEL", "")
        info["libdeflate"] = bool(_core.have_libdeflate())
        info["inflaters"] = inflaters()
    except Exception as e:  # pragma: no cover
        info["pprofcore"] = f"import failed: {e}"
    if shutil.which("go"):
        info["go"] = subprocess.run(["go", "version"], capture_output=True, text=True).stdout.strip()
    try:
        rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        info["git"] = rev.stdout.strip()
    except OSError:
        pass
    return info


def loadavg() -> list:
    """1/5/15-minute load averages (other processes competing for the CPUs)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def ms(t: float) -> str:
    return f"{t * 1e3:,.1f}"
