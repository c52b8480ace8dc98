"""Filters compared with pprof itself.

Every corpus file google/pprof accepts is filtered with at least one expression
from a table (matching nothing, everything, inline frames, mapping files, tag
filters with and without units, tagroot/tagleaf ...), once by pprofcore and once
by pprof's own driver (tools/goref/pprofbatch: `pprof -proto -symbolize=none
FLAGS FILE` run in-process, many jobs per Go process). The outputs are compared
canonically: the multiset of (stack as tuple of frames (function, line) per
location, sorted labels) -> values, ignoring ids and order. The warnings
("Focus expression matched no samples") are compared too.
"""

from __future__ import annotations

import collections
import json
import subprocess
import warnings
from pathlib import Path

import local_corpus
import numpy as np
import pytest
from testenv import CORPUS, corpus_manifest, go_helper, have_go, local_manifest

import pprofcore
import pprofcore.testing

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

# Big files are filtered once each; the two giant ones are left to the benchmark.
_SKIP = {"go/generated/gen-bigheap-500k.pb.gz", "go/generated/gen-bigheap-150k.raw.pb"}
_BIG = 1_000_000  # uncompressed bytes

# (id, kwargs template). "{s}" is the file's first string label key, "{n}" its
# first numeric label key; templates needing a key only run on files that have one.
NAME_EXPRS = [
    ("focus-nothing", dict(focus="zzzNoSuchFrame")),
    ("focus-everything", dict(focus=".")),
    ("focus-main", dict(focus="main")),
    ("ignore-runtime", dict(ignore="runtime")),
    ("hide-runtime-dot", dict(hide=r"runtime\.")),
    ("show-main-or-runtime", dict(show="main|runtime")),
    ("show_from-main", dict(show_from="main")),
    ("prune_from-alloc", dict(prune_from="malloc|runtime\\.")),
    ("mapping-focus-so", dict(focus=r"\.so")),
    ("mapping-hide-so", dict(hide=r"\.so")),
    ("inline-hide-lower", dict(hide="[a-z]+\\.[a-z]+$")),
    ("file-focus-dot-go", dict(focus=r"\.go$")),
    ("combo-focus-ignore-hide", dict(focus="a", ignore="zz|sync", hide="e")),
    ("combo-show-showfrom", dict(show=".", show_from="[A-Z]")),
    ("hide-everything", dict(hide=".")),
    ("empty-filters", dict()),
]
TAG_EXPRS = [
    ("tagfocus-any", dict(tagfocus=".")),
    ("tagfocus-and", dict(tagfocus="a,e")),
    ("tagfocus-key", dict(tagfocus="{s}=.")),
    ("tagfocus-key-nothing", dict(tagfocus="{s}=zzzNothing")),
    ("tagignore-key", dict(tagignore="{s}=^[a-m]")),
    ("tagshow", dict(tagshow="^[a-m]")),
    ("taghide", dict(taghide="{s}")),
    ("tagroot", dict(tagroot="{s}")),
    ("tagleaf-two", dict(tagleaf="{s},nosuchkey")),
]
NUM_EXPRS = [
    ("range-units-min", dict(tagfocus="{n}=1kb:")),
    ("range-units-between", dict(tagfocus="512b:1mb")),
    ("range-no-units-max", dict(tagignore="{n}=:4096")),
    ("range-exact", dict(tagfocus="{n}=0")),
    ("range-time", dict(tagfocus=":100ms")),
    ("tagroot-numeric", dict(tagroot="{n}")),
]

# drop_frames/keep_frames have no pprof flag: pprof applies a profile's own on
# load, so these jobs append drop_frames (field 7) / keep_frames (field 8) and
# their strings to a corpus file's protobuf (last value wins) and compare.
PRUNE_EXPRS = [
    ("drop-runtime", r"runtime\..*", None),
    ("drop-runtime-keep-malloc", r"runtime\..*", r"runtime\.mallocgc"),
    ("drop-main", r"main\..*", None),
    ("drop-alloc", r".*[Aa]lloc.*|.*Write", None),
    ("drop-everything", r".*", None),
]


def _label_keys(p):
    lab = p.labels
    s = [p.strings[int(k)] for k in lab.key[lab.str >= 0][:1]]
    n = [p.strings[int(k)] for k in lab.key[lab.str < 0][:1]]
    return (s[0] if s else None), (n[0] if n else None)


