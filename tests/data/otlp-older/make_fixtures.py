"""Writes the older-layout OTLP fixtures that tests/core/test_otlp_older.py reads.

One content (two sample types, labels of every kind, a link, a folded and an
inlined location, mapping flags and a build id, comments, a default sample
type, a sample with one timestamp) built with the installed
opentelemetry-proto (v1.10.0 layout) and written by tests/helpers/otlp_older.py
as v1.7.0, v1.8.0 and v1.9.0 (and as itself, v1_10_0.pb). Each older message
is checked with the generated classes of the release that has its layout: it
must parse with nothing unknown and re-serialize to the same bytes, and its
fields read under their old names must hold the content. expected.json is the
content worked out here in plain Python from the v1.10.0 message (not with
pprofcore).

The releases (found by their profiles_pb2 descriptors):
  v1.7.0: opentelemetry-proto 1.35.0-1.39.1 on PyPI (1.39.1 used)
  v1.9.0: opentelemetry-proto 1.40.0-1.42.1 (1.42.1 used)
  v1.10.0: 1.43.0 and later
  v1.8.0: no PyPI release has it: generate it with protoc from the
          opentelemetry-proto repository's tag v1.8.0.

Run (from the repository root):
  pip install --no-deps --target /tmp/o17 opentelemetry-proto==1.39.1
  pip install --no-deps --target /tmp/o19 opentelemetry-proto==1.42.1
  pip install --no-deps --target /tmp/gt grpcio-tools
  git clone https://github.com/open-telemetry/opentelemetry-proto /tmp/otp-src
  git -C /tmp/otp-src checkout v1.8.0
  mkdir -p /tmp/o18 && PYTHONPATH=/tmp/gt python3 -m grpc_tools.protoc -I /tmp/otp-src \
      --python_out=/tmp/o18 $(cd /tmp/otp-src && ls opentelemetry/proto/common/v1/common.proto \
      opentelemetry/proto/resource/v1/resource.proto opentelemetry/proto/profiles/v1development/profiles.proto)
  python3 tests/data/otlp-older/make_fixtures.py /tmp/o17 /tmp/o18 /tmp/o19
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "helpers"))

TRACE, SPAN = bytes(range(16)), bytes(range(8, 16))


def content_v1_10():
    from opentelemetry.proto.profiles.v1development import profiles_pb2 as pb

    m = pb.ProfilesData()
    d = m.dictionary
    strings = {"": 0}
    d.string_table.append("")

    def s(t):
        if t not in strings:
            strings[t] = len(d.string_table)
            d.string_table.append(t)
        return strings[t]

    for table in (d.mapping_table, d.location_table, d.function_table, d.link_table, d.attribute_table, d.stack_table):
        table.add()

    def attr(key, unit="", **value):
        a = d.attribute_table.add(key_strindex=s(key), unit_strindex=s(unit) if unit else 0)
        for k, v in value.items():
            if k == "array":
                for x in v:
                    a.value.array_value.values.add(**x)
            else:
                setattr(a.value, k, v)
        return len(d.attribute_table) - 1

    flags = [
        attr("pprof.mapping.has_functions", bool_value=True),
        attr("pprof.mapping.has_line_numbers", bool_value=True),
    ]
    build_id = attr("process.executable.build_id.gnu", string_value="beef")
    d.mapping_table.add(
        memory_start=0x1000,
        memory_limit=0x2000,
        file_offset=0x10,
        filename_strindex=s("/bin/app"),
        attribute_indices=[build_id] + flags,
    )
    for name in ("main", "work", "helper"):
        d.function_table.add(name_strindex=s(name), filename_strindex=s(name + ".c"))
    main = d.location_table.add(mapping_index=1, address=0x1100)
    main.lines.add(function_index=1, line=3)
    work = d.location_table.add(address=0x1200, attribute_indices=[attr("pprof.location.is_folded", bool_value=True)])
    work.lines.add(function_index=2, line=7)
    inlined = d.location_table.add(mapping_index=1, address=0x1300)
    inlined.lines.add(function_index=3, line=11)
    inlined.lines.add(function_index=2, line=8)
    d.stack_table.add(location_indices=[2, 1])
    d.stack_table.add(location_indices=[3, 1])
    d.stack_table.add(location_indices=[1])
    d.link_table.add(trace_id=TRACE, span_id=SPAN)
    thread = attr("thread.name", string_value="w1")
    size = attr("size", unit="bytes", int_value=4096)
    hot = attr("hot", bool_value=True)
    ratio = attr("ratio", double_value=0.5)
    raw = attr("raw", bytes_value=b"\x01\x02")
    tags = attr("tags", array=[{"string_value": "a"}, {"int_value": 3}])
    header = [
        attr("pprof.profile.comment", array=[{"string_value": "first"}, {"string_value": "second"}]),
        attr("pprofcore.default_sample_type", string_value="cpu"),
        attr("deployment", string_value="blue"),
    ]
    rp = m.resource_profiles.add()
    rp.resource.attributes.add(key="service.name").value.string_value = "checkout"
    sp = rp.scope_profiles.add()
    sp.scope.name, sp.scope.version = "async-profiler", "4.2"
    for type_name, unit, scale in (("samples", "count", 1), ("cpu", "nanoseconds", 1000)):
        p = sp.profiles.add(time_unix_nano=1_000, duration_nano=10_000, period=10)
        p.sample_type.type_strindex, p.sample_type.unit_strindex = s(type_name), s(unit)
        p.period_type.type_strindex, p.period_type.unit_strindex = s("cpu"), s("nanoseconds")
        p.attribute_indices.extend(header)
        p.samples.add(stack_index=1, attribute_indices=[thread, size], values=[5 * scale])
        p.samples.add(
            stack_index=2,
            attribute_indices=[hot, ratio, raw, tags],
            link_index=1,
            values=[2 * scale],
            timestamps_unix_nano=[2_000],
        )
        p.samples.add(stack_index=3, values=[1 * scale, 3 * scale])
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


CHECK = r"""
import sys
sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.profiles.v1development import profiles_pb2 as pb
layout, data = sys.argv[2], open(sys.argv[3], "rb").read()
m = pb.ProfilesData.FromString(data)
m.DiscardUnknownFields()
assert m.SerializeToString() == data, "unknown fields or other wire types than the release's"
d = m.dictionary
profiles = m.resource_profiles[0].scope_profiles[0].profiles
st = d.string_table
if layout == "v1.7.0":
    [p] = profiles
    assert [st[t.type_strindex] for t in p.sample_type] == ["samples", "cpu"]
    assert p.default_sample_type_index == 1 and [st[c] for c in p.comment_strindices] == ["first", "second"]
    assert [list(s.value) for s in p.sample] == [[5, 5000], [2, 2000], [1, 1000], [3, 3000]]
    assert [list(s.timestamps_unix_nano) for s in p.sample] == [[], [2000], [], []]
    first = p.location_indices[p.sample[0].locations_start_index :][:2]
    assert [d.location_table[x].address for x in first] == [0x1200, 0x1100]
    assert [l.is_folded for l in d.location_table] == [False, True, False]
    assert not d.location_table[1].HasField("mapping_index") and d.location_table[0].mapping_index == 0
    mp = d.mapping_table[0]
    assert (mp.has_functions, mp.has_filenames, mp.has_line_numbers, mp.has_inline_frames) == (True, False, True, False)
    assert p.sample[1].HasField("link_index") and not p.sample[0].HasField("link_index")
    assert {st[u.attribute_key_strindex]: st[u.unit_strindex] for u in d.attribute_units} == {"size": "bytes"}
    assert "process.executable.build_id.gnu" in [a.key for a in d.attribute_table]
