"""pprofcore.dask on a real LocalCluster (2 worker processes, so profiles and
errors cross process boundaries as pprof bytes and pickles): merge equals
merge_files, series equals ProfileSet.series, ingest gives the store a local
ingest gives; file:// and fsspec URLs; malformed files raise naming the file
or are skipped and reported; a worker killed mid-computation is retried and
the result is still exact. The tree merge's exactness guard is checked
against pprofcore.merge with Hypothesis on profiles whose headers vary."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip(
    "distributed", reason="pprofcore.dask needs dask[distributed] (pip install 'pprofcore[dask]')"
)
pytest.importorskip("dask.dataframe", reason="pprofcore.dask.series needs dask[dataframe]")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import cloudpickle  # noqa: E402  (a dependency of distributed)
import wirebuild as wb  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from testenv import corpus_glob  # noqa: E402

import pprofcore  # noqa: E402
from pprofcore import dask as pdask  # noqa: E402
from pprofcore.dask import _merge as tree_merge  # noqa: E402

# the fault-injection helpers below run on the workers, which cannot import this file
cloudpickle.register_pickle_by_value(sys.modules[__name__])

# ------------------------------------------------------------ test inputs
STRINGS = (
    "",
    "samples",
    "count",
    "cpu",
    "nanoseconds",
    "main",
    "parse",
    "encode",
    "flush",
    "app.go",
    "/bin/app",
    "host",
    "a1",
    "b2",
    "comment one",
    "comment two",
    "https://doc",
    "gc",
)
S = {s: i for i, s in enumerate(STRINGS)}
T0 = 1_700_000_000_000_000_000


def fleet_profile(
    i: int,
    rng: np.random.Generator,
    *,
    comments=(),
    default="",
    doc="",
    mappings=True,
    time_nanos=None,
    period=10_000_000,
    negative=False,
) -> bytes:
    """A small CPU profile: random stacks over four functions, a host label,
    one profile every 10 s; the keyword arguments vary its header."""
    samples = []
    for _ in range(int(rng.integers(2, 7))):
        stack = [int(x) for x in rng.choice([1, 2, 3, 4], size=int(rng.integers(1, 4)), replace=False)]
        n = int(rng.integers(-3 if negative else 1, 6))
        samples.append(wb.sample(stack, [n, n * 10_000_000], [wb.label(S["host"], S["a1" if i % 2 else "b2"])]))
    return wb.profile(
        sample_types=[wb.value_type(S["samples"], S["count"]), wb.value_type(S["cpu"], S["nanoseconds"])],
        samples=samples,
        mappings=[wb.mapping(1, 0x400000, 0x500000, 0, S["/bin/app"], has_functions=True)] if mappings else [],
        locations=[wb.location(k, 1 if mappings else 0, 0x401000 + 16 * k, [wb.line(k, 10 * k)]) for k in range(1, 5)],
        functions=[
            wb.function(k, S[name], S[name], S["app.go"], k)
            for k, name in enumerate(("main", "parse", "encode", "flush"), start=1)
        ],
        strings=STRINGS,
        time_nanos=T0 + i * 10_000_000_000 if time_nanos is None else time_nanos,
        duration_nanos=10_000_000_000,
        period_type=wb.value_type(S["cpu"], S["nanoseconds"]),
        period=period,
        comments=[S[c] for c in comments],
        default_sample_type=S[default] if default else 0,
        doc_url=S[doc] if doc else 0,
    )


def write(directory: Path, blobs) -> list:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, data in enumerate(blobs):
        p = directory / f"p{i:04d}.pb"
        p.write_bytes(data)
        paths.append(str(p))
    return paths


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    rng = np.random.default_rng(7)
    return write(tmp_path_factory.mktemp("fleet"), [fleet_profile(i, rng) for i in range(60)])


CORPUS_CPU = corpus_glob("fleet/cpu/*.pb.gz")


@pytest.fixture(scope="module", params=["synthetic", "corpus"])
def fleet(request, synthetic):
    if request.param == "synthetic":
        return synthetic
    if not CORPUS_CPU:
        pytest.skip("no fleet/cpu corpus (shared or local; the local one needs Go)")
    return CORPUS_CPU


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, silence_logs=40
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


# ------------------------------------------------------------------ merge
def test_merge_equals_merge_files(client, fleet):
    want = pprofcore.merge_files(fleet)
    for chunk, split in ((7, 2), (16, 8), (None, 8)):
        assert pdask.merge(fleet, client=client, chunk_size=chunk, split_every=split) == want


def test_merge_of_labelled_fleet_equals_merge_files(client, tmp_path):
    # example_fleet writes its numeric label before its string ones: merging
    # partial merges (whose labels are in pprof's order already) must intern
    # the keys as merging the files did, so the profiles are equal by ==.
    paths = pprofcore.fleet.example_fleet(tmp_path, 12, samples=60)
    want = pprofcore.merge_files(paths)
    assert pdask.merge(paths, client=client, chunk_size=3, split_every=2) == want
    # pprof's order in each sample: string labels, then numeric ones, each by key
    keys, strs, offsets = want.labels.key, want.labels.str, want.label_offsets
    for i in range(len(want)):
        got = [(int(strs[j]) < 0, want.strings[keys[j]]) for j in range(offsets[i], offsets[i + 1])]
        assert got == sorted(got)


def test_merge_takes_file_urls_globs_and_fsspec_urls(client, synthetic):
    want = pprofcore.merge_files(synthetic)
    assert pdask.merge([Path(p).as_uri() for p in synthetic], client=client, chunk_size=9) == want
    # a glob pattern (here a file:// URL), expanded in sorted order
    assert pdask.merge(Path(synthetic[0]).parent.as_uri() + "/p*.pb", client=client, chunk_size=9) == want
    # a URL of another fsspec protocol: fetched as bytes on the worker, decoded in C++
    assert pdask.merge(["local://" + p for p in synthetic], client=client, chunk_size=9) == want


def test_merge_is_exact_when_headers_change_along_the_fleet(client, tmp_path):
    # comments, a default type and a doc URL that appear part-way, profiles
    # without mappings first, a missing time, samples that cancel: a tree of
    # partial merges would order strings or samples differently, so the call
    # must notice and still return merge_files' profile
    rng = np.random.default_rng(3)
    blobs = [
        fleet_profile(
            i,
            rng,
            mappings=i >= 5,
            comments=("comment one",) if i < 20 else ("comment two",),
            default="cpu" if i >= 13 else "",
            doc="https://doc" if i == 31 else "",
            time_nanos=0 if i == 17 else None,
            negative=i % 3 == 0,
        )
        for i in range(40)
    ]
    paths = write(tmp_path, blobs)
    assert not _tree(paths, 4, 3).exact  # the tree alone would not do: the call takes its sequential path
    assert pdask.merge(paths, client=client, chunk_size=4, split_every=3) == pprofcore.merge_files(paths)


def _bad_files(tmp_path: Path, good: list) -> list:
    bad = tmp_path / "garbage.pb.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"not a gzip stream at all")
    missing = tmp_path / "missing.pb"
    return good[:10] + [str(bad)] + good[10:20] + [str(missing)] + good[20:30]


def test_malformed_file_fails_naming_it(client, synthetic, tmp_path):
    paths = _bad_files(tmp_path, synthetic)
    bad = paths[10]
    with pytest.raises(pprofcore.DecodeError) as got:
        pdask.merge(paths[:21], client=client, chunk_size=5)
    with pytest.raises(pprofcore.DecodeError) as local:
        pprofcore.load(bad)
    e, want = got.value, local.value
    assert bad in str(e) and e.path == bad
    assert (type(e), e.reason, e.field, e.offset) == (type(want), want.reason, want.field, want.offset)
    with pytest.raises(FileNotFoundError, match="missing.pb"):
        pdask.merge(paths[11:], client=client, chunk_size=5)


def test_skip_leaves_bad_files_out_and_reports_them(client, synthetic, tmp_path):
    paths = _bad_files(tmp_path, synthetic)
    good = [p for p in paths if "garbage" not in p and "missing" not in p]
    merged, skipped = pdask.merge(paths, client=client, chunk_size=6, errors="skip")
    assert merged == pprofcore.merge_files(good)
    assert skipped.count == len(skipped) == 2
    assert skipped.paths == [paths[10], paths[21]]
    assert isinstance(skipped.errors[0], pprofcore.GzipError) and skipped.errors[0].path == paths[10]
    assert isinstance(skipped.errors[1], FileNotFoundError)
    assert "2 files" in repr(skipped)
    with pytest.raises(ValueError, match="all 2 files failed"):
        pdask.merge([paths[10], paths[21]], client=client, errors="skip")


def test_skip_survives_a_header_that_is_not_utf8(client, synthetic, tmp_path):
    """A damaged legacy header used to raise UnicodeDecodeError on the worker,
    which no errors= setting caught: the whole merge failed."""
    bad = tmp_path / "mutex.txt"
    bad.write_bytes(b"--- mutex:\ncycles/second=1000\nsampling\xff period=1\n")
    paths = [*synthetic[:3], str(bad)]
    merged, skipped = pdask.merge(paths, client=client, chunk_size=2, errors="skip")
    assert merged == pprofcore.merge_files(synthetic[:3])
    assert skipped.paths == [str(bad)] and isinstance(skipped.errors[0], pprofcore.DecodeError)
    assert "sampling\\xff period" in str(skipped.errors[0])


# ------------------------------------------------------- killed workers
def _arm(marker: str, where: str) -> None:
    """On a worker: the first task to get here (across all workers: the
    marker file is created exclusively) kills its worker process."""
    from pprofcore.dask import _read
    from pprofcore.fleet import _store

    def die_once():
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        os._exit(17)

    if where == "decode":
        original = _read.load_many

        def load_many(*args, **kwargs):
            die_once()
            return original(*args, **kwargs)

        _read.load_many = load_many
        _read.load_many.original = original
    else:  # after a task has written its staged part files
        original = _store.Writer.flush

        def flush(self, *args, **kwargs):
            original(self, *args, **kwargs)
            die_once()

        flush.original = original
        _store.Writer.flush = flush


def _disarm() -> None:
    from pprofcore.dask import _read
    from pprofcore.fleet import _store

    _read.load_many = getattr(_read.load_many, "original", _read.load_many)
    _store.Writer.flush = getattr(_store.Writer.flush, "original", _store.Writer.flush)


def _recover(client) -> None:
    """Disarm the survivors; wait for the nanny's replacement worker."""
    client.wait_for_workers(2, timeout=120)
    client.run(_disarm)


