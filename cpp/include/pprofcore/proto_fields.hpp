// proto_fields: profile.proto's schema as the core reads and writes it: the
// field numbers, one enum per message, with the field paths that error messages
// name, and the one-byte tags built from them. The decoder, the encoder, the
// scan and io's first-bytes check use these names; no other file of the core
// spells a field number or a tag byte (tools/lint.sh greps for them). Python's twin is
// python/pprofcore/_proto_fields.py; tests/core/test_proto_fields.py checks both
// against profile.proto.
#pragma once
#include <cstdint>
#include <type_traits>

#include "pprofcore/wire.hpp"

namespace pprofcore::proto {

// message Profile
enum class ProfileField : uint32_t {
  kSampleType = 1,          // repeated ValueType sample_type
  kSample = 2,              // repeated Sample sample
  kMapping = 3,             // repeated Mapping mapping
  kLocation = 4,            // repeated Location location
  kFunction = 5,            // repeated Function function
  kStringTable = 6,         // repeated string string_table
  kDropFrames = 7,          // int64 drop_frames (string index)
  kKeepFrames = 8,          // int64 keep_frames (string index)
  kTimeNanos = 9,           // int64 time_nanos
  kDurationNanos = 10,      // int64 duration_nanos
  kPeriodType = 11,         // ValueType period_type
  kPeriod = 12,             // int64 period
  kComment = 13,            // repeated int64 comment (string indexes)
  kDefaultSampleType = 14,  // int64 default_sample_type (string index)
  kDocUrl = 15,             // int64 doc_url (string index)
};
constexpr const char* kProfilePath = "Profile";
constexpr const char* kProfileUnknown = "Profile (unknown field)";
constexpr const char* path(ProfileField f) {
  switch (f) {
    case ProfileField::kSampleType:
      return "Profile.sample_type";
    case ProfileField::kSample:
      return "Profile.sample";
    case ProfileField::kMapping:
      return "Profile.mapping";
    case ProfileField::kLocation:
      return "Profile.location";
    case ProfileField::kFunction:
      return "Profile.function";
    case ProfileField::kStringTable:
      return "Profile.string_table";
    case ProfileField::kDropFrames:
      return "Profile.drop_frames";
    case ProfileField::kKeepFrames:
      return "Profile.keep_frames";
    case ProfileField::kTimeNanos:
      return "Profile.time_nanos";
    case ProfileField::kDurationNanos:
      return "Profile.duration_nanos";
    case ProfileField::kPeriodType:
      return "Profile.period_type";
    case ProfileField::kPeriod:
      return "Profile.period";
    case ProfileField::kComment:
      return "Profile.comment";
    case ProfileField::kDefaultSampleType:
      return "Profile.default_sample_type";
    case ProfileField::kDocUrl:
      return "Profile.doc_url";
  }
  return kProfilePath;
}

// message ValueType (sample_type, period_type): errors name the Profile field
// that holds it, since both share this message.
enum class ValueTypeField : uint32_t {
  kType = 1,  // int64 type (string index)
  kUnit = 2,  // int64 unit (string index)
};

// message Sample
enum class SampleField : uint32_t {
  kLocationId = 1,  // repeated uint64 location_id (packed or not)
  kValue = 2,       // repeated int64 value (packed or not)
  kLabel = 3,       // repeated Label label
};
constexpr const char* kSampleUnknown = "Profile.sample (unknown field)";
constexpr const char* path(SampleField f) {
  switch (f) {
    case SampleField::kLocationId:
      return "Profile.sample.location_id";
    case SampleField::kValue:
      return "Profile.sample.value";
    case SampleField::kLabel:
      return "Profile.sample.label";
  }
  return "Profile.sample";
}

// message Label
enum class LabelField : uint32_t {
  kKey = 1,      // int64 key (string index)
  kStr = 2,      // int64 str (string index)
  kNum = 3,      // int64 num
  kNumUnit = 4,  // int64 num_unit (string index)
};
constexpr const char* kLabelUnknown = "Profile.sample.label (unknown field)";
constexpr const char* path(LabelField f) {
  switch (f) {
    case LabelField::kKey:
      return "Profile.sample.label.key";
    case LabelField::kStr:
      return "Profile.sample.label.str";
    case LabelField::kNum:
      return "Profile.sample.label.num";
    case LabelField::kNumUnit:
      return "Profile.sample.label.num_unit";
  }
  return "Profile.sample.label";
}

// message Mapping
enum class MappingField : uint32_t {
  kId = 1,                // uint64 id
  kMemoryStart = 2,       // uint64 memory_start
  kMemoryLimit = 3,       // uint64 memory_limit
  kFileOffset = 4,        // uint64 file_offset
  kFilename = 5,          // int64 filename (string index)
  kBuildId = 6,           // int64 build_id (string index)
  kHasFunctions = 7,      // bool has_functions
  kHasFilenames = 8,      // bool has_filenames
  kHasLineNumbers = 9,    // bool has_line_numbers
  kHasInlineFrames = 10,  // bool has_inline_frames
};
constexpr const char* kMappingUnknown = "Profile.mapping (unknown field)";
constexpr const char* path(MappingField f) {
  switch (f) {
    case MappingField::kFilename:
      return "Profile.mapping.filename";
    case MappingField::kBuildId:
      return "Profile.mapping.build_id";
    default:
      return "Profile.mapping";  // numbers and flags: errors name the message
  }
}

// message Location
enum class LocationField : uint32_t {
  kId = 1,         // uint64 id
  kMappingId = 2,  // uint64 mapping_id
  kAddress = 3,    // uint64 address
  kLine = 4,       // repeated Line line
  kIsFolded = 5,   // bool is_folded
};
constexpr const char* kLocationPath = "Profile.location";
constexpr const char* kLocationUnknown = "Profile.location (unknown field)";
constexpr const char* path(LocationField f) {
  switch (f) {
    case LocationField::kId:
      return "Profile.location.id";
    case LocationField::kMappingId:
      return "Profile.location.mapping_id";
    case LocationField::kAddress:
      return "Profile.location.address";
    case LocationField::kLine:
      return "Profile.location.line";
    case LocationField::kIsFolded:
      return "Profile.location.is_folded";
  }
  return kLocationPath;
}

// message Line
enum class LineField : uint32_t {
  kFunctionId = 1,  // uint64 function_id
  kLine = 2,        // int64 line
  kColumn = 3,      // int64 column
};
constexpr const char* kLineUnknown = "Profile.location.line (unknown field)";
constexpr const char* path(LineField f) {
  switch (f) {
    case LineField::kFunctionId:
      return "Profile.location.line.function_id";
    case LineField::kLine:
      return "Profile.location.line.line";
    case LineField::kColumn:
      return "Profile.location.line.column";
  }
  return "Profile.location.line";
}

// message Function
enum class FunctionField : uint32_t {
  kId = 1,          // uint64 id
  kName = 2,        // int64 name (string index)
  kSystemName = 3,  // int64 system_name (string index)
  kFilename = 4,    // int64 filename (string index)
  kStartLine = 5,   // int64 start_line
};
constexpr const char* kFunctionPath = "Profile.function";
constexpr const char* kFunctionUnknown = "Profile.function (unknown field)";
constexpr const char* path(FunctionField f) {
  switch (f) {
    case FunctionField::kId:
      return "Profile.function.id";
    case FunctionField::kName:
      return "Profile.function.name";
    case FunctionField::kSystemName:
      return "Profile.function.system_name";
    case FunctionField::kFilename:
      return "Profile.function.filename";
    case FunctionField::kStartLine:
      return "Profile.function.start_line";
  }
  return kFunctionPath;
}

// Every field of profile.proto is numbered 1..15, so every tag (field number
// << 3 | wire type) fits one byte, as each enum's largest member shows.
static_assert(static_cast<uint32_t>(ProfileField::kDocUrl) <= 15 &&
                  static_cast<uint32_t>(MappingField::kHasInlineFrames) <= 15,
              "a profile.proto field numbered above 15 needs a two-byte tag");

// The tag byte of field `f` with wire type `t` (protozero's tag_and_type): a
// constant, so that fast paths can switch on the raw byte by its field's name.
template <class Field>
constexpr uint8_t tag_byte(Field f, wire::WireType t) {
  static_assert(std::is_enum<Field>::value, "tag_byte takes a field enum of proto_fields.hpp");
  return static_cast<uint8_t>((static_cast<uint32_t>(f) << 3) | static_cast<uint32_t>(t));
}

// The field number of a tag, as the enum of the message being read.
template <class Field>
constexpr Field field_of(uint32_t tag) {
  return static_cast<Field>(tag >> 3);
}

}  // namespace pprofcore::proto