def _plan():
    """Deterministic (file, expr id, kwargs) triples: every accepted file at
    least once, every expression on several files."""
    rows = [
        r
        for r in corpus_manifest()
        if r["parses_with_google_pprof"] == "yes" and r["format"] == "profile.proto" and r["file"] not in _SKIP
    ]
    plan = []
    if len(rows) < 60:  # the local corpus alone: every expression on every file it applies to
        for r in rows:
            plan += [(r["file"], *e) for e in NAME_EXPRS]
            plan += [(r["file"], *e) for e in TAG_EXPRS if r["labels"] in ("str", "both")]
            plan += [(r["file"], *e) for e in NUM_EXPRS if r["labels"] in ("num", "both")]
        return plan
    ni = ti = ui = 0
    for i, r in enumerate(rows):
        big = int(r["uncompressed_bytes"]) > _BIG
        plan.append((r["file"], *NAME_EXPRS[ni % len(NAME_EXPRS)]))
        ni += 1
        # fleet/ holds 150 near-identical generated profiles: one job each
        # except every 8th, to keep the suite fast.
        if big or (r["file"].startswith("fleet/") and i % 8):
            continue
        if i % 5 == 0:
            plan.append((r["file"], *NAME_EXPRS[ni % len(NAME_EXPRS)]))
            ni += 1
        if r["labels"] in ("str", "both"):
            plan.append((r["file"], *TAG_EXPRS[ti % len(TAG_EXPRS)]))
            ti += 1
        if r["labels"] in ("num", "both"):
            plan.append((r["file"], *NUM_EXPRS[ui % len(NUM_EXPRS)]))
            ui += 1
    return plan


PLAN = _plan() if corpus_manifest() else []


