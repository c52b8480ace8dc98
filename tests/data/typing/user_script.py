"""A user's script over pprofcore's public API, checked with `mypy --strict`
by tests/core/test_typing_strict.py (never run: it only has to type-check)."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import numpy as np
import numpy.typing as npt

import pprofcore
from pprofcore.display.flamegraph import FlameGraph
from pprofcore.testing import assert_no_regression, assert_profile_equal, assert_share


def decode(paths: List[str]) -> List[pprofcore.Profile]:
    p = pprofcore.load(pprofcore.example_path("cpu"))
    q = pprofcore.loads(Path(pprofcore.example_path("heap")).read_bytes())
    many: List[pprofcore.Profile] = pprofcore.load_many(paths)
    every: Dict[str, pprofcore.Profile] = pprofcore.load_all(pprofcore.example_path())
    values: npt.NDArray[np.int64] = p.values
    types: List[tuple[str, str]] = p.sample_types
    total: int = p.total("cpu")
    data: bytes = p.to_bytes()
    p.save("copy.pb.gz")
    print(q, values.sum(), types, total, len(data), every)
    return [p, q, *many]


def report(p: pprofcore.Profile) -> str:
    table: pprofcore.ReportTable = p.top(n=10)
    narrowed: pprofcore.Profile = p.filter(focus="handler", hide="runtime")
    fg: FlameGraph = p.flamegraph("cpu")
    html: str = fg.to_html()
    fg.save("cpu.svg")
    return str(table) + narrowed.to_folded() + html


def combine(a: pprofcore.Profile, b: pprofcore.Profile, paths: List[str]) -> pprofcore.Profile:
    merged: pprofcore.Profile = pprofcore.merge([a, b])
    from_files: pprofcore.Profile = pprofcore.merge_files(paths)
    merger = pprofcore.Merger()
    merger.add(a)
    merger.add_file(paths[0])
    incremental: pprofcore.Profile = merger.result()
    dc = pprofcore.DeltaComputer(["alloc_objects", "alloc_space"])
    first: pprofcore.Profile = dc.delta(a)
    second: pprofcore.Profile = dc.delta(b)
    diff: pprofcore.Profile = second.diff(first)
    return pprofcore.merge([merged, from_files, incremental, diff, a.scale(0.5)])


def fleet(paths: List[str]) -> None:
    s = pprofcore.ProfileSet(paths)
    window: pprofcore.ProfileSet = s.window(None, None)
    print(len(window), s.series(freq="1min", normalize="share"), s.movers(s.profiles["time"].iloc[0], n=5))
    store = s.to_parquet("store/")
    print(store.sql("select count(*) from profiles"))


def check(new: pprofcore.Profile, base: pprofcore.Profile) -> None:
    assert_profile_equal(new, base)
    assert_share(new, "sha256", max=0.5)
    assert_no_regression(base, new, rel=0.1)
    result = pprofcore.compare([base, base], [new, new])
    print(result)
    try:
        pprofcore.loads(b"not a profile")
    except pprofcore.DecodeError as e:
        print(e.reason, e.field, e.offset, e.path)
