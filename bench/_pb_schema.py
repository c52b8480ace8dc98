"""profile.proto message classes for Python's `protobuf`, built at runtime.

The schema is google/pprof's ``proto/profile.proto`` (plus ``Line.column`` and
``Profile.doc_url``), written out as a ``FileDescriptorProto``, so the benchmark
needs neither ``protoc`` nor generated ``_pb2`` files. Used only by ``bench/``.

>>> from _pb_schema import Profile
>>> msg = Profile.FromString(raw_bytes)    # doctest: +SKIP
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_INT64, _UINT64, _BOOL, _STRING, _MSG = _F.TYPE_INT64, _F.TYPE_UINT64, _F.TYPE_BOOL, _F.TYPE_STRING, _F.TYPE_MESSAGE
_REPEATED, _OPTIONAL = _F.LABEL_REPEATED, _F.LABEL_OPTIONAL

PACKAGE = "perftools.profiles"

# message -> [(field name, number, type, repeated, message type name or None)]
SCHEMA = {
    "Profile": [
        ("sample_type", 1, _MSG, True, "ValueType"),
        ("sample", 2, _MSG, True, "Sample"),
        ("mapping", 3, _MSG, True, "Mapping"),
        ("location", 4, _MSG, True, "Location"),
        ("function", 5, _MSG, True, "Function"),
        ("string_table", 6, _STRING, True, None),
        ("drop_frames", 7, _INT64, False, None),
        ("keep_frames", 8, _INT64, False, None),
        ("time_nanos", 9, _INT64, False, None),
        ("duration_nanos", 10, _INT64, False, None),
        ("period_type", 11, _MSG, False, "ValueType"),
        ("period", 12, _INT64, False, None),
        ("comment", 13, _INT64, True, None),
        ("default_sample_type", 14, _INT64, False, None),
        ("doc_url", 15, _INT64, False, None),
    ],
    "ValueType": [("type", 1, _INT64, False, None), ("unit", 2, _INT64, False, None)],
    "Sample": [
        ("location_id", 1, _UINT64, True, None),
        ("value", 2, _INT64, True, None),
        ("label", 3, _MSG, True, "Label"),
    ],
    "Label": [
        ("key", 1, _INT64, False, None),
        ("str", 2, _INT64, False, None),
        ("num", 3, _INT64, False, None),
        ("num_unit", 4, _INT64, False, None),
    ],
    "Mapping": [
        ("id", 1, _UINT64, False, None),
        ("memory_start", 2, _UINT64, False, None),
        ("memory_limit", 3, _UINT64, False, None),
        ("file_offset", 4, _UINT64, False, None),
        ("filename", 5, _INT64, False, None),
        ("build_id", 6, _INT64, False, None),
        ("has_functions", 7, _BOOL, False, None),
        ("has_filenames", 8, _BOOL, False, None),
        ("has_line_numbers", 9, _BOOL, False, None),
        ("has_inline_frames", 10, _BOOL, False, None),
    ],
    "Location": [
        ("id", 1, _UINT64, False, None),
        ("mapping_id", 2, _UINT64, False, None),
        ("address", 3, _UINT64, False, None),
        ("line", 4, _MSG, True, "Line"),
        ("is_folded", 5, _BOOL, False, None),
    ],
    "Line": [
        ("function_id", 1, _UINT64, False, None),
        ("line", 2, _INT64, False, None),
        ("column", 3, _INT64, False, None),
    ],
    "Function": [
        ("id", 1, _UINT64, False, None),
        ("name", 2, _INT64, False, None),
        ("system_name", 3, _INT64, False, None),
        ("filename", 4, _INT64, False, None),
        ("start_line", 5, _INT64, False, None),
    ],
}


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(name="pprofcore_bench/profile.proto", package=PACKAGE, syntax="proto3")
    for name, fields in SCHEMA.items():
        msg = fd.message_type.add(name=name)
        for fname, number, ftype, repeated, type_name in fields:
            f = msg.field.add(name=fname, number=number, type=ftype, label=_REPEATED if repeated else _OPTIONAL)
            if type_name:
                f.type_name = f".{PACKAGE}.{type_name}"
    return fd


def _classes() -> dict:
    pool = descriptor_pool.DescriptorPool()
    fdp = _file_descriptor()
    pool.Add(fdp)
    pool_fd = pool.FindFileByName(fdp.name)
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.21
        get = message_factory.GetMessageClass
    else:  # older protobuf
        get = message_factory.MessageFactory(pool).GetPrototype
    return {name: get(pool_fd.message_types_by_name[name]) for name in SCHEMA}


_CLASSES = _classes()
Profile = _CLASSES["Profile"]


def implementation() -> str:
    """The protobuf runtime in use ('upb', 'cpp' or 'python')."""
    try:
        from google.protobuf.internal import api_implementation

        return api_implementation.Type()
    except Exception:  # pragma: no cover - private API moved
        return "unknown"
