"""Fleet series, movers and compare by label: checked against a reference
built from each profile's ``to_pandas`` table, on a generated fleet with
endpoint/version/payload labels and on the corpus fleets (skipped without
them); the C++ file path, in-memory profiles, the store and Dask agree."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from testenv import corpus_glob

import pprofcore
from pprofcore import fleet
from pprofcore.testing import compare

pd = pytest.importorskip("pandas")

CPU = corpus_glob("fleet/cpu/*.pb.gz")
HEAP = corpus_glob("fleet/heapseries/*.pb.gz")
requires_store = pytest.mark.skipif(
    importlib.util.find_spec("duckdb") is None or importlib.util.find_spec("pyarrow") is None,
    reason="the store needs duckdb and pyarrow (pip install 'pprofcore[fleet]')",
)


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """A generated fleet: 24 profiles with endpoint, version and payload labels."""
    return fleet.example_fleet(tmp_path_factory.mktemp("shop"), 24, samples=150)


def pow2(v: int) -> str:
    if v == 0:
        return "0"
    k = abs(v).bit_length() - 1
    return f"[{2**k}, {2 ** (k + 1)})" if v > 0 else f"(-{2 ** (k + 1)}, -{2**k}]"


def reference(paths, keys, functions=False, bucket=pow2):
    """{(profile, label values..., [leaf function]): summed default value}
    from each profile's to_pandas table."""
    out = {}
    for i, path in enumerate(paths):
        p = pprofcore.load(path)
        df = p.to_pandas()
        value = df[p.sample_types[p.sample_type_index(None)][0]].to_numpy()
        cols = []
        for k in keys:
            if k not in df.columns:
                cols.append(np.full(len(df), None, dtype=object))
            elif pd.api.types.is_integer_dtype(df[k].dtype):
                cols.append(np.array([None if x is pd.NA else bucket(int(x)) for x in df[k]], dtype=object))
            else:
                cols.append(df[k].astype(object).where(df[k].notna(), None).to_numpy())
        if functions:
            cols.append(df["leaf_function"].astype(object).to_numpy())
        for j in range(len(df)):
            if value[j] == 0 or (functions and df["depth"].iat[j] == 0):
                continue
            key = (i, *(c[j] for c in cols))
            out[key] = out.get(key, 0) + int(value[j])
    return {k: v for k, v in out.items() if v != 0}


def of_series(df, keys, functions=False):
    columns = [k for k in keys]
    out = {}
    for row in df.itertuples(index=False):
        d = row._asdict()
        vals = [None if pd.isna(d[c]) else d[c] for c in columns]
        key = (d["profile"], *vals, *([_leaf(d["name"])] if functions else []))
        out[key] = out.get(key, 0) + int(d["value"])
    return out


def _leaf(name: str) -> str:
    return name.rsplit(" | ", 1)[-1]


@pytest.mark.parametrize(
    "keys,functions",
    [(["endpoint"], False), (["payload"], False), (["endpoint", "version"], False), (["endpoint"], True)],
)
def test_label_series_matches_to_pandas_on_a_generated_fleet(shop, keys, functions):
    by = [f"label:{k}" for k in keys] + (["functions"] if functions else [])
    df = pprofcore.ProfileSet(shop).series(by=by)
    assert of_series(df, keys, functions) == reference(shop, keys, functions)
    # the same reduction of decoded profiles (the store's and non-file path)
    mem = pprofcore.ProfileSet([pprofcore.load(p) for p in shop]).series(by=by)
    pd.testing.assert_frame_equal(mem, df)


def test_names_and_numeric_buckets(shop):
    s = pprofcore.ProfileSet(shop[:4])
    df = s.series(by=["label:endpoint", "label:payload"], buckets={"payload": [1000, 10_000]})
    assert set(df["payload"].dropna()) <= {"< 1000", "[1000, 10000)", ">= 10000"}
    row = df[df["endpoint"].notna()].iloc[0]
    assert row["name"] == f"endpoint={row['endpoint']} | payload={row['payload']}"
    assert "(none)" in set(s.series(by="label:endpoint")["name"])  # GC carries no labels
    exact = s.series(by="label:payload", buckets="exact")
    ref = reference(shop[:4], ["payload"], bucket=str)
    assert of_series(exact, ["payload"]) == ref
    with pytest.raises(ValueError, match="strictly increasing"):
        s.series(by="label:payload", buckets=[5, 5])
    with pytest.raises(ValueError, match="at most one granularity"):
        s.series(by=["functions", "files"])