def _prune_plan():
    rows = [
        r
        for r in corpus_manifest()
        if r["parses_with_google_pprof"] == "yes"
        and r["format"] == "profile.proto"
        and r["symbolized"] == "yes"
        and int(r["uncompressed_bytes"]) < _BIG
    ]
    rows = rows[:: max(1, len(rows) // 12)][:12]
    return [(r["file"], *PRUNE_EXPRS[i % len(PRUNE_EXPRS)]) for i, r in enumerate(rows)]


PRUNE_PLAN = _prune_plan() if corpus_manifest() else []


def _with_drop_frames(path, out, drop, keep):
    """Writes `path` with drop_frames/keep_frames set (appended fields)."""
    import gzip

    import wirebuild as wb

    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    n = pprofcore.loads(data)._core.num_strings
    data += wb.ld(6, drop.encode()) + wb.vint(7, n)
    if keep:
        data += wb.ld(6, keep.encode()) + wb.vint(8, n + 1)
    Path(out).write_bytes(data)


def _resolve(p, kwargs):
    s, n = _label_keys(p)
    out = {}
    for k, v in kwargs.items():
        if "{s}" in v and s is None or "{n}" in v and n is None:
            return None
        out[k] = v.replace("{s}", s or "").replace("{n}", n or "")
    return out


def _flags(kwargs):
    return [f"-{k}={v}" for k, v in kwargs.items()]


def canonical(p):
    """{(stack, labels): summed values}, locations spelled as (function name,
    line) per line: pprof merges samples on load (profile.Merge), so equal
    samples are summed and all-zero ones dropped on both sides."""
    return pprofcore.testing.canonical(p, names_only=True)


@pytest.fixture(scope="session")
def oracle(tmp_path_factory):
    """Runs every planned job through pprof's driver once; returns
    {(file, expr id): (output path or None, warned options, kwargs)}."""
    if not have_go():
        pytest.skip("needs go and google/pprof sources")
    if not PLAN:
        pytest.skip(f"corpus not found at {CORPUS}")
    out_dir = tmp_path_factory.mktemp("pprof-filter-oracle")
    jobs, keys = [], []
    for j, (file, eid, tmpl) in enumerate(PLAN):
        p = pprofcore.load(CORPUS / file)
        kwargs = _resolve(p, tmpl)
        if kwargs is None:
            continue
        out = out_dir / f"{j}.pb"
        jobs.append(["-proto", "-symbolize=none", *_flags(kwargs), f"-output={out}", str(CORPUS / file)])
        keys.append((file, eid, out, kwargs))
    for j, (file, eid, drop, keep) in enumerate(PRUNE_PLAN):
        src = out_dir / f"prune-in-{j}.pb"
        _with_drop_frames(CORPUS / file, src, drop, keep)
        out = out_dir / f"prune-{j}.pb"
        jobs.append(["-proto", "-symbolize=none", f"-output={out}", str(src)])
        keys.append((file, eid, out, {"_input": str(src)}))
    r = subprocess.run(
        [go_helper("pprofbatch")],
        input="\n".join(json.dumps(j) for j in jobs) + "\n",
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    results = {}
    for (file, eid, out, kwargs), line in zip(keys, r.stdout.splitlines()):
        res = json.loads(line)
        warned = sorted(m.split()[0] for m in res["messages"] if m.endswith("expression matched no samples"))
        results[(file, eid)] = (out if res["ok"] else None, warned, kwargs, res.get("error"))
    return results


def _as_pprof_loads(p):
    """pprof merges every profile it loads, which drops all-zero samples."""
    return pprofcore.Profile._wrap(pprofcore._core.keep_samples(p._core, p.values.any(axis=1).astype(np.uint8)))


def _ours(file, kwargs):
    p = _as_pprof_loads(pprofcore.load(CORPUS / file)).remove_uninteresting()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        q = p.filter(**kwargs)
    warned = sorted(str(x.message).split()[0] for x in w if issubclass(x.category, pprofcore.FilterWarning))
    return q, warned


@pytest.mark.skipif(not have_go(), reason="needs go and google/pprof sources")
@pytest.mark.parametrize(
    "file,eid,tmpl",
    [pytest.param(f, e, t, id=f"{e}:{f}") for f, e, t in PLAN]
    or [pytest.param(None, None, None, marks=pytest.mark.skip(reason="no corpus"))],
)
def test_filter_matches_pprof(oracle, file, eid, tmpl):
    if (file, eid) not in oracle:
        pytest.skip("expression needs a label key this file lacks")
    out, go_warned, kwargs, err = oracle[(file, eid)]
    if out is None:
        pytest.skip(f"pprof rejects this job: {err}")
    ours, our_warned = _ours(file, kwargs)
    ours._core.check_invariants()
    theirs = pprofcore.load(out)
    a, b = canonical(ours), canonical(theirs)
    if a != b:
        only_a = [k for k in a if k not in b or a[k] != b[k]][:3]
        only_b = [k for k in b if k not in a or a[k] != b[k]][:3]
        pytest.fail(f"{kwargs}: {len(a)} vs {len(b)} stacks; ours-only {only_a}; pprof-only {only_b}")
    assert our_warned == go_warned


@pytest.mark.skipif(not have_go(), reason="needs go and google/pprof sources")
@pytest.mark.parametrize(
    "file,eid,drop,keep",
    [pytest.param(*x, id=f"{x[1]}:{x[0]}") for x in PRUNE_PLAN]
    or [pytest.param(None, None, None, None, marks=pytest.mark.skip(reason="no corpus"))],
)
def test_remove_uninteresting_matches_pprof(oracle, file, eid, drop, keep):
    out, _, kwargs, err = oracle[(file, eid)]
    if out is None:
        pytest.skip(f"pprof rejects this job: {err}")
    p = pprofcore.load(kwargs["_input"])
    assert p.drop_frames == drop and p.keep_frames == (keep or "")
    # pprof's load prunes, then -proto runs the name filter (drops empty stacks).
    ours = _as_pprof_loads(p).remove_uninteresting().filter()
    ours._core.check_invariants()
    assert canonical(ours) == canonical(pprofcore.load(out))


def test_plan_covers_corpus():
    if not PLAN:
        pytest.skip("no corpus")
    files = {
        r["file"]
        for r in corpus_manifest()
        if r["parses_with_google_pprof"] == "yes" and r["format"] == "profile.proto"
    } - _SKIP
    assert files <= {f for f, _, _ in PLAN}
    counts = collections.Counter(e for _, e, _ in PLAN)
    for eid, _ in NAME_EXPRS + TAG_EXPRS + NUM_EXPRS:
        assert counts[eid] >= 3, eid


# A few jobs through the real `go tool pprof` binary too (Go's vendored copy of
# pprof, which the batch helper's Debian google/pprof could drift from).
GO_TOOL_JOBS = [
    ("go/generated/gen-basic-heap.pb.gz", dict(focus="main", hide=r"runtime\.", tagfocus="bytes=1kb:")),
    ("go/go-profiler-notes__guide_cpu-profiler-labels.pprof", dict(tagfocus=".", show_from="main", taghide="x")),
    ("cpp/generated/gen-gperftools-cpu.pb.gz", dict(ignore=r"\.so", prune_from="std::")),
]
LOCAL_FILES = local_corpus.ROOT / "files"
# The same kinds of jobs on the local corpus (absolute paths), so they run without the shared one.
GO_TOOL_JOBS += [
    (r["file"], kwargs)
    for r in local_manifest()
    for suffix, kwargs in (
        ("/go/heap.pb.gz", dict(focus="main", hide=r"runtime\.", tagfocus="bytes=1kb:")),
        ("/go/cpu-labels.pb.gz", dict(tagfocus=".", show_from="main", taghide="x")),
        ("/synthetic/inline-two-mappings.pb", dict(ignore=r"lib", prune_from="alloc")),
    )
    if r["file"].endswith(suffix)
]


@pytest.mark.skipif(not have_go(), reason="needs go")
@pytest.mark.parametrize(
    "file,kwargs", [pytest.param(f, k, id=f.replace(str(LOCAL_FILES), "local")) for f, k in GO_TOOL_JOBS]
)
def test_go_tool_pprof_binary_agrees(tmp_path, file, kwargs):
    from testenv import go_pprof

    if not (CORPUS / file).exists():
        pytest.skip(f"{file} not in corpus")
    out = tmp_path / "out.pb"
    go_pprof("-proto", "-symbolize=none", *_flags(kwargs), f"-output={out}", str(CORPUS / file))
    ours, _ = _ours(file, kwargs)
    assert canonical(ours) == canonical(pprofcore.load(out))
