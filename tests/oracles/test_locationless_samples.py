"""Samples without locations, as real producers write them (redpanda's memory
profiler writes only such samples): google/pprof's driver always runs its name
filter, which drops them before any report, while the profile total (and so the
percentages) still counts them. Every report is checked against `go tool pprof`
on profiles built here, so this runs without the shared corpus."""

from __future__ import annotations

import gzip

import pytest
from local_corpus import labelled_profile
from pprof_oracle import assert_tags_match
from testenv import go_pprof, requires_go

import pprofcore

pytestmark = [requires_go, pytest.mark.oracle]


@pytest.fixture(scope="module", params=[True, False], ids=["mixed", "only-locationless"])
def profile_path(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("locless") / f"p-{request.param}.pb.gz"
    path.write_bytes(gzip.compress(labelled_profile(request.param)))
    return path


def _rows(text: str, sep: str) -> list:
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith(sep)), len(lines))
    return lines[start:]


@pytest.mark.parametrize("sample_index", ["objects", "space"])
def test_tags(pprof, profile_path, sample_index):
    text, err = pprof.run("-tags", "-functions", "-flat", f"-sample_index={sample_index}", str(profile_path))
    assert err is None
    assert_tags_match(pprofcore.load(profile_path).tags(sample_type=sample_index).to_text(), text)


def test_top(pprof, profile_path):
    text, err = pprof.run("-top", "-functions", "-flat", "-nodefraction=0", "-nodecount=100", str(profile_path))
    assert err is None
    # The header's total counts the samples without locations too.
    want = [line for line in text.splitlines() if "total" in line or line.startswith(" ")]
    got = [
        line
        for line in pprofcore.load(profile_path).top().to_text().splitlines()
        if "total" in line or line.startswith(" ")
    ]
    assert got == want


def test_traces(pprof, profile_path):
    text, err = pprof.run("-traces", "-functions", "-flat", str(profile_path))
    assert err is None
    assert _rows(pprofcore.load(profile_path).traces().to_text(), "-----------+") == _rows(text, "-----------+")


def test_peek(pprof, profile_path):
    text, err = pprof.run("-peek=main|alloc", "-functions", "-flat", "-nodefraction=0", str(profile_path))
    if err is not None:  # no sample has a stack: no node matches
        assert err.startswith("no matches found for regexp: main|alloc")
        with pytest.raises(ValueError, match=r"no matches found for regexp: main\|alloc"):
            pprofcore.load(profile_path).peek("main|alloc")
        return
    assert _rows(pprofcore.load(profile_path).peek("main|alloc").to_text(), "-----") == _rows(text, "-----")


def test_filtered_profile_drops_them(profile_path, tmp_path):
    """`-proto` output (any filter, even none) has no sample without locations."""
    out = tmp_path / "out.pb.gz"
    go_pprof("-proto", "-output", str(out), str(profile_path))
    want = pprofcore.load(out)
    got = pprofcore.load(profile_path).filter()
    assert len(got) == len(want)
    assert all(len(got.stack(i)) for i in range(len(got)))