@pytest.mark.skipif(not CPU or not HEAP, reason="no fleet corpus (shared or local)")
@pytest.mark.parametrize("paths,key", [(CPU, "endpoint"), (HEAP, "bytes")], ids=["cpu", "heapseries"])
def test_label_series_matches_to_pandas_on_corpus_fleets(paths, key):
    some = paths[:: max(1, len(paths) // 8)][:8]
    df = pprofcore.ProfileSet(some).series(by=f"label:{key}")
    assert of_series(df, [key]) == reference(some, [key])


def test_dense_fill_gives_the_mean_of_shares(shop):
    s = pprofcore.ProfileSet(shop)
    sparse = s.series(by="label:endpoint", normalize="share")
    dense = s.series(by="label:endpoint", normalize="share", fill=0)
    assert len(dense) == len(shop) * sparse["name"].nunique()
    mean = dense.groupby("name", observed=True)["value"].mean()
    expected = sparse.groupby("name", observed=True)["value"].sum() / len(shop)
    pd.testing.assert_series_equal(mean.sort_index(), expected.sort_index(), check_names=False)
    assert dense.attrs["fill"] == 0 and sparse.attrs["fill"] is None


def test_movers_and_compare_by_label_use_the_statistical_compare(shop):
    s = pprofcore.ProfileSet(shop)
    split = s.profiles["time"].iloc[len(shop) // 2]
    m = s.movers(split, by="label:endpoint", n=None)
    a, b = s.window(None, split), s.window(split, None)
    assert m.iloc[0]["name"] == "/api/checkout"  # its traffic grows all along
    assert (m["profiles_before"] <= len(a)).all() and m["profiles_before"].sum() > 0
    t = s.compare(a, b, by="label:endpoint")
    q = dict(zip(t["name"], t["qvalue"]))
    np.testing.assert_allclose(m["qvalue"], [q[x] for x in m["name"]])
    # by function it is testing.compare on the same profiles
    mine = s.compare(a, b, by="functions")
    theirs = compare(list(a), list(b), by="functions")
    assert list(mine["name"]) == list(theirs["name"])
    np.testing.assert_allclose(mine["qvalue"], theirs["qvalue"])
    np.testing.assert_allclose(mine["delta"], theirs["delta"])


def test_labels_table_lists_keys_values_and_shares(shop):
    s = pprofcore.ProfileSet(shop[:6])
    t = s.labels()
    assert set(t["key"]) == {"endpoint", "version", "payload"}
    share = s.series(by="label:endpoint", normalize="share")
    got = t[t["key"] == "endpoint"]
    want = {(r.profile, r.name): r.value for r in share.itertuples()}
    have = {(r.profile, "(none)" if r.label is None else r.label): r.share for r in got.itertuples()}
    assert have.keys() == want.keys()
    np.testing.assert_allclose([have[k] for k in want], list(want.values()))
    per_bucket = s.labels(keys=["version"], freq="5min")
    assert list(per_bucket.columns) == ["time", "key", "label", "value", "share"]


@requires_store
def test_store_and_dask_give_the_same_label_tables(shop, tmp_path):
    shop = shop[:10]
    s = pprofcore.ProfileSet(shop)
    by = ["label:endpoint", "functions"]
    want = s.series(by=by)
    store = s.to_parquet(tmp_path / "store")
    pd.testing.assert_frame_equal(store.series(by=by), want)
    n = store.sql("select sum(n_samples) as n from profiles")["n"]
    assert n.dtype == np.int64 and int(n[0]) == sum(len(pprofcore.load(p)) for p in shop)
    if importlib.util.find_spec("dask") is not None and importlib.util.find_spec("distributed") is not None:
        import dask

        from pprofcore import dask as pdask

        with dask.config.set(scheduler="sync"):
            got = pdask.series(shop, by=by, chunk_size=4).compute()
        pd.testing.assert_frame_equal(got, want, check_categorical=False)


@requires_store
def test_cli_series_and_movers_by_label(shop, tmp_path, capsys):
    from pprofcore.cli import main

    s = pprofcore.ProfileSet(shop[:8])
    s.to_parquet(tmp_path / "st")
    store = str(tmp_path / "st")
    assert main(["fleet", "series", store, "--by", "label:payload", "--buckets", "payload=1000,10000"]) == 0
    out = capsys.readouterr().out
    assert "[1000, 10000)" in out and "payload" in out.splitlines()[0]
    split = str(s.profiles["time"].iloc[4])
    assert main(["fleet", "movers", store, "--split", split, "--by", "label:endpoint", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("name,before,after,change") and "qvalue" in out
    assert main(["fleet", "series", store, "--buckets", "payload=x"]) == 2
    assert "buckets" in capsys.readouterr().err


def test_heatmap_has_a_colour_scale(shop):
    import xml.etree.ElementTree as ET

    df = pprofcore.ProfileSet(shop[:5]).series(by="label:endpoint")
    root = ET.fromstring(fleet.heatmap(df).svg)
    ns = "{http://www.w3.org/2000/svg}"
    scale = [g for g in root.findall(f"{ns}g") if g.get("class") == "colour-scale"]
    assert len(scale) == 1
    texts = [t.text for t in scale[0].findall(f"{ns}text")]
    assert texts == ["0", f"{df.groupby(['profile', 'name'], observed=True)['value'].sum().max():.4g}"]
