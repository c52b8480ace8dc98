"""Merge, compact, scale, diff and delta against google/pprof.

Oracles: tools/goref/mergeref (Debian's google/pprof `profile` package: Merge,
Compact, ScaleN, and the pprof way of delta) and `go tool pprof -proto`
(multi-file merge, -base, -diff_base). Results are compared canonically: both
sides decoded with pprofcore, each sample keyed by its stack (per location:
address relative to its mapping, mapping file/build id, folded flag, lines as
function name/system name/file/line) and its sorted labels, values summed per
key; plus header fields and table sizes.
"""

from __future__ import annotations

import collections
import glob
import os
import subprocess

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import CORPUS, corpus_glob, corpus_manifest, go_helper, go_pprof, have_go, requires_go

import pprofcore
from pprofcore._summary import HEADER_FIELDS
from pprofcore.testing import canonical

# The shared corpus's fleets, or the local corpus's (real Go profiles made by the tests).
FLEET_CPU = corpus_glob("fleet/cpu/*.pb.gz")
FLEET_HEAP = corpus_glob("fleet/heapseries/*.pb.gz")
PARCA_MANY = sorted(glob.glob(str(CORPUS / "go" / "parca-many" / "*.pb.gz")))
FASTDELTA = str(CORPUS / "go" / "dd-trace-go__profiler_internal_fastdelta_testdata_{}.pprof")

needs_corpus = pytest.mark.skipif(not FLEET_CPU, reason=f"corpus not found at {CORPUS} and no local corpus (needs Go)")


# ------------------------------------------------------------- canonical form
def header(p: pprofcore.Profile) -> dict:
    """The sample types and the header fields Debian's pprof knows (not doc_url)."""
    out = {f: getattr(p, f) for f in HEADER_FIELDS if f != "doc_url"}
    out["sample_types"] = p.sample_types
    if out["period_type"] == ("", ""):  # an empty period type and none at all are the same to pprof
        out["period_type"] = None
    return out


def sizes(p: pprofcore.Profile) -> tuple:
    return (len(p), len(p.locations["id"]), len(p.functions["id"]), len(p.mappings["id"]))


def first_mapping(p):
    m = p.mappings
    if len(m["id"]) == 0:
        return None
    return (p.strings[int(m["filename"][0])], p.strings[int(m["build_id"][0])], int(m["memory_start"][0]))


def assert_same(ours: pprofcore.Profile, theirs: pprofcore.Profile, *, exact_tables=True, check_header=True):
    __tracebackhide__ = True
    ours._core.check_invariants()
    if check_header:
        assert header(ours) == header(theirs)
    a, b = canonical(ours), canonical(theirs)
    if a != b:
        only_a = [k for k in a if k not in b][:3]
        only_b = [k for k in b if k not in a][:3]
        diff = [(k, a[k], b[k]) for k in a if k in b and a[k] != b[k]][:3]
        pytest.fail(f"{len(a)} vs {len(b)} samples; only ours: {only_a}; only pprof: {only_b}; differing: {diff}")
    if exact_tables:
        assert sizes(ours) == sizes(theirs)
        assert first_mapping(ours) == first_mapping(theirs)


def go_merge(tmp_path, files, mode="merge", extra=()):
    out = tmp_path / f"go-{mode}.pb.gz"
    subprocess.run([go_helper("mergeref"), mode, str(out), *map(str, files), *extra], check=True)
    return pprofcore.load(out)


# ---------------------------------------------------------------- merge vs Go
def _producer_groups():
    groups = collections.defaultdict(list)
    for r in corpus_manifest():
        if r["parses_with_google_pprof"] != "yes" or r["file"].startswith("fleet/"):
            continue
        if r["format"] != "profile.proto" or int(r["n_samples"]) > 5000:
            continue
        groups[(r["producer"], r["sample_types"], r["period_type"])].append(str(CORPUS / r["file"]))
    out = []
    for (prod, types, _), files in sorted(groups.items()):
        if len(files) >= 2:
            out.append(pytest.param(sorted(files)[:30], id=f"{prod}|{types}"[:70]))
    return out or [pytest.param([], marks=pytest.mark.skip(reason="corpus not found"), id="no-corpus")]


