"""Reading the older protobuf layouts of OpenTelemetry's profiles signal
(opentelemetry-proto v1.7.0, v1.8.0, v1.9.0): random v1.10.0 messages built
with the installed opentelemetry-proto and downgraded by hand
(tests/helpers/otlp_older.py) read as the v1.10.0 message does; v1.7.0's
profiles of several sample types read as the pprof profile they were written
from; fixtures made with the generated classes of older releases
(tests/data/otlp-older) read to their expected content; the corpus's
async-profiler file against a walk of its bytes; and every error of the older
layouts names its field and offset."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from otlp_dictionary import Dict
from otlp_older import LAYOUTS, downgrade, fields, ints, to_v1_7, v1_7_from_profile, v1_7_to_v1_6, walk
from testenv import CORPUS
from wirebuild import ld, packed, text, vint

import pprofcore
from pprofcore import DecodeError
from pprofcore._build import ProfileBuilder

pb = pytest.importorskip("opentelemetry.proto.profiles.v1development.profiles_pb2")

ASYNC_PROFILER = CORPUS / "odd/pyroscope__pkg_test_integration_testdata_async-profiler-link-table.pb.bin~17ff5614"
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "otlp-older"
TRACE, SPAN = bytes(range(16)), bytes(range(8, 16))


# Units are per key (v1.7.0 gives one unit per attribute key).
UNITS = {"size": "bytes", "count": "", "latency": "nanoseconds"}


def random_message(rng: random.Random, min_samples: int = 0):
    """Resources of scopes of profiles in runs that join (same header, the same
    samples but for their values) and runs that do not (another period):
    samples of every shape, attributes of every kind, links, mappings with
    build ids and flags, folded and inlined locations, comments and a default
    sample type."""
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    for k in range(rng.randint(1, 3)):
        attrs = [d.attr("process.executable.build_id.gnu", string_value=f"b{k}")]
        attrs += [d.attr(f"pprof.mapping.{f}", bool_value=True) for f in ("has_functions", "has_line_numbers")]
        d.d.mapping_table.add(
            memory_start=0x1000 * (k + 1),
            memory_limit=0x1000 * (k + 2),
            file_offset=k * 16,
            filename_strindex=d.s(f"/lib/m{k}.so"),
            attribute_indices=attrs[: rng.randint(0, 3)],
        )
    for k in range(rng.randint(2, 8)):
        d.d.function_table.add(
            name_strindex=d.s(f"fn{k}"),
            system_name_strindex=d.s(f"_Z{k}") if rng.random() < 0.3 else 0,
            filename_strindex=d.s(f"f{k % 3}.c"),
            start_line=rng.randrange(100),
        )
    folded = d.attr("pprof.location.is_folded", bool_value=True)
    for _ in range(rng.randint(2, 10)):
        loc = d.d.location_table.add(
            mapping_index=rng.randrange(len(d.d.mapping_table)), address=rng.randrange(1 << rng.choice([8, 20, 48]))
        )
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            loc.lines.add(
                function_index=rng.randrange(1, len(d.d.function_table)),
                line=rng.randrange(500),
                column=rng.choice([0, 0, 7]),
            )
        if rng.random() < 0.2:
            loc.attribute_indices.append(folded)
    for _ in range(rng.randint(1, 6)):
        d.d.stack_table.add(
            location_indices=[rng.randrange(1, len(d.d.location_table)) for _ in range(rng.randint(0, 6))]
        )
    for _ in range(rng.randint(0, 2)):
        d.d.link_table.add(trace_id=rng.randbytes(16), span_id=rng.randbytes(8))
    pool = [
        d.attr("thread.name", string_value=rng.choice(["main", "w1", ""])),
        d.attr("size", unit="bytes", int_value=rng.randrange(1 << 20)),
        d.attr("count", int_value=-rng.randrange(100)),
        d.attr("latency", unit="nanoseconds", int_value=rng.randrange(1 << 40)),
        d.attr("hot", bool_value=rng.random() < 0.5),
        d.attr("ratio", double_value=rng.random()),
        d.attr("raw", bytes_value=rng.randbytes(3)),
        d.attr("tags", array=[]),
    ]
    tags = d.d.attribute_table[pool[-1]].value.array_value.values
    tags.add(string_value="a")
    tags.add(int_value=3)
    for _ in range(rng.randint(1, 2)):
        rp = m.resource_profiles.add(schema_url=rng.choice(["", "https://schema/r"]))
        if rng.random() < 0.7:
            rp.resource.attributes.add(key="service.name").value.string_value = rng.choice(["api", "db"])
            rp.resource.attributes.add(key="host.cpus").value.int_value = rng.randrange(64)
        for _ in range(rng.randint(1, 2)):
            sp = rp.scope_profiles.add(schema_url=rng.choice(["", "https://schema/s"]))
            if rng.random() < 0.7:
                sp.scope.name, sp.scope.version = "profiler", rng.choice(["1", "2.0"])
            for run in range(rng.randint(1, 3)):
                _add_run(rng, d, sp, pool, period=run + 1, min_samples=min_samples)
    return m


def _add_run(rng, d, sp, pool, period: int, min_samples: int) -> None:
    """1-3 profiles that join: one header, the same samples but for their values."""
    types = rng.sample(["samples", "cpu", "alloc_space", "wall"], rng.randint(1, 3))
    header = []
    if rng.random() < 0.3:
        header.append(d.attr("pprof.profile.comment", array=[]))
        for c in rng.sample(["built by hand", "second", "x=1"], rng.randint(1, 2)):
            d.d.attribute_table[header[-1]].value.array_value.values.add(string_value=c)
    if rng.random() < 0.3:
        header.append(d.attr("pprofcore.default_sample_type", string_value=rng.choice(types)))
    if rng.random() < 0.3 or header:
        # With another attribute (Profile field 12) a v1.8.0 profile's comments are
        # not v1.10.0's profile_id (test_v1_8_0_comments_alone_are_not_a_profile_id).
        header.append(d.attr("deployment", string_value="blue"))
    shapes = []
    for _ in range(rng.randint(min_samples, 8)):
        n = rng.randint(1, 3)
        shape = rng.choice(["values", "timestamps", "pairs"])
        times = sorted(rng.randrange(1, 1 << 62) for _ in range(n)) if shape != "values" else []
        fields_ = dict(
            stack_index=rng.randrange(len(d.d.stack_table)),
            attribute_indices=rng.sample(pool, rng.randint(0, 3)),
            link_index=rng.randrange(len(d.d.link_table)),
            timestamps_unix_nano=times,
        )
        shapes.append((0 if shape == "timestamps" else n, fields_))
    profile_id = rng.randbytes(16) if rng.random() < 0.5 else b""
    dropped = rng.choice([0, 2])
    for t in types:
        p = sp.profiles.add(
            time_unix_nano=rng.choice([0, 1_700_000_000_000_000_000]),
            duration_nano=10_000,
            period=period,
            profile_id=profile_id,
            dropped_attributes_count=dropped,
        )
        p.sample_type.type_strindex, p.sample_type.unit_strindex = d.s(t), d.s("count" if t == "samples" else "ns")
        if period % 2:
            p.period_type.type_strindex, p.period_type.unit_strindex = d.s("cpu"), d.s("nanoseconds")
        p.attribute_indices.extend(header)
        for n, fields_ in shapes:
            p.samples.add(values=[rng.randrange(-5, 1 << rng.choice([7, 30, 62])) for _ in range(n)], **fields_)
    # profile_id, time and period repeat in the next run only by chance; a
    # different period keeps runs apart whatever their samples.


def _context(o):
    return (
        o.resource,
        o.scope_name,
        o.scope_version,
        o.scope_attributes,
        o.attributes,
        o.profile_id,
        o.resource_schema_url,
        o.scope_schema_url,
        o.dropped_attributes_count,
        o.resource_index,
        o.scope_index,
    )


def content(p: pprofcore.Profile) -> dict:
    """What a pprof profile says, independent of string and row order: each
    sample as (frames leaf first, values, sorted labels), frames with their
    mapping and lines."""
    s = p._s
    mp, loc, ln, fn, lab = p.mappings, p.locations, p.lines, p.functions, p.labels

    def mapping(i):
        if i < 0:
            return None
        flags = [int(getattr(mp, f)[i]) for f in ("has_functions", "has_filenames", "has_line_numbers")]
        flags.append(int(mp.has_inline_frames[i]))
        return [int(mp.memory_start[i]), int(mp.memory_limit[i]), int(mp.file_offset[i])] + [
            s(mp.filename[i]),
            s(mp.build_id[i]),
            flags,
        ]

    def frame(x):
        lines = [
            [
                s(fn.name[f]),
                s(fn.system_name[f]),
                s(fn.filename[f]),
                int(fn.start_line[f]),
                int(ln.line[k]),
                int(ln.column[k]),
            ]
            for k in range(int(loc.line_offsets[x]), int(loc.line_offsets[x + 1]))
            for f in [int(ln.function[k])]
        ]
        return [int(loc.address[x]), mapping(int(loc.mapping[x])), bool(loc.is_folded[x]), lines]

    def labels(i):
        out = []
        for r in range(int(p.label_offsets[i]), int(p.label_offsets[i + 1])):
            if lab.str[r] >= 0:
                out.append([s(lab.key[r]), s(lab.str[r])])
            else:
                out.append([s(lab.key[r]), int(lab.num[r]), s(lab.num_unit[r])])
        return sorted(out, key=json.dumps)

    return {
        "sample_types": [list(t) for t in p.sample_types],
        "default_sample_type": p.default_sample_type,
        "period_type": list(p.period_type) if p.period_type else None,
        "period": p.period,
        "time_nanos": p.time_nanos,
        "duration_nanos": p.duration_nanos,
        "comments": list(p.comments),
        "samples": [
            [[frame(int(x)) for x in p.stack(i)], [int(v) for v in p.values[i]], labels(i)] for i in range(len(p))
        ],
    }


def _split(o, k: int) -> dict:
    """Sample type k of a joined profile, as its own profile reads."""
    c = content(o.profile)
    c["sample_types"] = [c["sample_types"][k]]
    for row in c["samples"]:
        row[1] = [row[1][k]]
    return c


# ------------------------------------------------------------ differential


@pytest.mark.parametrize("layout", LAYOUTS)
def test_random_messages_read_as_their_v1_10_0_message(layout):
    """60 random messages per layout: each profile of the older message reads
    as the v1.10.0 one, the pprof profile equal (v1.7.0: the profiles that join
    written as one profile of several sample types) and its context alike.
    """
    rng = random.Random(f"otlp-older-{layout}")
    for _ in range(60):
        m = random_message(rng)
        new = pprofcore.load_otlp(m.SerializeToString())
        data = to_v1_7(m, join=True) if layout == "v1.7.0" else downgrade(m, layout)
        old = pprofcore.load_otlp(data)
        assert len(old) == len(new)
        for k, (o, n) in enumerate(zip(old, new)):
            assert _context(o) == _context(n)
            assert content(o.profile) == content(n.profile), layout
            if layout != "v1.7.0":  # v1.7.0's: test_v1_7_0_profile_indices_name_the_profile_read
                assert o.profile_indices == n.profile_indices


def test_v1_7_0_profiles_of_one_sample_type_each_read_as_the_types_of_the_join():
    """Written one sample type per v1.7.0 profile, the profiles that v1.10.0
    joins stay apart: each is that type of the joined profile. (Every profile
    has samples here: test_v1_7_0_profiles_without_samples_stay_apart.)"""
    rng = random.Random(17)
    for _ in range(50):
        m = random_message(rng, min_samples=1)
        new = pprofcore.load_otlp(m.SerializeToString())
        old = pprofcore.load_otlp(to_v1_7(m))
        want = [_split(n, k) for n in new for k in range(len(n.profile_indices))]
        assert [content(o.profile) for o in old] == want


# ------------------------------------------------- several sample types


def _made_profile(seed: int) -> pprofcore.Profile:
    """A pprof profile of three sample types: mappings with build ids, inlined
    frames, string and numeric labels, timestamps, comments and a default type."""
    rng = random.Random(seed)
    b = ProfileBuilder([("samples", "count"), ("cpu", "nanoseconds"), ("alloc_space", "bytes")])
    b.period_type, b.period = ("cpu", "nanoseconds"), 10_000_000
    b.time_nanos, b.duration_nanos = 1_700_000_000_000_000_000, 5_000_000_000
    b.comments, b.default_sample_type = ["made by a test"], "cpu"
    mappings = [b.mapping("/bin/app", build_id="abc"), b.mapping("/lib/libc.so")]
    fns = [b.function(f"f{k}", f"f{k}.c", start_line=k) for k in range(6)]
    locations = [b.location(fns[k], line=10 + k, address=0x1000 + k, mapping_id=rng.choice(mappings)) for k in range(6)]
    locations.append(b.location_lines([(fns[0], 3), (fns[1], 4)]))
    for _ in range(rng.randint(1, 40)):
        stack = rng.sample(locations, rng.randint(1, 4))
        strs = [("thread", rng.choice(["main", "io"]))] if rng.random() < 0.5 else []
        nums = [("bytes", rng.randrange(1 << 30), "bytes")] if rng.random() < 0.5 else []
        if rng.random() < 0.5:
            nums.append(("timestamp_ns", rng.randrange(1, 1 << 60), "nanoseconds"))
        b.add(stack, [rng.randrange(100), rng.randrange(1 << 40), rng.randrange(1 << 20)], strs, nums)
    return b.build()


@pytest.mark.parametrize("seed", range(6))
def test_v1_7_0_profile_of_several_sample_types_reads_as_the_pprof_profile(seed):
    """A pprof profile written as one v1.7.0 profile (every sample type, its
    default): the same samples, stacks, labels, types and default."""
    src = _made_profile(seed)
    data = v1_7_from_profile(src, resource={"service.name": "api"})
    [got] = pprofcore.load_otlp(data)
    assert got.resource == {"service.name": "api"}
    assert content(got.profile) == content(src)
    assert pprofcore.loads(data) == got.profile
    assert got.profile.default_sample_type == "cpu"


def test_v1_7_0_sample_of_several_timestamps_keeps_its_values_once():
    """v1.7.0 did not pair values with timestamps: a sample with values and
    three timestamps is one pprof sample with a timestamp_ns label for each; a
    sample without values is one sample of value 1 per timestamp."""
    strings = ["", "samples", "count", "f"]
    d = b"".join(ld(5, t.encode()) for t in strings)
    d = ld(3, vint(1, 3)) + ld(2, ld(3, vint(1, 0))) + d
    prof = ld(1, vint(1, 1) + vint(2, 2)) + packed(3, [0])
    prof += ld(2, vint(2, 1) + packed(3, [7]) + packed(6, [30, 10, 20]))
    prof += ld(2, vint(2, 1) + packed(6, [40, 50]))
    data = ld(1, ld(2, ld(2, prof))) + ld(2, d)
    p = pprofcore.loads(data)
    c = content(p)
    stamps = [["timestamp_ns", t, "nanoseconds"] for t in (10, 20, 30)]
    assert c["samples"][0][1:] == [[7], stamps]
    assert [row[1:] for row in c["samples"][1:]] == [
        [[1], [["timestamp_ns", 40, "nanoseconds"]]],
        [[1], [["timestamp_ns", 50, "nanoseconds"]]],
    ]
    assert [f[3][0][0] for f in c["samples"][0][0]] == ["f"]


# ------------------------------------------------------------- fixtures


@pytest.mark.parametrize("name", ["v1_7_0", "v1_8_0", "v1_9_0", "v1_10_0"])
def test_fixture_of_the_release_reads_to_its_expected_content(name):
    """Messages checked with the generated classes of opentelemetry-proto's
    releases (tests/data/otlp-older/make_fixtures.py) read to the content
    worked out for them in plain Python (the same in every layout)."""
    want = json.loads((FIXTURES / "expected.json").read_text())
    [got] = pprofcore.load_otlp(FIXTURES / f"{name}.pb")
    assert got.resource == want["resource"]
    assert [got.scope_name, got.scope_version] == want["scope"]
    assert got.attributes == want["attributes"]
    if name != "v1_7_0":  # v1.7.0's: test_v1_7_0_profile_indices_name_the_profile_read
        assert got.profile_indices == (0, 1)
    c = content(got.profile)
    for k in (
        "sample_types",
        "default_sample_type",
        "comments",
        "period_type",
        "period",
        "time_nanos",
        "duration_nanos",
    ):
        assert c[k] == want[k], k
    assert [[[[ln[0] for ln in f[3]] for f in frames], values, labels] for frames, values, labels in c["samples"]] == (
        want["samples"]
    )
    frames = [f for frames, _, _ in c["samples"] for f in frames]
    assert sorted({f[0] for f in frames if f[2]}) == want["folded_addresses"]
    mapped = {json.dumps(f[1]) for f in frames if f[1]}
    assert [json.loads(x)[3:] for x in mapped] == [
        [want["mapping"]["filename"], want["mapping"]["build_id"], want["mapping"]["flags"]]
    ]


# ------------------------------------------------- the corpus's async-profiler file


def _walked_v1_7(data: bytes) -> list:
    """Per profile: (sample type names, pprof samples, total per type) from a
    walk of the v1.7.0 bytes (a sample without values counts its timestamps)."""
    [dictionary] = walk(data, 2)
    strings = [v.decode() for n, wt, v in fields(dictionary) if n == 5]
    out = []
    for prof in walk(data, 1, 2, 2):
        types = [dict((n, v) for n, wt, v in fields(vt)) for vt in walk(prof, 1)]
        names = [(strings[t.get(1, 0)], strings[t.get(2, 0)]) for t in types]
        count, totals = 0, [0] * len(names)
        for smp in walk(prof, 2):
            values = [x for n, wt, v in fields(smp) if n == 3 for x in ints(wt, v)]
            times = [x for n, wt, v in fields(smp) if n == 6 for x in ints(wt, v)]
            if values:
                count += 1
                totals = [a + b for a, b in zip(totals, values)]
            else:
                count += len(times)
                totals = [a + len(times) for a in totals]
        out.append((names, count, totals))
    return out


@pytest.mark.skipif(not ASYNC_PROFILER.exists(), reason=f"{ASYNC_PROFILER} not found (the corpus is not here)")
def test_async_profiler_file_reads_as_a_walk_of_its_bytes():
    data = ASYNC_PROFILER.read_bytes()
    want = _walked_v1_7(data)
    got = pprofcore.load_otlp(ASYNC_PROFILER)
    assert len(want) == len(got) == 1
    for o, (names, count, totals) in zip(got, want):
        assert o.profile.sample_types == names
        assert len(o.profile) == count > 0
        assert [o.profile.total(k) for k in range(len(names))] == totals
    assert pprofcore.load(ASYNC_PROFILER) == got[0].profile


# --------------------------------------------------------------- errors


def _v1_7(profile_fields: bytes, strings=("", "samples", "count", "f")) -> bytes:
    """A v1.7.0 message: one function f, one location of it, and a profile."""
    d = ld(3, vint(1, 3)) + ld(2, ld(3, vint(1, 0))) + b"".join(text(5, t) for t in strings)
    return ld(1, ld(2, ld(2, profile_fields))) + ld(2, d)


TWO_TYPES = ld(1, vint(1, 1) + vint(2, 2)) + ld(1, vint(1, 1) + vint(2, 2))


@pytest.mark.parametrize(
    "profile_fields, field, says",
    [
        pytest.param(
            TWO_TYPES + packed(3, [0]) + ld(2, vint(2, 1) + packed(3, [1, 2])) + vint(9, 2),
            "Profile.default_sample_type_index",
            "default_sample_type_index 2",
            id="default-index",
        ),
        pytest.param(
            TWO_TYPES + packed(3, [0]) + ld(2, vint(1, 3) + vint(2, 1) + packed(3, [1, 2])),
            ("Sample.locations_start_index", "Sample.locations_length"),
            "3",
            id="start-past-the-end",
        ),
        pytest.param(
            TWO_TYPES + packed(3, [0]) + ld(2, vint(2, 3) + packed(3, [1, 2])),
            ("Sample.locations_start_index", "Sample.locations_length"),
            "3",
            id="length-past-the-end",
        ),
        pytest.param(
            TWO_TYPES + packed(3, [0]) + ld(2, vint(2, 1) + packed(3, [1, 2, 3])),
            "Sample.value",
            "3 values",
            id="three-values-two-types",
        ),
        pytest.param(
            TWO_TYPES + packed(3, [0]) + ld(2, vint(2, 1) + packed(3, [1])),
            "Sample.value",
            "1 values",
            id="one-value-two-types",
        ),
        pytest.param(
            TWO_TYPES + packed(3, [5]) + ld(2, vint(2, 1) + packed(3, [1, 2])),
            ("Profile.location_indices", "Stack.location_indices"),
            "5",
            id="location-index",
        ),
    ],
)
def test_v1_7_0_errors_name_field_and_offset(profile_fields, field, says):
    with pytest.raises(DecodeError, match="v1.7.0") as e:
        pprofcore.load_otlp(_v1_7(profile_fields))
    assert e.value.field in ((field,) if isinstance(field, str) else field)
    assert e.value.offset > 0
    assert says in str(e.value)


def test_v1_7_0_valid_base_of_the_error_cases_reads():
    p = pprofcore.loads(_v1_7(TWO_TYPES + packed(3, [0]) + ld(2, vint(2, 1) + packed(3, [1, 2])) + vint(9, 1)))
    assert p.values.tolist() == [[1, 2]] and p.sample_types == [("samples", "count")] * 2
    assert p.default_sample_type == "samples"


def _small_message():
    m = random_message(random.Random(3))
    while len(m.SerializeToString()) > 1500:  # a few hundred bytes keep every truncation quick
        m = random_message(random.Random(len(m.SerializeToString())))
    return m


@pytest.mark.parametrize("layout", LAYOUTS)
def test_truncation_at_every_byte_raises_decode_error_or_reads(layout):
    """A prefix of an older-layout message raises DecodeError, or (cut between
    fields) reads to profiles that hold their invariants: never a crash."""
    data = downgrade(_small_message(), layout)
    for cut in range(len(data)):
        try:
            got = pprofcore.load_otlp(data[:cut])
        except DecodeError:
            continue
        for o in got:
            o.profile._core.check_invariants()


@pytest.mark.parametrize("name", ["v1_7_0", "v1_8_0", "v1_9_0"])
def test_truncated_fixture_raises_decode_error_or_reads(name):
    data = (FIXTURES / f"{name}.pb").read_bytes()
    for cut in range(1, len(data)):
        try:
            got = pprofcore.load_otlp(data[:cut])
        except DecodeError:
            continue
        for o in got:
            o.profile._core.check_invariants()


# -------------------------------------- what was once refused by name


def _older(profile_fields: bytes) -> bytes:
    # ProfilesData{resource_profiles{scope_profiles{profiles{<profile_fields>}}}}
    return ld(1, ld(2, ld(2, profile_fields)))


def test_v1_7_0_location_indices_alone_read_as_a_profile_without_samples():
    [o] = pprofcore.load_otlp(_older(ld(3, bytes([1]))))
    assert len(o.profile) == 0


def test_v1_8_0_empty_profile_id_reads_as_a_profile_without_samples():
    [o] = pprofcore.load_otlp(_older(ld(8, b"")))
    assert len(o.profile) == 0 and o.profile_id == b""


def test_v1_7_0_sample_of_a_timestamp_alone_counts_it():
    [o] = pprofcore.load_otlp(_older(ld(2, vint(6, 1))))
    assert o.profile.values.tolist() == [[1]]
    assert content(o.profile)["samples"][0][2] == [["timestamp_ns", 1, "nanoseconds"]]


def test_v1_9_0_sample_of_an_empty_value_list_is_refused_naming_the_layout():
    """Field 3 of a sample as a list is v1.9.0's attribute_indices; its
    values (field 2) are absent: neither values nor timestamps."""
    with pytest.raises(DecodeError, match="v1.9.0") as e:
        pprofcore.load_otlp(_older(ld(2, ld(3, b""))))
    assert e.value.field == "Sample.values" and e.value.offset > 0


def test_v1_8_0_comments_alone_are_not_a_profile_id():
    """v1.8.0's comment_strindices (field 7, packed) have the wire type of
    v1.10.0's profile_id; a v1.10.0 profile_id is 16 bytes, so a profile whose
    field 7 is not (and nothing else betrays v1.8.0) is v1.8.0's comments."""
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    comment = d.attr("pprof.profile.comment", array=[])
    d.d.attribute_table[comment].value.array_value.values.add(string_value="only a comment")
    p = m.resource_profiles.add().scope_profiles.add().profiles.add(attribute_indices=[comment])
    p.sample_type.type_strindex = d.s("samples")
    p.samples.add(stack_index=0, values=[1])
    [o] = pprofcore.load_otlp(downgrade(m, "v1.8.0"))
    assert o.profile.comments == ["only a comment"] and o.profile_id == b""


