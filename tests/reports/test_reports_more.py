"""peek, traces and tags against google/pprof (text compared with whitespace
normalized) on a representative subset of the corpus; by_label totals."""

from __future__ import annotations

import gzip
import re

import pytest
from local_corpus import duplicate_locations_profile
from pprof_oracle import assert_tags_match
from testenv import CORPUS, corpus_files, corpus_manifest, parses_with_pprof, reportable_corpus_profile, requires_go

import pprofcore

pytestmark = [requires_go, pytest.mark.oracle]


def _subset(k, max_bytes=400_000, max_samples=3000):
    rows = [
        r
        for r in corpus_manifest()
        if parses_with_pprof(r)
        and int(r["uncompressed_bytes"]) <= max_bytes
        and int(r["n_samples"] or 0) <= max_samples
    ]
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
    path, p = reportable_corpus_profile(row)
    text, err = pprof.run("-traces", "-functions", "-flat", str(path))
    if err:
        pytest.skip(f"pprof refused: {err}")
    want = _body(_norm(text), "-----------+")
    got = _body(_norm(p.traces().to_text()), "-----------+")
    assert got == want


def test_traces_merge_locations_of_equal_content(pprof, tmp_path):
    """pprof merges the profile on load: stacks equal in content are one trace."""
    path = tmp_path / "dup.pb.gz"
    path.write_bytes(gzip.compress(duplicate_locations_profile()))
    text, err = pprof.run("-traces", "-functions", "-flat", str(path))
    assert err is None
    got = _body(_norm(pprofcore.load(path).traces().to_text()), "-----------+")
    assert got == _body(_norm(text), "-----------+")
    assert sum(line.startswith("-----------+") for line in got) == 3  # two traces, not three


@pytest.mark.parametrize("row", _subset(16))
def test_tags_match_pprof(pprof, row):
    """Keys, values, their order and totals as Debian's pprof -tags (whose
    number format and percentages are older than upstream's; see docs/conformance.md)."""
    path = CORPUS / row["file"]
    p = pprofcore.load(path)
    text, err = pprof.run("-tags", "-functions", "-flat", str(path))
    if err:
        pytest.skip(f"pprof refused: {err}")
    assert_tags_match(p.tags().to_text(), text)


@pytest.mark.parametrize("variant", ["functions", "lines-mean"])
@pytest.mark.parametrize("row", _subset(16))
def test_peek_matches_pprof(pprof, row, variant):
    path, p = reportable_corpus_profile(row)
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
