"""Every other profiler's format (issue 32, item 6; and jemalloc's heap_v2, read
with the legacy formats) through every entry point
that takes a path: `load`, `load_many`, `merge_files`, `Merger.add_file`,
`ProfileSet` (merge, series, the Parquet store) and the CLI with several
sources. Each format is told by its content (the files have no telling
suffix), and each entry point must agree with `load` of the same file: a
merge of the file twice is twice its totals, a series sums to its total."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from testenv import DATA

import pprofcore
from pprofcore.cli import main

FORMATS = {
    "jfr": "small.jfr",
    "cpuprofile": "small.cpuprofile",
    "heapprofile": "small.heapprofile",
    "perf script": "small.perf.txt",
    "speedscope": "small.speedscope.json",
    "py-spy raw": "pyspy.raw.txt",
    "austin": "austin.txt",
    "pstats": "small.prof",
    "stackprof": "small.stackprof.dump",
    "sentry": "small.sentry.json",
    "async-profiler": "small.async-profiler.txt",
    "jemalloc": "small.jemalloc.heap",
}


@pytest.fixture(params=list(FORMATS))
def sample_file(request, tmp_path):
    """The format's fixture under a name that tells nothing, and its profile."""
    path = tmp_path / "input"
    shutil.copyfile(DATA / "producers" / FORMATS[request.param], path)
    return path, pprofcore.load(path)


def totals(p) -> list:
    return [int(v) for v in np.asarray(p.values).sum(axis=0)]


def test_merges_and_batches(sample_file):
    path, p = sample_file
    twice = [2 * v for v in totals(p)]
    assert totals(pprofcore.load_many([path, path])[1]) == totals(p)
    assert totals(pprofcore.merge_files([path, path], threads=1)) == twice
    m = pprofcore.Merger()
    m.add_file(path)
    m.add_file(path)
    assert totals(m.result()) == twice
    assert totals(pprofcore.ProfileSet([path, path]).merge()) == twice


def test_profile_set_series_and_store(sample_file, tmp_path):
    pytest.importorskip("pandas")
    path, p = sample_file
    df = pprofcore.ProfileSet([path, path]).series()
    assert df.groupby("profile")["value"].sum().tolist() == [p.total()] * 2
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    store = pprofcore.ProfileSet([path]).to_parquet(tmp_path / "store")
    assert totals(store.profile()) == totals(p)


def test_cli_reports_with_several_sources(sample_file, capsys):
    path, p = sample_file
    top = p.top(n=1).to_pandas()["name"].iloc[0]
    assert main(["-top", str(path), str(path)]) == 0
    assert top in capsys.readouterr().out
    assert main(["-traces", str(path)]) == 0
    assert capsys.readouterr().out.count("-----------+-------------------------------------------------------") >= 1