def test_v1_7_0_profile_indices_name_the_profile_read():
    """profile_indices say where in the message a profile was: a v1.7.0
    profile holds every sample type itself, so it is its own index in the
    scope (not one index per sample type, which would name profiles the
    message does not have)."""
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    sp = m.resource_profiles.add().scope_profiles.add()
    for types, period in ((("cpu", "wall"), 10), (("alloc",), 20), (("a", "b", "c"), 30)):
        for t in types:
            p = sp.profiles.add(period=period, duration_nano=5)
            p.sample_type.type_strindex = d.s(t)
            p.samples.add(stack_index=0, values=[period])
    got = pprofcore.load_otlp(to_v1_7(m, join=True))
    assert [len(o.profile.sample_types) for o in got] == [2, 1, 3]
    assert [o.profile_indices for o in got] == [(0,), (1,), (2,)]


def test_v1_7_0_profiles_without_samples_stay_apart():
    """Each v1.7.0 profile is one pprof profile: two of one sample type each,
    the same header and no samples, are two profiles (v1.10.0 joins such
    profiles as the types it splits; v1.7.0 had no such split)."""
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    sp = m.resource_profiles.add().scope_profiles.add()
    for t in ("cpu", "wall"):
        # duration_nano, field 5 a number, is v1.7.0's duration_nanos: without a
        # field of its own v1.7.0's profile (period, field 7) reads as v1.8.0's.
        sp.profiles.add(period=10, duration_nano=5).sample_type.type_strindex = d.s(t)
    got = pprofcore.load_otlp(to_v1_7(m))
    assert [(o.profile.sample_types, o.profile_indices) for o in got] == [
        ([("cpu", "")], (0,)),
        ([("wall", "")], (1,)),
    ]


