"""Inputs with many labels per sample or many sample types: results in pprof's
order, and work that grows with the input, not its square.

Nothing here asserts a timing. The million-label case runs in a subprocess with
a generous limit (the old insertion sort needed minutes for it); the sample-type
cases count the string look-ups the Python layer makes instead of timing them.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import wirebuild as wb
from testenv import HELPERS, go_helper, pprofcore_env, requires_go

import pprofcore
from pprofcore import _profile

# String table: 0 "", 1 samples, 2 count, 3 main, 4 bytes, then keys k0..k9, then values v0..v9.
KEYS = 10
STRINGS = (
    ("", "samples", "count", "main", "bytes")
    + tuple(f"k{i}" for i in range(KEYS))
    + tuple(f"v{i}" for i in range(KEYS))
)
KEY0, VAL0 = 5, 5 + KEYS


def _labels(n: int, seed: int) -> list:
    """n labels with interleaved keys, string and numeric, so only a stable sort
    by (numeric?, key) gives pprof's order."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        k = KEY0 + int(rng.integers(KEYS))
        if rng.random() < 0.5:
            out.append(wb.label(k, VAL0 + int(rng.integers(KEYS))))
        else:
            out.append(wb.label(k, num=int(rng.integers(1, 1000)), num_unit=4 if rng.random() < 0.3 else 0))
    return out


def _label_heavy(n_labels: int, samples: int = 3) -> bytes:
    return wb.profile(
        sample_types=[wb.value_type(1, 2)],
        samples=[wb.sample([1], [s + 1], _labels(n_labels, seed=s)) for s in range(samples)],
        locations=[wb.location(1, 0, 0, [wb.line(1)])],
        functions=[wb.function(1, 3)],
        strings=STRINGS,
    )


def _label_rows(p: pprofcore.Profile) -> list:
    """Each sample's labels as (key, str or None, num, unit) strings, in stored order."""
    s = p.strings
    lab, off = p.labels, p.label_offsets
    out = []
    for i in range(len(p)):
        rows = []
        for j in range(off[i], off[i + 1]):
            st = int(lab.str[j])
            rows.append((s[int(lab.key[j])], None if st < 0 else s[st], int(lab.num[j]), s[int(lab.num_unit[j])]))
        out.append(rows)
    return out


def _check_grouped_like_pprof(rows: list, original: list) -> None:
    """pprof keeps labels as maps (key -> values in order), string labels apart
    from numeric ones: the output holds the same labels, string labels first,
    each key's labels contiguous and in their original relative order."""
    assert sorted(map(repr, rows)) == sorted(map(repr, original))
    kinds = [r[1] is None for r in rows]
    assert kinds == sorted(kinds), "numeric label before a string label"
    for numeric in (False, True):
        part = [r for r in rows if (r[1] is None) == numeric]
        keys = [r[0] for r in part]
        runs = [k for i, k in enumerate(keys) if i == 0 or keys[i - 1] != k]
        assert len(runs) == len(set(runs)), "a key's labels are not contiguous"
        for k in set(keys):
            assert [r for r in part if r[0] == k] == [r for r in original if r[0] == k and (r[1] is None) == numeric]


@pytest.mark.parametrize("n_labels", [5, 33, 400], ids=lambda n: f"{n}-labels")
def test_labels_grouped_like_pprof_in_every_transform(n_labels):
    p = pprofcore.loads(_label_heavy(n_labels))
    original = _label_rows(p)
    m = pprofcore.Merger()
    m.add(p)
    outputs = {
        "compact": p.compact(),
        "merge": pprofcore.merge([p, p]),
        "Merger": m.result(),
    }
    for name, q in outputs.items():
        got = _label_rows(q)
        assert len(got) == len(original), name
        # Samples keep their order of first appearance.
        for rows, orig in zip(got, original):
            _check_grouped_like_pprof(rows, orig)
    assert outputs["compact"] == outputs["Merger"]


