// message: an OTLP profiles message as read, before it becomes pprof profiles.
// The protobuf and JSON readers fill it; to_pprof.cpp checks every index and
// converts. Samples and stacks are columns (CSR), so a large message costs a
// few vectors, not an allocation per sample. Indices are kept as read (int64,
// unchecked) together with the byte offset (or JSON offset) of their message,
// so errors can say where a bad one is.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/errors.hpp"
#include "pprofcore/otlp.hpp"
#include "pprofcore/strings.hpp"

namespace pprofcore::otlp::detail {

// A value whose strings may still be string-table indices (AnyValue's
// string_value_strindex, KeyValue's key_strindex).
struct RawValue {
  Value value;
  int64_t strindex = -1;  // >= 0: kString with its text in the string table
  std::vector<RawValue> array;
  struct Pair;
  std::vector<Pair> map;
};
struct RawValue::Pair {
  std::string key;
  int64_t key_strindex = -1;
  RawValue value;
};

struct Attribute {  // ProfilesDictionary.attribute_table entry
  int64_t key = 0;
  RawValue value;
  int64_t unit = 0;
  int64_t offset = -1;
};

struct Mapping {
  uint64_t memory_start = 0, memory_limit = 0, file_offset = 0;
  int64_t filename = 0;
  std::vector<int64_t> attributes;
  int64_t offset = -1;
};

struct Line {
  int64_t function = 0, line = 0, column = 0;
};

struct Location {
  int64_t mapping = 0;
  uint64_t address = 0;
  std::vector<Line> lines;
  std::vector<int64_t> attributes;
  int64_t offset = -1;
};

struct Function {
  int64_t name = 0, system_name = 0, filename = 0, start_line = 0;
  int64_t offset = -1;
};

struct Link {
  std::string trace_id, span_id;
};

// Samples of one profile as columns; sample i's lists are [offsets[i], offsets[i+1]).
struct Samples {
  std::vector<int64_t> stack, link, offset;
  std::vector<int64_t> attr_offsets{0}, attrs;
  std::vector<int64_t> value_offsets{0}, values;
  std::vector<int64_t> time_offsets{0};
  std::vector<uint64_t> times;
  size_t size() const { return stack.size(); }
};

struct ValueType {
  int64_t type = 0, unit = 0;
};

struct ProfileMsg {
  ValueType sample_type, period_type;
  bool has_period_type = false;
  Samples samples;
  uint64_t time_unix_nano = 0, duration_nano = 0;
  int64_t period = 0;
  std::string profile_id, original_payload_format, original_payload;
  uint32_t dropped_attributes_count = 0;
  std::vector<int64_t> attributes;
  int64_t offset = -1;
};

using RawAttributes = std::vector<RawValue::Pair>;  // Resource/scope attributes (strindex allowed)

struct ScopeMsg {
  std::string name, version, schema_url;
  RawAttributes attributes;
  std::vector<ProfileMsg> profiles;
};

struct ResourceMsg {
  RawAttributes attributes;
  std::string schema_url;
  std::vector<ScopeMsg> scopes;
};

struct Message {
  std::vector<ResourceMsg> resources;
  std::vector<Mapping> mappings;
  std::vector<Location> locations;
  std::vector<Function> functions;
  std::vector<Link> links;
  StringTable strings;  // one buffer: no allocation per string
  std::vector<Attribute> attributes;
  std::vector<int64_t> stack_offsets{0}, stack_locations;
  std::vector<int64_t> stack_offset;  // byte offset of each stack entry
  bool json = false;                  // offsets count JSON text bytes
};

// protobuf -> Message (read_wire.cpp); JSON -> Message (read_json.cpp).
Message read_wire(const uint8_t* data, size_t n);
Message read_json(const uint8_t* data, size_t n);
bool looks_like_json(const uint8_t* data, size_t n);

// Message -> pprof profiles (to_pprof.cpp).
std::vector<Decoded> to_pprof(Message& m);

}  // namespace pprofcore::otlp::detail
