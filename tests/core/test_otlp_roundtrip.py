"""pprof -> OTLP -> pprof gives back the same profile: on profiles made here
(hand-written with every field OTLP has no slot for, and Hypothesis-generated
profile.proto messages) and on the corpus files google/pprof accepts. The OTLP
bytes are also parsed with opentelemetry-proto (the independent oracle) to check
they are what the spec asks: zero entries first, one profile per sample type."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from pbprofile import field_names, profile_class, valid_profiles
from testenv import corpus_files, corpus_path, parses_with_pprof

import pprofcore
from pprofcore.testing import assert_profile_equal

pb = pytest.importorskip("opentelemetry.proto.profiles.v1development.profiles_pb2")


def _rich_profile() -> pprofcore.Profile:
    """A profile using every pprof field OTLP keeps in attributes."""
    msg = profile_class(True)()
    s = [
        b"",
        b"samples",
        b"count",
        b"cpu",
        b"nanoseconds",
        b"main",
        b"main.go",
        b"inlined",
        b"/bin/app",
        b"abc123",
        b"thread",
        b"worker",
        b"bytes",
        b"a comment",
        b"runtime\\..*",
        b"keep",
        b"https://doc",
        b"timestamp_ns",
        b"trace_id",
        b"span_id",
        b"0123456789abcdef0123456789abcdef",
        b"0123456789abcdef",
        b"tag",
        b"x",
        b"y",
        b"ms",
        b"ctor",
    ]
    msg.string_table.extend(s)
    ix = {v: i for i, v in enumerate(s)}
    msg.sample_type.add(type=ix[b"samples"], unit=ix[b"count"])
    msg.sample_type.add(type=ix[b"cpu"], unit=ix[b"nanoseconds"])
    msg.mapping.add(
        id=7,
        memory_start=0x1000,
        memory_limit=0x9000,
        file_offset=0x40,
        filename=ix[b"/bin/app"],
        build_id=ix[b"abc123"],
        has_functions=True,
        has_filenames=True,
        has_line_numbers=False,
        has_inline_frames=True,
    )
    msg.function.add(id=3, name=ix[b"main"], system_name=ix[b"main"], filename=ix[b"main.go"], start_line=10)
    msg.function.add(id=9, name=ix[b"inlined"], filename=ix[b"main.go"], start_line=20)
    msg.function.add(id=4, name=ix[b"ctor"], filename=ix[b"main.go"], start_line=2)
    loc = msg.location.add(id=5, mapping_id=7, address=0x1234, is_folded=True)
    loc.line.add(function_id=9, line=21, column=4)
    loc.line.add(function_id=3, line=12, column=1)
    msg.location.add(id=6, mapping_id=7, address=0x2000).line.add(function_id=3, line=15)
    msg.location.add(id=8, address=0x77).line.add(function_id=4, line=3)
    for i, (stack, labels) in enumerate(
        [
            (
                [5, 6],
                [dict(key=ix[b"thread"], str=ix[b"worker"]), dict(key=ix[b"bytes"], num=512, num_unit=ix[b"bytes"])],
            ),
            ([6], [dict(key=ix[b"timestamp_ns"], num=1_700_000_000_000_000_123, num_unit=ix[b"nanoseconds"])]),
            (
                [5],
                [
                    dict(key=ix[b"trace_id"], str=ix[b"0123456789abcdef0123456789abcdef"]),
                    dict(key=ix[b"span_id"], str=ix[b"0123456789abcdef"]),
                ],
            ),
            ([], [dict(key=ix[b"tag"], str=ix[b"x"]), dict(key=ix[b"tag"], str=ix[b"y"])]),  # a key twice
            (
                [8, 6],
                [dict(key=ix[b"tag"], num=1, num_unit=ix[b"ms"]), dict(key=ix[b"tag"], num=2, num_unit=ix[b"bytes"])],
            ),
            (
                [5, 6],
                [dict(key=ix[b"thread"], str=ix[b"worker"]), dict(key=ix[b"bytes"], num=512, num_unit=ix[b"bytes"])],
            ),
        ]
    ):
        smp = msg.sample.add(location_id=stack, value=[i + 1, (i - 2) * 1000])  # negative and zero values too
        for lab in labels:
            smp.label.add(**lab)
    msg.period_type.type = ix[b"cpu"]
    msg.period_type.unit = ix[b"nanoseconds"]
    msg.period = 10_000_000
    msg.time_nanos = 1_700_000_000_000_000_000
    msg.duration_nanos = 5_000_000_000
    msg.comment.extend([ix[b"a comment"], ix[b"keep"]])
    msg.drop_frames = ix[b"runtime\\..*"]
    msg.keep_frames = ix[b"keep"]
    msg.default_sample_type = ix[b"cpu"]
    msg.doc_url = ix[b"https://doc"]
    return pprofcore.loads(msg.SerializeToString())


def _same(p: pprofcore.Profile, q: pprofcore.Profile) -> None:
    """Canonically equal, sample by sample in order, and the per-row fields the
    canonical form leaves out (mapping flags, function start lines, columns)."""
    assert_profile_equal(p, q, check_order=True)
    q._core.check_invariants()

    def rows(t, cols, strs):
        return sorted(
            tuple(strs[v] if c in ("filename", "build_id", "name", "system_name") else v for c, v in zip(cols, r))
            for r in zip(*(getattr(t, c).tolist() for c in cols))
        )

    mcols = field_names("Mapping")[1:]  # all but the id
    fcols = ["name", "system_name", "filename", "start_line"]
    sp, sq = list(p.strings), list(q.strings)
    used_maps = np.unique(p.locations.mapping[p.stack_locations]) if len(p.stack_locations) else []
    pm = [r for r in rows(p.mappings, mcols, sp)]
    qm = rows(q.mappings, mcols, sq)
    assert set(qm) <= set(pm) and len(qm) == len([m for m in used_maps if m >= 0])
    assert set(rows(q.functions, fcols, sq)) <= set(rows(p.functions, fcols, sp))
    assert sorted(q.lines.column.tolist()) == sorted(
        p.lines.column[
            np.concatenate(
                [
                    np.arange(p.locations.line_offsets[i], p.locations.line_offsets[i + 1])
                    for i in np.unique(p.stack_locations)
                ]
                or [np.zeros(0, int)]
            )
        ].tolist()
    )


def test_rich_profile_round_trips():
    p = _rich_profile()
    q = pprofcore.loads(p.to_otlp())
    _same(p, q)
    assert q.comments == ["a comment", "keep"] and q.doc_url == "https://doc"
    assert q.drop_frames == "runtime\\..*" and q.keep_frames == "keep" and q.default_sample_type == "cpu"
    assert q.locations.is_folded.tolist().count(1) == 1
    # gzip-compressed OTLP reads the same
    assert pprofcore.loads(p.to_otlp(compress=True)) == q


def test_written_bytes_follow_the_spec():
    p = _rich_profile()
    m = pb.ProfilesData()
    m.ParseFromString(p.to_otlp(resource={"service.name": "app", "n": 3, "ok": True, "xs": [1, 2]}))
    d = m.dictionary
    assert d.string_table[0] == ""
    for table in (d.mapping_table, d.location_table, d.function_table, d.link_table, d.attribute_table, d.stack_table):
        assert table[0].ByteSize() == 0  # the zero entry
    profiles = m.resource_profiles[0].scope_profiles[0].profiles
    assert [
        (d.string_table[x.sample_type.type_strindex], d.string_table[x.sample_type.unit_strindex]) for x in profiles
    ] == p.sample_types
    assert m.resource_profiles[0].scope_profiles[0].scope.name == "pprofcore"
    attrs = {a.key: a.value for a in m.resource_profiles[0].resource.attributes}
    assert attrs["service.name"].string_value == "app" and attrs["n"].int_value == 3 and attrs["ok"].bool_value
    s = profiles[0].samples
    assert len(s) == len(p)
    assert [list(x.timestamps_unix_nano) for x in s][1] == [1_700_000_000_000_000_123]
    link = d.link_table[s[2].link_index]
    assert link.trace_id.hex() == "0123456789abcdef0123456789abcdef" and link.span_id.hex() == "0123456789abcdef"
    keys = {d.string_table[a.key_strindex] for a in d.attribute_table[1:]}
    assert {
        "pprof.mapping.has_functions",
        "pprof.location.is_folded",
        "pprof.profile.comment",
        "process.executable.build_id.gnu",
    } <= keys


def test_save_as_otlp(tmp_path):
    p = _rich_profile()
    p.save(tmp_path / "x.otlp", format="otlp")
    assert (tmp_path / "x.otlp").read_bytes()[:2] != b"\x1f\x8b"
    _same(p, pprofcore.load(tmp_path / "x.otlp"))
    p.save(tmp_path / "x.otlp.gz", format="otlp", compress=True)
    assert gzip.decompress((tmp_path / "x.otlp.gz").read_bytes()) == p.to_otlp()
    with pytest.raises(ValueError, match="format"):
        p.save(tmp_path / "y", format="json")


def test_profile_without_sample_types_is_refused():
    msg = profile_class(True)()
    msg.string_table.append(b"")
    p = pprofcore.loads(msg.SerializeToString())
    with pytest.raises(pprofcore.ProfileError, match="sample types"):
        p.to_otlp()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles())
def test_generated_profiles_round_trip(msg):
    p = pprofcore.loads(msg.SerializeToString())
    if not p.sample_types:
        return  # no OTLP form (test_profile_without_sample_types_is_refused)
    q = pprofcore.loads(p.to_otlp())
    _same(p, q)
    # pprof's duplicate strings may regroup labels on the second trip; after
    # that, a trip changes nothing at all.
    r = pprofcore.loads(q.to_otlp())
    assert pprofcore.loads(r.to_otlp()) == r


def _diverse(limit_per_dir: int = 3, max_bytes: int = 256 << 10):
    """A few small accepted files from each producer directory (the whole corpus
    takes minutes; test_corpus_round_trip_everything runs it on request)."""
    seen: dict = {}

    def pred(row) -> bool:
        size = row.get("uncompressed_bytes", "")
        if not parses_with_pprof(row) or (size.isdigit() and int(size) > max_bytes):
            return False
        top = row["file"].split("/")[0] if not row["file"].startswith("/") else "local"
        seen[top] = seen.get(top, 0) + 1
        return seen[top] <= limit_per_dir

    return pred


def _round_trip(path) -> None:
    p = pprofcore.load(path)
    if not p.sample_types:
        pytest.skip("no sample types: no OTLP form")
    _same(p, pprofcore.loads(p.to_otlp()))


@pytest.mark.parametrize("row", corpus_files(_diverse()))
def test_corpus_round_trip(row, corpus_dir):
    _round_trip(corpus_path(row))


@pytest.mark.slow
def test_corpus_round_trip_everything(corpus_dir):
    """Every corpus file google/pprof accepts (minutes): PPROFCORE_OTLP_FULL_CORPUS=1."""
    if not os.environ.get("PPROFCORE_OTLP_FULL_CORPUS"):
        pytest.skip("set PPROFCORE_OTLP_FULL_CORPUS=1 to round-trip every corpus file (minutes)")
    rows = [p.values[0] for p in corpus_files(parses_with_pprof) if p.values[0] is not None]
    for row in rows:
        p = pprofcore.load(corpus_path(row))
        if p.sample_types:
            _same(p, pprofcore.loads(p.to_otlp()))


def test_cli_writes_otlp(tmp_path):
    from pprofcore.cli import main

    src = tmp_path / "in.pb.gz"
    p = _rich_profile()
    p.save(src)
    assert main(["-proto", f"-output={tmp_path / 'out.otlp'}", str(src)]) == 0
    assert (tmp_path / "out.otlp").read_bytes()[:2] != b"\x1f\x8b"
    # -proto writes what pprof writes: the sources merged (equal samples joined),
    # then its name filter, which always runs, drops the sample with an empty stack
    _same(p.compact().filter(), pprofcore.load(tmp_path / "out.otlp"))
    assert main(["merge", "-o", str(tmp_path / "m.otlp.gz"), str(src)]) == 0
    assert (tmp_path / "m.otlp.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert main(["filter", "--format", "otlp", "-o", str(tmp_path / "f.bin"), str(src)]) == 0
    assert len(pprofcore.load_otlp(tmp_path / "f.bin")) == 1