@requires_go
def test_label_order_matches_google_pprof_compact(tmp_path):
    src = tmp_path / "labels.pb"
    src.write_bytes(_label_heavy(300))
    out = tmp_path / "go.pb.gz"
    subprocess.run([go_helper("mergeref"), "compact", str(out), str(src)], check=True)
    ours = pprofcore.load(src).compact()
    theirs = pprofcore.load(out)

    # The same label multiset per sample (pprof orders keys by name, pprofcore by
    # first appearance; both group a key's values in their original order).
    def canon(p):
        return sorted(repr(sorted(rows, key=repr)) for rows in _label_rows(p))

    assert canon(ours) == canon(theirs)


_MILLION_LABELS = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import wirebuild as wb, pprofcore
    n = 1_000_000
    # 1000 distinct labels (10 keys, interleaved) repeated: a sort by key must move most of them.
    block = b"".join(wb.ld(3, wb.label(5 + (i * 7) % 10, 15 + i % 10)) for i in range(1000))
    sample = wb.packed(1, [1]) + wb.packed(2, [1]) + block * (n // 1000)
    data = wb.profile(sample_types=[wb.value_type(1, 2)], samples=[sample],
                      locations=[wb.location(1, 0, 0, [wb.line(1)])], functions=[wb.function(1, 3)],
                      strings=("", "samples", "count", "main", "bytes") + tuple(f"k{i}" for i in range(10))
                      + tuple(f"v{i}" for i in range(10)))
    p = pprofcore.loads(data)
    assert len(p.labels.key) == n
    c = p.compact()
    assert len(c.labels.key) == n and (list(c.labels.key[:3]) == [c.labels.key[0]] * 3)
    assert len(pprofcore.merge([p, p]).labels.key) == n
    m = pprofcore.Merger(); m.add(p); m.add(p)
    assert m.result().values.sum() == 2
    dc = pprofcore.DeltaComputer()
    dc.delta(p)
    assert len(dc.delta(p)) == 0  # the second call keys every sample (sorting its labels)
    print("ok")
""")


def test_a_million_labels_in_one_sample_is_not_quadratic(tmp_path):
    # Before the fix each of the four transforms took minutes here (insertion sort).
    r = subprocess.run(
        [sys.executable, "-c", _MILLION_LABELS, str(HELPERS)],
        capture_output=True,
        text=True,
        timeout=300,
        env=pprofcore_env(),
    )
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


# ---------------------------------------------------------- many sample types

N_TYPES = 300


def _many_types(n: int = N_TYPES, unit: str = "count") -> pprofcore.Profile:
    strings = ("", "main", unit) + tuple(f"t{i}" for i in range(n))
    return pprofcore.loads(
        wb.profile(
            sample_types=[wb.value_type(3 + i, 2) for i in range(n)],
            samples=[wb.sample([1], list(range(1, n + 1)))],
            locations=[wb.location(1, 0, 0, [wb.line(1)])],
            functions=[wb.function(1, 1)],
            strings=strings,
        )
    )


@pytest.fixture
def string_lookups(monkeypatch):
    """Counts the Profile string look-ups the Python layer makes."""
    calls = [0]
    original = _profile.Profile._s

    def counting(self, code):
        calls[0] += 1
        return original(self, code)

    monkeypatch.setattr(_profile.Profile, "_s", counting)
    return calls


@pytest.mark.parametrize(
    "op",
    [
        pytest.param(lambda p, names: p.select_sample_types(names), id="select_sample_types"),
        pytest.param(lambda p, names: [p.total(n) for n in names], id="total-per-type"),
        pytest.param(lambda p, names: pprofcore.merge([p, p], compatible="intersect"), id="merge-intersect"),
        pytest.param(lambda p, names: pprofcore.harmonize_units([p, p]), id="harmonize_units"),
    ],
)
def test_many_sample_types_are_looked_up_once(op, string_lookups):
    p = _many_types()
    names = [t for t, _ in p.sample_types]
    string_lookups[0] = 0
    op(p, names)
    # Building the type list once costs 2 look-ups per type; the old loops rebuilt
    # it per type (N_TYPES^2 look-ups).
    assert string_lookups[0] <= 4 * N_TYPES, string_lookups[0]


def test_sample_types_is_a_fresh_list_each_time():
    p = _many_types(3)
    types = p.sample_types
    types.append(("x", "y"))
    assert len(p.sample_types) == 3
