"""Fleets: ProfileSet, series, movers and the Parquet store, checked against
pprof's -top (series), merge_files (merge, store round trip) and each other."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pprof_oracle import parse_top
from testenv import corpus_glob, requires_go

import pprofcore

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

CPU = corpus_glob("fleet/cpu/*.pb.gz")
HEAP = corpus_glob("fleet/heapseries/*.pb.gz")
needs_fleet = pytest.mark.skipif(
    not CPU or not HEAP, reason="no fleet corpus (shared or local; the local one needs Go)"
)
pytestmark = needs_fleet

FLEETS = [pytest.param(CPU, id="cpu"), pytest.param(HEAP, id="heapseries")]
requires_duckdb = pytest.mark.skipif(
    importlib.util.find_spec("duckdb") is None,
    reason="the store's queries need duckdb (pip install 'pprofcore[fleet]')",
)


def _some(paths, k=12):
    return paths[:: max(1, len(paths) // k)][:k]


# --------------------------------------------------------------- ProfileSet
def test_profiles_table_matches_each_profile():
    paths = _some(CPU)
    s = pprofcore.ProfileSet(paths, threads=2)
    t = s.profiles
    assert len(s) == len(t) == len(paths)
    for i, path in enumerate(paths):
        p = pprofcore.load(path)
        assert t["path"][i] == path
        assert t["time"][i] == pd.Timestamp(p.time_nanos, unit="ns", tz="UTC")
        assert t["duration"][i] == pd.Timedelta(p.duration_nanos, unit="ns")
        for name, _ in p.sample_types:
            assert t[f"total_{name}"][i] == p.total(name)


def test_metadata_callable_and_frame():
    paths = _some(CPU, 4)
    s = pprofcore.ProfileSet(paths, metadata=lambda path: {"stem": path.rsplit("/", 1)[-1][:6]})
    assert list(s.profiles["stem"]) == [p.rsplit("/", 1)[-1][:6] for p in paths]
    frame = pd.DataFrame({"host": [f"h{i % 2}" for i in range(len(paths))]})
    s = pprofcore.ProfileSet(paths, metadata=frame)
    assert len(s.where(host="h0")) == (len(paths) + 1) // 2
    with pytest.raises(ValueError, match="metadata has 1 rows"):
        pprofcore.ProfileSet(paths, metadata=frame.head(1))


def test_bad_inputs_raise_clearly(tmp_path):
    with pytest.raises(FileNotFoundError, match="no files match"):
        pprofcore.ProfileSet.from_glob(str(tmp_path / "*.pb.gz"))
    with pytest.raises(TypeError, match="item 0"):
        pprofcore.ProfileSet([3])
    bad = tmp_path / "bad.pb.gz"
    bad.write_bytes(b"\x1f\x8b not gzip")
    with pytest.raises(pprofcore.DecodeError, match="bad.pb.gz"):
        pprofcore.ProfileSet([CPU[0], str(bad)]).series()
    with pytest.raises(ValueError, match="value must be"):
        pprofcore.ProfileSet(CPU[:1]).series(value="self")
    with pytest.raises(ValueError, match="normalize must be"):
        pprofcore.ProfileSet(CPU[:1]).series(normalize="percent")
    with pytest.raises(FileNotFoundError, match="not a pprofcore fleet store"):
        pprofcore.open_store(tmp_path)


@pytest.mark.parametrize("paths", FLEETS)
def test_merge_is_merge_files(paths):
    s = pprofcore.ProfileSet(paths, threads=2)
    assert s.merge() == pprofcore.merge_files(paths)
    # the same from in-memory profiles (the streaming Merger path), mixed with files
    mixed = [pprofcore.load(p) if i % 2 else p for i, p in enumerate(paths[:9])]
    assert pprofcore.ProfileSet(mixed).merge() == pprofcore.merge_files(paths[:9])


def test_where_and_window_select_by_time():
    s = pprofcore.ProfileSet(CPU)
    times = s.profiles["time"]
    mid = times.sort_values().iloc[len(times) // 2]
    early, late = s.window(None, mid), s.window(mid, None)
    assert len(early) + len(late) == len(s)
    assert (early.profiles["time"] < mid).all() and (late.profiles["time"] >= mid).all()
    assert early.paths == [p for p, t in zip(s.paths, times) if t < mid]
    big = s.where("total_samples > 90")
    assert big.paths == [p for p, n in zip(s.paths, s.profiles["total_samples"]) if n > 90]
    # sub-sets of sub-sets index the same source
    assert len(late.where(lambda t: t["total_samples"] > 90)) == len(big.window(mid, None))


# ------------------------------------------------------------------- series
@pytest.mark.parametrize("paths", FLEETS)
@pytest.mark.parametrize("value", ["flat", "cum"])
@pytest.mark.parametrize("by", ["functions", "files", "lines"])
def test_series_equals_top_of_each_profile(paths, value, by):
    s = pprofcore.ProfileSet(_some(paths, 6))
    df = s.series(by=by, value=value)
    assert set(df.columns) == {"profile", "time", "name", "value"}
    assert (df["value"] != 0).all()
    for i, p in enumerate(s):
        t = p.top(by=by, n=None, nodefraction=0, edgefraction=0)
        want = {n: int(v) for n, v in zip(t["name"], t[value]) if v != 0}
        got = df[df["profile"] == i]
        assert dict(zip(got["name"].astype(str), got["value"].astype(int))) == want
        assert (got["time"] == pd.Timestamp(p.time_nanos, unit="ns", tz="UTC")).all()


_UNIT = {"nanoseconds": "ns", "count": "", "bytes": "B"}


@requires_go
@pytest.mark.parametrize("paths", FLEETS)
def test_series_matches_pprof_top(pprof, paths):
    """The oracle: every (name, flat, cum) of `pprof -top` in the unit of the
    sample type, for a few profiles of each fleet."""
    s = pprofcore.ProfileSet(_some(paths, 3))
    for value in ("flat", "cum"):
        df = s.series(value=value)
        for i, path in enumerate(s.paths):
            p = pprofcore.load(path)
            unit = p.sample_types[p.sample_type_index()][1]
            text, err = pprof.run(
                "-top",
                "-nodecount=1000000",
                "-nodefraction=0",
                "-edgefraction=0",
                f"-unit={_UNIT.get(unit, unit)}" if _UNIT.get(unit) else "-unit=minimum",
                path,
            )
            assert err is None, err
            _, rows = parse_top(text)
            col = 0 if value == "flat" else 3
            want = {}
            for r in rows:
                name = re.sub(r" \((partial-)?inline\)$", "", r[5])
                v = int(re.sub(r"[^0-9-]", "", r[col]) or 0)
                if v:
                    want[name] = v
            got = df[df["profile"] == i]
            assert dict(zip(got["name"].astype(str), got["value"].astype(int))) == want, path


def test_series_freq_and_normalize():
    s = pprofcore.ProfileSet(CPU)
    raw = s.series()
    share = s.series(normalize="share")
    tot = s.profiles["total_cpu"].to_numpy()
    np.testing.assert_allclose(share["value"], raw["value"] / tot[raw["profile"]])
    rate = s.series(normalize="rate")
    secs = s.profiles["duration"].dt.total_seconds().to_numpy()
    np.testing.assert_allclose(rate["value"], raw["value"] / secs[raw["profile"]])
    b = s.series(freq="30s")
    assert list(b.columns) == ["time", "name", "value"]
    want = raw.assign(time=raw["time"].dt.floor("30s")).groupby(["time", "name"], observed=True)["value"].sum()
    got = b.set_index(["time", "name"])["value"]
    pd.testing.assert_series_equal(got.sort_index(), want[want != 0].sort_index(), check_names=False)
    bs = s.series(freq="30s", normalize="share")
    per_bucket = bs.groupby("time")["value"].sum()
    assert ((per_bucket > 0.999) & (per_bucket < 1.001)).all()  # flat shares of a bucket add up to 1


def test_movers_between_windows():
    s = pprofcore.ProfileSet(CPU)
    split = s.profiles["time"].sort_values().iloc[len(s) // 2]
    m = s.movers(split, n=None)
    assert list(m.columns) == [
        "name",
        "before",
        "after",
        "change",
        "value_before",
        "value_after",
        "profiles_before",
        "profiles_after",
        "pvalue",
        "qvalue",
        "significant",
    ]
    np.testing.assert_allclose(m["change"], m["after"] - m["before"])
    assert (np.diff(np.abs(m["change"].to_numpy())) <= 1e-12).all()
    for side, sub in (("before", s.window(None, split)), ("after", s.window(split, None))):
        top = sub.merge().top(n=None, nodefraction=0, edgefraction=0)
        want = {n: v for n, v in zip(top["name"], top["flat"]) if v}
        got = dict(zip(m["name"], m[f"value_{side}"]))
        assert {k: v for k, v in got.items() if v} == want
        np.testing.assert_allclose(m[side].sum(), 1.0)  # flat shares cover the whole window
    same = s.movers((None, split), (split, None), n=5)
    pd.testing.assert_frame_equal(same, m.head(5))
    with pytest.raises(ValueError, match="has no profiles"):
        s.movers(pd.Timestamp("2000-01-01", tz="UTC"))


# -------------------------------------------------------------------- store
@requires_duckdb
@pytest.mark.parametrize("paths", FLEETS)
def test_store_round_trip_merges_like_merge_files(tmp_path, paths):
    store = pprofcore.ProfileSet(paths).to_parquet(tmp_path / "s")
    assert store.profile() == pprofcore.merge_files(paths)
    assert int(store.sql("select count(*) as n from profiles")["n"][0]) == len(paths)
    # a selection: the same as merging those files
    picked = store.sql("select profile_id, path from profiles where profile_id % 3 = 1 order by profile_id")
    assert store.profile("profile_id % 3 = 1") == pprofcore.merge_files(list(picked["path"]))


@requires_duckdb
def test_store_appends_and_deduplicates(tmp_path):
    half = len(CPU) // 2
    pprofcore.ProfileSet(CPU[:half]).to_parquet(tmp_path)
    counts = {
        t: int(pprofcore.open_store(tmp_path).sql(f"select count(*) as n from {t}")["n"][0])
        for t in ("functions", "locations", "stacks", "mappings")
    }
    pprofcore.ProfileSet(CPU[:half]).to_parquet(tmp_path)  # the same files again: no new content rows
    store = pprofcore.open_store(tmp_path)
    for t, n in counts.items():
        assert int(store.sql(f"select count(*) as n from {t}")["n"][0]) == n, t
        ids = store.sql(f"select count(distinct {t[:-1]}_id) as n from {t}")["n"][0]
        assert ids == n
    pprofcore.ProfileSet(CPU[half:]).to_parquet(tmp_path)
    store = pprofcore.open_store(tmp_path)
    assert store.sql("select count(*) as n from profiles")["n"][0] == half + len(CPU)
    assert store.profile() == pprofcore.merge_files(CPU[:half] + CPU[:half] + CPU[half:])
    days = store.sql("select distinct day from profiles")["day"]
    want = {str(t.date()) for t in pprofcore.ProfileSet(CPU).profiles["time"]}
    assert {str(pd.Timestamp(d).date()) for d in days} == want


@requires_duckdb
def test_store_series_and_sql_agree_with_profiles(tmp_path):
    paths = _some(CPU, 10)
    services = {path: ("api" if i % 2 else "batch") for i, path in enumerate(paths)}
    s = pprofcore.ProfileSet(paths, metadata=lambda path: {"service": services[path]})
    store = s.to_parquet(tmp_path)
    got = store.series()
    want = s.series()
    pd.testing.assert_frame_equal(got.drop(columns="time"), want.drop(columns="time"), check_categorical=False)
    # leaf-function flat by SQL == the merged profile's flat column
    flat = store.sql("""
        select f.name, sum(s.values[2]) as cpu
        from samples s join stacks k using (stack_id)
        join locations l on l.location_id = k.location_ids[1]
        join functions f on f.function_id = l.function_ids[1]
        group by f.name""")
    top = s.merge().top(
        "cpu", n=None, nodefraction=0, edgefraction=0
    )  # function_ids[1] is the innermost (inlined) frame
    want = {n: v for n, v in zip(top["name"], top["flat"]) if v}
    assert {n: int(v) for n, v in zip(flat["name"], flat["cpu"]) if v} == want
    assert set(store.sql("select distinct service from profiles")["service"]) == {"api", "batch"}
    assert store.profile("service = 'api'") == s.where(service="api").merge()
    # a selection re-exported to a second store keeps its metadata and content
    copy = store.profile_set("service = 'api'").to_parquet(tmp_path / "copy")
    assert copy.profile() == s.where(service="api").merge()
    assert set(copy.sql("select distinct service from profiles")["service"]) == {"api"}


@requires_duckdb
def test_store_keeps_labels_and_header(tmp_path):
    p = pprofcore.load(pprofcore.example_path())  # string and numeric labels, comments-free Go CPU profile
    h = pprofcore.load(pprofcore.example_path("heap"))
    for q in (p, h):
        store = pprofcore.ProfileSet([q]).to_parquet(tmp_path / str(id(q)))
        assert store.profile() == q.compact()


# ---------------------------------------------------------------------- CLI
def _cli(*args):
    import subprocess
    import sys

    from testenv import pprofcore_env

    return subprocess.run(
        [sys.executable, "-m", "pprofcore", "fleet", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=pprofcore_env(),
    )


@requires_duckdb
def test_cli_ingest_sql_top(tmp_path):
    import json

    d = str(tmp_path / "store")
    r = _cli("ingest", d, *CPU)
    assert r.returncode == 0, r.stderr
    assert f"ingested {len(CPU)} profiles" in r.stderr and "\r" not in r.stderr  # no progress bar off a TTY
    r = _cli("sql", d, "select count(*) as n from profiles", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [{"n": len(CPU)}]
    r = _cli("top", d, "--where", "profile_id < 3", "--format", "json", "--nodecount", "1000000")
    assert r.returncode == 0, r.stderr
    want = pprofcore.merge_files(CPU[:3]).top(n=None)  # the CLI trims as pprof's -top does
    rows = json.loads(r.stdout)["rows"]
    assert [(x["name"], x["flat"], x["cum"]) for x in rows] == list(zip(want["name"], want["flat"], want["cum"]))
    r = _cli("sql", d, "select nope from profiles")
    assert r.returncode == 2 and "query failed" in r.stderr and "nope" in r.stderr
    r = _cli("top", d, "--where", "profile_id < 0")
    assert r.returncode == 2 and "no profiles match" in r.stderr


# -------------------------------------------------------------------- plots
def test_heatmap_and_lines_draw_the_series():
    import xml.etree.ElementTree as ET

    from pprofcore import fleet

    s = pprofcore.ProfileSet(CPU)
    df = s.series()
    fig = fleet.heatmap(df, n=7)
    root = ET.fromstring(fig.svg)  # well-formed XML, so names are escaped
    ns = "{http://www.w3.org/2000/svg}"
    sums = df.assign(name=df["name"].astype(str)).groupby("name")["value"].sum()
    chosen = [t.find(f"{ns}title").text for t in root.findall(f"{ns}text") if t.find(f"{ns}title") is not None]
    assert len(chosen) == 7
    assert sums[chosen].min() >= sums.drop(chosen).max()  # the 7 largest keys (ties either way)
    cells = root.findall(f"{ns}rect")
    # one cell per non-zero (key, profile) of the chosen keys
    assert len(cells) == int(df["name"].astype(str).isin(chosen).sum())
    assert "<svg" in fig._repr_html_()
    fig = fleet.lines(df, names=chosen[:2])
    assert len(ET.fromstring(fig.svg).findall(f"{ns}polyline")) == 2
    with pytest.raises(KeyError, match="not in the series"):
        fleet.lines(df, names=["no such function"])
    # names with markup characters are escaped
    odd = pd.DataFrame({"time": pd.to_datetime([0, 1], unit="s", utc=True), "name": ["a<b>&c", "x"], "value": [1, 2]})
    ET.fromstring(fleet.heatmap(odd).svg)
    ET.fromstring(fleet.lines(odd).svg)


@requires_duckdb
def test_store_selection_property(tmp_path_factory):
    """Any selection of stored profiles merges to what merge_files gives for those files."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    paths = CPU[:12]
    store = pprofcore.ProfileSet(paths).to_parquet(tmp_path_factory.mktemp("prop"))

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.sets(st.integers(0, len(paths) - 1), min_size=1))
    def check(ids):
        ids = sorted(ids)
        got = store.profile(f"profile_id in ({', '.join(map(str, ids))})")
        assert got == pprofcore.merge_files([paths[i] for i in ids])

    check()