GROUPS = [
    pytest.param(FLEET_CPU, id="fleet-cpu"),
    pytest.param(FLEET_HEAP, id="fleet-heapseries"),
    pytest.param(
        PARCA_MANY,
        id="go-parca-many",
        marks=pytest.mark.skipif(not PARCA_MANY, reason=f"go/parca-many not found in {CORPUS}"),
    ),
]


@requires_go
@needs_corpus
@pytest.mark.parametrize("files", GROUPS)
def test_merge_matches_pprof(tmp_path, files):
    ours = pprofcore.merge(pprofcore.load_many(files))
    assert_same(ours, go_merge(tmp_path, files))


@requires_go
@needs_corpus
@pytest.mark.parametrize("files", _producer_groups())
def test_merge_same_producer_matches_pprof(tmp_path, files):
    ps = pprofcore.load_many(files)
    try:
        ours = pprofcore.merge(ps)
    except pprofcore.ProfileError:
        with pytest.raises(subprocess.CalledProcessError):
            go_merge(tmp_path, files)
        return
    assert_same(ours, go_merge(tmp_path, files))


@needs_corpus
def test_merge_files_and_merger_equal_merge(tmp_path):
    files = FLEET_CPU[:40]
    ref = pprofcore.merge(pprofcore.load_many(files))
    for threads in (1, 2, 3):
        assert pprofcore.merge_files(files, threads=threads) == ref  # merged in input order: identical rows
    m = pprofcore.Merger()
    for f in files[:20]:
        m.add_file(f)
    for p in pprofcore.load_many(files[20:]):
        m.add(p)
    assert len(m) == len(files) and m.result() == ref
    calls = []
    pprofcore.merge_files(files[:5], threads=2, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(i, 5) for i in range(1, 6)]
    bad = tmp_path / "not-a-profile.pb"
    bad.write_bytes(b"\x08" * 10)
    with pytest.raises(pprofcore.DecodeError, match="not-a-profile"):
        pprofcore.merge_files([files[0], bad, files[1]], threads=2)
    with pytest.raises(OSError):
        pprofcore.merge_files([files[0], tmp_path / "missing.pb.gz"])
    with pytest.raises(OSError):
        pprofcore.Merger().add_file(tmp_path / "missing.pb.gz")


@needs_corpus
def test_merger_memory_grows_with_distinct_content():
    m = pprofcore.Merger()
    p = pprofcore.load(FLEET_CPU[0])
    m.add(p)
    before = m.memory_bytes
    for _ in range(200):
        m.add(p)
    assert m.memory_bytes == before
    assert m.result().total() == 201 * p.total()


@requires_go
@needs_corpus
def test_compact_matches_pprof(tmp_path):
    rows = [
        r
        for r in corpus_manifest()
        if r["parses_with_google_pprof"] == "yes" and r["format"] == "profile.proto" and int(r["n_samples"]) <= 50_000
    ]
    files = [str(CORPUS / r["file"]) for r in rows]
    subprocess.run([go_helper("mergeref"), "compact-each", str(tmp_path), *files], check=True)
    for i, (r, f) in enumerate(zip(rows, files)):
        ours = pprofcore.load(f).compact()
        theirs = pprofcore.load(tmp_path / f"{i:04d}.pb.gz")
        try:
            if int(r["n_samples"]) <= 3000:
                assert_same(ours, theirs)
            else:  # big files: the canonical form in Python would dominate the suite
                ours._core.check_invariants()
                assert header(ours) == header(theirs) and sizes(ours) == sizes(theirs)
                assert ours.values.sum(axis=0).tolist() == theirs.values.sum(axis=0).tolist()
        except BaseException as e:
            raise AssertionError(f"{f}: {e}") from None


