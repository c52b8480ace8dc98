"""Filters and label operations: pprof's documented examples on tiny profiles,
helpers (simplified names, units, tag filter syntax), label/type operations,
the CLI, and Hypothesis properties (filters never increase totals, focus '.*'
keeps every sample with a frame, hide then show of one regex leaves nothing)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pprofcore
from pprofcore import _filter, _units
from pprofcore.cli import main as cli_main


# ---------------------------------------------------------------- tiny builder
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num: int, value) -> bytes:
    if isinstance(value, bytes):
        return _varint(num << 3 | 2) + _varint(len(value)) + value
    return _varint(num << 3) + _varint(value)


def build(samples, mapping_file="/bin/app", inline=None):
    """A profile from samples given as (stack of function names leaf first,
    value, {label: value}); each function gets its own location unless
    ``inline`` maps a location name to a list of function names (leaf first)."""
    strings = [""]

    def s(x):
        if x not in strings:
            strings.append(x)
        return strings.index(x)

    funcs, locs, body = {}, {}, bytearray()
    body += _field(1, _field(1, s("samples")) + _field(2, s("count")))

    def func(name):
        if name not in funcs:
            funcs[name] = len(funcs) + 1
        return funcs[name]

    def loc(name):
        if name not in locs:
            locs[name] = (len(locs) + 1, [func(f) for f in (inline or {}).get(name, [name])])
        return locs[name][0]

    for stack, value, labels in samples:
        m = b"".join(_field(1, loc(n)) for n in stack) + _field(2, value)
        for k, v in labels.items():
            if isinstance(v, str):
                m += _field(3, _field(1, s(k)) + _field(2, s(v)))
            else:
                m += _field(3, _field(1, s(k)) + _field(3, v[0]) + (_field(4, s(v[1])) if v[1] else b""))
        body += _field(2, m)
    body += _field(3, _field(1, 1) + _field(2, 0x1000) + _field(3, 0x2000) + _field(5, s(mapping_file)))
    for name, (lid, fids) in locs.items():
        body += _field(
            4, _field(1, lid) + _field(2, 1) + b"".join(_field(4, _field(1, f) + _field(2, 7)) for f in fids)
        )
    for name, fid in funcs.items():
        body += _field(5, _field(1, fid) + _field(2, s(name)) + _field(4, s(name.lower() + ".c")))
    for x in strings:
        body += _field(6, x.encode())
    return pprofcore.loads(bytes(body))


def stacks(p):
    """Sorted list of (stack of function names per location, leaf first, with
    inline frames joined by '+', value)."""
    names = p.strings.lookup(p.functions.name)
    lo = p.locations.line_offsets
    out = []
    for i in range(len(p)):
        frames = ["+".join(names[p.lines.function[j]] for j in range(lo[l], lo[l + 1])) for l in p.stack(i)]
        out.append((tuple(frames), int(p.values[i, 0])))
    return sorted(out)


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pprofcore.FilterWarning)
        return fn(*a, **k)


# Stacks are leaf first. ShowFrom's doc sample [A, B, C, B] has root A, i.e.
# ("B", "C", "B", "A") leaf first; PruneFrom's doc sample [A, B, C, B, D] is in
# pprof's Location order (leaf A, root D).
ABCB = build([(("B", "C", "B", "A"), 1, {})])
ABCBD = build([(("A", "B", "C", "B", "D"), 1, {})])


# ----------------------------------------------------------- pprof's examples
@pytest.mark.parametrize(
    "rx,expected",
    [
        ("A", [(("B", "C", "B", "A"), 1)]),
        ("B", [(("B", "C", "B"), 1)]),
        ("C", [(("B", "C"), 1)]),
        ("D", []),
    ],
    ids=["A", "B", "C", "D-drops-sample"],
)
def test_show_from_doc_example(rx, expected):
    assert stacks(quiet(ABCB.show_from, rx)) == expected


@pytest.mark.parametrize(
    "rx,expected",
    [
        ("A", [(("A", "B", "C", "B", "D"), 1)]),
        ("B", [(("B", "C", "B", "D"), 1)]),
    ],
    ids=["A", "B"],
)
def test_prune_from_doc_example(rx, expected):
    assert stacks(ABCBD.prune_from(rx)) == expected


@pytest.mark.parametrize(
    "rx,expected",
    [
        ("A", [(("B", "C", "B", "D"), 1)]),
        ("B", [(("D",), 1)]),  # pprof's doc: Prune(B) returns [D]
        ("C", [(("B", "D"), 1)]),
        ("D", [(("A", "B", "C", "B", "D"), 1)]),  # the root is never pruned
    ],
    ids=["A", "B", "C", "root-kept"],
)
def test_prune_examples(rx, expected):
    assert stacks(ABCBD.prune(rx)) == expected


def test_prune_uses_full_match_on_simplified_names():
    p = build([(("leaf", "f(int)", "root"), 1, {})])
    assert stacks(p.prune("f")) == [(("root",), 1)]
    assert stacks(p.prune("f(int)")) == [(("leaf", "f(int)", "root"), 1)]  # "(" does not survive simplification
    assert stacks(p.prune("f", keep="f")) == [(("leaf", "f(int)", "root"), 1)]


def test_focus_ignore_hide_show_on_inline_frames():
    p = build([(("L", "M", "R"), 3, {}), (("X", "R"), 4, {})], inline={"M": ["m1", "m2"]})
    assert stacks(p.focus("m2")) == [(("L", "m1+m2", "R"), 3)]
    assert stacks(p.ignore("m1")) == [(("X", "R"), 4)]
    assert stacks(p.hide("m1")) == [(("L", "m2", "R"), 3), (("X", "R"), 4)]
    assert stacks(p.show("m1|X")) == [(("X",), 4), (("m1",), 3)]
    assert stacks(p.show_from("m1")) == [(("L", "m1"), 3)]


def test_file_and_mapping_names_match():
    p = build([(("L", "R"), 1, {})], mapping_file="/usr/lib/libfoo.so")
    assert len(p.focus(r"l\.c$")) == 1  # file name of L is "l.c"
    assert len(p.focus("libfoo")) == 1
    assert len(quiet(p.hide, "libfoo")) == 0
    assert stacks(p.show("libfoo")) == [(("L", "R"), 1)]


def test_no_match_warns():
    with pytest.warns(pprofcore.FilterWarning, match="Focus expression 'nothing' matched no samples"):
        assert len(ABCB.focus("nothing")) == 0
    with pytest.warns(pprofcore.FilterWarning, match="TagFocus"):
        ABCB.tagfocus("k=v")


def test_bad_regex_is_a_value_error():
    with pytest.raises(ValueError, match="focus"):
        ABCB.filter(focus="(")


# ------------------------------------------------------------- tag filters
LABELED = build(
    [
        (("a", "main"), 1, {"tenant": "acme", "bytes": (512, "bytes")}),
        (("b", "main"), 2, {"tenant": "zeta", "bytes": (4096, "bytes")}),
        (("c", "main"), 4, {"region": "eu", "bytes": (2 << 20, "bytes")}),
        (("d", "main"), 8, {"lat": (150_000_000, "nanoseconds")}),
    ]
)


def total(p):
    return p.total(0)


@pytest.mark.parametrize(
    "expr,expected",
    [
        ("tenant=acme", 1),
        ("tenant=acme,zeta", 3),
        ("tenant:acme", 1),
        ("tenant,e", 3),  # bare regexes: AND over key:value strings
        ("bytes=1kb:", 6),
        ("bytes=:4096", 0),  # pprof quirk: a unit-less bound never matches a label with a known unit
        ("bytes=:4096b", 3),
        ("1kb:1mb", 2),
        ("4kb", 2),
        ("lat=100ms:", 8),
        (":100ms", 0),
        ("bytes=2mb", 4),
    ],
    ids=lambda x: str(x),
)
def test_tagfocus(expr, expected):
    assert total(quiet(LABELED.tagfocus, expr)) == expected


def test_tagignore_tagshow_taghide():
    assert total(LABELED.tagignore("tenant=acme")) == 14
    shown = LABELED.tagshow("^t")
    assert set(shown.strings.lookup(shown.labels.key)) == {"tenant"}
    hidden = LABELED.taghide("bytes|lat")
    assert set(hidden.strings.lookup(hidden.labels.key)) == {"tenant", "region"}


def test_tagroot_tagleaf():
    p = LABELED.tagroot("tenant")
    assert (("a", "main", "acme"), 1) in stacks(p)
    assert (("d", "main", ""), 8) in stacks(p)  # pprof adds an empty frame when the label is missing
    q = LABELED.tagleaf(["tenant", "bytes"])
    assert (("512B", "acme", "a", "main"), 1) in stacks(q)


@pytest.mark.parametrize(
    "name,simple",
    [
        ("foo", "foo"),
        (".foo", "foo"),
        ("ns::f(int, char)", "ns::f"),
        ("(anonymous namespace)::g(int)", "(anonymous namespace)::g"),
        ("X::operator()(int)", "X::operator()"),
    ],
)
def test_simplify_function_name(name, simple):
    assert _filter.simplify_function_name(name) == simple


@pytest.mark.parametrize(
    "value,unit,label",
    [
        (1536, "bytes", "1.50kB"),
        (0, "bytes", "0"),
        (150_000_000, "nanoseconds", "150ms"),
        (7, "count", "7"),
        (3, "widgets", "3"),
    ],
)
def test_scaled_label(value, unit, label):
    assert _units.scaled_label(value, unit) == label


# ------------------------------------------------------- labels and types
def test_label_operations():
    p = LABELED.set_label("env", ["prod"])
    assert set(p.strings.lookup(p.labels.key)) >= {"env"}
    assert len(p.split_by_label("env")["prod"]) == 4
    q = LABELED.remove_label("tenant")
    assert "tenant" not in set(q.strings.lookup(q.labels.key))
    r = LABELED.rename_label("tenant", "customer")
    assert total(r.tagfocus("customer=acme")) == 1
    parts = LABELED.split_by_label("tenant")
    assert {k: total(v) for k, v in parts.items()} == {"acme": 1, "zeta": 2, "": 12}
    groups = LABELED.group_by_label(["tenant", "region"])
    assert sum(len(g) for g in groups.values()) == len(LABELED)
    for x in (p, q, r, *parts.values()):
        x._core.check_invariants()


def test_select_sample_types():
    p = pprofcore.load(pprofcore.example_path("cpu"))
    q = p.select_sample_types(["cpu"])
    assert q.sample_types == [("cpu", "nanoseconds")]
    assert np.array_equal(q.values[:, 0], p.values[:, 1])
    assert q.select_sample_types([0]).sample_types == q.sample_types


# ------------------------------------------------------------------ the CLI
def test_cli_filter(tmp_path, capsys):
    out = tmp_path / "out.pb.gz"
    rc = cli_main(["filter", "-o", str(out), "--focus", "nothing-at-all", pprofcore.example_path("cpu")])
    assert rc == 0
    assert "Focus expression 'nothing-at-all' matched no samples" in capsys.readouterr().err
    assert len(pprofcore.load(out)) == 0
    rc = cli_main(
        ["filter", "-o", str(out), "--tagfocus", "worker=.", "--hide", "runtime", pprofcore.example_path("cpu")]
    )
    assert rc == 0
    expected = pprofcore.load(pprofcore.example_path("cpu")).filter(tagfocus="worker=.", hide="runtime")
    assert pprofcore.load(out) == expected


# --------------------------------------------------------------- properties
EXAMPLES = {k: pprofcore.load(pprofcore.example_path(k)) for k in ("cpu", "heap")}


def _tokens(p):
    names = set(p.strings.lookup(p.functions.name))
    toks = set()
    for n in names:
        for part in n.replace("/", ".").replace("(", ".").split("."):
            if part.isalnum():
                toks.add(part)
    return sorted(toks)


TOKENS = sorted(set(_tokens(EXAMPLES["cpu"])) | set(_tokens(EXAMPLES["heap"])))
regexes = st.one_of(
    st.sampled_from(TOKENS),
    st.sampled_from(["", ".", "^$", "zzz", "runtime|main"]),
    st.lists(st.sampled_from(TOKENS), min_size=2, max_size=3).map("|".join),
)
FILTERS = ["focus", "ignore", "hide", "show", "show_from", "prune_from", "prune"]
PROP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROP
@given(
    kind=st.sampled_from(["cpu", "heap"]),
    steps=st.lists(st.tuples(st.sampled_from(FILTERS), regexes), min_size=1, max_size=3),
)
def test_filters_never_increase_totals(kind, steps):
    p = EXAMPLES[kind]
    q = p
    for name, rx in steps:
        q = quiet(getattr(q, name), rx) if rx else q
        q._core.check_invariants()
    assert len(q) <= len(p)
    assert np.all(q.values.sum(axis=0) <= p.values.sum(axis=0))


@pytest.mark.parametrize("kind", ["cpu", "heap"])
def test_focus_everything_keeps_samples_with_frames(kind):
    p = EXAMPLES[kind]
    has_frame = np.diff(p.stack_offsets) > 0
    q = p.focus(".*")
    assert len(q) == int(has_frame.sum())
    assert np.array_equal(q.values, p.values[has_frame])


@PROP
@given(kind=st.sampled_from(["cpu", "heap"]), rx=regexes.filter(bool))
def test_hide_then_show_leaves_nothing(kind, rx):
    q = quiet(lambda: EXAMPLES[kind].hide(rx).show(rx))
    assert len(q) == 0


tag_exprs = st.one_of(
    st.sampled_from(["tenant=acme", "tenant=acme,zeta", "tenant,e", "region:eu", "zzz", "."]),
    st.builds(
        lambda lo, hi, u: f"{lo}{u}:{hi}{u}",
        st.integers(0, 4096),
        st.integers(0, 8192),
        st.sampled_from(["", "b", "kb", "mb"]),
    ),
    st.builds(
        lambda k, v, u: f"{k}=:{v}{u}",
        st.sampled_from(["bytes", "lat"]),
        st.integers(0, 1 << 21),
        st.sampled_from(["b", "kb", "ms", "ns"]),
    ),
)


@PROP
@given(expr=tag_exprs)
def test_tagfocus_and_tagignore_partition_samples(expr):
    focused = quiet(LABELED.tagfocus, expr)
    ignored = quiet(LABELED.tagignore, expr)
    assert len(focused) + len(ignored) == len(LABELED)
    assert total(focused) + total(ignored) == total(LABELED)


def test_threads_filter_concurrently():
    from concurrent.futures import ThreadPoolExecutor

    p = EXAMPLES["cpu"]
    expected = p.filter(hide="runtime", tagfocus="worker=.")
    with ThreadPoolExecutor(4) as ex:
        results = list(ex.map(lambda _: p.filter(hide="runtime", tagfocus="worker=."), range(16)))
    assert all(r == expected for r in results)


def test_views_outlive_filtered_profile():
    vals = EXAMPLES["cpu"].focus("main").values
    assert vals.sum() > 0  # the view keeps its (unnamed) profile alive
