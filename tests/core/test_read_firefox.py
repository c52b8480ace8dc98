"""The Firefox Profiler's processed profiles (samply's profile.json, profiles
saved from profiler.firefox.com) read by `load`: every shape the format has
had since version 24 (tables per thread or shared, strings per thread or
shared, file names or sources, prefix or prefixOffset, the library on the
resource or the frame, times or time deltas), written by a helper from a
plain description and checked sample by sample against what that description
says (Hypothesis draws the descriptions); inlined frames folded into one
location; pprofcore's own export read back; and bad documents refused with a
DecodeError naming the JSON path."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import numpy as np
import pytest
from firefox_processed import VERSIONS, expected_samples, processed_profile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from testenv import DATA

import pprofcore
from pprofcore import DecodeError

LIBS = [("app", "/opt/app/bin/app", "aa" * 20), ("libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "bb" * 20)]
FUNCS = [
    ("main", "src/main.rs", 10, 0),
    ("work", "src/work.rs", 3, 0),
    ("inlined_helper", "src/helper.rs", None, 0),
    ("deeper_inline", "src/helper.rs", 40, 0),
    ("memcpy", None, None, 1),
    ("0x1f2e3", None, None, 0),
    ("(root)", None, None, None),
]


def _profile_samples(p: pprofcore.Profile) -> list:
    """Each sample as the helper's expected_samples spells one."""
    s = p.strings
    df = p.to_pandas("samples")
    types = [t for t, _ in p.sample_types]
    out = []
    for i in range(len(p)):
        locations = []
        for row in p.stack(i):
            lo, hi = p.locations.line_offsets[row], p.locations.line_offsets[row + 1]
            lines = []
            for k in range(lo, hi):
                f = p.lines.function[k]
                lines.append((s[p.functions.name[f]], s[p.functions.filename[f]], int(p.lines.line[k])))
            m = p.locations.mapping[row]
            path = s[p.mappings.filename[m]] if m >= 0 else ""
            locations.append((int(p.locations.address[row]), path, tuple(lines)))
        r = df.iloc[i]
        values = {t: int(r[t]) for t in types if int(r[t])}
        labels = {k: r.get(k) for k in ("thread", "tid", "pid", "process", "timestamp_ns")}
        for k, v in labels.items():
            if isinstance(v, float) and np.isnan(v):
                labels[k] = None
            elif isinstance(v, (np.integer, float)):
                labels[k] = int(v)
            elif v is not None:
                labels[k] = str(v)
        out.append({"values": values, "labels": labels, "stack": locations})
    return out


def _expected(desc: dict) -> list:
    """The helper's expected samples, zero values left out (a sample type
    the profile lacks reads as zero)."""
    got = expected_samples(desc)
    for e in got:
        e["values"] = {k: v for k, v in e["values"].items() if v}
    return got


def _load(doc: dict, tmp_path, name="p.json") -> pprofcore.Profile:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return pprofcore.load(path)


def _small(weight_type="samples") -> dict:
    """Two threads in two processes; inlined frames, a library frame, a
    frame without an address, samples without a stack, weights and CPU use."""
    inline = [(0, 11, 0x100, 0), (1, 5, 0x2A0, 0), (2, 7, 0x2A0, 1), (3, 41, 0x2A0, 2)]
    return {
        "interval": 0.5,
        "start": 1_700_000_000_000.25,
        "weight_type": weight_type,
        "libs": LIBS,
        "funcs": FUNCS,
        "threads": [
            {
                "name": "main",
                "pid": "4242",
                "tid": 4242,
                "process": "app",
                "samples": [
                    ([(6, None, None, 0), (0, 11, 0x100, 0)], 0.0, None, 500),
                    (inline, 0.5, 3, 1500),
                    (inline + [(4, None, 0x9000, 0)], 1.0, 1, None),
                    (None, 1.5, 1, 0),
                    ([(0, 12, 0x104, 0), (5, None, 0x1F2E3, 0)], 2.25, 2, 250),
                ],
            },
            {
                "name": "worker",
                "pid": "4243",
                "tid": 77,
                "samples": [([(0, 11, 0x100, 0), (1, 5, 0x2A0, 0)], 0.75, None, None)],
            },
        ],
    }


@pytest.mark.parametrize("version", VERSIONS)
def test_every_shape_reads_sample_for_sample(version, tmp_path):
    desc = _small()
    p = _load(processed_profile(desc, version, deltas=True), tmp_path)
    assert p.sample_types == [("samples", "count"), ("wall", "nanoseconds"), ("cpu", "nanoseconds")]
    assert p.default_sample_type == "samples"
    assert p.period_type == ("wall", "nanoseconds") and p.period == 500_000
    assert _profile_samples(p) == _expected(desc)
    assert f"version {version}" in p.comments[0]


