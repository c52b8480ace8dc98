"""profile.proto's field numbers, one ``IntEnum`` per message: the Python twin
of the C++ core's ``cpp/include/pprofcore/proto_fields.hpp``, for the few Python
writers of profile.proto (folded input, comments, ``-topproto``, the fleet
store's rebuild). No other module spells a field number;
``tests/core/test_proto_fields.py`` checks these against the C++ header and against
profile.proto itself. A leaf module: imports nothing from pprofcore."""

from __future__ import annotations

from enum import IntEnum


class ProfileField(IntEnum):
    """message Profile"""

    SAMPLE_TYPE = 1  # repeated ValueType
    SAMPLE = 2  # repeated Sample
    MAPPING = 3  # repeated Mapping
    LOCATION = 4  # repeated Location
    FUNCTION = 5  # repeated Function
    STRING_TABLE = 6  # repeated string
    DROP_FRAMES = 7  # string index
    KEEP_FRAMES = 8  # string index
    TIME_NANOS = 9
    DURATION_NANOS = 10
    PERIOD_TYPE = 11  # ValueType
    PERIOD = 12
    COMMENT = 13  # repeated string index
    DEFAULT_SAMPLE_TYPE = 14  # string index
    DOC_URL = 15  # string index


class ValueTypeField(IntEnum):
    """message ValueType (Profile.sample_type, Profile.period_type)"""

    TYPE = 1  # string index
    UNIT = 2  # string index


class SampleField(IntEnum):
    """message Sample"""

    LOCATION_ID = 1  # repeated, packed
    VALUE = 2  # repeated, packed
    LABEL = 3  # repeated Label


class LabelField(IntEnum):
    """message Label"""

    KEY = 1  # string index
    STR = 2  # string index
    NUM = 3
    NUM_UNIT = 4  # string index


class MappingField(IntEnum):
    """message Mapping"""

    ID = 1
    MEMORY_START = 2
    MEMORY_LIMIT = 3
    FILE_OFFSET = 4
    FILENAME = 5  # string index
    BUILD_ID = 6  # string index
    HAS_FUNCTIONS = 7
    HAS_FILENAMES = 8
    HAS_LINE_NUMBERS = 9
    HAS_INLINE_FRAMES = 10


class LocationField(IntEnum):
    """message Location"""

    ID = 1
    MAPPING_ID = 2
    ADDRESS = 3
    LINE = 4  # repeated Line
    IS_FOLDED = 5


class LineField(IntEnum):
    """message Line"""

    FUNCTION_ID = 1
    LINE = 2
    COLUMN = 3


class FunctionField(IntEnum):
    """message Function"""

    ID = 1
    NAME = 2  # string index
    SYSTEM_NAME = 3  # string index
    FILENAME = 4  # string index
    START_LINE = 5


# Each message's enum, by the message's name in profile.proto.
MESSAGES = {
    "Profile": ProfileField,
    "ValueType": ValueTypeField,
    "Sample": SampleField,
    "Label": LabelField,
    "Mapping": MappingField,
    "Location": LocationField,
    "Line": LineField,
    "Function": FunctionField,
}