def test_varint_writer_matches_the_wire_format():
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from wirebuild import varint as ref  # the tests' own encoder, independent of pprofcore's

    from pprofcore.fleet import _pbwrite

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1)), st.lists(st.integers(0, 5)))
    def check(values, cuts):
        s = _pbwrite.varints(np.array(values, dtype=np.int64))
        assert [bytes(s.buf[s.off[i] : s.off[i + 1]]) for i in range(len(values))] == [ref(v) for v in values]
        # packed fields per record: tag, length, payload; empty records write nothing
        bounds = np.minimum(np.cumsum([0] + cuts), len(values))
        bounds[-1] = len(values)
        f = _pbwrite.field_packed(1, np.array(values, dtype=np.int64), bounds)
        for i in range(len(bounds) - 1):
            payload = b"".join(ref(v) for v in values[bounds[i] : bounds[i + 1]])
            want = (b"\x0a" + ref(len(payload)) + payload) if payload else b""
            assert bytes(f.buf[f.off[i] : f.off[i + 1]]) == want

    check()


@requires_duckdb
def test_store_profiles_without_mappings_or_samples(tmp_path):
    folded = pprofcore.from_folded("main;foo;bar 10\nmain;baz 5\nmain;foo;bar 3\n")  # no mappings
    with pytest.warns(pprofcore.FilterWarning):
        empty = folded.filter(focus="no such function")
    assert len(empty) == 0
    store = pprofcore.ProfileSet([folded, empty, folded]).to_parquet(tmp_path / "a")
    assert store.profile() == pprofcore.merge([folded, empty, folded])
    assert len(store.sql("select * from mappings")) == 0  # an empty view, not a missing table
    only_empty = pprofcore.ProfileSet([empty]).to_parquet(tmp_path / "b")
    assert only_empty.profile() == pprofcore.merge([empty])
    assert len(only_empty.series()) == 0