else:
    assert len(profiles) == 2
    for p, scale in zip(profiles, (1, 1000)):
        samples = p.sample if layout == "v1.8.0" else p.samples
        assert [list(s.values) for s in samples] == [[5 * scale], [2 * scale], [1 * scale, 3 * scale]]
        assert [list(s.timestamps_unix_nano) for s in samples] == [[], [2000], []]
        assert [s.link_index for s in samples] == [0, 1, 0]
        if layout == "v1.8.0":
            assert [st[c] for c in p.comment_strindices] == ["first", "second"]
print(layout, "ok")
"""


def main() -> None:
    from otlp_older import to_v1_7, to_v1_8, to_v1_9

    sites = dict(zip(("v1.7.0", "v1.8.0", "v1.9.0"), sys.argv[1:4]))
    m = content_v1_10()
    (HERE / "v1_10_0.pb").write_bytes(m.SerializeToString())
    for layout, data in (("v1.7.0", to_v1_7(m, join=True)), ("v1.8.0", to_v1_8(m)), ("v1.9.0", to_v1_9(m))):
        path = HERE / f"{layout.replace('.', '_')}.pb"
        path.write_bytes(data)
        subprocess.run([sys.executable, "-c", CHECK, sites[layout], layout, str(path)], check=True)
    (HERE / "expected.json").write_text(json.dumps(expected(m), indent=1) + "\n")


if __name__ == "__main__":
    main()