@requires_go
@needs_corpus
@pytest.mark.parametrize("ratios", [(-1, 1), (0.5, 0.5), (1, 0.001), (2.5, -0.3), (0, -1)], ids=str)
def test_scale_n_matches_pprof(tmp_path, ratios):
    f = FLEET_CPU[3]
    ours = pprofcore.load(f).scale_n(ratios)
    theirs = go_merge(tmp_path, [f], "scalen", [",".join(map(str, ratios))])
    # ScaleN does not compact; pprof's Write keeps every row too.
    assert_same(ours, theirs, exact_tables=False)
    assert sizes(ours) == sizes(theirs)


def test_scale_rounds_half_away_from_zero():
    p = pprofcore.load(pprofcore.example_path())
    v = p.values
    q = p.scale(0.5)
    exp = np.sign(v) * np.floor(np.abs(v) * 0.5 + 0.5)  # Go's math.Round: halves away from zero
    rows = (exp != 0).any(axis=1)
    assert np.array_equal(q.values, exp[rows].astype(np.int64))
    assert p.scale(1) is p


# ---------------------------------------------------- go tool pprof -proto
@requires_go
@needs_corpus
def test_go_tool_pprof_multi_file_merge(tmp_path):
    files = FLEET_CPU[:10]
    out = tmp_path / "m.pb.gz"
    go_pprof("-proto", "-symbolize=none", "-output", str(out), *files)
    assert_same(pprofcore.merge(pprofcore.load_many(files)), pprofcore.load(out), check_header=False)


@requires_go
@needs_corpus
@pytest.mark.parametrize("mode", ["base", "diff_base"])
@pytest.mark.parametrize("pair", [(FLEET_CPU[:1] + FLEET_CPU[1:2]), FLEET_HEAP[10:12]], ids=["cpu", "heap"])
def test_go_tool_pprof_diff(tmp_path, mode, pair):
    base, new = pair
    out = tmp_path / "d.pb.gz"
    go_pprof("-proto", "-symbolize=none", f"-{mode}", base, "-output", str(out), new)
    ours = pprofcore.load(new).diff(pprofcore.load(base), mode=mode)
    theirs = pprofcore.load(out)
    assert_same(ours, theirs, check_header=False)
    if mode == "diff_base":
        lab = ours.labels
        assert "pprof::base" in [ours.strings[int(k)] for k in lab["key"]]


@requires_go
@needs_corpus
def test_go_tool_pprof_normalize_base(tmp_path):
    base, new = FLEET_CPU[5], FLEET_CPU[6]
    out = tmp_path / "n.pb.gz"
    go_pprof("-proto", "-symbolize=none", "-normalize", "-base", base, "-output", str(out), new)
    ours = pprofcore.load(new).diff(pprofcore.load(base), mode="base", normalize=True)
    assert_same(ours, pprofcore.load(out), check_header=False)


def test_diff_of_itself_cancels():
    p = pprofcore.load(pprofcore.example_path())
    assert len(p.diff(p, mode="base")) == 0
    d = p.diff(p, mode="diff_base")
    assert len(d) == 2 * len(p.compact())
    assert d.total("cpu") == 0
    assert len(d.drop_negative()) == len(p.compact())


def test_incompatible_merge_raises_clearly():
    cpu = pprofcore.load(pprofcore.example_path("cpu"))
    heap = pprofcore.load(pprofcore.example_path("heap"))
    with pytest.raises(pprofcore.ProfileError, match="incompatible"):
        pprofcore.merge([cpu, heap])
    with pytest.raises(ValueError, match="no profiles"):
        pprofcore.merge([])


def test_intersect_keeps_common_types():
    cpu = pprofcore.load(pprofcore.example_path("cpu"))
    one = pprofcore.Profile._wrap(pprofcore._core.select_sample_types(cpu._core, [1]))
    assert one.sample_types == [("cpu", "nanoseconds")]
    m = pprofcore.merge([cpu, one], compatible="intersect")
    assert m.sample_types == [("cpu", "nanoseconds")]
    assert m.total("cpu") == 2 * cpu.total("cpu")


def test_harmonize_units():
    cpu = pprofcore.load(pprofcore.example_path("cpu"))
    ms = pprofcore.Profile._wrap(pprofcore._core.rename_units(cpu._core, ["count", "milliseconds"], "", cpu.period))
    a, b = pprofcore.harmonize_units([cpu, ms])
    assert b.sample_types == [("samples", "count"), ("cpu", "nanoseconds")]
    assert b.total("cpu") == cpu.total("cpu") * 1_000_000
    m = pprofcore.merge([cpu, ms], harmonize_units=True)
    assert m.total("cpu") == cpu.total("cpu") * 1_000_001


