"""A long-lived google/pprof driver (tools/goref/pprofreport) answering many
report requests in one process, and parsers for its text reports."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from typing import List, Optional, Tuple

from conftest import go_helper


class PprofReporter:
    """Runs `pprof ARGS FILE` in-process in the Go helper; returns (text, error)."""

    def __init__(self):
        self._proc = subprocess.Popen(
            [go_helper("pprofreport")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self._lock = threading.Lock()

    def run(self, *args: str) -> Tuple[str, Optional[str]]:
        with self._lock:
            self._proc.stdin.write(json.dumps(["-symbolize=none", *args]) + "\n")
            self._proc.stdin.flush()
            out = []
            while True:
                line = self._proc.stdout.readline()
                if not line:
                    raise RuntimeError("pprofreport helper died")
                if "\x00END " in line:
                    before, status = line.split("\x00END ", 1)
                    out.append(before)
                    status = status.rstrip("\n")
                    return "".join(out), (None if status == "ok" else status)
                out.append(line)

    def close(self):
        self._proc.stdin.close()
        self._proc.wait(timeout=30)


_ROW = re.compile(r"^\s*(\S+)\s+(\S+%)\s+(\S+%)\s+(\S+)\s+(\S+%)  (.*)$")


def parse_top(text: str) -> Tuple[List[str], List[Tuple[str, str, str, str, str, str]]]:
    """Header lines and rows (flat, flat%, sum%, cum, cum%, name-with-inline-label) of -top text."""
    header, rows, in_rows = [], [], False
    for line in text.splitlines():
        if not in_rows:
            if re.match(r"^\s+flat\s+flat%\s+sum%\s+cum\s+cum%\s*$", line):
                in_rows = True
            else:
                header.append(line)
            continue
        m = _ROW.match(line)
        if m is None:
            if not rows:
                raise AssertionError(f"unparsable pprof -top row: {line!r}")
            # a name with a newline in it continues on the next line
            rows[-1] = rows[-1][:5] + (rows[-1][5] + "\n" + line,)
            continue
        rows.append(tuple(g.strip() if i < 5 else g for i, g in enumerate(m.groups())))
    return header, rows


# -tags: Debian's 2021 pprof shows shares of each key's total with "%.1f"
# numbers; current upstream pprof (and pprofcore) shares of the profile total
# (../shared/conformance checks those against upstream's goldens). Against
# Debian's pprof, compare keys, values, order and totals in base units.
_TAG_KEY = re.compile(r"^\s*(\S.*?): Total (\S+)")
_TAG_ROW = re.compile(r"^\s*(\S+)(?: \(\s*\S+\))?: (.*)$")
_SCALE = {
    "": 1,
    "ns": 1,
    "us": 1e3,
    "µs": 1e3,
    "ms": 1e6,
    "s": 1e9,
    "mins": 60e9,
    "hrs": 3600e9,
    "days": 86400e9,
    "B": 1,
    "kB": 1024,
    "MB": 1024**2,
    "GB": 1024**3,
    "TB": 1024**4,
    "PB": 1024**5,
}


def _tag_number(text):
    m = re.match(r"^(-?[\d.]+(?:e[+-]?\d+)?)(\D*)$", text)
    return float(m.group(1)) * _SCALE.get(m.group(2), 1) if m else text


def parse_tags(text):
    """[(key, total, [(value, label)])] of a -tags report, numbers in base units."""
    out = []
    for line in text.splitlines():
        if m := _TAG_KEY.match(line):
            out.append((m.group(1), _tag_number(m.group(2)), []))
        elif out and (m := _TAG_ROW.match(line)):
            out[-1][2].append((_tag_number(m.group(1)), m.group(2)))
    return out


def _close(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return abs(a - b) <= 0.051 * max(abs(a), abs(b)) + 1e-9  # "%.1f" vs two decimals


def assert_tags_match(got_text: str, want_text: str) -> None:
    """pprofcore's tags text agrees with Debian pprof's -tags text (see above)."""
    got, want = parse_tags(got_text), parse_tags(want_text)
    assert [(k, [lab for _, lab in rows]) for k, _, rows in got] == [
        (k, [lab for _, lab in rows]) for k, _, rows in want
    ]
    for (k, gt, grows), (_, wt, wrows) in zip(got, want):
        assert _close(gt, wt), k
        assert all(_close(a, b) for (a, _), (b, _) in zip(grows, wrows)), k


# tools/goref/rawdump: google/pprof's profile.Parse verdict and String() dump
# (what `go tool pprof -raw` prints) of many files in one Go process.
def split_rawdump(out: str) -> dict:
    """{path: dump} from ``rawdump -sep`` output (a dump of "ERROR ..." when
    pprof refuses the file)."""
    result, path, lines = {}, None, []
    for ln in out.splitlines(keepends=True):
        if ln.startswith("=== rawdump: "):
            if path is not None:
                result[path] = "".join(lines)
            path, lines = ln[len("=== rawdump: ") :].rstrip("\n"), []
        else:
            lines.append(ln)
    if path is not None:
        result[path] = "".join(lines)
    return result


def rawdumps(paths, timeout: float = 900) -> dict:
    """{path: dump} of every file in ``paths`` (see :func:`split_rawdump`)."""
    r = subprocess.run(
        [go_helper("rawdump"), "-sep", *map(str, paths)], capture_output=True, text=True, timeout=timeout
    )
    assert r.returncode == 0, r.stderr
    return split_rawdump(r.stdout)