@requires_duckdb
@pytest.mark.parametrize("mixed", [True, False], ids=["mixed", "only-locationless"])
def test_store_locationless_samples_and_numeric_labels(tmp_path, mixed):
    import gzip

    from local_corpus import labelled_profile

    path = tmp_path / "p.pb.gz"
    path.write_bytes(gzip.compress(labelled_profile(mixed)))
    store = pprofcore.ProfileSet([str(path)] * 2).to_parquet(tmp_path / "s")
    assert store.profile() == pprofcore.merge_files([str(path)] * 2)


def test_streaming_holds_at_most_two_chunks():
    """series() over a set never keeps more than two chunks of profiles alive
    (the one being aggregated and the one being decoded ahead)."""
    import gc
    import threading
    import weakref

    data = open(CPU[0], "rb").read()
    alive, peak, lock = [0], [0], threading.Lock()

    def gone():
        with lock:
            alive[0] -= 1

    def reader(keys):
        out = []
        for _ in keys:
            p = pprofcore.loads(data)
            weakref.finalize(p, gone)
            out.append(p)
        with lock:
            alive[0] += len(out)
            peak[0] = max(peak[0], alive[0])
        return out

    n, chunk = 40, 4
    table = pd.DataFrame({"path": [None] * n})
    s = pprofcore.ProfileSet._from_reader(list(range(n)), reader, table, chunk=chunk)
    df = s.series()
    gc.collect()
    assert df["profile"].nunique() == n
    assert peak[0] <= 2 * chunk, peak[0]
    assert alive[0] == 0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.one_of(st.integers(-3, 3), st.just(np.iinfo(np.int64).min)),
            st.sampled_from(["a", "b", "c", "é", "A"]),
        ),
        max_size=30,
    ),
    st.booleans(),
    st.booleans(),
)
def test_series_order_is_lexsort_order(rows, presort, as_float):
    """``_row_order`` gives the lexsort order (profile, largest value first,
    name) whether or not the rows come sorted already (its fast path: None),
    with ties, int64's minimum and NaN values."""
    from pprofcore.fleet._series import _row_order

    if presort:
        rows = sorted(rows, key=lambda r: (r[0], -r[1], r[2]))
    prof = np.array([r[0] for r in rows], dtype=np.int64)
    vals = np.array([r[1] for r in rows], dtype=np.int64)
    if as_float:
        vals = np.where(vals == 0, np.nan, vals.astype(np.float64))
    df = pd.DataFrame({"profile": prof, "name": pd.Categorical([r[2] for r in rows]), "value": vals})
    cats = np.asarray(df["name"].cat.categories, dtype=object)
    rank = np.empty(len(cats), dtype=np.int64)
    rank[np.argsort(cats, kind="stable")] = np.arange(len(cats))
    codes = df["name"].cat.codes.to_numpy()
    want = df.iloc[np.lexsort((rank[codes] if len(cats) else codes, -vals, prof))].reset_index(drop=True)
    order = _row_order(prof, vals, codes, list(cats))
    got = df if order is None else df.iloc[order].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)