# ------------------------------------------------------------------- delta
HEAP_TYPES = ["alloc_objects", "alloc_space"]


@requires_go
@needs_corpus
def test_delta_series_matches_pprof_way(tmp_path):
    files = FLEET_HEAP
    subprocess.run([go_helper("mergeref"), "delta", str(tmp_path), ",".join(HEAP_TYPES), *files], check=True)
    dc = pprofcore.DeltaComputer(HEAP_TYPES)
    for i, f in enumerate(files):
        cur = pprofcore.load(f)
        ours = dc.delta(cur)
        theirs = pprofcore.load(tmp_path / f"{i:04d}.pb.gz")
        if i == 0:
            assert ours == cur
            continue
        # The pprof way also emits (negated) samples that vanished from `cur`;
        # fastdelta does not. Compare on the current profile's samples.
        a, b = canonical(ours), canonical(theirs)
        present = canonical(cur)
        b = {k: v for k, v in b.items() if k in present}
        assert a == b, f"step {i}"


def _fastdelta_pairs():
    if not os.path.exists(FASTDELTA.format("heap.before")):
        return [
            pytest.param(
                None,
                None,
                marks=pytest.mark.skip(reason=f"fastdelta test data not found in {CORPUS}"),
                id="no-fastdelta-data",
            )
        ]
    out = []
    for name, types in [
        ("heap", HEAP_TYPES),
        ("block", ["contentions", "delay"]),
        ("stress-failure", HEAP_TYPES),
        ("stress-failure.3", HEAP_TYPES),
    ]:
        out.append(pytest.param(name, types, id=name))
    return out


@needs_corpus
@pytest.mark.parametrize("name,types", _fastdelta_pairs())
def test_fastdelta_pairs(tmp_path, name, types):
    before = pprofcore.load(FASTDELTA.format(name + ".before"))
    after = pprofcore.load(FASTDELTA.format(name + ".after"))
    dc = pprofcore.DeltaComputer(types)
    assert dc.delta(before) == before
    d = dc.delta(after)
    d._core.check_invariants()
    # fastdelta's expectation (its tests diff with pprof the same way): per
    # aggregated sample of `after`, delta types minus `before`, others as is.
    a, b = canonical(after), canonical(before)
    idx = [i for i, (t, _) in enumerate(after.sample_types) if t in types]
    want = {}
    for k, v in a.items():
        v = list(v)
        if k in b:
            for i in idx:
                v[i] -= b[k][i]
        if any(v):
            want[k] = tuple(v)
    assert canonical(d) == want
    assert len(d) <= len(after)
    if have_go():  # and the pprof way agrees on the samples of `after`
        out = tmp_path / "go"
        out.mkdir()
        subprocess.run(
            [
                go_helper("mergeref"),
                "delta",
                str(out),
                ",".join(types),
                FASTDELTA.format(name + ".before"),
                FASTDELTA.format(name + ".after"),
            ],
            check=True,
        )
        theirs = canonical(pprofcore.load(out / "0001.pb.gz"))
        assert {k: v for k, v in theirs.items() if k in a} == want


@needs_corpus
def test_delta_bytes_equals_delta():
    dc1, dc2 = pprofcore.DeltaComputer(HEAP_TYPES), pprofcore.DeltaComputer(HEAP_TYPES)
    for f in FLEET_HEAP[:6]:
        data = open(f, "rb").read()
        a = dc1.delta(pprofcore.loads(data))
        b = pprofcore.loads(dc2.delta_bytes(data))
        assert a == b


