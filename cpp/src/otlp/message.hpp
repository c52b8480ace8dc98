// message: an OTLP profiles message as read, before it becomes pprof profiles.
// The protobuf and JSON readers fill it; to_pprof.cpp checks every index and
// converts. Tables are flat columns (a location's lines and attributes are
// ranges of shared vectors), so a large message costs a few vectors, not an
// allocation per row. Samples are read when they are converted: from the
// message's bytes (protobuf) or from columns (JSON), through SampleCursor.
// Indices are kept as read, unchecked, with the byte offset (or JSON offset)
// of their message, so errors can say where a bad one is. A Message read from
// protobuf points into those bytes: it must not outlive them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "layout.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/otlp.hpp"
#include "pprofcore/strings.hpp"

namespace pprofcore::otlp::detail {

// An optional index the message left out (v1.7.0's Location.mapping_index and
// Sample.link_index: it has no zero entries, so index 0 is a row there).
constexpr int64_t kAbsent = INT64_MIN;

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
  uint8_t flags = 0;  // v1.7.0's has_* fields, bit k for field 6 + k (later layouts use attributes)
};

struct Line {
  int64_t function = 0, line = 0, column = 0;
};

struct Location {
  int64_t mapping = 0;
  uint64_t address = 0;
  size_t lines_begin = 0, lines_end = 0;  // range of Message::lines
  size_t attrs_begin = 0, attrs_end = 0;  // range of Message::location_attributes
  int64_t offset = -1;
};

struct Function {
  int64_t name = 0, system_name = 0, filename = 0, start_line = 0;
  int64_t offset = -1;
};

struct Link {
  std::string trace_id, span_id;
};

// Samples of one profile as columns (the JSON reader's); sample i's lists are
// [offsets[i], offsets[i+1]).
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
  std::vector<int64_t> comments;  // comment_strindices (v1.8.0, v1.7.0; later: an attribute)
  // v1.7.0: the columns of the samples its sample types share, all but the
  // values (which are in `samples`); null otherwise.
  std::shared_ptr<Samples> shared_samples;
  int64_t default_sample_type = -1;  // v1.7.0: the type_strindex its default_sample_type_index names
  Layout layout = Layout::kV1_10;    // of its samples' fields
  size_t source_index = 0;           // its Profile's index in the scope (v1.7.0: one per sample type share it)
  int64_t offset = -1;
  size_t num_samples = 0;
  // Protobuf: the Profile message's bytes (samples is empty), its offsets
  // counted from `base`; the samples are parsed when converted.
  const uint8_t *base = nullptr, *begin = nullptr, *end = nullptr;
};

// ProfilesDictionary.string_table: views into the input (protobuf: no copy)
// or into `unescaped` (JSON, whose strings are decoded copies).
struct DictionaryStrings {
  std::vector<std::string_view> views;
  size_t bytes = 0;                    // the views' total length
  std::vector<std::string> unescaped;  // JSON only (moving a vector keeps its elements in place)

  size_t size() const { return views.size(); }
  std::string_view operator[](size_t i) const { return views[i]; }
  void push_back(std::string_view s) {
    views.push_back(s);
    bytes += s.size();
  }
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
  std::vector<Line> lines;
  std::vector<int64_t> location_attributes;
  // v1.7.0's Location.is_folded, by location (empty for later layouts, which
  // spell it as an attribute): kept apart so that Location stays 56 bytes.
  std::vector<uint8_t> location_folded;
  std::vector<Function> functions;
  std::vector<Link> links;
  DictionaryStrings strings;
  std::vector<Attribute> attributes;
  // Stack entry s has stack_offsets[s + 1] - stack_offsets[s] locations. In
  // the usual protobuf shape (one packed field) they stay in the input,
  // stack_packed[s] (checked when read, decoded when converted); otherwise
  // (and from JSON, where stack_packed is empty) they are in stack_locations
  // from stack_first[s] on, -1 standing for an index int32 cannot hold (out of
  // range of any table; the first such is kept in wide_location).
  std::vector<int64_t> stack_offsets{0};
  std::vector<const uint8_t*> stack_packed;
  std::vector<int64_t> stack_first;
  std::vector<int32_t> stack_locations;
  int64_t wide_location = -1;
  std::vector<int64_t> stack_offset;  // byte offset of each stack entry
  bool json = false;                  // offsets count JSON text bytes
  Layout layout = Layout::kV1_10;     // as read
  // An older layout that fits the message better, though it reads as `layout`
  // (otlp.cpp prefers it when that reading succeeds).
  Layout prefer_layout = Layout::kV1_10;
  size_t input_bytes = 0;  // the message's length

