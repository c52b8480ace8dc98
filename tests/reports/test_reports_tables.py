"""Folded stacks round trip, pandas/Arrow schemas and dtypes, report tables,
the CLI subcommands, and Hypothesis properties of flat/cum."""

from __future__ import annotations

import collections
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import pprofcore_env

import pprofcore
from pprofcore.cli import main as cli_main

GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"]


# ----------------------------------------------------------------- folded
def test_folded_round_trip(cpu):
    text = cpu.to_folded()
    q = pprofcore.from_folded(text, sample_type="cpu/nanoseconds")
    assert q.sample_types == [("cpu", "nanoseconds")]
    assert q.total() == cpu.total("cpu")
    assert q.to_folded() == text
    assert pprofcore.loads(q.to_bytes()) == q


def test_folded_top_matches_original(cpu):
    q = pprofcore.from_folded(cpu.to_folded(), sample_type="cpu/nanoseconds")
    a, b = cpu.top(), q.top()
    assert a["name"] == b["name"]
    assert np.array_equal(a["flat"], b["flat"]) and np.array_equal(a["cum"], b["cum"])


def test_folded_labels_and_lines(cpu):
    text = cpu.to_folded(labels=["tenant"], lines=True)
    assert any(line.startswith("tenant=") for line in text.splitlines())
    assert ":" in text.splitlines()[0].split(";")[-1]
    assert sum(int(line.rsplit(" ", 1)[1]) for line in text.splitlines()) == cpu.total("cpu")


def test_from_folded_rejects_garbage():
    with pytest.raises(ValueError, match="line 2"):
        pprofcore.from_folded("a;b 1\nno-value-here\n")
    with pytest.raises(ValueError, match="not an integer"):
        pprofcore.from_folded("a;b x\n")


def test_from_folded_by_hand():
    p = pprofcore.from_folded("main;work 3\nmain;idle 1\n# comment\n\nmain;work;leaf 2\n", sample_type=("cpu", "ms"))
    t = p.top()
    rows = {r["name"]: (r["flat"], r["cum"]) for r in t.rows()}
    assert rows == {"work": (3, 5), "leaf": (2, 2), "idle": (1, 1), "main": (0, 6)}


# ----------------------------------------------------------------- pandas / arrow
pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")


@pytest.mark.parametrize(
    "kind,expected",
    [
        (
            "samples",
            {
                "samples": "int64",
                "cpu": "int64",
                "leaf_function": "category",
                "stack_id": "int32",
                "depth": "int64",
                "tenant": "category",
            },
        ),
        (
            "frames",
            {
                "sample": "int64",
                "depth": "int32",
                "location": "int32",
                "address": "uint64",
                "function": "category",
                "file": "category",
                "line": "int64",
                "inline": "bool",
            },
        ),
        (
            "locations",
            {
                "id": "uint64",
                "mapping_id": "uint64",
                "address": "uint64",
                "is_folded": "bool",
                "num_lines": "int64",
                "function": "category",
                "file": "category",
                "line": "int64",
            },
        ),
        (
            "functions",
            {
                "id": "uint64",
                "name": "category",
                "system_name": "category",
                "filename": "category",
                "start_line": "int64",
            },
        ),
        (
            "mappings",
            {
                "id": "uint64",
                "memory_start": "uint64",
                "filename": "category",
                "build_id": "category",
                "has_functions": "bool",
            },
        ),
    ],
)
def test_to_pandas_dtypes(cpu, kind, expected):
    df = cpu.to_pandas(kind)
    for col, dtype in expected.items():
        assert str(df[col].dtype) == dtype, (col, df[col].dtype)


def test_to_pandas_samples_content(cpu):
    df = cpu.to_pandas("samples")
    assert len(df) == len(cpu)
    assert df["cpu"].sum() == cpu.total("cpu")
    assert (df["depth"].to_numpy() == np.diff(cpu.stack_offsets)).all()
    # equal stack ids <=> equal stacks
    first = {}
    for i in range(len(cpu)):
        key = tuple(cpu.stack(i))
        sid = int(df["stack_id"].iloc[i])
        assert first.setdefault(sid, key) == key
    assert df["stack_id"].nunique() == len({tuple(cpu.stack(i)) for i in range(len(cpu))})
    worker = df["worker"]  # numeric label: nullable integer
    assert str(worker.dtype) in ("Int64", "category")


