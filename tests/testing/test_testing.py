"""pprofcore.testing: canonical form, assert_profile_equal, assert_share and
assert_no_regression.

canonical() is checked as a property: any re-spelling of the same profile
(ids, table order, string table, sample order, label order) gives the same
form, and merging adds forms. The share and regression assertions are checked
against pprof's own numbers: ``Profile.top`` (flat/cum per node, compared with
``go tool pprof`` in test_reports_top.py) and ``Profile.focus``.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
import wirebuild as wb
from hypothesis import given, settings
from hypothesis import strategies as st

import pprofcore
from pprofcore.testing import (
    assert_no_regression,
    assert_profile_equal,
    assert_share,
    canonical,
    profile_differences,
    regression_table,
    table_differences,
)

# ------------------------------------------------------------- canonical form
NAMES = ["main", "work", "leaf", "util"]


@st.composite
def spelled_profiles(draw):
    """(content, shuffle seed): a small profile as content -- stacks of
    (function, line) frames, labels, values -- that `_spell` writes with any
    ids, table order, string order and sample order."""
    n = draw(st.integers(0, 6))
    samples = []
    for _ in range(n):
        stack = draw(st.lists(st.tuples(st.sampled_from(NAMES), st.integers(1, 3)), min_size=0, max_size=4))
        labels = draw(
            st.lists(
                st.sampled_from([("k", "a"), ("k", "b"), ("t", 3), ("u", "x")]), max_size=3, unique_by=lambda x: x[0]
            )
        )
        values = draw(st.tuples(st.integers(0, 5), st.integers(-50, 50)))
        samples.append((stack, labels, values))
    return samples, draw(st.integers(0, 2**32))


def _spell(samples, seed) -> pprofcore.Profile:
    """Encode the content with shuffled ids, tables, strings and labels."""
    rng = random.Random(seed)
    strings = ["samples", "count", "cpu", "nanoseconds", "main.go", "k", "t", "u", "a", "b", "x", "ms"] + NAMES
    rng.shuffle(strings)
    strings = [""] + strings
    code = {s: i for i, s in enumerate(strings)}
    fids = rng.sample(range(1, 100), len(NAMES))
    fn = {name: fid for name, fid in zip(NAMES, fids)}
    frames = sorted({f for s, _, _ in samples for f in s})
    lids = rng.sample(range(1, 1000), max(1, len(frames)))
    loc = {f: lid for f, lid in zip(frames, lids)}
    functions = [wb.function(fn[n], code[n], code[n], code["main.go"]) for n in NAMES]
    locations = [wb.location(loc[f], 0, 0, [wb.line(fn[f[0]], f[1])]) for f in frames]
    rng.shuffle(functions)
    rng.shuffle(locations)
    encoded = []
    for stack, labels, values in samples:
        labs = [
            wb.label(code[k], code[v]) if isinstance(v, str) else wb.label(code[k], num=v, num_unit=code["ms"])
            for k, v in labels
        ]
        rng.shuffle(labs)
        encoded.append(wb.sample([loc[f] for f in stack], list(values), labs))
    rng.shuffle(encoded)
    return pprofcore.loads(
        wb.profile(
            sample_types=[
                wb.value_type(code["samples"], code["count"]),
                wb.value_type(code["cpu"], code["nanoseconds"]),
            ],
            samples=encoded,
            locations=locations,
            functions=functions,
            strings=strings,
        )
    )


def _expected(samples) -> dict:
    out: dict = {}
    for stack, labels, values in samples:
        key = (
            tuple((0, None, False, ((n, n, "main.go", line),)) for n, line in stack),
            tuple(sorted((k, v, 0, "") if isinstance(v, str) else (k, None, v, "ms") for k, v in labels)),
        )
        prev = out.get(key, (0, 0))
        out[key] = (prev[0] + values[0], prev[1] + values[1])
    return {k: v for k, v in out.items() if any(v)}


@settings(max_examples=100, deadline=None)
@given(spelled_profiles(), st.integers(0, 2**32))
def test_canonical_ignores_spelling(content, seed2):
    samples, seed = content
    a, b = _spell(samples, seed), _spell(samples, seed2)
    assert canonical(a) == _expected(samples)
    assert canonical(a) == canonical(b)
    assert_profile_equal(a, b)


@settings(max_examples=60, deadline=None)
@given(spelled_profiles(), spelled_profiles())
def test_canonical_of_merge_adds(x, y):
    a, b = _spell(*x), _spell(*y)
    want = dict(canonical(a))
    for k, v in canonical(b).items():
        w = want.get(k, (0, 0))
        want[k] = (w[0] + v[0], w[1] + v[1])
    want = {k: v for k, v in want.items() if any(v)}
    assert canonical(pprofcore.merge([a, b])) == want


def test_canonical_names_only_and_sample_types(cpu):
    full = canonical(cpu)
    names = canonical(cpu, names_only=True)
    assert sum(v[1] for v in full.values()) == sum(v[1] for v in names.values()) == cpu.total("cpu")
    stack = next(iter(names))[0]
    assert all(isinstance(f, str) and isinstance(ln, int) for loc in stack for f, ln in loc)
    only_cpu = canonical(cpu, sample_types=["cpu"])
    assert {k: v[1] for k, v in full.items()} == {k: v[0] for k, v in only_cpu.items()}


def test_canonical_survives_reencoding_and_compaction(cpu, heap):
    for p in (cpu, heap):
        assert canonical(pprofcore.loads(p.to_bytes())) == canonical(p)
        assert canonical(p.compact()) == canonical(p)


# --------------------------------------------------------- assert_profile_equal
def test_equal_profiles_pass(cpu):
    assert_profile_equal(cpu, pprofcore.loads(cpu.to_bytes(compress=False)))
    assert_profile_equal(cpu, cpu.compact(), check_order=False)
    assert profile_differences(cpu, cpu, check_order=True) == []


def test_difference_message_is_ordered_and_capped(cpu):
    with pytest.raises(AssertionError) as e:
        assert_profile_equal(cpu, cpu.scale(2))
    text = str(e.value)
    lines = text.splitlines()
    assert lines[0].startswith("Profiles are different (")
    assert lines[1].startswith("[left]:  <pprofcore.Profile") and lines[2].startswith("[right]: ")
    body = lines[3:]
    assert len(body) == 11 and re.fullmatch(r"  \.\.\. and \d+ more", body[-1])
    n = int(re.search(r"\((\d+) differences\)", lines[0]).group(1))
    assert n == len(canonical(cpu)) and body[-1].strip() == f"... and {n - 10} more"
    # Largest differences first: sample values 2 -> 4 before 1 -> 2.
    firsts = [int(re.search(r"samples=(\d+)", ln).group(1)) for ln in body[:-1]]
    assert firsts == sorted(firsts, reverse=True)
    # The same input gives the same message.
    with pytest.raises(AssertionError) as e2:
        assert_profile_equal(cpu, cpu.scale(2))
    assert str(e2.value) == text


def test_header_differences_come_first():
    a = pprofcore.loads(wb.small())
    b = pprofcore.loads(wb.small(period=20_000_000, duration_nanos=5))
    diffs = profile_differences(a, b)
    assert diffs == ["period: 10000000 != 20000000", "duration_nanos: 10000000000 != 5"]


def test_sample_type_mismatch_and_selection(cpu):
    other = cpu.select_sample_types(["cpu"])
    with pytest.raises(AssertionError, match="sample_types: "):
        assert_profile_equal(cpu, other)
    assert_profile_equal(cpu, other, sample_types=["cpu"])
    with pytest.raises(AssertionError, match="right has no samples"):
        assert_profile_equal(cpu, other, sample_types=["samples", "cpu"])


def test_only_left_only_right_and_tolerances(cpu):
    part = cpu.focus("sha256")
    diffs = profile_differences(cpu, part)
    assert all(d.startswith("sample only in left: ") for d in diffs)
    assert len(diffs) == len(canonical(cpu)) - len(canonical(part))
    assert profile_differences(part, cpu)[0].startswith("sample only in right: ")
    # Scaling by 1.05 only passes within a relative tolerance.
    bigger = cpu.scale(1.05)
    assert profile_differences(cpu, bigger, sample_types=["cpu"])
    assert_profile_equal(bigger, cpu, rtol=0.06, sample_types=["cpu"])
    assert_profile_equal(bigger, cpu, atol=0.06 * 10_000_000 * 10, sample_types=["cpu"])


def test_check_order_sees_reordering():
    s = [wb.sample([1], [1, 10]), wb.sample([2], [2, 20])]
    a = pprofcore.loads(wb.small(samples=s))
    b = pprofcore.loads(wb.small(samples=s[::-1]))
    assert_profile_equal(a, b)
    diffs = profile_differences(a, b, check_order=True)
    assert len(diffs) == 2
    # Location 1 is worker inlined into main; location 2 is main.
    assert diffs[0] == "sample 0: worker <- main (samples=1, cpu=10) != main (samples=2, cpu=20)"
    assert diffs[1] == "sample 1: main (samples=2, cpu=20) != worker <- main (samples=1, cpu=10)"
    c = pprofcore.loads(wb.small(samples=s[:1]))
    assert profile_differences(a, c, check_order=True)[0] == "number of samples: 2 != 1"


def test_assertions_hide_their_frames():
    import pprofcore.testing as t

    for f in (t.assert_profile_equal, t.assert_share, t.assert_no_regression, t.assert_no_significant_regression):
        assert "__tracebackhide__" in f.__code__.co_varnames, f.__name__


# ------------------------------------------------------------------- shares
def _top_rows(p, by="functions"):
    t = p.top(sample_type="cpu", by=by)
    return list(t.rows()), t.meta["total"]


@pytest.mark.parametrize("by", ["functions", "files", "lines"])
def test_share_of_one_node_is_its_cum_and_flat(cpu, by):
    rows, total = _top_rows(cpu, by)
    for row in rows[:: max(1, len(rows) // 15)]:
        rx = "^" + re.escape(row["name"]) + "$"
        got = assert_share(cpu, rx, max=1, sample_type="cpu", by=by)
        assert got == pytest.approx(row["cum"] / total, abs=1e-12)
        got = assert_share(cpu, rx, max=1, sample_type="cpu", by=by, cum=False)
        assert got == pytest.approx(row["flat"] / total, abs=1e-12)


@pytest.mark.parametrize("rx", ["sort\\.", "^runtime\\.", "json", "sha256", "^main\\."])
def test_share_counts_each_sample_once_like_focus(cpu, rx):
    # Anchored or package-qualified regexes match function names only, so
    # pprof's focus (which also tries file names) keeps the same samples.
    want = cpu.focus(rx).total("cpu") / cpu.total("cpu")
    assert assert_share(cpu, rx, min=0, sample_type="cpu") == pytest.approx(want, abs=1e-12)


def test_share_failure_message(cpu):
    with pytest.raises(AssertionError) as e:
        assert_share(cpu, "sort\\.", max=0.1, sample_type="cpu")
    lines = str(e.value).splitlines()
    assert re.match(r"share of 'sort\\\\\.' \(functions, cum\) is 3\d\.\d\d% of cpu, above max 10\.00% ", lines[0])
    assert lines[1] == "top matching functions by cum:"
    assert "sort.Float64s" in lines[2] and lines[-1].startswith("  ... and ")
    with pytest.raises(AssertionError, match=r"below min 90\.00%.*\nno functions with cum > 0 match 'nothing'"):
        assert_share(cpu, "nothing", min=0.9)


def test_share_argument_errors(cpu):
    with pytest.raises(ValueError, match="needs max=, min="):
        assert_share(cpu, "x")
    with pytest.raises(ValueError, match="not a fraction"):
        assert_share(cpu, "x", max=20)
    with pytest.raises(ValueError, match="regex: invalid regular expression"):
        assert_share(cpu, "(", max=0.5)
    with pytest.raises(ValueError, match="unknown granularity"):
        assert_share(cpu, "x", max=0.5, by="function")


# -------------------------------------------------------------- regressions
def _doubled(p, rx):
    """``p`` with the samples through functions matching ``rx`` counted twice."""
    return pprofcore.merge([p, p.focus(rx)])


def test_no_regression_against_itself_and_scaled(cpu):
    assert_no_regression(cpu, cpu)
    assert_no_regression(cpu, cpu.scale(3))  # shares did not move
    with pytest.raises(AssertionError, match="Profile regressed"):
        assert_no_regression(cpu, cpu.scale(3), normalize=False)


REGRESSION_COLUMNS = ["name"] + [f"{m}_{c}" for m in ("flat", "cum") for c in ("base", "new", "delta", "delta%")]


def test_regression_table_ranks_every_offender(cpu):
    new = _doubled(cpu, "^crypto/sha256\\.block$")
    t = regression_table(cpu, new, sample_type="cpu")
    assert t.columns == REGRESSION_COLUMNS + ["regressed"]
    # the leaf regressed in flat; its callers grew in cum only
    assert [n for n, r in zip(t["name"], t["regressed"]) if "flat" in r] == ["crypto/sha256.block"]
    assert {"main.hashWork", "crypto/sha256.Sum256"} <= {n for n, r in zip(t["name"], t["regressed"]) if r == "cum"}
    assert t.meta["failures"] == 1
    total = cpu.total("cpu")
    flat = dict((r["name"], r["flat"]) for r in cpu.top(sample_type="cpu").rows())["crypto/sha256.block"]
    row = list(t["name"]).index("crypto/sha256.block")
    assert t["flat_base"][row] == pytest.approx(flat / total)
    assert t["flat_new"][row] == pytest.approx(2 * flat / (total + flat))
    assert np.all(np.diff(np.maximum(t["flat_delta"], t["cum_delta"])) <= 0)
    # cum: every caller on those stacks fails too, ranked by growth.
    t = regression_table(cpu, new, sample_type="cpu", cum=True)
    assert "main.hashWork" in t["name"] and "crypto/sha256.Sum256" in t["name"]
    assert t.meta["failures"] == len(t)
    with pytest.raises(AssertionError) as e:
        assert_no_regression(cpu, new, sample_type="cpu", cum=True)
    lines = str(e.value).splitlines()
    assert lines[0] == "Profile regressed"
    assert lines[2].split() == (
        ["name"]
        + ["flat", "base", "flat", "new", "flat", "delta", "flat", "delta", "%"]
        + ["cum", "base", "cum", "new", "cum", "delta", "cum", "delta", "%", "regressed"]
    )
    assert len(lines) == 3 + len(t)
    assert lines[3].split()[0] == t["name"][0] and lines[3].endswith("cum")


def test_regression_thresholds(cpu):
    new = _doubled(cpu, "^sort\\.insertionSort$")  # 6.2% cum share: +~90%
    assert regression_table(cpu, new, cum=True, sample_type="cpu", rel=0.5).meta["failures"]
    assert_no_regression(cpu, new, cum=True, sample_type="cpu", rel=2.0)
    assert_no_regression(cpu, new, cum=True, sample_type="cpu", abs=0.2)  # grew < 20 points
    assert_no_regression(cpu, new, cum=True, sample_type="cpu", min_share=0.5)
    # New keys fail as "new" once they hold min_share.
    base = cpu.ignore("^sort\\.insertionSort$")
    t = regression_table(base, cpu, sample_type="cpu", cum=True)
    row = list(t["name"]).index("sort.insertionSort")
    assert np.isinf(t["cum_delta%"][row]) and t["cum_base"][row] == 0
    assert " new" in t.to_text()
    with pytest.raises(ValueError, match="rel and abs"):
        regression_table(cpu, cpu, rel=-1)


def test_a_function_slowed_through_its_callees_is_listed_first(monkeypatch):
    """Encode calls its leaves three times as often: its flat did not move, its
    cum grew the most. The table shows both and ranks Encode first."""
    base = pprofcore.from_folded(
        "main;example.com/work.Encode;strconv.ryuDigits32 10\n"
        "main;example.com/work.Encode;strconv.appendQuoted 10\n"
        "main;example.com/work.Encode 5\n"
        "main;other 75\n"
    )
    new = pprofcore.from_folded(
        "main;example.com/work.Encode;strconv.ryuDigits32 30\n"
        "main;example.com/work.Encode;strconv.appendQuoted 30\n"
        "main;example.com/work.Encode 5\n"
        "main;other 75\n"
    )
    t = regression_table(base, new)
    assert t["name"][0] == "example.com/work.Encode" and t["regressed"][0] == "cum"
    assert t["flat_delta"][0] <= 0 < t["cum_delta"][0]
    assert set(t["name"][1:]) == {"strconv.ryuDigits32", "strconv.appendQuoted"}
    with pytest.raises(AssertionError) as e:
        assert_no_regression(base, new)  # the leaves fail in flat; Encode is shown first
    first = str(e.value).splitlines()[3].split()
    assert first[0] == "example.com/work.Encode" and first[5:9] == ["25.00%", "46.43%", "+21.43%", "+85.7%"]
    # long tables are cut in the message (regression_table keeps every row)
    monkeypatch.setattr(pprofcore.testing.regressions, "MAX_REGRESSION_ROWS", 1)
    with pytest.raises(AssertionError) as e:
        assert_no_regression(base, new)
    assert str(e.value).splitlines()[3:] == [str(e.value).splitlines()[3], "... 2 more rows"]


_FRAMES = ["main", "a", "b", "c", "d"]


@st.composite
def _folded(draw):
    stacks = draw(st.lists(st.lists(st.sampled_from(_FRAMES[1:]), min_size=0, max_size=3), min_size=1, max_size=5))
    values = draw(st.lists(st.integers(1, 50), min_size=len(stacks), max_size=len(stacks)))
    return "".join(";".join(["main"] + s) + f" {v}\n" for s, v in zip(stacks, values))


@settings(max_examples=150, deadline=None)
@given(_folded(), _folded(), st.sampled_from([0.1, 0.5, None]), st.sampled_from([None, 0.02]), st.booleans())
def test_regression_table_against_top(base_text, new_text, rel, abs_, cum):
    """Rows, values, ranking and the pass/fail decision against Profile.top's
    flat and cum (checked against go tool pprof in test_reports_top.py)."""
    if rel is None and abs_ is None:
        abs_ = 0.0
    base, new = pprofcore.from_folded(base_text), pprofcore.from_folded(new_text)

    def shares(p):
        tot = p.total()
        return {r["name"]: (r["flat"] / tot, r["cum"] / tot) for r in p.top(nodefraction=0, edgefraction=0).rows()}

    sb, sn = shares(base), shares(new)
    want, change = {}, {}
    for name in set(sb) | set(sn):
        b, n = sb.get(name, (0.0, 0.0)), sn.get(name, (0.0, 0.0))
        hit = []
        for i, m in enumerate(("flat", "cum")):
            d = n[i] - b[i]  # the same float arithmetic as regression_table's
            ok = max(b[i], n[i]) >= 0.01 and d > 0
            ok &= rel is None or d > rel * b[i]
            ok &= abs_ is None or d > abs_
            if ok:
                hit.append(m)
        if hit:
            want[name] = ",".join(hit)
            change[name] = max(n[0] - b[0], n[1] - b[1])
    t = regression_table(base, new, rel=rel, abs=abs_, cum=cum)
    assert dict(zip(t["name"], t["regressed"])) == want
    got_change = np.maximum(t["flat_delta"], t["cum_delta"])
    assert got_change == pytest.approx([change[n] for n in t["name"]])
    assert np.all(np.diff(got_change) <= 0)
    for i, name in enumerate(t["name"]):
        b, n = sb.get(name, (0.0, 0.0)), sn.get(name, (0.0, 0.0))
        assert [t["flat_base"][i], t["flat_new"][i]] == pytest.approx([b[0], n[0]])
        assert [t["cum_base"][i], t["cum_new"][i]] == pytest.approx([b[1], n[1]])
    fails = sum("cum" in r if cum else "flat" in r for r in want.values())
    if fails:
        with pytest.raises(AssertionError, match="Profile regressed"):
            assert_no_regression(base, new, rel=rel, abs=abs_, cum=cum)
    else:
        assert_no_regression(base, new, rel=rel, abs=abs_, cum=cum)


def test_regression_needs_the_same_sample_type(cpu, heap):
    with pytest.raises(ValueError, match="profile 1: no sample_type 'cpu'; have "):
        assert_no_regression(cpu, heap)


# ------------------------------------------------------------- table equality
def test_report_table_equality_and_differences(cpu):
    a, b = cpu.top(), cpu.top()
    assert a == b and not (a != b)
    c = cpu.scale(2).top()
    assert a != c
    diffs = table_differences(a, c)
    assert diffs[0].startswith("row 0 (crypto/sha256.block) flat: ")
    assert table_differences(a, cpu.top(n=5))[0] == f"number of rows: {len(a)} != 5"