def test_inlined_frames_are_one_location_with_mapping_and_build_id(tmp_path):
    p = _load(processed_profile(_small(), 66), tmp_path)
    got = _profile_samples(p)[1]["stack"]
    assert got[0] == (
        0x2A0,
        "/opt/app/bin/app",
        (("deeper_inline", "src/helper.rs", 41), ("inlined_helper", "src/helper.rs", 7), ("work", "src/work.rs", 5)),
    )
    s = p.strings
    assert {s[f]: s[b] for f, b in zip(p.mappings.filename, p.mappings.build_id)} == {
        "/opt/app/bin/app": "aa" * 20,
        "/usr/lib/x86_64-linux-gnu/libc.so.6": "bb" * 20,
    }
    assert {s[n]: int(x) for n, x in zip(p.functions.name, p.functions.start_line)}["main"] == 10


@pytest.mark.parametrize("kind", ["tracing-ms", "bytes"])
def test_traced_and_byte_weights(kind, tmp_path):
    desc = _small(kind)
    for t in desc["threads"]:
        t["samples"] = [(s, time, 2.5 if kind == "tracing-ms" else 4096, cpu) for s, time, _, cpu in t["samples"]]
    p = _load(processed_profile(desc, 60), tmp_path)
    other = ("wall", "nanoseconds") if kind == "tracing-ms" else ("space", "bytes")
    assert other in p.sample_types
    assert _profile_samples(p) == _expected(desc)