def test_to_pandas_frames_content(cpu):
    df = cpu.to_pandas("frames")
    n_frames = sum(
        max(int(cpu.locations.line_offsets[l + 1] - cpu.locations.line_offsets[l]), 1) for l in cpu.stack_locations
    )
    assert len(df) == n_frames
    assert (df.groupby("sample")["depth"].min() == 0).all()
    leaf = df[df["depth"] == 0].set_index("sample")["function"]
    samples = cpu.to_pandas("samples")
    assert (leaf.astype(str).to_numpy() == samples["leaf_function"].astype(str).to_numpy()).all()


@pytest.mark.parametrize("kind", ["samples", "frames", "locations", "functions", "mappings"])
def test_to_arrow_matches_pandas(cpu, kind):
    t = cpu.to_arrow(kind)
    df = cpu.to_pandas(kind)
    assert t.num_rows == len(df)
    assert t.column_names == list(df.columns)
    for name in t.column_names:
        if isinstance(df[name].dtype, pd.CategoricalDtype):
            assert pa.types.is_dictionary(t.schema.field(name).type)
            assert t.column(name).to_pylist() == [
                None if x is np.nan or x is None or (isinstance(x, float)) else x
                for x in df[name].astype(object).tolist()
            ]


def test_bad_kind(cpu):
    with pytest.raises(ValueError, match="unknown kind"):
        cpu.to_pandas("nope")


def test_report_table_conversions(cpu):
    t = cpu.top(n=5)
    df = t.to_pandas()
    assert list(df.columns) == ["name", "flat", "flat%", "sum%", "cum", "cum%", "inline"]
    at = t.to_arrow()
    assert at.num_rows == 5 and pa.types.is_dictionary(at.schema.field("name").type)
    assert pa.table(t).num_rows == 5  # __arrow_c_stream__
    assert "<table>" in t._repr_html_()
    assert "flat%" in repr(t)


def test_import_is_light():
    code = "import sys, pprofcore; print('pandas' in sys.modules, 'pyarrow' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=pprofcore_env(), check=True
    ).stdout
    assert out.strip() == "False False"


# ----------------------------------------------------------------- top options
def test_top_sample_type_by_name_and_n(heap):
    t = heap.top(sample_type="alloc_space", n=3)
    assert len(t) == 3
    assert t.meta["sample_type"] == "alloc_space"
    with pytest.raises(ValueError, match="no sample_type"):
        heap.top(sample_type="nope")
    with pytest.raises(ValueError, match="granularity"):
        heap.top(by="nope")
    with pytest.raises(ValueError, match="sort"):
        heap.top(sort="nope")


def test_top_units(heap):
    assert "MB" in heap.top(n=1, unit="MB").to_text().splitlines()[-1]
    assert "kB" in heap.top(n=1, unit="kB").to_text().splitlines()[-1]


def test_demo_prints_top(capsys):
    assert cli_main(["demo"]) == 0
    assert "flat%" in capsys.readouterr().out


# ----------------------------------------------------------------- CLI
@pytest.mark.parametrize(
    "argv",
    [
        ["top", "--nodecount", "5"],
        ["top", "--cum", "--granularity", "lines", "--format", "csv"],
        ["top", "--sample-index", "0", "--format", "json", "--unit", "ms"],
        ["peek", "sort\\.partition"],
        ["traces"],
        ["tags", "--format", "json"],
        ["folded", "--label", "tenant"],
    ],
)
def test_cli(capsys, argv):
    path = pprofcore.example_path("cpu")
    cmd = argv[:1] + ([argv[1]] if argv[0] == "peek" else []) + [path] + argv[(2 if argv[0] == "peek" else 1) :]
    assert cli_main(cmd) == 0
    out = capsys.readouterr().out
    assert out
    if "json" in argv:
        json.loads(out)


def test_cli_bad_file(capsys, tmp_path):
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\xff\xff\xff")
    assert cli_main(["top", str(bad)]) == 2  # as go tool pprof: one line, exit status 2
    assert "error" in capsys.readouterr().err


# ----------------------------------------------------------------- properties
frames = st.sampled_from(["a", "b", "c", "d", "e"])
stacks = st.lists(st.tuples(st.lists(frames, min_size=0, max_size=6), st.integers(1, 1000)), min_size=1, max_size=30)


