"""Native programs for the symbolization and listing tests: C and C++ sources
in producers/native built with gcc/g++ ``-g -O1`` (PIE and non-PIE) and run
under gperftools' CPU profiler, and google/pprof's standalone ``pprof`` command
(built from Debian's golang-github-google-pprof-dev in GOPATH mode), whose
``-symbolize=local`` runs the same binutils/llvm tools pprofcore does.

Every builder returns None when a tool is missing, so tests can skip saying why."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

TESTS = Path(__file__).resolve().parent.parent
SOURCES = TESTS / "producers" / "native"
PROFILER = Path("/usr/lib/x86_64-linux-gnu/libprofiler.so")
GOPATH = os.environ.get("PPROFCORE_GOPATH", "/usr/share/gocode")
PPROF_SRC = Path(GOPATH) / "src/github.com/google/pprof"

VARIANTS = {
    # name: (source, compiler, extra flags)
    "c-pie": ("inline.c", "gcc", ["-fPIE", "-pie"]),
    "c-nopie": ("inline.c", "gcc", ["-fno-PIE", "-no-pie"]),
    "cpp-pie": ("names.cpp", "g++", ["-fPIE", "-pie"]),
    "rust-pie": ("spin.rs", "rustc", ["-O", "-C", "force-frame-pointers=yes"]),
}


def available(variant: str) -> bool:
    """Whether this machine has the compiler of ``variant`` (Rust is optional)."""
    return shutil.which(VARIANTS[variant][1]) is not None


def missing_tools() -> Optional[str]:
    """Why native profiles cannot be made here, or None."""
    if not PROFILER.exists():
        return "gperftools not installed (apt-get install libgoogle-perftools-dev)"
    for cc in ("gcc", "g++"):
        if shutil.which(cc) is None:
            return f"{cc} not installed"
    return None


def build_and_profile(variant: str, out: Path) -> Tuple[Path, Path]:
    """Builds ``variant`` into ``out`` and runs it under the CPU profiler:
    ``(binary, profile)``."""
    src, cc, flags = VARIANTS[variant]
    out.mkdir(parents=True, exist_ok=True)
    exe, prof = out / variant, out / f"{variant}.prof"
    if cc == "rustc":
        cmd = [cc, "-g", *flags, "-o", str(exe), str(SOURCES / src)]
    else:
        cmd = [cc, "-g", "-O1", "-fno-omit-frame-pointer", *flags, "-o", str(exe), str(SOURCES / src)]
    subprocess.run(cmd, check=True, capture_output=True)
    env = dict(os.environ, CPUPROFILE=str(prof), CPUPROFILE_FREQUENCY="1000", LD_PRELOAD=str(PROFILER))
    subprocess.run([str(exe)], env=env, check=True, capture_output=True, timeout=120)
    return exe, prof


def standalone_pprof(cache: Path) -> Optional[str]:
    """google/pprof's ``pprof`` command built into ``cache`` (None without Go or the sources)."""
    if shutil.which("go") is None or not (PPROF_SRC / "pprof.go").exists():
        return None
    exe = cache / "pprof"
    if not exe.exists():
        cache.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, GOPATH=GOPATH, GO111MODULE="off", GOFLAGS="", GOCACHE=str(cache / "gocache"))
        subprocess.run(
            ["go", "build", "-o", str(exe), "github.com/google/pprof"],
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return str(exe)


def only_tools(d: Path, *names: str) -> str:
    """A directory holding links to just these tools, for a PATH that makes
    pprof use addr2line even where llvm-symbolizer is installed."""
    d.mkdir(parents=True, exist_ok=True)
    for n in names:
        found = shutil.which(n)
        if found and not (d / n).exists():
            (d / n).symlink_to(found)
    return str(d)


def run_pprof(pprof: str, *args: str, tools_dir: Optional[str] = None) -> str:
    """Runs standalone pprof; with ``tools_dir``, PATH is only that directory
    (so pprof sees exactly the binutils linked there)."""
    env = dict(os.environ, PPROF_TMPDIR=os.environ.get("TMPDIR", "/tmp"), HOME=os.environ.get("HOME", "/tmp"))
    if tools_dir:
        env["PATH"] = tools_dir
    r = subprocess.run([pprof, *args], capture_output=True, text=True, timeout=600, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"pprof {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout


_LOCATION = re.compile(r"^\s*(\d+): (0x[0-9a-f]+) M=(\d+) ?(.*)$")
_FRAME = re.compile(r"^(.*) (\S*):(-?\d+) s=(\d+)(?:\((.*)\))?$")


def raw_locations(raw: str) -> Dict[int, List[Tuple[str, str, str, int]]]:
    """``{address: [(name, system_name, file, line), ...]}`` from pprof's ``-raw``
    dump (innermost frame first)."""
    out: Dict[int, List[Tuple[str, str, str, int]]] = {}
    section = raw.split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
    current = None
    for line in section.splitlines():
        m = _LOCATION.match(line)
        rest = line.strip()
        if m:
            current = out.setdefault(int(m.group(2), 16), [])
            rest = m.group(4)
        if not rest or current is None:
            continue
        f = _FRAME.match(rest)
        if not f:
            raise ValueError(f"unparsed pprof -raw frame: {rest!r}")
        name = f.group(1)
        current.append((name, f.group(5) or name, f.group(2), int(f.group(3))))
    return out


def pprof_file(f: str) -> str:
    """pprof's file name as pprofcore records it: pprof keeps addr2line's
    unknown line ("file:?", "??:?") in the file name; pprofcore drops the
    ":?" and an unknown "??" file."""
    if f.endswith(":?"):
        f = f[:-2]
    return "" if f == "??" else f


def our_locations(p) -> Dict[int, List[Tuple[str, str, str, int]]]:
    """The same shape as :func:`raw_locations` for a pprofcore profile."""
    loc, lines, fn = p.locations, p.lines, p.functions
    s = p._s
    out = {}
    off = loc["line_offsets"]
    for i, a in enumerate(loc["address"]):
        frames = []
        for j in range(off[i], off[i + 1]):
            f = lines["function"][j]
            frames.append((s(fn["name"][f]), s(fn["system_name"][f]), s(fn["filename"][f]), int(lines["line"][j])))
        out[int(a)] = frames
    return out


@contextlib.contextmanager
def debuginfod(binary: Path, build_id: str, work: Path) -> Iterator[Tuple[str, subprocess.Popen]]:
    """Debian's ``debuginfod`` serving ``binary`` on 127.0.0.1: ``(url, process)``
    once it has indexed the binary (fails after 60 s); killed on exit."""
    served = work / "served"
    served.mkdir(parents=True)
    shutil.copy(binary, served / "prog")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        ["debuginfod", "-p", str(port), "-d", str(work / "db.sqlite"), "-F", str(served)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:  # ready once the scan has indexed the binary
            try:
                with urllib.request.urlopen(f"{url}/buildid/{build_id}/debuginfo", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("debuginfod did not index the binary within 60 s")
            time.sleep(0.3)
        yield url, proc
    finally:
        proc.kill()
        proc.wait()