def _descriptions():
    frame = st.tuples(
        st.integers(0, len(FUNCS) - 1),
        st.one_of(st.none(), st.integers(1, 500)),
        st.sampled_from([None, 0x10, 0x20, 0x30]),
        st.just(0),
    )
    stack = st.one_of(st.none(), st.lists(frame, min_size=1, max_size=6))
    sample = st.tuples(
        stack, st.integers(0, 10_000).map(lambda q: q / 4), st.one_of(st.none(), st.integers(1, 9)), st.none()
    )
    thread = st.fixed_dictionaries(
        {
            "name": st.sampled_from(["main", "worker", "io"]),
            "pid": st.sampled_from(["1", "77", "Unknown Process 1"]),
            "tid": st.integers(1, 99_999),
            "samples": st.lists(sample, max_size=8).map(lambda xs: sorted(xs, key=lambda x: x[1])),
        }
    )
    return st.fixed_dictionaries(
        {
            "interval": st.sampled_from([0.125, 1.0, 2.5]),
            "start": st.integers(0, 2**40).map(float),
            "libs": st.just(LIBS),
            "funcs": st.just(FUNCS),
            "threads": st.lists(thread, min_size=1, max_size=3),
        }
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(desc=_descriptions(), version=st.sampled_from(VERSIONS), deltas=st.booleans())
def test_drawn_profiles_read_as_described(desc, version, deltas, tmp_path):
    p = _load(processed_profile(desc, version, deltas), tmp_path)
    assert _profile_samples(p) == _expected(desc)


def test_pprofcore_export_reads_back(tmp_path):
    original = pprofcore.load(DATA / "producers" / "small.cpuprofile")
    path = tmp_path / "out.firefox.json"
    original.save(path, format="firefox")
    back = pprofcore.load(path)
    # The export keeps one value per sample (the wall time, as tracing-ms) and each sample's time.
    assert back.total("wall") == original.total("wall")
    assert back.total("samples") == len(original)

    def by_leaf(p: pprofcore.Profile, column: str) -> Counter:
        df = p.to_pandas("samples")
        return Counter({str(k): int(v) for k, v in df.groupby("leaf_function", observed=True)[column].sum().items()})

    assert by_leaf(back, "wall") == by_leaf(original, "wall")
    t0 = np.sort(original.to_pandas("samples")["timestamp_ns"].to_numpy())
    t1 = np.sort(back.to_pandas("samples")["timestamp_ns"].to_numpy())
    assert np.abs(t0 - t1).max() <= 1000  # milliseconds as doubles: sub-microsecond rounding


def test_gzip_and_cli(tmp_path):
    doc = processed_profile(_small(), 66)
    path = tmp_path / "profile.json.gz"
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    p = pprofcore.load(path)
    assert p.total("samples") == 8
    assert pprofcore.loads(path.read_bytes()).total("samples") == 8
    from cli_run import run_cli

    rc, out, err = run_cli("-top", str(path))
    assert rc == 0, err
    assert b"work" in out and b"Firefox Profiler processed profile, version 66" in out


def test_fixture_is_what_the_helper_writes():
    desc = _small()
    fixture = DATA / "producers" / "small.firefox.json"
    assert json.loads(fixture.read_text()) == json.loads(json.dumps(processed_profile(desc, 66, deltas=True)))


def _mutated(change):
    doc = processed_profile(_small(), 66)
    change(doc)
    return doc


@pytest.mark.parametrize(
    "change, says",
    [
        (
            lambda d: d["shared"]["stackTable"]["frame"].__setitem__(0, 999),
            r"shared\.stackTable\.frame\[0\] = 999 is not an index",
        ),
        (
            lambda d: d["shared"]["stackTable"]["prefixOffset"].__setitem__(1, -3),
            r"prefixOffset\[1\] = -3 does not point back",
        ),
        (
            lambda d: d["shared"]["frameTable"]["func"].__setitem__(1, "x"),
            r"frameTable\.func\[1\] = 'x' is not a number",
        ),
        (
            lambda d: d["shared"]["funcTable"]["name"].__setitem__(0, 10**6),
            r"funcTable\.name\[0\] = 1000000 is not an index into the string array",
        ),
        (lambda d: d["threads"][0]["samples"]["time"].pop(), r"threads\[0\]\.samples has 5 stacks but 4 times"),
        (lambda d: d["threads"][0]["samples"]["stack"].__setitem__(2, 10**9), r"threads\[0\]\.samples\.stack\[2\]"),
        (lambda d: d["threads"][0]["samples"].__setitem__("weightType", "lines"), "weightType 'lines'"),
        (
            lambda d: d["threads"][0]["samples"]["weight"].__setitem__(1, "heavy"),
            r"threads\[0\]\.samples\.weight\[1\] = 'heavy' is not a number",
        ),
        (lambda d: d["meta"].__setitem__("interval", -1), r"meta\.interval = -1"),
        (lambda d: d.__setitem__("threads", {}), "no 'threads' list"),
        (lambda d: d["shared"]["stackTable"].pop("prefixOffset"), "neither 'prefix' nor 'prefixOffset'"),
        (lambda d: d["libs"].__setitem__(0, 7), r"libs\[0\] must be an object"),
    ],
)
def test_bad_documents_name_the_place(change, says, tmp_path):
    doc = _mutated(change)
    with pytest.raises(DecodeError, match="Firefox Profiler") as e:
        _load(doc, tmp_path)
    assert e.match(says)
    assert e.value.path == str(tmp_path / "p.json")


def test_a_prefix_cycle_is_refused(tmp_path):
    doc = processed_profile(_small(), 60)
    prefix = doc["shared"]["stackTable"]["prefix"]
    assert prefix[1] == 0
    prefix[0] = 1  # stack 1 calls back into itself through stack 0
    with pytest.raises(DecodeError, match="has a cycle"):
        _load(doc, tmp_path)


def test_bad_json_names_the_byte_offset(tmp_path):
    text = json.dumps(processed_profile(_small(), 66))
    path = tmp_path / "p.json"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(DecodeError, match=r"Firefox Profiler.*offset"):
        pprofcore.load(path)


NATIVE = r"""
__attribute__((noinline)) long work(int n) { long s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }
__attribute__((noinline)) long helper(int n) { return work(n) + 1; }
int main(void) { return (int)helper(3); }
"""


def test_unsymbolicated_frames_symbolize_from_the_library(tmp_path):
    """samply's profile.json before symbolication: frames named by their
    library-relative address read as addresses alone, in a mapping that
    `symbolize` resolves from the library's file (a position-independent
    one: a shared library, or an executable built as PIE, the default)."""
    flags = ["-fPIE", "-pie"]
    import shutil
    import subprocess

    if not shutil.which("gcc") or not shutil.which("nm"):
        pytest.skip("needs gcc and nm (binutils) to build a binary to symbolize against")
    (tmp_path / "prog.c").write_text(NATIVE)
    binary = tmp_path / "prog"
    subprocess.run(["gcc", "-g", "-O1", *flags, "prog.c", "-o", "prog"], cwd=tmp_path, check=True, timeout=120)
    symbols = {}
    for line in subprocess.run(["nm", str(binary)], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            symbols[parts[2]] = int(parts[0], 16)
    work, helper = symbols["work"] + 4, symbols["helper"] + 9  # relative to the image base, 0 in a PIE
    desc = {
        "interval": 1.0,
        "start": 0.0,
        "libs": [("prog", str(binary), "")],
        "funcs": [(hex(work), None, None, 0), (hex(helper), None, None, 0)],
        "threads": [
            {
                "name": "main",
                "pid": "1",
                "tid": 1,
                "samples": [([(1, None, helper, 0), (0, None, work, 0)], 0.0, 3, None)],
            }
        ],
    }
    p = _load(processed_profile(desc, 66), tmp_path)
    assert int(p.mappings.has_functions[0]) == 0
    q, report = p.symbolize()
    s = q.strings
    names = [s[q.functions.name[q.lines.function[q.locations.line_offsets[r]]]] for r in q.stack(0)]
    assert names == ["work", "helper"], str(report)