  // The most stack locations the samples of one profile may expand to: a
  // stack is stored once and named by every sample (v1.7.0: ranges of a list
  // that may overlap), so a small message can name billions; past this many
  // (more than any real profile's ratio) it is refused as a bomb.
  size_t max_stack_locations() const { return 128 * input_bytes + (size_t{32} << 20); }

  // Whether index 0 of the mapping, link and attribute tables is the zero
  // entry that means "none" (every layout but v1.7.0's and v1.6.0's).
  bool zero_entries() const { return !v1_7_profiles(layout); }

  // Empty again, every table keeping its buffer (kept_tables.cpp reuses them).
  void clear();
};

// A stack_table location index as stored in Message::stack_locations.
inline int32_t stack_location(Message& m, int64_t index) {
  if (index >= 0 && index <= INT32_MAX) return static_cast<int32_t>(index);
  if (m.wide_location == -1) m.wide_location = index;
  return -1;
}

// One sample as the converter sees it; the lists stay valid until the next one.
struct SampleView {
  int64_t stack = 0, link = 0, offset = -1;
  const int64_t* attrs = nullptr;
  size_t n_attrs = 0;
  const int64_t* values = nullptr;
  size_t n_values = 0;
  const uint64_t* times = nullptr;
  size_t n_times = 0;
};

// The samples of one ProfileMsg in order: from its columns (JSON), or parsed
// from its bytes one at a time (protobuf; wire errors surface here, named by
// field and offset as the reader names them).
class SampleCursor {
 public:
  explicit SampleCursor(const ProfileMsg& p) : p_(p), at_(p.begin), current_(p.layout == Layout::kV1_10) {}
  bool next(SampleView& v);

  // next() for a sample expected to differ from `first`'s current one (read
  // into `like`) in its values alone, as the sample types of one pprof
  // profile do when written side by side. When its bytes are first's but
  // for one values field, `same` is set and only v's values and offset are
  // (the rest is like's), without reading the rest again; otherwise it is
  // read as next() reads it.
  bool next_sibling(const SampleCursor& first, const SampleView& like, SampleView& v, bool& same);

 private:
  static constexpr size_t kInline = 16;  // list lengths read without a vector

  // The next Profile.samples field's payload, or false at the end.
  bool next_payload(const uint8_t*& begin, const uint8_t*& end);
  bool next_payload_slow(const uint8_t*& begin, const uint8_t*& end);  // other tags, longer lengths
  bool next_row(SampleView& v);                                        // from the columns (JSON, v1.7.0)
  void read(const uint8_t* begin, const uint8_t* end, SampleView& v);

  const ProfileMsg& p_;
  const uint8_t* at_;  // protobuf: where the next field starts
  bool current_;       // the newest layout's Sample fields (the common-shape reader's)
  // The last sample's payload, and its values field (tag to end; null unless
  // it was read by the common-shape reader with one values field).
  const uint8_t *sample_begin_ = nullptr, *sample_end_ = nullptr;
  const uint8_t *values_begin_ = nullptr, *values_end_ = nullptr;
  size_t j_ = 0;  // JSON: the next sample's row
  int64_t attrs_inline_[kInline], values_inline_[kInline];
  uint64_t times_inline_[kInline];
  std::vector<int64_t> attrs_, values_;
  std::vector<uint64_t> times_;
};

// protobuf -> Message (read_wire.cpp: into an empty Message, whose tables may
// hold buffers from an earlier load, read as `layout`); JSON -> Message
// (read_json.cpp).
void read_wire(const uint8_t* data, size_t n, Message& m, Layout layout);
Message read_json(const uint8_t* data, size_t n, Layout* layout = nullptr);  // *layout: as read, once known
bool looks_like_json(const uint8_t* data, size_t n);

// The converter's lookups, one entry per dictionary row: the profile's row
// (or string code) of each, -1 until used. Their contents are set for each
// profile converted; only the buffers are kept between loads.
struct ConverterTables {
  std::vector<int32_t> str_code, loc_row, fn_row, map_row;
  std::vector<int64_t> stack_at;               // per stack_table entry: where its first copy starts
  std::vector<uint64_t> attr_rows, link_rows;  // per entry: its range of label rows
};

// Message -> pprof profiles (to_pprof.cpp).
std::vector<Decoded> to_pprof(Message& m, ConverterTables& tables);

}  // namespace pprofcore::otlp::detail
