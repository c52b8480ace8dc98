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
        self._proc = subprocess.Popen([go_helper("pprofreport")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, encoding="utf-8", errors="replace")
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
