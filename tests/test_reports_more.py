"""peek, traces and tags against google/pprof (text compared with whitespace
normalized) on a representative subset of the corpus; by_label totals."""

from __future__ import annotations

import re

import pytest

import pprofcore
from conftest import CORPUS, corpus_manifest, corpus_files, parses_with_pprof, requires_go

pytestmark = [requires_go, pytest.mark.oracle]


def _subset(k, max_bytes=400_000, max_samples=3000):
    rows = [r for r in corpus_manifest() if parses_with_pprof(r) and int(r["uncompressed_bytes"]) <= max_bytes
            and int(r["n_samples"] or 0) <= max_samples]
    picked = rows[::k]
    labelled = [r for r in rows if r["labels"] not in ("", "none")][::9]
    seen = set()
    out = []
    for r in picked + labelled:
        if r["file"] not in seen:
            seen.add(r["file"])
            out.append(pytest.param(r, id=r["file"]))
    return out or corpus_files(parses_with_pprof)


def _norm(text):
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def _go_escape(s):
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", s)


def _body(lines, sep_prefix):
    i = next((k for k, l in enumerate(lines) if l.startswith(sep_prefix)), len(lines))
    return lines[i:]


@pytest.mark.parametrize("row", _subset(16))
def test_traces_match_pprof(pprof, row):
    path = CORPUS / row["file"]
    p = pprofcore.load(path)
    if p.drop_frames:
        pytest.skip("profile sets drop_frames")
    text, err = pprof.run("-traces", "-functions", "-flat", str(path))
    if err:
        pytest.skip(f"pprof refused: {err}")
    want = _body(_norm(text), "-----------+")
    got = _body(_norm(p.traces().to_text()), "-----------+")
    assert got == want


_TAG_KEY = re.compile(r"^\s*(\S.*?): Total (\S+)")
_TAG_ROW = re.compile(r"^\s*(\S+)(?: \(\s*\S+\))?: (.*)$")
_SCALE = {"": 1, "ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "mins": 60e9, "hrs": 3600e9, "days": 86400e9,
          "B": 1, "kB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4, "PB": 1024 ** 5}


def _tag_number(text):
    m = re.match(r"^(-?[\d.]+(?:e[+-]?\d+)?)(\D*)$", text)
    return float(m.group(1)) * _SCALE.get(m.group(2), 1) if m else text


def _tag_blocks(text):
    """[(key, total, [(value, label)])] of a -tags report, numbers in base units.
    Percentages are left out: Debian's 2021 pprof shows shares of each key's
    total, current upstream pprof (and pprofcore) shares of the profile total;
    ../shared/conformance checks those against upstream's goldens."""
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


@pytest.mark.parametrize("row", _subset(16))
def test_tags_match_pprof(pprof, row):
    """Keys, values, their order and totals as Debian's pprof -tags (whose
    number format and percentages are older than upstream's; see docs/conformance.md)."""
    path = CORPUS / row["file"]
    p = pprofcore.load(path)
    text, err = pprof.run("-tags", "-functions", "-flat", str(path))
    if err:
        pytest.skip(f"pprof refused: {err}")
    got, want = _tag_blocks(p.tags().to_text()), _tag_blocks(text)
    assert [(k, [lab for _, lab in rows]) for k, _, rows in got] == [(k, [lab for _, lab in rows]) for k, _, rows in want]
    for (k, gt, grows), (_, wt, wrows) in zip(got, want):
        assert _close(gt, wt), k
        assert all(_close(a, b) for (a, _), (b, _) in zip(grows, wrows)), k


@pytest.mark.parametrize("variant", ["functions", "lines-mean"])
@pytest.mark.parametrize("row", _subset(16))
def test_peek_matches_pprof(pprof, row, variant):
    path = CORPUS / row["file"]
    p = pprofcore.load(path)
    if p.drop_frames:
        pytest.skip("profile sets drop_frames")
    by = variant.split("-")[0]
    mean = variant.endswith("mean")
    top = p.top(n=3, by=by)
    if len(top) == 0:
        pytest.skip("no nodes")
    regex = "^(" + "|".join(_go_escape(n) for n in top["name"]) + ")$"
    text, err = pprof.run(f"-peek={regex}", f"-{by}", "-flat", f"-mean={str(mean).lower()}", str(path))
    if err:
        pytest.skip(f"pprof refused: {err}")
    want = _body(_norm(text), "-----")
    got = _body(_norm(p.peek(regex, by=by, mean=mean).to_text()), "-----")
    assert got == want


def test_by_label_totals():
    p = pprofcore.load(pprofcore.example_path("cpu"))
    t = p.by_label("tenant")
    assert int(t["cpu"].sum()) == p.total("cpu")
    assert int(t["num_samples"].sum()) == len(p)
    assert None in t["tenant"]
    missing = p.by_label("no-such-key")
    assert missing["no-such-key"] == [None]
    assert int(missing["cpu"][0]) == p.total("cpu")
