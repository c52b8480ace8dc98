"""Repair mode's string repairs: a non-empty string_table[0] (or no table) and
string indexes past the table, each repaired and counted, on hand-made inputs and
Hypothesis-generated ones; google/pprof refuses the originals and accepts the
repaired profiles."""

from __future__ import annotations

import pytest
from _pb import msg, profile
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import requires_go

import pprofcore
from pprofcore import DecodeError, RepairReport

STRINGS = ("", "samples", "count", "main", "work")


def repaired(data: bytes):
    p, report = pprofcore.loads(data, repair=True)
    p._core.check_invariants()
    assert pprofcore.loads(p.to_bytes()) == p  # valid now: decodes without repair
    return p, report


def names(p):
    return [p.strings[c] for c in p.functions.name]


def junk_first_string(name: int) -> bytes:
    """One sample in function ``main`` named by string ``name``, with "junk" as string 0."""
    return profile(
        strings=("junk",) + STRINGS[1:],
        sample_types=[(1, 2)],
        samples=[([1], [5])],
        locations=[(1, 0, [1])],
        functions=[(1, name)],
    )


def test_nonempty_first_string_becomes_empty():
    data = junk_first_string(name=3)
    with pytest.raises(DecodeError, match=r"string_table\[0\] must be"):
        pprofcore.loads(data)
    p, report = repaired(data)
    assert report == RepairReport(bad_first_string=1)
    assert p.strings[0] == "" and p.sample_types == [("samples", "count")] and names(p) == ["main"]
    assert "string_table[0]" in str(report)


def test_missing_string_table_gets_its_empty_string():
    data = profile(strings=(), sample_types=[(1, 2)], samples=[([], [5])])
    with pytest.raises(DecodeError, match="missing string table"):
        pprofcore.loads(data)
    p, report = repaired(data)
    assert report == RepairReport(bad_first_string=1, out_of_range_string_refs=2, placeholder_strings=2)
    assert p.sample_types == [("[missing string 1]", "[missing string 2]")]


def test_each_string_field_points_at_a_placeholder():
    bad = 40
    extra = [
        (3, [(1, 2), (2, 0x3000), (3, 0x4000), (5, bad), (6, bad + 1)]),  # mapping filename, build id
        (2, [(1, 1), (2, 3), (3, [(1, bad + 2), (2, bad + 3)]), (3, [(1, 4), (3, 9), (4, bad + 4)])]),  # labels
        (7, bad + 5),
        (8, 3),
        (13, bad + 6),
        (13, 1),
        (14, bad + 7),
        (15, bad + 8),
        (11, [(1, bad + 9), (2, 2)]),
    ]
    data = profile(
        strings=STRINGS,
        sample_types=[(1, bad + 10)],
        samples=[([1], [5])],
        locations=[(1, 0, [1, 2])],
        functions=[(1, bad + 11), (2, 3)],
        extra=extra,
    )
    with pytest.raises(DecodeError, match="out of range"):
        pprofcore.loads(data)
    p, report = repaired(data)
    # 12 references; drop_frames (a regex) becomes "" instead of a placeholder.
    assert report == RepairReport(out_of_range_string_refs=12, placeholder_strings=11)
    ph = lambda n: f"[missing string {n}]"  # noqa: E731
    assert p.sample_types == [("samples", ph(bad + 10))]
    assert names(p) == [ph(bad + 11), "main"]
    assert p.drop_frames == "" and p.keep_frames == "main"
    assert p.comments == [ph(bad + 6), "samples"]
    assert p.default_sample_type == ph(bad + 7) and p.doc_url == ph(bad + 8)
    assert p.period_type == (ph(bad + 9), "count")
    assert [p.strings[c] for c in p.mappings.filename] == [ph(bad)]
    assert [p.strings[c] for c in p.mappings.build_id] == [ph(bad + 1)]
    lab = p.labels
    assert [p.strings[c] for c in lab.key] == [ph(bad + 2), "work"]
    assert p.strings[lab.str[0]] == ph(bad + 3) and lab.str[1] == -1
    assert p.strings[lab.num_unit[1]] == ph(bad + 4) and lab.num[1] == 9


def test_one_placeholder_per_missing_index():
    data = profile(
        strings=STRINGS,
        sample_types=[(1, 2)],
        samples=[([1], [5])],
        locations=[(1, 0, [1, 2, 3])],
        functions=[(1, 77), (2, 78), (3, 77)],
    )
    p, report = repaired(data)
    assert report == RepairReport(out_of_range_string_refs=3, placeholder_strings=2)
    assert names(p) == ["[missing string 77]", "[missing string 78]", "[missing string 77]"]
    # Distinct missing names stay distinct functions in reports.
    assert {row["name"] for row in p.top().rows()} == {"[missing string 77]", "[missing string 78]"}


@requires_go
def test_pprof_refuses_the_original_and_accepts_the_repair(tmp_path):
    from pprof_oracle import rawdumps

    data = junk_first_string(name=99)
    before, after = tmp_path / "before.pb", tmp_path / "after.pb"
    before.write_bytes(data)
    p, _ = repaired(data)
    after.write_bytes(p.to_bytes())
    dumps = rawdumps([before, after])
    assert dumps[str(before)].startswith("ERROR"), dumps[str(before)]
    assert not dumps[str(after)].startswith("ERROR") and "[missing string 99]" in dumps[str(after)]


@settings(max_examples=200, deadline=None)
@given(
    n_strings=st.integers(1, 6), first_junk=st.booleans(), codes=st.lists(st.integers(0, 12), min_size=7, max_size=7)
)
def test_generated_string_damage_is_repaired_and_counted(n_strings, first_junk, codes):
    """Names, type, unit, label key/value and a comment drawn from a range that may
    run past the table: every bad reference is counted, every good one kept."""
    table = [("junk" if first_junk and i == 0 else ("" if i == 0 else f"s{i}")) for i in range(n_strings)]
    # A label without key or value is dropped by the decoder (as by pprof): keep both set.
    codes[4], codes[5] = codes[4] or 1, codes[5] or 1
    fn1, fn2, typ, unit, key, val, comment = codes
    data = msg(
        [
            (1, [(1, typ), (2, unit)]),
            (2, [(1, 1), (2, 3), (3, [(1, key), (2, val)])]),
            (4, [(1, 1), (4, [(1, 1), (2, 1)]), (4, [(1, 2), (2, 2)])]),
            (5, [(1, 1), (2, fn1)]),
            (5, [(1, 2), (2, fn2)]),
            (13, comment),
        ]
        + [(6, s) for s in table]
    )
    bad = [c for c in codes if c >= n_strings]
    damaged = first_junk or bool(bad)
    if damaged:
        with pytest.raises(DecodeError):
            pprofcore.loads(data)
    p, report = repaired(data)
    assert report.bad_first_string == int(first_junk)
    assert report.out_of_range_string_refs == len(bad)
    assert report.placeholder_strings == len(set(bad))
    assert bool(report) == damaged

    def text(c):
        return f"[missing string {c}]" if c >= n_strings else ("" if c == 0 else f"s{c}")

    assert names(p) == [text(fn1), text(fn2)]
    assert p.sample_types == [(text(typ), text(unit))]
    assert p.comments == [text(comment)]
    assert p.strings[p.labels.key[0]] == text(key) and p.strings[p.labels.str[0]] == text(val)