def test_v1_9_0_sample_without_attributes_before_one_that_betrays_the_layout():
    """A v1.9.0 sample without attributes but with a link reads as a v1.10.0
    one whose attribute indices are its values (here out of range) and whose
    value is its link_index; a later sample's field 3 as a list gives v1.9.0
    away: the message is read as v1.9.0, not refused with the v1.10.0
    reading's error."""
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    thread = d.attr("thread", string_value="main")
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex = d.s("samples")
    d.d.link_table.add(trace_id=TRACE, span_id=SPAN)
    p.samples.add(stack_index=0, values=[107], link_index=1)
    p.samples.add(stack_index=0, values=[1], attribute_indices=[thread])
    assert [o.profile.values.tolist() for o in pprofcore.load_otlp(downgrade(m, "v1.9.0"))] == [[[107], [1]]]


@pytest.mark.parametrize("name", ["v1_7_0", "v1_9_0"])
def test_json_of_older_layouts_reads_as_their_protobuf(name):
    """OTLP JSON as the release's own classes write it (make_json_fixtures.py):
    v1.7.0's names (`sample`, `locationIndices`, a `sampleType` list, attributes
    keyed by `key`) and v1.9.0's read as the same fixture in protobuf."""
    from_pb = pprofcore.load_otlp((FIXTURES / f"{name}.pb").read_bytes())
    from_json = pprofcore.load_otlp((FIXTURES / f"{name}.json").read_bytes())
    assert len(from_json) == len(from_pb) > 0
    for a, b in zip(from_pb, from_json):
        assert _context(a) == _context(b) and a.profile_indices == b.profile_indices
        assert a.profile.to_bytes() == b.profile.to_bytes()


