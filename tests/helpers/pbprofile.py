"""Profile messages from the `protobuf` package built from tests/proto/profile.proto
at run time (no protoc, no generated code), and a Hypothesis strategy for random
valid profiles as such messages. Shared by the differential and malformed tests."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from hypothesis import strategies as st

PROTO = Path(__file__).resolve().parent.parent / "proto" / "profile.proto"

_SCALARS = {
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "uint64": descriptor_pb2.FieldDescriptorProto.TYPE_UINT64,
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
    "bytes": descriptor_pb2.FieldDescriptorProto.TYPE_BYTES,
}


def parse_proto(text: str) -> tuple:
    """(package, {message: [(label, type, name, number)]}) of a tiny proto3 file."""
    text = re.sub(r"//[^\n]*", "", text)
    package = re.search(r"\bpackage\s+([\w.]+)\s*;", text).group(1)
    messages = {}
    for name, body in re.findall(r"\bmessage\s+(\w+)\s*\{([^}]*)\}", text):
        fields = re.findall(r"(repeated\s+)?(\w+)\s+(\w+)\s*=\s*(\d+)\s*;", body)
        messages[name] = [(bool(rep), typ, fname, int(num)) for rep, typ, fname, num in fields]
    return package, messages


def field_names(message: str) -> list:
    """The field names of ``message`` in tests/proto/profile.proto, in order
    (pprofcore's column names of that table)."""
    return [name for _, _, name, _ in parse_proto(PROTO.read_text())[1][message]]


@lru_cache(maxsize=None)
def profile_class(packed: bool = True):
    """The Profile message class built from tests/proto/profile.proto.

    `string_table` is read as `bytes` rather than `string`: Go (and pprof) strings
    are bytes, and the corpus has a profile with invalid UTF-8 that protobuf's
    `string` would reject. `packed=False` writes repeated scalars unpacked."""
    package, messages = parse_proto(PROTO.read_text())
    variant = "packed" if packed else "unpacked"
    fdp = descriptor_pb2.FileDescriptorProto(
        name=f"pprofcore_test/{variant}/profile.proto", package=f"{package}.{variant}", syntax="proto3"
    )
    for mname, fields in messages.items():
        m = fdp.message_type.add(name=mname)
        for repeated, typ, fname, number in fields:
            f = m.field.add(name=fname, number=number)
            f.label = f.LABEL_REPEATED if repeated else f.LABEL_OPTIONAL
            if typ in _SCALARS:
                f.type = _SCALARS["bytes"] if (mname, fname) == ("Profile", "string_table") else _SCALARS[typ]
                if repeated and not packed and typ != "string":
                    f.options.packed = False
            else:
                assert typ in messages, f"unknown type {typ}"
                f.type = f.TYPE_MESSAGE
                f.type_name = f".{fdp.package}.{typ}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{fdp.package}.Profile"))


def _ids(draw, n: int) -> list:
    """n distinct nonzero ids: dense 1..n in order, shuffled, or sparse/huge."""
    mode = draw(st.sampled_from(["dense", "shuffled", "sparse"]))
    if mode == "dense":
        return list(range(1, n + 1))
    if mode == "shuffled":
        return draw(st.permutations(list(range(1, n + 1))))
    return draw(st.lists(st.integers(1, 2**64 - 1), min_size=n, max_size=n, unique=True))


I64 = st.integers(-(2**63), 2**63 - 1)
U64 = st.integers(0, 2**64 - 1)


@st.composite
def valid_profiles(draw):
    packed = draw(st.booleans())
    msg = profile_class(packed)()
    strings = [b""] + draw(st.lists(st.text(max_size=12).map(str.encode) | st.binary(max_size=6), max_size=12))
    msg.string_table.extend(strings)
    code = st.integers(0, len(strings) - 1)

    n_types = draw(st.integers(0, 3))
    for _ in range(n_types):
        msg.sample_type.add(type=draw(code), unit=draw(code))

    mapping_ids = _ids(draw, draw(st.integers(0, 3)))
    for mid in mapping_ids:
        msg.mapping.add(
            id=mid,
            memory_start=draw(U64),
            memory_limit=draw(U64),
            file_offset=draw(U64),
            filename=draw(code),
            build_id=draw(code),
            has_functions=draw(st.booleans()),
            has_filenames=draw(st.booleans()),
            has_line_numbers=draw(st.booleans()),
            has_inline_frames=draw(st.booleans()),
        )
    function_ids = _ids(draw, draw(st.integers(0, 5)))
    for fid in function_ids:
        msg.function.add(id=fid, name=draw(code), system_name=draw(code), filename=draw(code), start_line=draw(I64))
    location_ids = _ids(draw, draw(st.integers(0, 6)))
    for lid in location_ids:
        loc = msg.location.add(id=lid, address=draw(U64), is_folded=draw(st.booleans()))
        if mapping_ids and draw(st.booleans()):
            loc.mapping_id = draw(st.sampled_from(mapping_ids))
        if function_ids:
            for _ in range(draw(st.integers(0, 3))):  # inline frames
                loc.line.add(function_id=draw(st.sampled_from(function_ids)), line=draw(I64), column=draw(I64))
    if n_types:
        for _ in range(draw(st.integers(0, 6))):
            s = msg.sample.add()
            if location_ids:
                s.location_id.extend(draw(st.lists(st.sampled_from(location_ids), max_size=5)))
            s.value.extend(draw(st.lists(I64, min_size=n_types, max_size=n_types)))
            for _ in range(draw(st.integers(0, 3))):
                kind = draw(st.sampled_from(["str", "num", "empty"]))
                if kind == "str":
                    s.label.add(key=draw(code), str=draw(code))
                elif kind == "num":
                    s.label.add(key=draw(code), num=draw(I64), num_unit=draw(code))
                else:
                    s.label.add(key=draw(code))  # all-zero: dropped by pprof
    if draw(st.booleans()):
        msg.period_type.type = draw(code)
        msg.period_type.unit = draw(code)
    msg.period = draw(I64)
    msg.time_nanos = draw(I64)
    msg.duration_nanos = draw(I64)
    msg.comment.extend(draw(st.lists(code, max_size=3)))
    msg.drop_frames = draw(code)
    msg.keep_frames = draw(code)
    msg.default_sample_type = draw(code)
    msg.doc_url = draw(code)
    return msg


def name_regexes(msg) -> list[str]:
    """Regexes for a name filter drawn over `msg`: "." and up to four of its strings, escaped."""
    names = {s.decode("utf-8", "replace") for s in msg.string_table if s}
    return ["."] + [re.escape(n) for n in sorted(names)[:4]]


#: Samples for pprofcore.build: (stack of five function names, value, labels:
#: none, a string label of two values, or a numeric one with a unit). Small
#: enough that filters keep, drop and hide in every mix.
stacks_with_labels = st.lists(
    st.tuples(
        st.lists(st.sampled_from(["main", "a", "b", "c", "leaf"]), min_size=1, max_size=6),
        st.integers(-50, 200),
        st.sampled_from([[], [("tenant", "x", "")], [("tenant", "y", "")], [("bytes", 64, "bytes")]]),
    ),
    min_size=1,
    max_size=25,
)
