// layout: the protobuf layouts of the profiles signal that the reader knows,
// and the exception that says a message is of an older one than it assumed.
// The signal changed its wire format in every release before v1.10.0, and
// producers (async-profiler 4.1-4.4, OpenTelemetry's eBPF profiler and
// Collector) wrote each of them: otlp.cpp reads a message as the newest layout
// and, told by OlderLayout which one its fields betray, reads it again as that.
#pragma once
#include <cstdint>
#include <string>

#include "pprofcore/errors.hpp"

namespace pprofcore::otlp::detail {

// Newest first (a larger value is an older layout). v1.11.0 is v1.10.0's.
enum class Layout : uint8_t {
  kV1_10 = 0,  // Sample {stack_index, attribute_indices, link_index, values, timestamps}
  kV1_9 = 1,   // Sample {stack_index, values, attribute_indices, link_index, timestamps}
  kV1_8 = 2,   // v1.9.0's Sample; Profile.comment_strindices (7) before profile_id; ValueType temporality
  kV1_7 = 3,   // several sample types, Profile.location_indices, KeyValue attributes, Mapping flags
  kV1_6 = 4,   // v1.7.0's, its dictionary's tables fields 2-8 of ProfilesData itself
};

// The layouts whose profiles are v1.7.0's (read_v1_7.cpp) and whose tables
// have no zero entries.
inline bool v1_7_profiles(Layout l) { return l >= Layout::kV1_7; }

inline const char* layout_version(Layout l) {
  switch (l) {
    case Layout::kV1_9:
      return "v1.9.0";
    case Layout::kV1_8:
      return "v1.8.0";
    case Layout::kV1_7:
      return "v1.7.0";
    case Layout::kV1_6:
      return "v1.6.0";
    default:
      return "v1.10.0";
  }
}

// A field whose number or wire type belongs to `layout`, older than the one
// being read, and that no message of the layout being read has (a wire type
// it never has, a field number it lacks).
class OlderLayout : public DecodeError {
 public:
  OlderLayout(Layout layout, const std::string& message, const std::string& field, int64_t offset)
      : DecodeError(message, field, offset), layout_(layout) {}
  Layout layout() const { return layout_; }

 private:
  Layout layout_;
};

inline Layout older_than(Layout l) { return static_cast<Layout>(static_cast<uint8_t>(l) + 1); }

}  // namespace pprofcore::otlp::detail