def _folded(items, root=None):
    lines = []
    for fr, v in items:
        fr = ([root] if root else []) + fr
        lines.append(";".join(fr) + f" {v}")
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(stacks)
def test_flat_sums_to_total(items):
    p = pprofcore.from_folded(_folded(items, root="root"))
    total = sum(v for _, v in items)
    assert p.total() == total
    for by in GRANULARITIES:
        t = p.top(by=by, nodefraction=0, edgefraction=0)
        assert int(t["flat"].sum()) == total, by
        assert t.meta["total"] == total
        assert (t["cum"] >= t["flat"]).all() and (t["cum"] <= total).all()


@settings(max_examples=60, deadline=None)
@given(stacks)
def test_single_root_cum_is_total(items):
    p = pprofcore.from_folded(_folded(items, root="root"))
    t = p.top()
    rows = {r["name"]: r for r in t.rows()}
    assert rows["root"]["cum"] == sum(v for _, v in items)


@settings(max_examples=60, deadline=None)
@given(stacks)
def test_cum_counts_once_per_sample(items):
    p = pprofcore.from_folded(_folded(items))
    expect_cum = collections.Counter()
    expect_flat = collections.Counter()
    for fr, v in items:
        for name in set(fr):
            expect_cum[name] += v
        if fr:
            expect_flat[fr[-1]] += v
    t = p.top(nodefraction=0)  # every node (pprof's default trims those below 0.5%)
    got = {r["name"]: (r["flat"], r["cum"]) for r in t.rows()}
    assert got == {k: (expect_flat[k], expect_cum[k]) for k in expect_cum}


@settings(max_examples=40, deadline=None)
@given(stacks)
def test_folded_round_trip_property(items):
    p = pprofcore.from_folded(_folded(items))
    text = p.to_folded()
    expect = collections.Counter()
    for fr, v in items:  # an empty stack keeps its value on a line of its own
        expect[";".join(fr)] += v
    got = {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1]) for line in text.splitlines()}
    assert got == dict(expect)
    assert pprofcore.from_folded(text).to_folded() == text


def test_top_many_types_matches_single(heap):
    many = heap.top(sample_type="all")
    for t, _ in heap.sample_types:
        single = heap.top(sample_type=t, nodefraction=0)  # the multi-type table is not trimmed
        got = {name: (f, c) for name, f, c in zip(many["name"], many[f"flat:{t}"], many[f"cum:{t}"]) if f or c}
        want = {name: (f, c) for name, f, c in zip(single["name"], single["flat"], single["cum"])}
        assert got == want, t
    first = heap.top(nodefraction=0)
    assert many["name"][: len(first)] == first["name"]


def test_profile_table_object(cpu):
    t = cpu.table("samples")
    assert len(t) == len(cpu)
    assert pa.table(t).num_rows == len(cpu)  # __arrow_c_stream__
    assert t.to_pandas().shape == cpu.to_pandas("samples").shape
    row = next(t.rows())
    assert isinstance(row["leaf_function"], str)
    assert "leaf_function" in repr(t)
    assert "<table>" in t._repr_html_()


def test_aggregate_threads_agree(cpu):
    from concurrent.futures import ThreadPoolExecutor

    from pprofcore import _core

    def run(by):
        t = _core.aggregate(cpu._core, by, True, -1, -1)
        c = t.columns()
        return t.printable_names(), c["flat"].copy(), c["cum"].copy()

    jobs = GRANULARITIES * 4
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(run, jobs))
    for by, r in zip(jobs, results):
        ref = results[jobs.index(by)]
        assert r[0] == ref[0] and np.array_equal(r[1], ref[1]) and np.array_equal(r[2], ref[2])


def test_node_views_outlive_table(cpu):
    from pprofcore import _core

    cols = _core.aggregate(cpu._core, "functions", True, -1, -1).columns()
    import gc

    gc.collect()
    assert cols["flat"].sum() > 0 and not cols["flat"].flags.writeable


def test_cli_version(capsys):
    from importlib.metadata import version

    from pprofcore.cli import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"pprofcore {pprofcore.__version__}"
    info_ = pprofcore.build_info()
    assert f"gzip: {', '.join(info_['inflaters'])}" in out
    assert f"zstd: {'yes' if info_['zstd'] else 'no'}" in out
    assert pprofcore.__version__ == version("pprofcore")  # one version, the package's metadata
