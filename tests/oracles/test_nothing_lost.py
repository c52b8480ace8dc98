"""Nothing lost: decode -> encode -> decode keeps every column of every table and
every header field, over the whole corpus; transforms that should preserve
totals do. The comparison is column by column (not only Profile.__eq__), so a
failure names the column and the first differing row.

EXTENSION POINT for other transforms (merge of one profile, compact, any
granularity): add an entry to TOTAL_PRESERVING below; see its comment.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

import numpy as np
import pytest
from testenv import CORPUS, corpus_files, go_helper, parses_with_pprof, requires_go

import pprofcore
from pprofcore._summary import HEADER_FIELDS

HEADER = ["sample_types", *HEADER_FIELDS]
SAMPLE_COLUMNS = ["values", "stack_offsets", "stack_locations", "label_offsets"]
TABLES = ["labels", "locations", "lines", "functions", "mappings"]


def columns(p: pprofcore.Profile) -> dict:
    """Every header field and column of `p`, keyed by a readable name."""
    out = {f"header.{h}": getattr(p, h) for h in HEADER}
    out.update({f"samples.{c}": getattr(p, c) for c in SAMPLE_COLUMNS})
    for t in TABLES:
        for name, col in getattr(p, t).to_dict().items():
            out[f"{t}.{name}"] = col
    out["strings"] = list(p.strings)
    return out


def assert_same_columns(a: pprofcore.Profile, b: pprofcore.Profile, what: str) -> None:
    ca, cb = columns(a), columns(b)
    assert ca.keys() == cb.keys()
    for name in ca:
        x, y = ca[name], cb[name]
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, (
                f"{what}: {name} dtype/shape {x.dtype}{x.shape} != {y.dtype}{y.shape}"
            )
            if not np.array_equal(x, y):
                row = int(np.argwhere(x != y)[0][0])
                pytest.fail(f"{what}: column {name} differs first at row {row}: {x[row]!r} != {y[row]!r}")
        else:
            assert x == y, f"{what}: {name} differs: {x!r} != {y!r}"
    assert a == b


def totals(p: pprofcore.Profile) -> list:
    return p.values.sum(axis=0, dtype=np.int64).tolist() if len(p) else [0] * len(p.sample_types)


def _reencode(compress, level=None):
    return lambda p: pprofcore.loads(p.to_bytes(compress=compress, level=level))


# Transforms that must keep every column (lossless re-encodings).
LOSSLESS = [
    pytest.param(_reencode(False), id="raw"),
    pytest.param(_reencode(True), id="gzip-default"),
    pytest.param(_reencode(True, 1), id="gzip-1"),
    pytest.param(_reencode(True, 9), id="gzip-9"),
]

# Transforms that must keep the per-sample-type totals (rows may be merged or
# reordered). EXTENSION POINT: when merge / compact / granularity land on main,
# add e.g. pytest.param(lambda p: pprofcore.merge([p]), id="merge-one"),
# pytest.param(lambda p: p.compact(), id="compact") and one entry per
# granularity here; every corpus file is then checked with them.
TOTAL_PRESERVING = LOSSLESS + [
    pytest.param(lambda p: pprofcore.loads(pprofcore.loads(p.to_bytes()).to_bytes(compress=False)), id="twice"),
]

PPROF_FILES = corpus_files(parses_with_pprof)


def _load(row):
    return pprofcore.load(CORPUS / row["file"])


@pytest.mark.parametrize("row", PPROF_FILES)
def test_roundtrip_keeps_every_column(row):
    p = _load(row)
    q = pprofcore.loads(p.to_bytes(compress=False))
    assert_same_columns(p, q, row["file"])
    # Encoding is deterministic and a fixed point.
    assert q.to_bytes(compress=False) == p.to_bytes(compress=False)
    q._core.check_invariants()


@pytest.mark.parametrize("transform", TOTAL_PRESERVING)
def test_transforms_preserve_totals_corpus_wide(transform):
    # Files up to 1 MiB raw (most of the corpus): gzip -9 of the few huge files
    # would dominate the suite's run time and adds no coverage.
    for row in pprofcore_rows(max_bytes=1 << 20):
        p = _load(row)
        q = transform(p)
        assert totals(q) == totals(p), row["file"]
        assert q.sample_types == p.sample_types, row["file"]


@pytest.mark.parametrize("transform", LOSSLESS)
def test_lossless_transforms_keep_every_column(transform):
    for row in pprofcore_rows(max_bytes=1 << 20)[::7]:  # a spread of producers; the full corpus runs above
        p = _load(row)
        assert_same_columns(p, transform(p), row["file"])


def pprofcore_rows(max_bytes: int = 1 << 62) -> list:
    rows = [p.values[0] for p in PPROF_FILES if p.values[0] is not None]
    rows = [r for r in rows if int(r["uncompressed_bytes"] or 0) <= max_bytes]
    if not rows:
        pytest.skip(f"corpus not found at {CORPUS}")
    return rows


@requires_go
@pytest.mark.oracle
def test_pprof_reads_our_encoding_identically():
    """google/pprof parses the original and our re-encoding to the same -raw text.
    Files up to 4 MiB raw: Go's String() of the few huge generated files takes
    most of a minute and they are covered column by column above."""
    rows = pprofcore_rows(max_bytes=4 << 20)
    helper = go_helper("rawcompare")
    with tempfile.TemporaryDirectory() as tmp:
        args = []
        for i, row in enumerate(rows):
            out = os.path.join(tmp, f"{i}.pb.gz")
            _load(row).save(out)
            args += [str(CORPUS / row["file"]), out]
        r = subprocess.run([helper, *args], capture_output=True, text=True, check=True, timeout=600)
    verdicts = r.stdout.splitlines()
    assert len(verdicts) == len(rows)
    bad = [f"{row['file']}: {v}" for row, v in zip(rows, verdicts) if v != "SAME"]
    assert not bad, "\n".join(bad[:10])
