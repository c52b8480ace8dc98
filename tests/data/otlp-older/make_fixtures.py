r"""Writes the older-layout OTLP fixtures that tests/core/test_otlp_older.py reads.

One content (two sample types, labels of every kind, a link, a folded and an
inlined location, mapping flags and a build id, comments, a default sample
type, a sample with one timestamp) is built with the installed
opentelemetry-proto (v1.10.0 layout, written as v1_10_0.pb) and downgraded by
tests/helpers/otlp_older.py to v1.7.0, v1.8.0 and v1.9.0. Each downgrade is
checked in a process of its own with the generated classes of a release of
that layout: they must read it with nothing unknown (re-serializing to the
same bytes) and equal to the message they build themselves from the same
content (``build``); that message's serialization is the committed fixture.
expected.json is the pprof content worked out here in plain Python from the
v1.10.0 message (docs/otlp.md's mapping), not with pprofcore.

The releases (told apart by their profiles_pb2 descriptors):
  v1.7.0: opentelemetry-proto 1.35.0-1.39.1 on PyPI (1.39.1 used)
  v1.9.0: opentelemetry-proto 1.40.0-1.42.1 (1.42.1 used)
  v1.10.0: 1.43.0 and later (what the tests install)
  v1.8.0: no PyPI release has it: its classes are generated with protoc
          (grpcio-tools) from the opentelemetry-proto repository's tag v1.8.0.

Run from the repository root (the fixtures change only if the content or the
downgrade does; commit them with expected.json):
  D=$(mktemp -d)
  pip install --no-deps --target $D/o17 opentelemetry-proto==1.39.1
  pip install --no-deps --target $D/o19 opentelemetry-proto==1.42.1
  pip install --no-deps --target $D/gt grpcio-tools
  git clone -q --branch v1.8.0 https://github.com/open-telemetry/opentelemetry-proto $D/src
  protos="opentelemetry/proto/common/v1/common.proto opentelemetry/proto/resource/v1/resource.proto
          opentelemetry/proto/profiles/v1development/profiles.proto"
  mkdir $D/o18 && (cd $D/src && PYTHONPATH=$D/gt python3 -m grpc_tools.protoc -I . --python_out=$D/o18 $protos)
  find $D/o18 -type d -exec touch {}/__init__.py \;   # packages, ahead of the installed ones
  python3 tests/data/otlp-older/make_fixtures.py $D/o17 $D/o18 $D/o19
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "helpers"))

TRACE, SPAN = bytes(range(16)), bytes(range(8, 16))


def build(pb, layout: str):
    """The content with the generated classes ``pb`` of ``layout``, its rows
    where tests/helpers/otlp_older.py puts them: the same dictionary rows as
    v1.10.0's (less its zero entries in v1.7.0; the pprof.* attributes that
    v1.7.0 and v1.8.0 have fields for stay unreferenced rows), the comments'
    strings appended to the string table where a field names them."""
    v17, v18 = layout == "v1.7.0", layout == "v1.8.0"
    m = pb.ProfilesData()
    d = m.dictionary
    strings = {"": 0}
    d.string_table.append("")

    def s(t):
        if t not in strings:
            strings[t] = len(d.string_table)
            d.string_table.append(t)
        return strings[t]

    if not v17:  # v1.8.0 and later: the zero entry of each table
        for table in (d.mapping_table, d.location_table, d.function_table, d.link_table, d.attribute_table):
            table.add()
        d.stack_table.add()
    units = []

    def attr(key, unit="", **value):
        if v17:
            s(key)
            a = d.attribute_table.add(key=key)
            if unit:
                units.append((s(key), s(unit)))
        else:
            a = d.attribute_table.add(key_strindex=s(key), unit_strindex=s(unit) if unit else 0)
        for k, v in value.items():
            if k == "array":
                for x in v:
                    a.value.array_value.values.add(**x)
            else:
                setattr(a.value, k, v)
        return len(d.attribute_table) - 1

    def last(table):
        return len(table) - 1

    flags = [attr("pprof.mapping.has_functions", bool_value=True)]
    flags.append(attr("pprof.mapping.has_line_numbers", bool_value=True))
    build_id = attr("process.executable.build_id.gnu", string_value="beef")
    mapping = d.mapping_table.add(memory_start=0x1000, memory_limit=0x2000, file_offset=0x10)
    mapping.filename_strindex = s("/bin/app")
    if v17:
        mapping.attribute_indices.append(build_id)
        mapping.has_functions = mapping.has_line_numbers = True
    else:
        mapping.attribute_indices.extend([build_id] + flags)
    functions = []
    for name in ("main", "work", "helper"):
        d.function_table.add(name_strindex=s(name), filename_strindex=s(name + ".c"))
        functions.append(last(d.function_table))
    folded = attr("pprof.location.is_folded", bool_value=True)
    locations = []
    for address, lines, mapped, fold in (
        (0x1100, [(0, 3)], True, False),
        (0x1200, [(1, 7)], False, True),
        (0x1300, [(2, 11), (1, 8)], True, False),
    ):
        loc = d.location_table.add(address=address)
        if mapped:
            loc.mapping_index = last(d.mapping_table)
        for f, line in lines:
            (loc.line if v17 or v18 else loc.lines).add(function_index=functions[f], line=line)
        if fold and v17:
            loc.is_folded = True
        elif fold:
            loc.attribute_indices.append(folded)
        locations.append(last(d.location_table))
    main, work, inlined = locations
    stacks = [[work, main], [inlined, main], [main]]
    if not v17:
        for stack in stacks:
            d.stack_table.add(location_indices=stack)
    d.link_table.add(trace_id=TRACE, span_id=SPAN)
    link = last(d.link_table)
    thread = attr("thread.name", string_value="w1")
    size = attr("size", unit="bytes", int_value=4096)
    hot = attr("hot", bool_value=True)
    ratio = attr("ratio", double_value=0.5)
    raw = attr("raw", bytes_value=b"\x01\x02")
    tags = attr("tags", array=[{"string_value": "a"}, {"int_value": 3}])
    comment = attr("pprof.profile.comment", array=[{"string_value": "first"}, {"string_value": "second"}])
    default = attr("pprofcore.default_sample_type", string_value="cpu")
    deployment = attr("deployment", string_value="blue")
    rp = m.resource_profiles.add()
    rp.resource.attributes.add(key="service.name").value.string_value = "checkout"
    sp = rp.scope_profiles.add()
    sp.scope.name, sp.scope.version = "async-profiler", "4.2"
    # (stack, attributes, link, values per type, timestamps)
    samples = [
        (0, [thread, size], None, [[5], [5000]], []),
        (1, [hot, ratio, raw, tags], link, [[2], [2000]], [2_000]),
        (2, [], None, [[1, 3], [1000, 3000]], []),
    ]
    types = [("samples", "count"), ("cpu", "nanoseconds")]
    comment_codes = []
    if v17:
        p = sp.profiles.add(time_nanos=1_000, duration_nanos=10_000, period=10, default_sample_type_index=1)
        for t, u in types:
            p.sample_type.add(type_strindex=s(t), unit_strindex=s(u))
        p.period_type.type_strindex, p.period_type.unit_strindex = s("cpu"), s("nanoseconds")
        starts = []
        for stack in stacks:
            starts.append(len(p.location_indices))
            p.location_indices.extend(stack)
        for stack, attrs, link_index, values, times in samples:
            for k in range(len(values[0])):  # v1.7.0: one value per type, one sample per value
                smp = p.sample.add(locations_start_index=starts[stack], locations_length=len(stacks[stack]))
                smp.value.extend(v[k] for v in values)
                smp.attribute_indices.extend(attrs)
                smp.timestamps_unix_nano.extend(times[k : k + 1])
                if link_index is not None:
                    smp.link_index = link_index
        p.attribute_indices.append(deployment)
        comment_codes.append(p.comment_strindices)
        for key, unit in units:
            d.attribute_units.add(attribute_key_strindex=key, unit_strindex=unit)
    else:
        for (t, u), type_index in zip(types, range(2)):
            p = sp.profiles.add(time_unix_nano=1_000, duration_nano=10_000, period=10)
            p.sample_type.type_strindex, p.sample_type.unit_strindex = s(t), s(u)
            p.period_type.type_strindex, p.period_type.unit_strindex = s("cpu"), s("nanoseconds")
            p.attribute_indices.extend(([] if v18 else [comment]) + [default, deployment])
            for stack, attrs, link_index, values, times in samples:
                smp = (p.sample if v18 else p.samples).add(stack_index=stack + 1, values=values[type_index])
                smp.attribute_indices.extend(attrs)
                smp.timestamps_unix_nano.extend(times)
                smp.link_index = link_index or 0
            if v18:
                comment_codes.append(p.comment_strindices)
    for codes in comment_codes:  # the comments' strings go last, as the downgrade appends them
        codes.extend([s("first"), s("second")])
    return m


def expected(m) -> dict:
    """The pprof content of m worked out in plain Python (docs/otlp.md's mapping)."""
    d = m.dictionary
    st = d.string_table

    def labels(sample, stamp):
        out = []
        for i in sample.attribute_indices:
            a = d.attribute_table[i]
            key, v = st[a.key_strindex], a.value
            for x in v.array_value.values if v.WhichOneof("value") == "array_value" else [v]:
                kind = x.WhichOneof("value")
                if kind == "int_value":
                    out.append([key, x.int_value, st[a.unit_strindex]])
                elif kind == "bool_value":
                    out.append([key, "true" if x.bool_value else "false"])
                elif kind == "double_value":
                    out.append([key, "%.17g" % x.double_value])
                elif kind == "bytes_value":
                    out.append([key, x.bytes_value.hex()])
                else:
                    out.append([key, x.string_value])
        if sample.link_index:
            link = d.link_table[sample.link_index]
            out += [["trace_id", link.trace_id.hex()], ["span_id", link.span_id.hex()]]
        if stamp is not None:
            out.append(["timestamp_ns", stamp, "nanoseconds"])
        return sorted(out, key=json.dumps)

    profiles = m.resource_profiles[0].scope_profiles[0].profiles
    rows = []
    for j, smp in enumerate(profiles[0].samples):
        frames = [
            [st[d.function_table[ln.function_index].name_strindex] for ln in d.location_table[x].lines]
            for x in d.stack_table[smp.stack_index].location_indices
        ]
        for k in range(len(smp.values)):
            stamp = smp.timestamps_unix_nano[k] if smp.timestamps_unix_nano else None
            rows.append([frames, [p.samples[j].values[k] for p in profiles], labels(smp, stamp)])
    return {
        "resource": {"service.name": "checkout"},
        "scope": ["async-profiler", "4.2"],
        "attributes": {"deployment": "blue"},
        "sample_types": [[st[p.sample_type.type_strindex], st[p.sample_type.unit_strindex]] for p in profiles],
        "default_sample_type": "cpu",
        "comments": ["first", "second"],
        "period_type": ["cpu", "nanoseconds"],
        "period": 10,
        "time_nanos": 1_000,
        "duration_nanos": 10_000,
        "samples": rows,
        "folded_addresses": [0x1200],
        "mapping": {"filename": "/bin/app", "build_id": "beef", "flags": [1, 0, 1, 0]},
    }


def check(layout: str, site: str, written: Path, fixture: Path) -> None:
    """In a process of its own: the generated classes of the release in site
    read the downgrade's bytes with nothing unknown, equal to the content they
    build themselves, which becomes the fixture."""
    sys.path.insert(0, site)
    from opentelemetry.proto.profiles.v1development import profiles_pb2 as pb

    data = written.read_bytes()
    got = pb.ProfilesData.FromString(data)
    got.DiscardUnknownFields()
    assert got.SerializeToString() == data, f"{layout}: unknown fields, or wire types other than the release's"
    want = build(pb, layout)
    assert got == want, f"{layout}: the downgrade differs from the release's own message"
    fixture.write_bytes(want.SerializeToString())
    print(layout, "ok", pb.__file__)


def main() -> None:
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3], Path(sys.argv[4]), Path(sys.argv[5]))
        return
    from opentelemetry.proto.profiles.v1development import profiles_pb2 as pb
    from otlp_older import to_v1_7, to_v1_8, to_v1_9

    sites = dict(zip(("v1.7.0", "v1.8.0", "v1.9.0"), sys.argv[1:4]))
    m = build(pb, "v1.10.0")
    (HERE / "v1_10_0.pb").write_bytes(m.SerializeToString())
    with tempfile.TemporaryDirectory() as tmp:
        for layout, data in (("v1.7.0", to_v1_7(m, join=True)), ("v1.8.0", to_v1_8(m)), ("v1.9.0", to_v1_9(m))):
            written = Path(tmp) / layout
            written.write_bytes(data)
            fixture = HERE / f"{layout.replace('.', '_')}.pb"
            subprocess.run([sys.executable, __file__, "--check", layout, sites[layout], written, fixture], check=True)
    (HERE / "expected.json").write_text(json.dumps(expected(m), indent=1) + "\n")


if __name__ == "__main__":
    main()