@needs_corpus
def test_delta_series_sums_back_to_last_cumulative():
    """Summing the alloc_* deltas of a series gives the last cumulative profile
    (for samples that never vanish, which holds for Go's cumulative heap)."""
    dc = pprofcore.DeltaComputer(HEAP_TYPES)
    series = [pprofcore.load(f) for f in FLEET_HEAP]
    deltas = [dc.delta(p) for p in series]
    # A key whose numeric labels change (Go's average object size) vanishes; keep
    # those that, once seen, stay to the end.
    seen, persistent = set(), None
    for p in series:
        keys = set(canonical(p))
        persistent = keys if persistent is None else (persistent & keys) | (keys - seen)
        seen |= keys
    summed = pprofcore.merge(deltas)
    idx = [0, 1]
    got = {k: tuple(v[i] for i in idx) for k, v in canonical(summed).items() if k in persistent}
    want = {k: tuple(v[i] for i in idx) for k, v in canonical(series[-1]).items() if k in persistent}
    got = {k: v for k, v in got.items() if any(v)}
    want = {k: v for k, v in want.items() if any(v)}
    assert len(want) > 10 and got == want


def test_delta_state_is_bounded():
    p = pprofcore.load(pprofcore.example_path("heap"))
    dc = pprofcore.DeltaComputer(HEAP_TYPES)
    for _ in range(5):
        dc.delta(p)
    n, mem = dc.num_states, dc.memory_bytes
    inuse_rows = int((p.compact().values[:, 2:] != 0).any(axis=1).sum())
    for _ in range(50):
        assert len(dc.delta(p)) == inuse_rows  # alloc deltas are 0; rows with inuse left
    assert dc.num_states == n and dc.memory_bytes == mem


# -------------------------------------------------------------- properties
def _small_profiles():
    base = pprofcore.load(pprofcore.example_path("cpu"))
    n = len(base)

    @st.composite
    def profiles(draw):
        rows = draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=12))
        ratios = draw(st.sampled_from([(1, 1), (2, 2), (-1, -1), (1, 3)]))
        mask = np.zeros(n, np.uint8)
        mask[rows] = 1
        p = pprofcore.Profile._wrap(pprofcore._core.keep_samples(base._core, mask))
        return p.scale_n(ratios)

    return profiles()


PROFILES = _small_profiles()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROFILES, PROFILES, PROFILES)
def test_merge_associative_commutative(a, b, c):
    ab_c = pprofcore.merge([pprofcore.merge([a, b]), c])
    a_bc = pprofcore.merge([a, pprofcore.merge([b, c])])
    cba = pprofcore.merge([c, b, a])
    assert canonical(ab_c) == canonical(a_bc) == canonical(cba)


@settings(max_examples=40, deadline=None)
@given(PROFILES)
def test_merge_single_is_compact(p):
    assert pprofcore.merge([p]) == p.compact()
    assert canonical(p.compact()) == canonical(p)
    assert p.compact().compact() == p.compact()


# --------------------------------------------------------------------- CLI
@needs_corpus
def test_cli_merge_delta_diff(tmp_path, capsys):
    from pprofcore.cli import main

    out = tmp_path / "m.pb.gz"
    assert main(["merge", "-o", str(out), *FLEET_CPU[:5]]) == 0
    assert pprofcore.load(out) == pprofcore.merge(pprofcore.load_many(FLEET_CPU[:5]))
    assert main(["delta", "-o", str(tmp_path / "d"), *FLEET_HEAP[:3]]) == 0
    dc = pprofcore.DeltaComputer(HEAP_TYPES)
    for f in FLEET_HEAP[:3]:
        assert pprofcore.load(tmp_path / "d" / os.path.basename(f)) == dc.delta(pprofcore.load(f))
    capsys.readouterr()
    assert main(["diff", FLEET_CPU[0], FLEET_CPU[1], "-n", "3"]) == 0
    text = capsys.readouterr().out
    assert "change" in text and len(text.strip().splitlines()) == 5


def _increments():
    heap = pprofcore.load(pprofcore.example_path("heap"))
    n = len(heap)

    @st.composite
    def increments(draw):
        out = []
        for _ in range(draw(st.integers(2, 5))):
            rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=10))
            mask = np.zeros(n, np.uint8)
            mask[rows] = 1
            p = pprofcore.Profile._wrap(pprofcore._core.keep_samples(heap._core, mask))
            out.append(p.scale(draw(st.integers(1, 3))))
        return out

    return increments()


