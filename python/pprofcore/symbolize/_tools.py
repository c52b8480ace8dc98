"""Running the external symbolizers in batch mode: one process per binary,
every address on its standard input at once, inline frames included, names
left mangled (demangling is :mod:`pprofcore._demangle`'s job, as in pprof).

``llvm-symbolizer`` (Debian's ``llvm`` package; also ``llvm-symbolizer-NN``)
is preferred, as pprof prefers it; ``addr2line`` (``binutils``) otherwise."""

from __future__ import annotations

import bisect
import glob
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import List, Sequence


class ToolMissing(RuntimeError):
    """A needed external tool is not installed (the message names the Debian package).

    Examples
    --------
    >>> from pprofcore.symbolize import ToolMissing
    >>> issubclass(ToolMissing, RuntimeError)
    True
    """


class ToolFailed(RuntimeError):
    """An external tool exited with an error or wrote output it should not.

    Examples
    --------
    >>> from pprofcore.symbolize import ToolFailed
    >>> issubclass(ToolFailed, RuntimeError)
    True
    """


@dataclass
class Frames:
    """Frames of a batch of addresses as columns (built per frame, never as one
    object per frame: batches hold 100,000s): address ``i`` has ``counts[i]``
    consecutive rows, innermost inline frame first. ``function`` names are
    mangled; ``line``/``column`` are 0 where the tool does not say."""

    counts: List[int] = field(default_factory=list)
    function: List[str] = field(default_factory=list)
    file: List[str] = field(default_factory=list)
    line: List[int] = field(default_factory=list)
    column: List[int] = field(default_factory=list)

    def extend(self, other: "Frames") -> None:
        for name in ("counts", "function", "file", "line", "column"):
            getattr(self, name).extend(getattr(other, name))

    def frames(self) -> List[List[tuple]]:
        """``[(function, file, line, column), ...]`` per address (for inspection)."""
        out, k = [], 0
        for n in self.counts:
            out.append(
                list(zip(self.function[k : k + n], self.file[k : k + n], self.line[k : k + n], self.column[k : k + n]))
            )
            k += n
        return out


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
    addr2line = shutil.which("addr2line")
    if addr2line:
        return "addr2line", addr2line
    raise ToolMissing(
        "no symbolizer found: install llvm-symbolizer (Debian: apt-get install llvm) "
        "or addr2line (apt-get install binutils)"
    )


PARALLEL_MIN = 10_000  # addresses per extra process


