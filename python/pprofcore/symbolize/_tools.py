"""Running the external symbolizers in batch mode: one process per binary,
every address on its standard input at once, inline frames included, names
left mangled (demangling is :mod:`._demangle`'s job, as in pprof).

``llvm-symbolizer`` (Debian's ``llvm`` package; also ``llvm-symbolizer-NN``)
is preferred, as pprof prefers it; ``addr2line`` (``binutils``) otherwise."""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from typing import List, Sequence



class ToolMissing(RuntimeError):
    """A needed external tool is not installed (the message names the Debian package)."""


class ToolFailed(RuntimeError):
    """An external tool exited with an error or wrote output it should not."""


@dataclass(frozen=True)
class Frame:
    """One source frame of an address: function (mangled), file, line, column
    and the function's first line (0 where the tool does not say)."""

    function: str
    file: str
    line: int
    column: int = 0
    start_line: int = 0


def _versioned(name: str) -> str:
    """``name`` on PATH, else the newest ``name-NN`` (Debian installs llvm
    tools with a version suffix), else ""."""
    found = shutil.which(name)
    if found:
        return found
    best, best_v = "", -1
    for d in os.environ.get("PATH", "").split(os.pathsep):
        for p in glob.glob(os.path.join(d or ".", name + "-[0-9]*")):
            m = re.fullmatch(re.escape(name) + r"-(\d+)", os.path.basename(p))
            if m and os.access(p, os.X_OK) and int(m.group(1)) > best_v:
                best, best_v = p, int(m.group(1))
    return best


def find_symbolizer(tool: str = "auto") -> tuple:
    """``(kind, path)`` of the symbolizer to run: kind is "llvm-symbolizer" or
    "addr2line". ``tool`` is "auto", one of those two kinds, or a path to
    either program. Raises :class:`ToolMissing` naming the Debian package."""
    if tool not in ("auto", "llvm-symbolizer", "addr2line"):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            found = shutil.which(tool)
            if not found:
                raise ToolMissing(f"symbolizer {tool!r} not found")
            tool = found
        kind = "addr2line" if "addr2line" in os.path.basename(tool) else "llvm-symbolizer"
        return kind, tool
    if tool in ("auto", "llvm-symbolizer"):
        path = _versioned("llvm-symbolizer")
        if path:
            return "llvm-symbolizer", path
        if tool == "llvm-symbolizer":
            raise ToolMissing("llvm-symbolizer not found (Debian: apt-get install llvm)")
    path = shutil.which("addr2line")
    if path:
        return "addr2line", path
    raise ToolMissing("no symbolizer found: install llvm-symbolizer (Debian: apt-get install llvm) "
                      "or addr2line (apt-get install binutils)")


PARALLEL_MIN = 10_000  # addresses per extra process


def resolve(kind: str, tool: str, binary: str, addresses: Sequence[int]) -> List[List[Frame]]:
    """The frames of each address (addresses as the binary sees them), innermost
    first; an empty list where the tool knows nothing."""
    if not len(addresses):
        return []
    run = _llvm if kind == "llvm-symbolizer" else _addr2line
    # Large batches are split over one process per core: the tools are
    # single-threaded, and each chunk's output is parsed while others run.
    n = min(os.cpu_count() or 1, len(addresses) // PARALLEL_MIN)
    if n <= 1:
        return run(tool, binary, addresses)
    from concurrent.futures import ThreadPoolExecutor

    size = -(-len(addresses) // n)
    chunks = [addresses[i:i + size] for i in range(0, len(addresses), size)]
    with ThreadPoolExecutor(len(chunks)) as pool:
        parts = list(pool.map(lambda c: run(tool, binary, c), chunks))
    return [frames for part in parts for frames in part]


def _run(cmd: List[str], stdin: str) -> str:
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise ToolMissing(f"cannot run {cmd[0]}: {e}") from None
    if r.returncode != 0:
        raise ToolFailed(f"{' '.join(cmd)} failed with status {r.returncode}: {r.stderr.strip()[:500]}")
    return r.stdout


def _llvm(tool: str, binary: str, addresses: Sequence[int]) -> List[List[Frame]]:
    out = _run([tool, "--inlining", "--no-demangle", "--output-style=JSON", "--obj=" + binary],
               "".join(f"{a:#x}\n" for a in addresses))
    result: List[List[Frame]] = []
    for text in out.splitlines():
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
        except ValueError:
            raise ToolFailed(f"unexpected llvm-symbolizer output for {binary}: {text[:200]!r}") from None
        frames = []
        for s in rec.get("Symbol", []):
            f = Frame(s.get("FunctionName", ""), s.get("FileName", ""), int(s.get("Line", 0) or 0),
                      int(s.get("Column", 0) or 0), int(s.get("StartLine", 0) or 0))
            if f.function or f.file or f.line:  # pprof drops frames that say nothing
                frames.append(f)
        result.append(frames)
    if len(result) != len(addresses):
        raise ToolFailed(f"llvm-symbolizer answered {len(result)} of {len(addresses)} addresses for {binary}")
    return result


_FILELINE = re.compile(r"^(.*):(\d+|\?)(?: \(discriminator \d+\))?$")


def _addr2line(tool: str, binary: str, addresses: Sequence[int]) -> List[List[Frame]]:
    # -a echoes each address first, which delimits the frames of one address
    out = _run([tool, "-a", "-f", "-i", "-e", binary], "".join(f"{a:x}\n" for a in addresses))
    result: List[List[Frame]] = []
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("0x"):
            raise ToolFailed(f"unexpected addr2line output for {binary}: {lines[i][:200]!r}")
        i += 1
        frames = []
        while i + 1 < len(lines) and not lines[i].startswith("0x"):
            func, fileline = lines[i], lines[i + 1]
            i += 2
            func = "" if func == "??" else func
            file, line = "", 0
            if fileline not in ("??:0", "??:?"):
                m = _FILELINE.match(fileline)
                if m:
                    file, line = m.group(1), int(m.group(2)) if m.group(2) != "?" else 0
                else:
                    file = fileline
            if file == "??":
                file = ""
            if func or file or line:
                frames.append(Frame(func, file, line))
        result.append(frames)
    if len(result) != len(addresses):
        raise ToolFailed(f"addr2line answered {len(result)} of {len(addresses)} addresses for {binary}")
    return result
