"""profile.proto's field numbers are written once per language: the C++ enums of
cpp/include/pprofcore/proto_fields.hpp and the Python enums of
pprofcore._proto_fields. Both must name every field of every message with
profile.proto's own number; the oracle is the protobuf package's descriptor of
tests/proto/profile.proto."""

from __future__ import annotations

import re
from typing import Dict

import pytest
from pbprofile import profile_class
from testenv import REPO

from pprofcore import _proto_fields

HEADER = REPO / "cpp" / "include" / "pprofcore" / "proto_fields.hpp"

Fields = Dict[str, int]  # snake_case field name -> number


def _descriptor_messages() -> Dict[str, Fields]:
    """Every message reachable from Profile, as profile.proto numbers its fields."""
    found: Dict[str, Fields] = {}
    todo = [profile_class().DESCRIPTOR]
    while todo:
        d = todo.pop()
        if d.name in found:
            continue
        found[d.name] = {f.name: f.number for f in d.fields}
        todo += [f.message_type for f in d.fields if f.message_type is not None]
    return found


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower()


def _header_messages() -> Dict[str, Fields]:
    """The C++ enums, `enum class <Message>Field : uint32_t { kName = N, ... }`."""
    text = re.sub(r"//[^\n]*", "", HEADER.read_text())
    found: Dict[str, Fields] = {}
    for message, body in re.findall(r"enum class (\w+)Field\s*:\s*uint32_t\s*\{([^}]*)\}", text):
        found[message] = {_snake(name): int(number) for name, number in re.findall(r"\bk(\w+)\s*=\s*(\d+)", body)}
    return found


def _python_messages() -> Dict[str, Fields]:
    return {message: {f.name.lower(): int(f) for f in enum} for message, enum in _proto_fields.MESSAGES.items()}


PROTO = _descriptor_messages()


def test_the_oracle_sees_all_of_profile_proto():
    assert set(PROTO) == {"Profile", "ValueType", "Sample", "Label", "Mapping", "Location", "Line", "Function"}


@pytest.mark.parametrize("side", ["cpp", "python"])
def test_every_field_of_every_message_has_its_profile_proto_number(side):
    ours = _header_messages() if side == "cpp" else _python_messages()
    assert ours == PROTO


def test_the_python_enums_are_the_enums_of_the_cpp_header():
    assert _python_messages() == _header_messages()


def test_each_python_enum_is_named_after_its_message():
    for message, enum in _proto_fields.MESSAGES.items():
        assert enum.__name__ == f"{message}Field"