def resolve(kind: str, tool: str, binary: str, addresses: Sequence[int]) -> Frames:
    """The frames of each address (addresses as the binary sees them), innermost
    first; none where the tool knows nothing."""
    if not len(addresses):
        return Frames()
    run = _llvm if kind == "llvm-symbolizer" else _addr2line
    # Large batches are split over one process per core: the tools are
    # single-threaded, and each chunk's output is parsed while others run.
    n = min(os.cpu_count() or 1, len(addresses) // PARALLEL_MIN)
    if n <= 1:
        return run(tool, binary, addresses)
    from concurrent.futures import ThreadPoolExecutor

    size = -(-len(addresses) // n)
    chunks = [addresses[i : i + size] for i in range(0, len(addresses), size)]
    with ThreadPoolExecutor(len(chunks)) as pool:
        parts = list(pool.map(lambda c: run(tool, binary, c), chunks))
    out = parts[0]
    for part in parts[1:]:
        out.extend(part)
    return out


def path_arg(path: str) -> str:
    """``path`` as a command-line argument that no tool takes for an option: a
    relative path starting with "-" gets "./" in front (some tools do not
    accept "--", and an option's value may still be parsed as one)."""
    return "./" + path if path.startswith("-") else path


def _run(cmd: List[str], stdin: str) -> str:
    try:
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise ToolMissing(f"cannot run {cmd[0]}: {e}") from None
    if r.returncode != 0:
        raise ToolFailed(f"{' '.join(cmd)} failed with status {r.returncode}: {r.stderr.strip()[:500]}")
    return r.stdout


def _llvm(tool: str, binary: str, addresses: Sequence[int]) -> Frames:
    # The LLVM text style (what pprof reads): per address, "function" and
    # "file:line:column" lines, then a blank line. A third of JSON's size.
    out = _run(
        [tool, "--inlining", "--no-demangle", "--output-style=LLVM", "--obj=" + path_arg(binary)],
        "".join(f"{a:#x}\n" for a in addresses),
    )
    blocks = out.split("\n\n")
    if blocks and not blocks[-1].strip():
        blocks.pop()
    if len(blocks) != len(addresses):
        raise ToolFailed(f"llvm-symbolizer answered {len(blocks)} of {len(addresses)} addresses for {binary}")
    r = Frames()
    counts, funcs, files, lines_, cols = r.counts, r.function, r.file, r.line, r.column
    for block in blocks:
        text = block.split("\n")
        n = 0
        for i in range(0, len(text) - 1, 2):
            func, where = text[i], text[i + 1]
            if func == "??":
                func = ""
            file, line, column = where, 0, 0
            parts = where.rsplit(":", 2)
            if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
                file, line, column = parts[0], int(parts[1]), int(parts[2])
            elif len(parts) >= 2 and parts[-1].isdigit():
                file, line = where.rsplit(":", 1)[0], int(parts[-1])
            if file == "??":
                file = ""
            if func or file or line:  # pprof drops frames that say nothing
                funcs.append(func)
                files.append(file)
                lines_.append(line)
                cols.append(column)
                n += 1
        counts.append(n)
    return r


_FILELINE = re.compile(r"^(.*):(\d+|\?)(?: \(discriminator \d+\))?$")


def _nm_symbols(binary: str):
    """``(addresses, sizes, names, types)`` sorted by address from ``nm`` (as
    pprof's addr2LinerNM reads it), or None when nm is missing or fails."""
    nm = shutil.which("nm")
    if nm is None:
        return None
    r = subprocess.run(
        [nm, "--numeric-sort", "--print-size", "--format=posix", path_arg(binary)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
    )
    if r.returncode != 0:
        return None
    addrs, sizes, names, types = [], [], [], []
    for line in r.stdout.splitlines():
        f = line.strip().split(" ")
        if len(f) != 4:
            continue
        try:
            a, n = int(f[2], 16), int(f[3], 16)
        except ValueError:
            continue
        addrs.append(a)
        sizes.append(n)
        names.append(f[0])
        types.append(f[1])
    return addrs, sizes, names, types


def _nm_name(table, addr: int) -> str:
    """The nm symbol holding ``addr`` ("" if none), by pprof's rules: the last
    symbol starting at or before it; data symbols only within their size."""
    addrs, sizes, names, types = table
    if not addrs or addr < addrs[0] or addr >= addrs[-1] + sizes[-1]:
        return ""
    i = bisect.bisect_right(addrs, addr) - 1
    if any(c in "bBdDrRvVW" for c in types[i]) and addr >= addrs[i] + sizes[i]:
        return ""
    return names[i]


def _addr2line(tool: str, binary: str, addresses: Sequence[int]) -> Frames:
    # -a echoes each address first, which delimits the frames of one address
    out = _run([tool, "-a", "-f", "-i", "-e", path_arg(binary)], "".join(f"{a:x}\n" for a in addresses))
    # Some addr2line versions cut names short (sourceware bug 17541): like pprof,
    # take nm's name for the outermost frame when it is 2+ characters longer.
    table = _nm_symbols(binary)
    r = Frames()
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("0x"):
            raise ToolFailed(f"unexpected addr2line output for {binary}: {lines[i][:200]!r}")
        i += 1
        n = 0
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
                r.function.append(func)
                r.file.append(file)
                r.line.append(line)
                r.column.append(0)
                n += 1
        if n and table is not None:
            better = _nm_name(table, addresses[len(r.counts)])
            if len(better) > len(r.function[-1]) + 1:
                r.function[-1] = better
        r.counts.append(n)
    if len(r.counts) != len(addresses):
        raise ToolFailed(f"addr2line answered {len(r.counts)} of {len(addresses)} addresses for {binary}")
    return r