def test_killed_worker_is_retried_and_merge_is_exact(client, synthetic, tmp_path):
    marker = tmp_path / "killed"
    client.run(_arm, str(marker), "decode")
    try:
        got = pdask.merge(synthetic, client=client, chunk_size=5)
    finally:
        _recover(client)
    assert marker.exists(), "no worker was killed"
    assert got == pprofcore.merge_files(synthetic)


def test_killed_worker_during_ingest_leaves_an_exact_store(client, synthetic, tmp_path):
    pytest.importorskip("duckdb")
    marker = tmp_path / "killed"
    client.run(_arm, str(marker), "flush")
    try:
        store = pdask.ingest(synthetic, tmp_path / "store", client=client, chunk_size=8)
    finally:
        _recover(client)
    assert marker.exists(), "no worker was killed"
    # the rerun task overwrote its own staged parts: each profile is there once
    n = store.sql("select count(*) as n, count(distinct profile_id) as d from profiles")
    assert int(n["n"][0]) == int(n["d"][0]) == len(synthetic)
    assert store.profile() == pprofcore.merge_files(synthetic)


# ------------------------------------------------------------------ series
SERIES_OPTIONS = [
    pytest.param({}, id="flat"),
    pytest.param({"by": "lines", "value": "cum", "normalize": "share"}, id="lines-cum-share"),
    pytest.param({"freq": "30s"}, id="freq"),
    pytest.param({"freq": "1min", "normalize": "rate"}, id="freq-rate"),
]