@settings(max_examples=30, deadline=None)
@given(_increments())
def test_delta_of_cumulative_series_sums_back(increments):
    """Cumulative series c_k = merge(i_1..i_k): the deltas sum back to the last c_k."""
    series = [pprofcore.merge(increments[: k + 1]) for k in range(len(increments))]
    dc = pprofcore.DeltaComputer([])  # subtract every type
    deltas = [dc.delta(c) for c in series]
    assert canonical(pprofcore.merge(deltas)) == canonical(series[-1])
    for d, inc in zip(deltas[1:], increments[1:]):
        assert canonical(d) == canonical(inc)


# ----------------------------------------------- delta: time, duration, compaction
def _at_time(p: pprofcore.Profile, time_nanos: int) -> pprofcore.Profile:
    """``p`` with another time_nanos (field 9 of the encoded profile replaced)."""
    import wirebuild as wb

    raw = p.to_bytes(compress=False)
    out, i = bytearray(), 0
    while i < len(raw):
        start = i
        k, i = wb.read_varint(raw, i)
        if k & 7 == 0:
            _, i = wb.read_varint(raw, i)
        else:
            n, i = wb.read_varint(raw, i)
            i += n
        if k >> 3 != 9:
            out += raw[start:i]
    return pprofcore.loads(bytes(out) + wb.vint(9, time_nanos))


def _referenced(d: pprofcore.Profile):
    """(locations, functions, mappings, strings) that d's samples and header reach."""
    locs = set(d.stack_locations.tolist())
    lo = d.locations.line_offsets
    fns = {int(d.lines.function[j]) for l in locs for j in range(lo[l], lo[l + 1])}
    maps = {int(d.locations.mapping[l]) for l in locs} - {-1}
    strings = {0}
    for t, u in zip(d._cols["sample_type.type"], d._cols["sample_type.unit"]):
        strings |= {int(t), int(u)}
    strings |= (
        set(d.labels.key.tolist()) | {s for s in d.labels.str.tolist() if s >= 0} | set(d.labels.num_unit.tolist())
    )
    for f in fns:
        strings |= {int(d.functions.name[f]), int(d.functions.system_name[f]), int(d.functions.filename[f])}
    for m in maps:
        strings |= {int(d.mappings.filename[m]), int(d.mappings.build_id[m])}
    return locs, fns, maps, strings


def test_delta_duration_is_time_since_previous_profile():
    heap = pprofcore.load(pprofcore.example_path("heap"))
    t0 = heap.time_nanos or 1_000_000_000
    dc = pprofcore.DeltaComputer(HEAP_TYPES)
    first = dc.delta(_at_time(heap, t0))
    assert first.duration_nanos == heap.duration_nanos  # passes through
    for step in (5_000_000_000, 7):
        t0 += step
        d = dc.delta(_at_time(heap, t0))
        assert (d.time_nanos, d.duration_nanos) == (t0, step)


@settings(max_examples=25, deadline=None)
@given(_increments())
def test_delta_output_is_compact(increments):
    """Every location, function and mapping of a delta is reached from a sample,
    and at most the header's strings are unreferenced otherwise (fastdelta)."""
    series = [pprofcore.merge(increments[: k + 1]) for k in range(len(increments))]
    dc = pprofcore.DeltaComputer(HEAP_TYPES)
    dc.delta(series[0])
    for c in series[1:]:
        d = pprofcore.loads(dc.delta_bytes(c.to_bytes()))
        d._core.check_invariants()
        locs, fns, maps, strings = _referenced(d)
        assert locs == set(range(len(d.locations.id)))
        assert fns == set(range(len(d.functions.id)))
        assert maps == set(range(len(d.mappings.id)))
        header = (
            set(d.period_type or ())
            | set(d.comments)
            | {d.drop_frames, d.keep_frames, d.default_sample_type, d.doc_url}
        )
        assert {d.strings[i] for i in range(len(d.strings))} - {d.strings[i] for i in strings} <= header
        assert set(canonical(d)) <= set(canonical(c))  # stacks and labels resolve as before compaction