# ------------------------------------------------------------- v1.6.0


def test_v1_6_0_fixture_reads_as_v1_7_0():
    """v1.6.0 is v1.7.0 with the dictionary's tables in ProfilesData itself
    (make_v1_6_fixtures.py, checked with protoc's v1.6.0 classes), protobuf and JSON."""
    want = pprofcore.load_otlp((FIXTURES / "v1_7_0.pb").read_bytes())
    for name in ("v1_6_0.pb", "v1_6_0.json"):
        got = pprofcore.load_otlp((FIXTURES / name).read_bytes())
        assert len(got) == len(want) > 0
        for a, b in zip(got, want):
            assert _context(a) == _context(b) and a.profile_indices == b.profile_indices
            assert a.profile.to_bytes() == b.profile.to_bytes()


def test_random_v1_6_0_messages_read_as_their_v1_7_0_form():
    rng = random.Random("otlp-older-v1.6.0")
    for _ in range(40):
        m = random_message(rng)
        v1_7 = to_v1_7(m, join=True)
        want = pprofcore.load_otlp(v1_7)
        got = pprofcore.load_otlp(v1_7_to_v1_6(v1_7))
        assert [content(o.profile) for o in got] == [content(o.profile) for o in want]
        assert [o.profile_indices for o in got] == [o.profile_indices for o in want]


def test_damaged_v1_6_0_names_its_layout():
    data = bytearray((FIXTURES / "v1_6_0.pb").read_bytes())
    cut = bytes(data[: len(data) - 7])
    with pytest.raises(DecodeError, match=r"read as the layout of opentelemetry-proto v1\.6\.0\)"):
        pprofcore.load_otlp(cut)
    for k in range(len(data)):  # every truncation: a DecodeError or a profile, never a crash
        try:
            pprofcore.load_otlp(bytes(data[:k]))
        except DecodeError:
            pass


def test_json_errors_name_the_layout_read():
    doc = json.loads((FIXTURES / "v1_7_0.json").read_text())
    doc["resourceProfiles"][0]["scopeProfiles"][0]["profiles"][0]["sample"][0]["locationsLength"] = 99
    with pytest.raises(DecodeError, match=r"\(JSON, read as the layout of opentelemetry-proto v1\.7\.0\)") as e:
        pprofcore.load_otlp(json.dumps(doc).encode())
    assert e.value.field == "Sample.locations_length" and e.value.offset > 0