@pytest.mark.parametrize("options", SERIES_OPTIONS)
def test_series_computes_to_the_local_series(client, fleet, options):
    ddf = pdask.series(fleet, client=client, chunk_size=11, split_every=3, **options)
    import dask.dataframe as dd

    assert isinstance(ddf, dd.DataFrame)
    got = ddf.compute()
    want = pprofcore.ProfileSet(fleet).series(**options)
    pd.testing.assert_frame_equal(got, want)
    assert got.attrs == want.attrs
    if "freq" not in options:
        assert ddf.npartitions == -(-len(fleet) // 11)


def test_series_mixed_sample_types_raise_as_locally(client, synthetic, tmp_path):
    heap = tmp_path / "heap.pb.gz"
    pprofcore.load(pprofcore.example_path("heap")).save(heap)
    paths = synthetic[:20] + [str(heap)]
    with pytest.raises(ValueError, match="different sample types"):
        pprofcore.ProfileSet(paths).series()
    with pytest.raises(ValueError, match="different sample types"):
        pdask.series(paths, client=client, chunk_size=7).compute()


def test_series_errors(client, synthetic, tmp_path):
    import dask

    paths = _bad_files(tmp_path, synthetic)
    # two bad files in two chunks: whichever task fails first names its file
    with pytest.raises((pprofcore.DecodeError, FileNotFoundError), match="garbage.pb.gz|missing.pb"):
        pdask.series(paths, client=client, chunk_size=8).compute()
    ddf, skipped = pdask.series(paths, client=client, chunk_size=8, errors="skip")
    got, report = dask.compute(ddf, skipped)
    assert list(report["path"]) == [paths[10], paths[21]]
    assert list(report["error"]) == ["GzipError", "FileNotFoundError"]
    assert "invalid block type" in report["message"][0]
    good = [i for i, p in enumerate(paths) if p not in set(report["path"])]
    want = pprofcore.ProfileSet([paths[i] for i in good]).series()
    want["profile"] = np.asarray(good)[want["profile"].to_numpy()]  # positions in the caller's list
    pd.testing.assert_frame_equal(got, want)


def test_series_size_limit_raises_as_load(client, synthetic):
    """The size limit holds on the fast path too: the error is load()'s."""
    sizes = []
    for p in synthetic[:5]:
        data = open(p, "rb").read()
        sizes.append(len(pprofcore._core.gunzip(data) if data[:2] == b"\x1f\x8b" else data))
    limit = min(sizes) - 1  # every profile is over it once inflated
    with pytest.raises(pprofcore.DecodeError) as want:
        pprofcore.load(synthetic[0], max_decompressed_size=limit)
    with pytest.raises(type(want.value)) as got:
        pdask.series(synthetic[:5], client=client, chunk_size=5, max_decompressed_size=limit).compute()
    assert got.value.reason == want.value.reason and got.value.path == want.value.path


# ------------------------------------------------------------------ ingest
def _table(store, name: str, key: str):
    return store.sql(f"select * from {name} order by {key}").reset_index(drop=True)


def test_ingest_writes_the_store_a_local_ingest_writes(client, fleet, tmp_path):
    pytest.importorskip("duckdb")
    host = lambda path: {"host": Path(path).name[:2]}  # noqa: E731
    ours = pdask.ingest(fleet, tmp_path / "dask", client=client, chunk_size=9, split_every=2, metadata=host)
    theirs = pprofcore.ProfileSet(fleet, metadata=host).to_parquet(tmp_path / "local")
    assert ours.profile() == pprofcore.merge_files(fleet)
    for name, key in (
        ("profiles", "profile_id"),
        ("samples", "profile_id, sample"),
        ("stacks", "stack_id"),
        ("locations", "location_id"),
        ("functions", "function_id"),
        ("mappings", "mapping_id"),
    ):
        pd.testing.assert_frame_equal(_table(ours, name, key), _table(theirs, name, key), check_dtype=False)


def test_ingest_metadata_frame(client, synthetic, tmp_path):
    pytest.importorskip("duckdb")
    paths = synthetic[:20]
    md = pd.DataFrame({"host": [f"h{i % 3}" for i in range(20)], "rack": np.arange(20) * 10})
    ours = pdask.ingest(paths, tmp_path / "dask", client=client, chunk_size=6, metadata=md)
    theirs = pprofcore.ProfileSet(paths, metadata=md).to_parquet(tmp_path / "local")
    pd.testing.assert_frame_equal(
        _table(ours, "profiles", "profile_id"), _table(theirs, "profiles", "profile_id"), check_dtype=False
    )
    with pytest.raises(ValueError, match="metadata has 3 rows"):
        pdask.ingest(paths, tmp_path / "x", client=client, metadata=md.head(3))


def test_ingest_appends_and_skips(client, synthetic, tmp_path):
    pytest.importorskip("duckdb")
    d = tmp_path / "store"
    pdask.ingest(synthetic[:25], d.as_uri(), client=client, chunk_size=6)
    paths = _bad_files(tmp_path, synthetic[25:]) + synthetic[55:]
    store, skipped = pdask.ingest(paths, d, client=client, chunk_size=6, errors="skip")
    assert len(skipped) == 2
    assert store.profile() == pprofcore.merge_files(synthetic)
    ids = store.sql("select count(*) - count(distinct stack_id) as dup from stacks")
    assert int(ids["dup"][0]) == 0  # content rows once, across both calls
    # a failing call leaves the store as it was
    with pytest.raises((pprofcore.DecodeError, FileNotFoundError)):
        pdask.ingest(paths, d, client=client, chunk_size=6)
    assert pprofcore.open_store(d).profile() == pprofcore.merge_files(synthetic)
    assert not list(d.glob("_staging-*"))


# ------------------------------------------- the tree's exactness guard
def _tree(paths, chunk: int, split_every: int) -> tree_merge.Part:
    """The reduction pprofcore.dask.merge runs, run here without a scheduler."""
    parts = [
        tree_merge.merge_chunk([(i, paths[i]) for i in range(a, min(a + chunk, len(paths)))])
        for a in range(0, len(paths), chunk)
    ]
    while len(parts) > 1:
        parts = [
            g[0] if len(g) == 1 else tree_merge.combine(g)
            for g in (parts[i : i + split_every] for i in range(0, len(parts), split_every))
        ]
    return parts[0]


headers = st.fixed_dictionaries(
    {
        "comments": st.sampled_from([(), ("comment one",), ("comment two",), ("comment one", "comment two")]),
        "default": st.sampled_from(["", "cpu", "samples"]),
        "doc": st.sampled_from(["", "https://doc"]),
        "mappings": st.booleans(),
        "time_nanos": st.sampled_from([None, 0, T0, T0 + 5]),
        "period": st.sampled_from([10_000_000, 0, 5, -1]),
        "negative": st.booleans(),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(headers, min_size=2, max_size=14), st.integers(1, 5), st.integers(2, 4), st.integers(0, 2**32 - 1))
def test_tree_is_exact_or_says_so(tmp_path, hs, chunk, split_every, seed):
    rng = np.random.default_rng(seed)
    paths = write(tmp_path / f"h{seed}", [fleet_profile(i, rng, **h) for i, h in enumerate(hs)])
    root = _tree(paths, chunk, split_every)
    want = pprofcore.merge_files(paths)
    if root.exact:
        assert root.profile == want
    else:  # what merge() then runs: one sequential chunk
        assert tree_merge.merge_chunk(list(enumerate(paths))).profile == want


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.integers(2, 30),
    st.integers(1, 6),
    st.integers(2, 5),
    st.integers(0, 2**32 - 1),
    st.sampled_from([(), ("comment one",)]),
    st.booleans(),
)
def test_tree_of_a_uniform_fleet_needs_no_fallback(tmp_path, n, chunk, split_every, seed, comments, mappings):
    # same header in every profile, non-negative values: the normal fleet
    rng = np.random.default_rng(seed)
    paths = write(
        tmp_path / f"u{seed}",
        [fleet_profile(i, rng, comments=comments, mappings=mappings, default="cpu") for i in range(n)],
    )
    root = _tree(paths, chunk, split_every)
    assert root.exact
    assert root.profile == pprofcore.merge_files(paths)


def test_bad_arguments(synthetic):
    with pytest.raises(ValueError, match="errors must be"):
        pdask.merge(synthetic, errors="ignore")
    with pytest.raises(ValueError, match="chunk_size"):
        pdask.merge(synthetic, chunk_size=0)
    with pytest.raises(ValueError, match="split_every"):
        pdask.merge(synthetic, split_every=1)
    with pytest.raises(FileNotFoundError, match="no files match"):
        pdask.merge(str(Path(synthetic[0]).parent / "*.nothing"))
    with pytest.raises(ValueError, match="no profiles"):
        pdask.merge([])
    with pytest.raises(TypeError, match=r"paths\[1\]"):
        pdask.merge([synthetic[0], 3])
    with pytest.raises(ValueError, match="value must be"):
        pdask.series(synthetic, value="self")
    with pytest.raises(ValueError, match="shared disk"):
        pdask.ingest(synthetic, "s3://bucket/store")
