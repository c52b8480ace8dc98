"""A long-lived google/pprof driver (tools/goref/pprofreport) answering many
report requests in one process, and parsers for its text reports."""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import threading
from typing import List, Optional, Tuple

import pytest
from testenv import go_helper

import pprofcore

_GRANULARITIES = ("-functions", "-filefunctions", "-files", "-lines", "-addresses")


def pristine_choices(args) -> List[str]:
    """`args` with pprof's first-run sort and granularity (-flat, -functions)
    spelled out where none is given: the long-lived driver otherwise keeps the
    previous request's choice (a `-list` request leaves it at lines)."""
    names = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    out = list(args)
    if not names & {"-cum", "-flat"}:
        out.insert(0, "-flat")
    if not names & set(_GRANULARITIES):
        out.insert(0, "-functions")
    return out


class PprofReporter:
    """Runs `pprof ARGS FILE` in-process in the Go helper; returns (text, error).
    Each request starts from pprof's pristine sort and granularity."""

    def __init__(self, env: Optional[dict] = None):
        self._proc = subprocess.Popen(
            [go_helper("pprofreport")],
            env=env,
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
            self._proc.stdin.write(json.dumps(["-symbolize=none", *pristine_choices(args)]) + "\n")
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
# Multipliers of the units pprof prints, to nanoseconds or bytes.
UNIT_SCALE = {
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
    return float(m.group(1)) * UNIT_SCALE.get(m.group(2), 1) if m else text


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


# ------------------------------------------------ -top compared row by row
def top_rows(p, **kw):
    """pprofcore's top table untrimmed, and its rows as `parse_top` reads pprof's."""
    t = p.top(nodefraction=0, edgefraction=0, **kw)  # as -nodefraction=0 -edgefraction=0 below
    lines = t.to_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.lstrip().startswith("flat "))
    _, rows = parse_top("\n".join(lines[start:]))
    return t, rows


def compare_top(pprof, path, p, ti, by="functions", inline=True, cum=False, mean=False):
    """Profile `p` (loaded from `path`) gives the rows and the "Showing nodes"
    line of pprof's untrimmed -top for sample type `ti`; skips when pprof refuses."""
    args = [
        "-top",
        "-nodecount=0",
        "-nodefraction=0",
        "-edgefraction=0",
        f"-sample_index={ti}",
        f"-{by}",
        "-cum" if cum else "-flat",
    ]
    if not inline:
        args.append("-noinlines")
    if mean:
        args.append("-mean")
    text, err = pprof.run(*args, str(path))
    if err is not None:
        pytest.skip(f"pprof refused: {err}")
    header, want = parse_top(text)
    t, got = top_rows(p, sample_type=ti, by=by, inline=inline, sort="cum" if cum else "flat", mean=mean)
    assert len(got) == len(want), f"{len(got)} rows vs pprof's {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"row {i}: {g} != pprof {w}"
    summary = [h for h in header if h.startswith("Showing nodes accounting")]
    ours = [h for h in t.header if h.startswith("Showing nodes accounting")]
    assert ours == summary


# ------------------------------------- legacy files against pprof's -raw dump
# pprof's proto decoder drops a numeric label whose value is 0 and has no unit, so
# a heap sample's "bytes:[0]" cannot survive any profile.proto round trip;
# pprofcore leaves it out when it reads the legacy file (so that its Profile
# encodes and decodes to itself) and the comparison leaves it out of pprof's dump.
ZERO_BYTES_LABEL = re.compile(r"^\s+bytes:\[0\]\n", re.M)


def assert_same_as_pprof(paths, tmp_path):
    """Each legacy file loads, and pprof prints the same dump for it and for
    pprofcore's profile.proto encoding of it (test_legacy.py, test_conformance.py)."""
    ours = []
    for i, path in enumerate(paths):
        p = pprofcore.load(path)
        p._core.check_invariants()
        _check_heap_labels(p)
        out = tmp_path / f"ours-{i}.pb"
        out.write_bytes(p.to_bytes())
        ours.append(out)
    dumps = rawdumps([*paths, *ours])
    for path, mine in zip(paths, ours):
        want, got = ZERO_BYTES_LABEL.sub("", dumps[str(path)]), dumps[str(mine)]
        assert not want.startswith("ERROR"), f"{path}: pprof refuses it: {want}"
        if want != got:
            diff = "".join(
                list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "pprof", "pprofcore"))[:60]
            )
            pytest.fail(f"{path}: pprof's dump differs from pprofcore's\n{diff}")


def _check_heap_labels(p):
    types = [t for t, _ in p.sample_types]
    if types[-1] in ("space", "inuse_space"):
        counts = [b - a for a, b in zip(p.label_offsets[:-1], p.label_offsets[1:])]
        assert set(counts) <= {0, 1} and set(p.strings[k] for k in p.labels.key) <= {"bytes"}
        assert 0 not in set(p.labels.num)  # the zero block sizes are the ones left out
        assert pprofcore.loads(p.to_bytes()) == p


# ----------------------------------------------- -traces as collapsed stacks
_TRACE_VALUE = re.compile(r"^\s*(-?\d+)[A-Za-z]*   (.+)$")  # "10000000ns   leaf" (-unit=<sample unit>)
_TRACE_FRAME = re.compile(r"^ {13}(\S.*)$")  # a caller: the value column left blank


def folded_from_traces(text: str) -> dict:
    """{"root;...;leaf": total} from `pprof -traces -unit=<the sample type's unit>`
    (values in whole base units): pprof prints one trace per sample, leaf first,
    under its labels and marks inlined frames " (inline)"; the traces of one
    stack are summed and zero totals dropped, as pprofcore's folded output does."""
    out: dict = {}
    stack: list = []
    value = None

    def flush():
        if value is not None:
            key = ";".join(reversed(stack))
            out[key] = out.get(key, 0) + value

    for line in text.splitlines():
        if line.startswith("-----------+"):
            flush()
            stack, value = [], None
        elif m := _TRACE_VALUE.match(line):
            value, stack = int(m.group(1)), [m.group(2).removesuffix(" (inline)")]
        elif value is not None and (m := _TRACE_FRAME.match(line)):
            stack.append(m.group(1).removesuffix(" (inline)"))
    flush()
    return {k: v for k, v in out.items() if v}
