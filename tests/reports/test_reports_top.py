"""Profile.top against google/pprof's -top (values, units, percentages, names and
order compared as text cells, not whitespace) over the corpus."""

from __future__ import annotations

import os
import zlib

import pytest
from pprof_oracle import compare_top
from testenv import corpus_files, corpus_manifest, parses_with_pprof, reportable_corpus_profile, requires_go

import pprofcore

pytestmark = [requires_go, pytest.mark.oracle]


SLOW_BYTES = 20_000_000  # pprof needs about a minute per report on these
BIG_BYTES = 1_500_000


def _combos(row):
    """Type indices to check. Every file gets pprof's default (the last type);
    half of the small files (chosen by a hash of the name) get one more type, so
    the sweep covers every type position without paying for every combination."""
    n = len(row["sample_types"].split(","))
    h = zlib.crc32(row["file"].encode())
    if int(row["uncompressed_bytes"]) > BIG_BYTES or n == 1 or h % 2:
        return [n - 1]
    return sorted({n - 1, (h // 2) % (n - 1)})


def _params():
    out = []
    for prm in corpus_files(parses_with_pprof):
        row = prm.values[0]
        if row is None:
            return [pytest.param(None, 0, marks=prm.marks, id="no-corpus")]
        marks = ()
        if int(row["uncompressed_bytes"]) > SLOW_BYTES:
            marks = pytest.mark.skipif(
                not os.environ.get("PPROFCORE_SLOW_TESTS"),
                reason="pprof takes about a minute on this file; set PPROFCORE_SLOW_TESTS=1",
            )
        for ti in _combos(row):
            out.append(pytest.param(row, ti, id=f"{row['file']}[{ti}]", marks=marks))
    return out


@pytest.mark.parametrize("row,ti", _params())
def test_top_matches_pprof(pprof, row, ti):
    path, p = reportable_corpus_profile(row)
    compare_top(pprof, path, p, ti)


def _every(k):
    rows = [r for r in corpus_manifest() if parses_with_pprof(r) and int(r["uncompressed_bytes"]) <= BIG_BYTES]
    return [pytest.param(r, id=r["file"]) for r in rows[::k]] or corpus_files(parses_with_pprof)


@pytest.mark.parametrize("by", ["filefunctions", "files", "lines", "addresses"])
@pytest.mark.parametrize("row", _every(16))
def test_top_granularity_matches_pprof(pprof, row, by):
    path, p = reportable_corpus_profile(row)
    compare_top(pprof, path, p, p.sample_type_index(), by=by)


@pytest.mark.parametrize("variant", ["noinlines", "cum", "mean", "noinlines-lines"])
@pytest.mark.parametrize("row", _every(22))
def test_top_options_match_pprof(pprof, row, variant):
    path, p = reportable_corpus_profile(row)
    ti = p.sample_type_index()
    if variant == "noinlines":
        compare_top(pprof, path, p, ti, inline=False)
    elif variant == "noinlines-lines":
        compare_top(pprof, path, p, ti, by="lines", inline=False)
    elif variant == "cum":
        compare_top(pprof, path, p, ti, cum=True)
    else:
        compare_top(pprof, path, p, ti, mean=True)


def test_diff_base_total_matches_pprof(pprof, tmp_path):
    from testenv import go_pprof

    a = pprofcore.from_folded("main;work 30\nmain;idle 10\nmain 5\n", sample_type="cpu/nanoseconds")
    b = pprofcore.from_folded("main;work 50\nmain;other 20\n", sample_type="cpu/nanoseconds")
    pa, pb, out = tmp_path / "a.pb.gz", tmp_path / "b.pb.gz", tmp_path / "diff.pb.gz"
    a.save(pa)
    b.save(pb)
    go_pprof("-proto", f"-diff_base={pa}", f"-output={out}", str(pb))
    d = pprofcore.load(out)
    compare_top(pprof, out, d, 0)
    assert d.top().meta["total"] == 45  # the base's total, as pprof reports diffs
