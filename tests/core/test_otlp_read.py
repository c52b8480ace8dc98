"""Reading OpenTelemetry profiles: messages built with opentelemetry-proto (the
independent oracle) in every shape the spec allows, as protobuf (raw, gzip,
ExportProfilesServiceRequest) and as OTLP JSON, the corpus's eBPF profiler file
checked value by value against the oracle's parse (older layouts:
test_otlp_older.py), and malformed input raising DecodeError (never a crash)."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np
import pytest
from otlp_dictionary import Dict
from testenv import CORPUS

import pprofcore
from pprofcore import DecodeError

pb = pytest.importorskip("opentelemetry.proto.profiles.v1development.profiles_pb2")
svc = pytest.importorskip("opentelemetry.proto.collector.profiles.v1development.profiles_service_pb2")
json_format = pytest.importorskip("google.protobuf.json_format")

EBPF = CORPUS / "odd/pyroscope__pkg_test_integration_testdata_otel-ebpf-profile.pb.bin"
TRACE, SPAN = bytes(range(16)), bytes(range(8, 16))


def _message(cls=pb.ProfilesData):
    """Two resources; the first has a scope with a cpu profile of every sample
    shape (value only, timestamps only, value + timestamp pairs) and a second
    sample type over the same samples; the second resource a wall profile."""
    m = cls()
    d = Dict(m.dictionary)
    d.d.mapping_table.add(
        memory_start=0x1000,
        memory_limit=0x2000,
        filename_strindex=d.s("/bin/app"),
        attribute_indices=[d.attr("process.executable.build_id.gnu", string_value="beef")],
    )
    main, work = d.frame("main", 3, mapping=1, address=0x1100), d.frame("work", 7)
    s1, s2 = d.stack(work, main), d.stack(main)
    d.d.link_table.add(trace_id=TRACE, span_id=SPAN)
    thread = d.attr("thread.name", string_value="w1")
    size = d.attr("size", unit="bytes", int_value=4096)
    flag = d.attr("hot", bool_value=True)
    ratio = d.attr("ratio", double_value=0.5)
    tags = d.attr("tag", string_value="t")
    rp = m.resource_profiles.add()
    rp.resource.attributes.add(key="service.name").value.string_value = "checkout"
    rp.resource.attributes.add(key="host.cpus").value.int_value = 8
    sp = rp.scope_profiles.add()
    sp.scope.name, sp.scope.version = "ebpf-profiler", "1.2"
    sp.scope.attributes.add(key="mode").value.string_value = "test"
    header = [d.attr("pprof.profile.comment", array=[]), d.attr("deployment", string_value="blue")]
    for type_name, unit, scale in (("samples", "count", 1), ("cpu", "nanoseconds", 1000)):
        p = sp.profiles.add(time_unix_nano=1_000, duration_nano=10_000, period=10, profile_id=b"\x01" * 16)
        p.sample_type.type_strindex, p.sample_type.unit_strindex = d.s(type_name), d.s(unit)
        p.period_type.type_strindex, p.period_type.unit_strindex = d.s("cpu"), d.s("nanoseconds")
        p.attribute_indices.extend(header)
        p.samples.add(stack_index=s1, attribute_indices=[thread, size], values=[5 * scale])
        p.samples.add(
            stack_index=s2, attribute_indices=[flag, ratio, tags], link_index=1, timestamps_unix_nano=[2_000, 3_000]
        )
        p.samples.add(stack_index=s1, values=[1 * scale, 2 * scale], timestamps_unix_nano=[4_000, 5_000])
    rp2 = m.resource_profiles.add()
    sp2 = rp2.scope_profiles.add()
    p = sp2.profiles.add()
    p.sample_type.type_strindex, p.sample_type.unit_strindex = d.s("wall"), d.s("nanoseconds")
    p.samples.add(stack_index=s2, values=[42])
    return m


def _labels(p: pprofcore.Profile, i: int) -> dict:
    strs = list(p.strings)
    lab = p.labels
    out: dict = {}
    for r in range(p.label_offsets[i], p.label_offsets[i + 1]):
        k = strs[lab.key[r]]
        v = strs[lab.str[r]] if lab.str[r] >= 0 else (int(lab.num[r]), strs[lab.num_unit[r]])
        out.setdefault(k, []).append(v)
    return out


def test_every_sample_shape_and_attribute():
    got = pprofcore.load_otlp(_message().SerializeToString())
    assert len(got) == 2
    cpu, wall = got
    assert cpu.resource == {"service.name": "checkout", "host.cpus": 8}
    assert (cpu.scope_name, cpu.scope_version, cpu.scope_attributes) == ("ebpf-profiler", "1.2", {"mode": "test"})
    assert cpu.attributes == {"deployment": "blue"}  # pprof.profile.comment went to the header
    assert cpu.profile_id == b"\x01" * 16 and cpu.profile_indices == (0, 1)
    p = cpu.profile
    assert p.sample_types == [("samples", "count"), ("cpu", "nanoseconds")]  # joined: same samples
    assert p.period_type == ("cpu", "nanoseconds") and p.period == 10
    assert (p.time_nanos, p.duration_nanos) == (1_000, 10_000)
    # One pprof sample per observation: 1 value, 2 timestamps (value 1 each), 2 pairs.
    assert p.values.tolist() == [[5, 5000], [1, 1], [1, 1], [1, 1000], [2, 2000]]
    assert p.timestamps.tolist()[1:] == [2_000, 3_000, 4_000, 5_000]
    assert p.timestamps[0] == np.iinfo(np.int64).min
    assert _labels(p, 0) == {"thread.name": ["w1"], "size": [(4096, "bytes")]}
    l1 = _labels(p, 1)
    assert l1["hot"] == ["true"] and l1["ratio"] == ["0.5"]
    assert l1["trace_id"] == [TRACE.hex()] and l1["span_id"] == [SPAN.hex()]
    assert l1["timestamp_ns"] == [(2_000, "nanoseconds")]
    frames = [p._s(p.functions.name[p.lines.function[p.locations.line_offsets[loc]]]) for loc in p.stack(0)]
    assert frames == ["work", "main"]
    assert list(p.strings)[p.mappings.build_id[0]] == "beef"
    assert wall.resource == {} and wall.profile.sample_types == [("wall", "nanoseconds")]
    assert wall.profile.values.tolist() == [[42]]


def test_array_attribute_becomes_repeated_labels():
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    a = d.d.attribute_table.add(key_strindex=d.s("tag"))
    a.value.array_value.values.add(string_value="a")
    a.value.array_value.values.add(int_value=3)
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex = d.s("samples")
    p.samples.add(stack_index=d.stack(d.frame("f")), attribute_indices=[1], values=[1])
    q = pprofcore.loads(m.SerializeToString())
    assert _labels(q, 0) == {"tag": ["a", (3, "")]}


def test_string_codes_follow_the_table_and_made_texts_reuse_them():
    """A dictionary string keeps its own code (a duplicate entry stays a second
    string, as profile.proto's decoder keeps its table as is), and a text the
    reader makes (here an inline string value) shares the code of an equal
    dictionary string, whichever comes first."""
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    f = d.frame("f")
    again = len(d.d.string_table)
    d.d.string_table.append("f")
    d.d.function_table.add(name_strindex=again)
    d.d.location_table.add().lines.add(function_index=len(d.d.function_table) - 1)
    f_again = len(d.d.location_table) - 1
    thread = d.attr("thread", string_value="g")
    g = d.frame("g")
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex = d.s("samples")
    p.samples.add(stack_index=d.stack(f, f_again), attribute_indices=[thread], values=[1])
    p.samples.add(stack_index=d.stack(g), values=[1])
    q = pprofcore.loads(m.SerializeToString())
    names = [q.functions.name[q.lines.function[q.locations.line_offsets[x]]] for x in (*q.stack(0), *q.stack(1))]
    assert [q._s(c) for c in names] == ["f", "f", "g"]
    assert names[0] != names[1]
    assert q.labels.str[q.label_offsets[0]] == names[2]
    assert list(q.strings).count("g") == 1


@pytest.mark.parametrize("wrap", ["raw", "gzip", "request", "json", "json-gzip"])
def test_encodings_read_the_same(wrap, tmp_path):
    m = _message()
    want = [(o.profile.values.tolist(), o.resource) for o in pprofcore.load_otlp(m.SerializeToString())]
    if wrap == "request":
        data = svc.ExportProfilesServiceRequest.FromString(m.SerializeToString()).SerializeToString()
    elif wrap.startswith("json"):
        doc = json_format.MessageToDict(m)
        # OTLP JSON spells trace and span ids in hex, not base64 (and so does profile_id).
        for link in doc["dictionary"]["linkTable"][1:]:
            link["traceId"], link["spanId"] = TRACE.hex(), SPAN.hex()
        for rp in doc["resourceProfiles"]:
            for sp in rp["scopeProfiles"]:
                for p in sp["profiles"]:
                    if "profileId" in p:
                        p["profileId"] = "01" * 16
        data = json.dumps(doc).encode()
    else:
        data = m.SerializeToString()
    if wrap.endswith("gzip"):
        data = gzip.compress(data)
    got = pprofcore.load_otlp(data)
    assert [(o.profile.values.tolist(), o.resource) for o in got] == want
    path = tmp_path / "profile.otlp"
    path.write_bytes(data)
    assert [o.profile for o in pprofcore.load_otlp(path)] == [o.profile for o in got]
    with open(path, "rb") as f:
        assert [o.profile for o in pprofcore.load_otlp(f)] == [o.profile for o in got]


def test_load_reads_one_profile_and_names_load_otlp_for_more(tmp_path):
    m = _message()
    del m.resource_profiles[1]
    assert pprofcore.loads(m.SerializeToString()) == pprofcore.load_otlp(m.SerializeToString())[0].profile
    path = tmp_path / "many.pb"
    path.write_bytes(_message().SerializeToString())
    for call in (
        lambda: pprofcore.load(path),
        lambda: pprofcore.load_many([path]),
        lambda: pprofcore.merge_files([path]),
    ):
        with pytest.raises(DecodeError, match="holds 2 profiles.*load_otlp"):
            call()


@pytest.mark.skipif(not EBPF.exists(), reason=f"{EBPF} not found")
def test_ebpf_profiler_file_matches_the_oracle():
    m = svc.ExportProfilesServiceRequest.FromString(EBPF.read_bytes())
    got = pprofcore.load_otlp(EBPF)
    want = [
        (r, s, i, prof)
        for r, rp in enumerate(m.resource_profiles)
        for s, sp in enumerate(rp.scope_profiles)
        for i, prof in enumerate(sp.profiles)
    ]
    assert sum(len(o.profile_indices) for o in got) == len(want)
    for o in got:
        prof = m.resource_profiles[o.resource_index].scope_profiles[o.scope_index].profiles[o.profile_indices[0]]
        values = [v for smp in prof.samples for v in (smp.values or [1] * len(smp.timestamps_unix_nano))]
        stamps = [t for smp in prof.samples for t in smp.timestamps_unix_nano]
        assert o.profile.values[:, 0].tolist() == values
        assert o.profile.timestamps.tolist() == stamps
        res = m.resource_profiles[o.resource_index].resource.attributes
        assert o.resource == {a.key: getattr(a.value, a.value.WhichOneof("value")) for a in res}
        # Every frame of the first stack: the oracle's address and function names, leaf first.
        d, p = m.dictionary, o.profile
        want_frames = [
            (
                d.location_table[x].address,
                [d.string_table[d.function_table[ln.function_index].name_strindex] for ln in d.location_table[x].lines],
            )
            for x in d.stack_table[prof.samples[0].stack_index].location_indices
        ]
        lo = p.locations.line_offsets
        got_frames = [
            (
                int(p.locations.address[x]),
                [p._s(p.functions.name[p.lines.function[k]]) for k in range(lo[x], lo[x + 1])],
            )
            for x in p.stack(0)
        ]
        assert got_frames == want_frames


def test_malformed_input_names_field_and_offset():
    m = _message()
    m.resource_profiles[0].scope_profiles[0].profiles[0].samples[0].stack_index = 99
    with pytest.raises(DecodeError, match="stack_index 99 is out of range of stack_table") as e:
        pprofcore.load_otlp(m.SerializeToString())
    assert e.value.field == "Sample.stack_index" and e.value.offset > 0
    m = _message()
    m.dictionary.location_table[1].lines[0].function_index = -1
    with pytest.raises(DecodeError, match="function_index -1 is out of range"):
        pprofcore.load_otlp(m.SerializeToString())
    with pytest.raises(DecodeError, match="neither values nor timestamps"):
        m = _message()
        m.resource_profiles[1].scope_profiles[0].profiles[0].samples[0].ClearField("values")
        pprofcore.load_otlp(m.SerializeToString())
    with pytest.raises(DecodeError, match="malformed JSON") as e:
        pprofcore.load_otlp(b'{"resourceProfiles": [}')
    assert e.value.offset == 22
    with pytest.raises(DecodeError, match="nested more than"):
        pprofcore.load_otlp(b'{"resourceProfiles": ' + b"[" * 5000 + b"]" * 5000 + b"}")


def _ld(field: int, payload: bytes) -> bytes:
    return bytes([field << 3 | 2]) + _varint(len(payload)) + payload


@pytest.mark.parametrize(
    "shape",
    [
        pytest.param(lambda f, g: _ld(1, bytes([f, g])), id="packed"),
        pytest.param(lambda f, g: bytes([1 << 3, f, 1 << 3, g]), id="unpacked"),
        pytest.param(lambda f, g: _ld(1, bytes([f])) + _ld(1, bytes([g])), id="two-runs"),
        pytest.param(lambda f, g: _ld(1, bytes([0x80 | f, 0x80, 0x80, 0x80, 0x80, 0, g])), id="six-byte-varint"),
    ],
)
def test_stack_encodings_read_alike(shape):
    """The reader keeps a packed stack in the input until it is converted and
    decodes the other encodings at once: every one gives the same frames."""
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    f, g = d.frame("f"), d.frame("g")
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex = d.s("samples")
    p.samples.add(stack_index=1, values=[1])
    p.samples.add(stack_index=1, values=[2])
    # A second dictionary field merges into the first (stack_table[1] is the one written here).
    q = pprofcore.loads(m.SerializeToString() + _ld(2, _ld(7, shape(f, g))))
    for i in range(2):
        assert [q._s(q.functions.name[q.lines.function[q.locations.line_offsets[x]]]) for x in q.stack(i)] == ["f", "g"]


def _padded(n: int, size: int) -> bytes:
    """n as a varint of exactly `size` bytes (protobuf accepts the padding)."""
    out = bytearray(_varint(n))
    if size > len(out):
        out[-1] |= 0x80
        out += b"\x80" * (size - len(out) - 1) + b"\x00"
    return bytes(out)


def test_packed_stacks_of_every_length_read_as_unpacked():
    """The stack table's counting pass reads a packed payload by words and its
    last bytes by overlapping ones: payloads of 0-40 bytes, varints of 1-6 bytes
    (6 takes the general reader) give the frames of the same indices unpacked."""
    rng = random.Random(5)
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    frames = [d.frame(f"f{k}") for k in range(200)]
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex = d.s("samples")
    p.samples.add(stack_index=1, values=[1])
    p.samples.add(stack_index=2, values=[1])
    base = m.SerializeToString()
    for _ in range(120):
        indices, packed = [], b""
        while len(packed) < rng.randrange(41):
            indices.append(rng.choice(frames))
            packed += _padded(indices[-1], rng.choice([1, 2, 2, 3, 4, 5, 6] if indices[-1] < 128 else [2, 3, 5, 6]))
        unpacked = b"".join(bytes([1 << 3]) + _varint(i) for i in indices)
        q = pprofcore.loads(base + _ld(2, _ld(7, _ld(1, packed)) + _ld(7, unpacked)))
        assert list(q.stack(0)) == list(q.stack(1))
        assert [q._s(q.functions.name[q.lines.function[q.locations.line_offsets[x]]]) for x in q.stack(0)] == [
            f"f{frames.index(i)}" for i in indices
        ]


@pytest.mark.parametrize("index", [9, 1 << 33])
def test_packed_stack_index_out_of_range(index):
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    d.frame("f")
    p = m.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex = d.s("samples")
    p.samples.add(stack_index=1, values=[1])
    data = m.SerializeToString() + _ld(2, _ld(7, _ld(1, _varint(1) + _varint(index))))
    with pytest.raises(DecodeError, match=f"location_indices {index} is out of range of location_table") as e:
        pprofcore.loads(data)
    assert e.value.field == "Stack.location_indices" and e.value.offset > 0


def test_damaged_messages_never_crash():
    rng = random.Random(31)
    good = _message().SerializeToString()
    for _ in range(400):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data[: rng.randint(1, len(data))]) if rng.random() < 0.3 else bytes(data)
        try:
            decoded = pprofcore.load_otlp(data)
        except DecodeError:
            continue
        for o in decoded:  # the converter skips this pass (it checks each index it writes)
            o.profile._core.check_invariants()


def _joined(profiles) -> list:
    """The oracle for how the profiles of one scope (same header) join: each
    group is the longest run from its first profile whose samples all match
    the first's but for their values (as many of them)."""

    def key(s):
        return s.stack_index, list(s.attribute_indices), s.link_index, list(s.timestamps_unix_nano), len(s.values)

    groups, i = [], 0
    while i < len(profiles):
        k = i + 1
        while k < len(profiles) and all(key(a) == key(b) for a, b in zip(profiles[i].samples, profiles[k].samples)):
            k += 1
        groups.append(list(range(i, k)))
        i = k
    return groups


@pytest.mark.parametrize("seed", range(8))
def test_sample_types_join_while_samples_differ_in_values_alone(seed):
    """Four sample types over the same samples, with now and then a sample of
    a later type that differs in more than its values (stack, attributes,
    link, number of values): the reader compares the later types' samples
    with the first's bytes, and must join exactly the types the oracle joins,
    each value in its place (values of 1 to 6 bytes)."""
    rng = random.Random(seed)
    m = pb.ProfilesData()
    d = Dict(m.dictionary)
    stacks = [d.stack(d.frame("a"), d.frame("b")), d.stack(d.frame("c"))]
    attrs = [d.attr("thread", string_value="t1"), d.attr("size", unit="bytes", int_value=4096)]
    d.d.link_table.add(trace_id=TRACE, span_id=SPAN)
    base = []
    for j in range(30):
        n = rng.choice([1, 2])
        times = [1000 + j] * n if rng.random() < 0.5 else []
        base.append(
            (n, dict(stack_index=rng.choice(stacks), link_index=rng.choice([0, 1]), timestamps_unix_nano=times))
        )
    sp = m.resource_profiles.add().scope_profiles.add()
    for t in range(4):
        p = sp.profiles.add(period=10)
        p.sample_type.type_strindex = d.s(f"type{t}")
        for n, fields in base:
            fields = dict(fields, attribute_indices=attrs[: len(fields["timestamps_unix_nano"]) + 1])
            if t and rng.random() < 0.01:
                what = rng.choice(["stack_index", "attribute_indices", "link_index", "values"])
                if what == "values" and not fields["timestamps_unix_nano"]:
                    n += 1
                elif what == "attribute_indices":
                    fields[what] = fields[what][::-1] + [attrs[0]]
                elif what == "link_index":
                    fields[what] = 1 - fields[what]
                else:
                    fields["stack_index"] = sum(stacks) - fields["stack_index"]
            p.samples.add(values=[rng.randrange(1, 1 << rng.choice([7, 14, 40])) for _ in range(n)], **fields)
    groups = _joined(sp.profiles)
    got = pprofcore.load_otlp(m.SerializeToString())
    assert [list(o.profile_indices) for o in got] == groups
    for o, group in zip(got, groups):
        want = [
            [sp.profiles[t].samples[j].values[k] for t in group]
            for j in range(len(base))
            for k in range(len(sp.profiles[group[0]].samples[j].values))
        ]
        assert np.asarray(o.profile.values).tolist() == want


def test_deep_attribute_nesting_is_refused():
    inner = b""
    for _ in range(200):  # AnyValue{array_value{values{...}}}
        arr = bytes([1 << 3 | 2]) + _varint(len(inner)) + inner
        inner = bytes([5 << 3 | 2]) + _varint(len(arr)) + arr
    kv = bytes([1 << 3 | 2, 1]) + b"k" + bytes([2 << 3 | 2]) + _varint(len(inner)) + inner
    res = bytes([1 << 3 | 2]) + _varint(len(kv)) + kv
    rp = bytes([1 << 3 | 2]) + _varint(len(res)) + res
    with pytest.raises(DecodeError, match="nested more than 64 deep"):
        pprofcore.load_otlp(bytes([1 << 3 | 2]) + _varint(len(rp)) + rp)


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def test_corpus_and_paths_exist_or_skip():
    assert isinstance(CORPUS, Path)


def test_resource_labels_put_the_resource_on_every_sample():
    (cpu, wall) = pprofcore.load_otlp(_message().SerializeToString(), resource_labels=True)
    assert all(_labels(cpu.profile, i)["service.name"] == ["checkout"] for i in range(len(cpu.profile)))
    assert _labels(cpu.profile, 0)["host.cpus"] == ["8"]
    assert "service.name" not in _labels(wall.profile, 0)
