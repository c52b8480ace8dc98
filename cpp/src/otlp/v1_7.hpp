// v1_7: opentelemetry-proto v1.7.0's layout, what its protobuf and JSON
// readers (read_v1_7.cpp, read_json.cpp) share. There a profile has several
// sample types, each sample one value per type, a sample's stack is a range of
// the profile's own location_indices, and the dictionary has no zero entries.
// A profile as read (RawProfileV1_7) becomes one ProfileMsg per sample type
// with the same samples (the converter joins them into one pprof profile, as
// it joins the profiles the writer splits), its stacks added to the message's
// stack table once per distinct range.
#pragma once
#include <cstdint>
#include <vector>

#include "message.hpp"

namespace pprofcore::otlp::detail {

// One sample as read: its lists are ranges of the profile's shared columns.
struct RawSampleV1_7 {
  int64_t start = 0, length = 0, link = kAbsent, offset = -1;
  size_t values_end = 0, attrs_end = 0, times_end = 0;  // each list starts where the previous sample's ended
};

struct RawProfileV1_7 {
  std::vector<ValueType> sample_types;
  std::vector<int64_t> location_indices;
  std::vector<RawSampleV1_7> samples;
  std::vector<int64_t> values, attrs;
  std::vector<int64_t> times;  // uint64 on the wire, as varints
  int64_t default_index = -1, default_offset = -1;
};

// An attribute_units entry: numeric attributes keyed by string_table[key] have that unit.
struct AttributeUnitV1_7 {
  int64_t key = 0, unit = 0, offset = -1;
};

// raw (its samples checked here) and the profile's other fields (`header`)
// -> one ProfileMsg per sample type, appended to scope.profiles.
void add_profile_v1_7(RawProfileV1_7& raw, const ProfileMsg& header, ScopeMsg& scope, Message& m);

// Once the whole message is read (attribute keys already string indices):
// the units onto the attributes, and index 0 read as none where the
// producer wrote zero entries.
void finish_dictionary_v1_7(Message& m, const std::vector<AttributeUnitV1_7>& units);

}  // namespace pprofcore::otlp::detail
