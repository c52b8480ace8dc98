// to_pprof: detail::Message -> pprof profiles. Checks every index against its
// table (DecodeError with the field and the offset of the message holding it),
// copies into each profile only the dictionary rows its samples reach (ids
// 1..n in order of first use), turns sample attributes, links and timestamps
// into labels and the pprof.* attributes into pprof's fields. OTLP profiles of
// one scope with matching samples join as the sample types of one profile:
// their samples are read side by side and compared as they are converted, and
// written straight into the profile's columns (no per-sample copy in between).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <string>
#include <string_view>

#include "conventions.hpp"
#include "message.hpp"
#include "output_strings.hpp"
#include "pprofcore/memory.hpp"
#include "pprofcore/strings.hpp"

namespace pprofcore::otlp::detail {
namespace {

std::string hex(std::string_view b) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(b.size() * 2);
  for (unsigned char c : b) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

[[noreturn]] __attribute__((noinline, cold)) void out_of_range(int64_t index, size_t size, const char* field,
                                                               const char* table, int64_t offset) {
  throw DecodeError(std::string(field) + " " + std::to_string(index) + " is out of range of " + table + " (" +
                        std::to_string(size) + " entries)",
                    field, offset);
}

// The check runs once per frame of every stack: inline, the message built only on failure.
inline size_t checked(const Message&, int64_t index, size_t size, const char* field, const char* table,
                      int64_t offset) {
  if (index < 0 || static_cast<uint64_t>(index) >= size) out_of_range(index, size, field, table, offset);
  return static_cast<size_t>(index);
}

std::string_view string_at(const Message& m, int64_t index, const char* field, int64_t offset) {
  if (index == 0 && m.strings.size() == 0) return {};  // a missing string_table[0] is still ""
  return m.strings[checked(m, index, m.strings.size(), field, "string_table", offset)];
}

void append_json(std::string& out, const Value& v);

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

std::string double_text(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

// Arrays and maps nested in a label value are spelled as JSON text.
void append_json(std::string& out, const Value& v) {
  switch (v.kind) {
    case Value::kString:
      append_json_string(out, v.str);
      break;
    case Value::kBytes:
      append_json_string(out, hex(v.str));
      break;
    case Value::kBool:
      out += v.i ? "true" : "false";
      break;
    case Value::kInt:
      out += std::to_string(v.i);
      break;
    case Value::kDouble:
      out += double_text(v.d);
      break;
    case Value::kArray:
      out += '[';
      for (size_t i = 0; i < v.array.size(); ++i) {
        if (i) out += ',';
        append_json(out, v.array[i]);
      }
      out += ']';
      break;
    case Value::kMap:
      out += '{';
      for (size_t i = 0; i < v.map.size(); ++i) {
        if (i) out += ',';
        append_json_string(out, v.map[i].key);
        out += ':';
        append_json(out, v.map[i].value);
      }
      out += '}';
      break;
    default:
      out += "null";
  }
}

Value resolve(const Message& m, const RawValue& raw, int64_t offset) {
  Value v = raw.value;
  if (raw.strindex >= 0) v.str = std::string(string_at(m, raw.strindex, "AnyValue.string_value_strindex", offset));
  for (const RawValue& e : raw.array) v.array.push_back(resolve(m, e, offset));
  for (const RawValue::Pair& p : raw.map) {
    KeyValue kv;
    kv.key = p.key_strindex >= 0 ? std::string(string_at(m, p.key_strindex, "KeyValue.key_strindex", offset)) : p.key;
    kv.value = resolve(m, p.value, offset);
    v.map.push_back(std::move(kv));
  }
  return v;
}

std::vector<KeyValue> resolve(const Message& m, const RawAttributes& raw) {
  std::vector<KeyValue> out;
  for (const RawValue::Pair& p : raw) {
    KeyValue kv;
    kv.key = p.key_strindex >= 0 ? std::string(string_at(m, p.key_strindex, "KeyValue.key_strindex", -1)) : p.key;
    kv.value = resolve(m, p.value, -1);
    out.push_back(std::move(kv));
  }
  return out;
}

bool truthy(const Value& v) { return (v.kind == Value::kBool || v.kind == Value::kInt) && v.i != 0; }

// Makes col n longer (growing geometrically) and returns the new elements.
int32_t* extend(std::vector<int32_t>& col, size_t n) {
  const size_t at = col.size();
  if (col.capacity() < at + n) col.reserve(std::max(col.capacity() * 2, at + n));
  col.resize(at + n);
  return col.data() + at;
}

// Appends col[from, from + n) to col (insert() may not take a range of the vector itself).
void append_copy(std::vector<int32_t>& col, size_t from, size_t n) {
  if (n == 0) return;  // col may be empty: memcpy must not see its null data()
  int32_t* out = extend(col, n);
  std::memcpy(out, col.data() + from, n * sizeof(int32_t));
}

struct LabelRow {
  int32_t key, str;
  int64_t num;
  int32_t unit;
};

// One pprof profile under construction: dictionary rows are copied on first use.
class Builder {
 public:
  Builder(const Message& m, ConverterTables& tables) : m_(m), t_(tables), strings_(m.strings.size() + 16) {
    t_.str_code.assign(m.strings.size(), -1);
    t_.loc_row.assign(m.locations.size(), -1);
    t_.fn_row.assign(m.functions.size(), -1);
    t_.map_row.assign(m.mappings.size(), -1);
    t_.stack_at.clear();  // these three are filled on first use
    t_.attr_rows.clear();
    t_.link_rows.clear();
  }

  Profile p;

  // Room for every dictionary row, for a profile that is the whole message
  // (most rows reach it): no table grows by copying.
  void reserve_tables() {
    const size_t nl = m_.locations.size(), nf = m_.functions.size(), nm = m_.mappings.size();
    p.locations.for_each_column([nl](const char*, auto& c) { c.reserve(nl + 1); });
    p.lines.for_each_column([this](const char*, auto& c) { c.reserve(m_.lines.size()); });
    p.functions.for_each_column([nf](const char*, auto& c) { c.reserve(nf); });
    p.mappings.for_each_column([nm](const char*, auto& c) { c.reserve(nm); });
    strings_.reserve_bytes(m_.strings.bytes + 64);
  }

  int32_t intern(std::string_view s) { return strings_.intern(s); }

  int32_t code(int64_t index, const char* field, int64_t offset) {
    if (index == 0) return 0;
    size_t i = checked(m_, index, m_.strings.size(), field, "string_table", offset);
    if (t_.str_code[i] < 0) t_.str_code[i] = strings_.first_use(m_.strings[i]);
    return t_.str_code[i];
  }

  // Appends the location rows of stack_table[index], leaf first, to `col`:
  // converted on the stack's first use, copied from that first copy after it.
  void stack(int64_t index, int64_t offset, std::vector<int32_t>& col) {
    if (index == 0 && m_.stack_offsets.size() == 1) return;  // no stack_table: stack 0 is the empty one
    size_t s = checked(m_, index, m_.stack_offsets.size() - 1, "Sample.stack_index", "stack_table", offset);
    const size_t b = static_cast<size_t>(m_.stack_offsets[s]), e = static_cast<size_t>(m_.stack_offsets[s + 1]);
    if (t_.stack_at.empty()) t_.stack_at.assign(m_.stack_offsets.size() - 1, -1);
    if (t_.stack_at[s] >= 0) return append_copy(col, static_cast<size_t>(t_.stack_at[s]), e - b);
    t_.stack_at[s] = static_cast<int64_t>(col.size());
    const int64_t at = m_.stack_offset[s];
    if (const uint8_t* q = m_.stack_packed.empty() ? nullptr : m_.stack_packed[s]) {
      // Most stacks are decoded here and appended in one copy: growing the
      // column by resize() would first fill it with zeros.
      int32_t local[kLocalDepth];
      int32_t* out = e - b <= kLocalDepth ? local : extend(col, e - b);  // location() never grows col
      // e - b varints of at most 5 bytes, each ending where read_wire.cpp
      // counted one. The row table is read through a local pointer (it never
      // moves while a profile is built), not reloaded for every frame.
      // Indices 1..in_order_ are rows 0..in_order_ - 1 (below): no table load.
      const int32_t* const rows = t_.loc_row.data();
      const uint64_t num_rows = t_.loc_row.size();
      for (size_t k = b; k < e; ++k) {
        uint64_t v = *q++;
        if (v >= 0x80) {
          v &= 0x7f;
          for (int shift = 7;; shift += 7) {
            const uint8_t c = *q++;
            v |= uint64_t(c & 0x7f) << shift;
            if (c < 0x80) break;
          }
        }
        if (v - 1 < in_order_) {  // index 0 wraps around: not in the prefix
          *out++ = static_cast<int32_t>(v - 1);
          continue;
        }
        const int32_t row = v < num_rows ? rows[v] : -1;
        *out++ = row >= 0 ? row : new_location(static_cast<int64_t>(v), at);
      }
      if (e - b <= kLocalDepth) col.insert(col.end(), local, out);
      return;
    }
    int32_t* out = extend(col, e - b);
    const int32_t* indices = m_.stack_locations.data() + m_.stack_first[s];
    for (size_t k = b; k < e; ++k) *out++ = location(*indices++, at);
  }

  // The labels of attribute_table[index] (several for an array value):
  // made on the entry's first use, copied from then on (a sample's labels
  // are mostly the same few entries, and making one interns its text).
  void attribute_labels(int64_t index, int64_t offset, std::vector<LabelRow>& out) {
    if (index == 0 && m_.zero_entries()) return;  // attribute_table[0] is the zero value: "no attribute"
    const size_t i = checked(m_, index, m_.attributes.size(), "attribute_indices", "attribute_table", offset);
    if (t_.attr_rows.empty()) t_.attr_rows.assign(m_.attributes.size(), kNotMade);
    if (t_.attr_rows[i] == kNotMade) {
      const Attribute& a = m_.attributes[i];
      const size_t begin = made_.size();
      int32_t key = code(a.key, "KeyValueAndUnit.key_strindex", a.offset);
      int32_t unit = code(a.unit, "KeyValueAndUnit.unit_strindex", a.offset);
      value_labels(key, a.value, unit, a.offset, made_);
      t_.attr_rows[i] = rows(begin);
    }
    copy_rows(t_.attr_rows[i], out);
  }

  // The trace and span id labels of link_table[index], made once per entry too.
  void link_labels(int64_t index, int64_t offset, std::vector<LabelRow>& out) {
    if ((index == 0 && m_.zero_entries()) || index == kAbsent) return;
    const size_t i = checked(m_, index, m_.links.size(), "Sample.link_index", "link_table", offset);
    if (t_.link_rows.empty()) t_.link_rows.assign(m_.links.size(), kNotMade);
    if (t_.link_rows[i] == kNotMade) {
      const Link& l = m_.links[i];
      const size_t begin = made_.size();
      if (!l.trace_id.empty()) made_.push_back({intern(names::kTraceIdLabel), intern(hex(l.trace_id)), 0, 0});
      if (!l.span_id.empty()) made_.push_back({intern(names::kSpanIdLabel), intern(hex(l.span_id)), 0, 0});
      t_.link_rows[i] = rows(begin);
    }
    copy_rows(t_.link_rows[i], out);
  }

  // No check_invariants pass (a tenth of the time on large inputs): every row
  // index written here was checked against its table, as in the profile.proto
  // decoder; the fuzz target and the OTLP tests check the invariants.
  Profile finish() {
    p.strings = strings_.take();
    return std::move(p);
  }

 private:
  void value_labels(int32_t key, const RawValue& v, int32_t unit, int64_t offset, std::vector<LabelRow>& out) {
    if (v.strindex >= 0) {
      out.push_back({key, code(v.strindex, "AnyValue.string_value_strindex", offset), 0, 0});
      return;
    }
    switch (v.value.kind) {
      case Value::kInt:
        out.push_back({key, -1, v.value.i, unit});
        return;
      case Value::kString:
        out.push_back({key, intern(v.value.str), 0, 0});
        return;
      case Value::kBool:
        out.push_back({key, intern(v.value.i ? "true" : "false"), 0, 0});
        return;
      case Value::kDouble:
        out.push_back({key, intern(double_text(v.value.d)), 0, 0});
        return;
      case Value::kBytes:
        out.push_back({key, intern(hex(v.value.str)), 0, 0});
        return;
      case Value::kArray:
        // pprof allows a key several times on one sample; OTLP spells that as an array.
        for (const RawValue& e : v.array) {
          if (e.value.kind == Value::kArray || e.value.kind == Value::kMap) {
            std::string text;
            append_json(text, resolve(m_, e, offset));
            out.push_back({key, intern(text), 0, 0});
          } else {
            value_labels(key, e, unit, offset, out);
          }
        }
        return;
      case Value::kMap: {
        std::string text;
        append_json(text, resolve(m_, v, offset));
        out.push_back({key, intern(text), 0, 0});
        return;
      }
      default:
        out.push_back({key, 0, 0, 0});
    }
  }

  // Once per frame of every stack: the row when the location has one.
  int32_t location(int32_t index, int64_t offset) {
    if (static_cast<uint32_t>(index) < t_.loc_row.size() && t_.loc_row[static_cast<size_t>(index)] >= 0)
      return t_.loc_row[static_cast<size_t>(index)];
    return new_location(index < 0 ? m_.wide_location : index, offset);
  }

  int32_t new_location(int64_t index, int64_t offset) {
    size_t i = checked(m_, index, m_.locations.size(), "Stack.location_indices", "location_table", offset);
    const Location& x = m_.locations[i];
    auto& t = p.locations;
    int32_t row = static_cast<int32_t>(t.size());
    const bool no_mapping = (x.mapping == 0 && m_.zero_entries()) || x.mapping == kAbsent;
    int32_t mapping = no_mapping ? -1 : this->mapping(x.mapping, x.offset);
    bool folded = i < m_.location_folded.size() && m_.location_folded[i];
    for (size_t k = x.attrs_begin; k < x.attrs_end; ++k) {
      const int64_t a = m_.location_attributes[k];
      if (a == 0 && m_.zero_entries()) continue;
      const Attribute& attr = m_.attributes[checked(m_, a, m_.attributes.size(), "Location.attribute_indices",
                                                    "attribute_table", x.offset)];
      if (string_at(m_, attr.key, "KeyValueAndUnit.key_strindex", attr.offset) == names::kIsFolded)
        folded = truthy(attr.value.value);
    }
    for (size_t k = x.lines_begin; k < x.lines_end; ++k) {
      const Line& l = m_.lines[k];
      p.lines.function.push_back(function(l.function, x.offset));
      p.lines.line.push_back(l.line);
      p.lines.column.push_back(l.column);
    }
    t.id.push_back(static_cast<uint64_t>(row) + 1);
    t.mapping.push_back(mapping);
    t.address.push_back(x.address);
    t.is_folded.push_back(folded);
    t.line_offsets.push_back(static_cast<int64_t>(p.lines.size()));
    t_.loc_row[i] = row;
    if (static_cast<uint64_t>(row) == in_order_ && i == in_order_ + 1) ++in_order_;
    return row;
  }

  int32_t function(int64_t index, int64_t offset) {
    if (index == 0 && m_.functions.empty()) index = -1;  // no function_table: refuse rather than invent one
    size_t i = checked(m_, index, m_.functions.size(), "Line.function_index", "function_table", offset);
    if (t_.fn_row[i] >= 0) return t_.fn_row[i];
    const Function& x = m_.functions[i];
    auto& t = p.functions;
    int32_t row = static_cast<int32_t>(t.size());
    t.id.push_back(static_cast<uint64_t>(row) + 1);
    t.name.push_back(code(x.name, "Function.name_strindex", x.offset));
    t.system_name.push_back(code(x.system_name, "Function.system_name_strindex", x.offset));
    t.filename.push_back(code(x.filename, "Function.filename_strindex", x.offset));
    t.start_line.push_back(x.start_line);
    t_.fn_row[i] = row;
    return row;
  }

  int32_t mapping(int64_t index, int64_t offset) {
    size_t i = checked(m_, index, m_.mappings.size(), "Location.mapping_index", "mapping_table", offset);
    if (t_.map_row[i] >= 0) return t_.map_row[i];
    const Mapping& x = m_.mappings[i];
    auto& t = p.mappings;
    int32_t row = static_cast<int32_t>(t.size());
    bool flags[4];
    for (int k = 0; k < 4; ++k) flags[k] = (x.flags >> k) & 1;
    int32_t build_id = 0;
    int build_rank = 99;
    for (int64_t a : x.attributes) {
      if (a == 0 && m_.zero_entries()) continue;
      const Attribute& attr =
          m_.attributes[checked(m_, a, m_.attributes.size(), "Mapping.attribute_indices", "attribute_table", x.offset)];
      std::string_view key = string_at(m_, attr.key, "KeyValueAndUnit.key_strindex", attr.offset);
      const char* flag_names[4] = {names::kHasFunctions, names::kHasFilenames, names::kHasLineNumbers,
                                   names::kHasInlineFrames};
      for (int k = 0; k < 4; ++k)
        if (key == flag_names[k]) flags[k] = truthy(attr.value.value);
      for (int k = 0; k < 4; ++k) {
        if (key != names::kBuildIds[k] || k >= build_rank) continue;
        Value v = resolve(m_, attr.value, attr.offset);
        if (v.kind != Value::kString && v.kind != Value::kBytes) continue;
        build_id = intern(v.kind == Value::kBytes ? hex(v.str) : v.str);
        build_rank = k;
      }
    }
    t.id.push_back(static_cast<uint64_t>(row) + 1);
    t.memory_start.push_back(x.memory_start);
    t.memory_limit.push_back(x.memory_limit);
    t.file_offset.push_back(x.file_offset);
    t.filename.push_back(code(x.filename, "Mapping.filename_strindex", x.offset));
    t.build_id.push_back(build_id);
    t.has_functions.push_back(flags[0]);
    t.has_filenames.push_back(flags[1]);
    t.has_line_numbers.push_back(flags[2]);
    t.has_inline_frames.push_back(flags[3]);
    t_.map_row[i] = row;
    return row;
  }

  // made_[begin, made_.size()) as one word: begin in the high half, count in the low.
  uint64_t rows(size_t begin) const { return uint64_t(begin) << 32 | (made_.size() - begin); }

  void copy_rows(uint64_t range, std::vector<LabelRow>& out) const {
    const LabelRow* r = made_.data() + (range >> 32);
    for (uint32_t k = 0; k < static_cast<uint32_t>(range); ++k) out.push_back(r[k]);  // mostly one: no range insert
  }

  static constexpr uint64_t kNotMade = ~uint64_t(0);
  static constexpr size_t kLocalDepth = 256;  // stacks up to this deep are decoded on the C++ stack

  // Rows 0..in_order_ - 1 came from location_table[1..in_order_], in that
  // order: writers that number locations by first use (Go's runtime, pprof,
  // pprofcore) make every row so, and a frame in that prefix needs no
  // loc_row lookup (its row is its index - 1, as loc_row also says).
  uint64_t in_order_ = 0;
  const Message& m_;
  ConverterTables& t_;  // stack_at: where stack() first wrote each; attr_rows, link_rows: ranges of made_ (rows())
  OutputStrings strings_;
  std::vector<LabelRow> made_;  // the label rows of the attribute and link entries used so far
};

// Whether OTLP profiles a and b may be two sample types of one pprof profile
// (as the writer splits it): same header, as many samples; the samples
// themselves are compared as they are converted (same_sample).
bool same_header(const ProfileMsg& a, const ProfileMsg& b) {
  // v1.7.0 names a profile's sample types itself: its messages join only their own.
  if (v1_7_profiles(a.layout) && a.source_index != b.source_index) return false;
  return a.time_unix_nano == b.time_unix_nano && a.duration_nano == b.duration_nano && a.period == b.period &&
         a.has_period_type == b.has_period_type && a.period_type.type == b.period_type.type &&
         a.period_type.unit == b.period_type.unit && a.profile_id == b.profile_id && a.attributes == b.attributes &&
         a.comments == b.comments && a.default_sample_type == b.default_sample_type && a.num_samples == b.num_samples;
}

// Whether two samples differ in their values alone.
bool same_sample(const SampleView& a, const SampleView& b) {
  return a.stack == b.stack && a.link == b.link && a.n_attrs == b.n_attrs && a.n_values == b.n_values &&
         a.n_times == b.n_times && std::equal(a.attrs, a.attrs + a.n_attrs, b.attrs) &&
         std::equal(a.times, a.times + a.n_times, b.times);
}

// The pprof.* profile attributes go to pprof's header; the others are returned.
std::vector<KeyValue> header_attributes(const Message& m, const ProfileMsg& msg, Builder& b) {
  std::vector<KeyValue> rest;
  for (int64_t a : msg.attributes) {
    if (a == 0 && m.zero_entries()) continue;
    const Attribute& attr =
        m.attributes[checked(m, a, m.attributes.size(), "Profile.attribute_indices", "attribute_table", msg.offset)];
    KeyValue kv;
    kv.key = std::string(string_at(m, attr.key, "KeyValueAndUnit.key_strindex", attr.offset));
    kv.value = resolve(m, attr.value, attr.offset);
    kv.unit = std::string(string_at(m, attr.unit, "KeyValueAndUnit.unit_strindex", attr.offset));
    const Value& v = kv.value;
    if (kv.key == names::kComment && v.kind == Value::kArray) {
      for (const Value& c : v.array) b.p.comments.push_back(b.intern(c.str));
    } else if (kv.key == names::kComment && v.kind == Value::kString) {
      b.p.comments.push_back(b.intern(v.str));
    } else if (kv.key == names::kDropFrames && v.kind == Value::kString) {
      b.p.drop_frames = b.intern(v.str);
    } else if (kv.key == names::kKeepFrames && v.kind == Value::kString) {
      b.p.keep_frames = b.intern(v.str);
    } else if (kv.key == names::kDocUrl && v.kind == Value::kString) {
      b.p.doc_url = b.intern(v.str);
    } else if (kv.key == names::kDefaultSampleType && v.kind == Value::kString) {
      b.p.default_sample_type = b.intern(v.str);
    } else {
      rest.push_back(std::move(kv));
    }
  }
  return rest;
}

[[noreturn]] __attribute__((noinline, cold)) void stack_bomb(size_t max, size_t bytes, int64_t offset) {
  throw DecodeError("the samples' stacks expand to more than " + std::to_string(max) + " locations from a message of " +
                        std::to_string(bytes) + " bytes (refused as a decompression bomb)",
                    "Sample.stack_index", offset);
}

// The errors of observations(), out of its way (it runs once per sample).
[[noreturn]] __attribute__((noinline, cold)) void no_observations(const SampleView& v, Layout layout) {
  const std::string what = "sample has neither values nor timestamps_unix_nano";
  if (layout == Layout::kV1_10)  // naming the v1.9.0 sample it may be: otlp.cpp then tries that reading
    throw DecodeError(what +
                          " (opentelemetry-proto v1.9.0 and v1.8.0 kept values in Sample field 2, where "
                          "v1.10.0 has attribute_indices)",
                      "Sample.values", v.offset);
  throw DecodeError(what, "Sample.values", v.offset);
}

[[noreturn]] __attribute__((noinline, cold)) void unpaired(const SampleView& v) {
  throw DecodeError("sample has " + std::to_string(v.n_values) + " values but " + std::to_string(v.n_times) +
                        " timestamps_unix_nano (they must pair up)",
                    "Sample.timestamps_unix_nano", v.offset);
}

// The pprof samples of one OTLP sample: one per observation (a value, a
// timestamp or a pair). Throws for a sample with neither or unpaired lists.
inline size_t observations(const SampleView& v, Layout layout) {
  if (v.n_values == 0 && v.n_times == 0) no_observations(v, layout);
  if (v.n_values != 0 && v.n_times != 0 && v.n_values != v.n_times) unpaired(v);
  return std::max(v.n_values, v.n_times);
}

// One pprof profile from OTLP profiles group[0..] of one scope. Returns the
// number of them that hold the same samples as group[0] (group.size() when
// all do: then `out` is the profile; else the caller tries again with fewer).
size_t convert_group(const Message& m, ConverterTables& tables, const std::vector<const ProfileMsg*>& group, bool whole,
                     Origin& origin, Profile& out) {
  Builder b(m, tables);
  if (whole) b.reserve_tables();
  Profile& p = b.p;
  const ProfileMsg& first = *group[0];
  origin.profile_attributes = header_attributes(m, first, b);
  for (const ProfileMsg* g : group) {
    p.sample_type_type.push_back(b.code(g->sample_type.type, "ValueType.type_strindex", g->offset));
    p.sample_type_unit.push_back(b.code(g->sample_type.unit, "ValueType.unit_strindex", g->offset));
  }
  if (first.has_period_type) {
    p.has_period_type = true;
    p.period_type_type = b.code(first.period_type.type, "ValueType.type_strindex", first.offset);
    p.period_type_unit = b.code(first.period_type.unit, "ValueType.unit_strindex", first.offset);
  }
  for (int64_t c : first.comments) p.comments.push_back(b.code(c, "Profile.comment_strindices", first.offset));
  if (first.default_sample_type >= 0)
    p.default_sample_type = b.code(first.default_sample_type, "ValueType.type_strindex", first.offset);
  p.period = first.period;
  p.time_nanos = static_cast<int64_t>(first.time_unix_nano);
  p.duration_nanos = static_cast<int64_t>(first.duration_nano);

  // The output columns, sized from the sample count and the stack table's
  // average depth (counting exactly took a read of the samples of its own);
  // the estimate is capped by the input's size, as hostile input may claim
  // anything, and the columns grow if it falls short.
  const size_t nt = group.size(), n = first.num_samples, stacks = m.stack_offsets.size() - 1;
  const size_t depth = stacks ? static_cast<size_t>(m.stack_offsets.back()) / stacks : 0;
  reserve_huge(p.values, n * nt);
  reserve_huge(p.stack_offsets, n + 1);
  reserve_huge(p.label_offsets, n + 1);
  reserve_huge(p.stack_locations,
               std::min(n * depth + n * depth / 8, 16 * (n + static_cast<size_t>(m.stack_offsets.back()))));

  const int32_t ts_key = b.intern(names::kTimestampLabel), ns = b.intern(names::kNanoseconds);
  const size_t max_locations = m.max_stack_locations();
  std::vector<LabelRow> labels;
  std::vector<SampleCursor> cursors;
  cursors.reserve(nt);
  for (const ProfileMsg* g : group) cursors.emplace_back(*g);
  std::vector<SampleView> views(nt);
  std::vector<uint8_t> same(nt);  // per profile: its sample read as the first's but for the values
  for (size_t j = 0; j < n; ++j) {
    for (size_t t = 0; t < nt; ++t) {
      bool same_t = false;
      if (!(t ? cursors[t].next_sibling(cursors[0], views[0], views[t], same_t) : cursors[0].next(views[0])))
        throw std::logic_error("pprofcore internal error: OTLP samples miscounted");
      same[t] = same_t;
    }
    for (size_t t = 1; t < nt; ++t)
      if (!same[t] && !same_sample(views[0], views[t])) return t;
    const SampleView& s = views[0];
    // v1.7.0 does not pair values with timestamps: a sample with both (not
    // one each) keeps its values, its timestamps becoming labels.
    const bool times_as_labels = v1_7_profiles(m.layout) && s.n_values && s.n_times && s.n_values != s.n_times;
    const size_t obs = times_as_labels ? s.n_values : observations(s, m.layout);
    const size_t stack = p.stack_locations.size();
    b.stack(s.stack, s.offset, p.stack_locations);
    const size_t depth = p.stack_locations.size() - stack;
    // Its copies (one per observation) past the bound: a bomb (Message::max_stack_locations).
    if (depth && obs > (max_locations - std::min(max_locations, stack)) / depth)
      stack_bomb(max_locations, m.input_bytes, s.offset);
    labels.clear();
    for (size_t k = 0; k < s.n_attrs; ++k) b.attribute_labels(s.attrs[k], s.offset, labels);
    b.link_labels(s.link, s.offset, labels);
    if (times_as_labels)
      for (size_t k = 0; k < s.n_times; ++k) labels.push_back({ts_key, -1, static_cast<int64_t>(s.times[k]), ns});
    if (j == 0) {  // the first sample's labels stand for the others'
      const size_t rows = std::min((labels.size() + (s.n_times != 0)) * n, 16 * n);
      for (std::vector<int32_t>* c : {&p.labels.key, &p.labels.str, &p.labels.num_unit}) reserve_huge(*c, rows);
      reserve_huge(p.labels.num, rows);
    }
    for (size_t o = 0; o < obs; ++o) {
      for (size_t t = 0; t < nt; ++t) p.values.push_back(s.n_values ? views[t].values[o] : 1);
      if (o) append_copy(p.stack_locations, stack, depth);
      p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
      for (const LabelRow& l : labels) p.labels.push_back(l.key, l.str, l.num, l.unit);
      if (s.n_times && !times_as_labels) p.labels.push_back(ts_key, -1, static_cast<int64_t>(s.times[o]), ns);
      p.label_offsets.push_back(static_cast<int64_t>(p.labels.size()));
    }
  }
  out = b.finish();
  return nt;
}

// One pprof profile from the longest prefix of `group` (OTLP profiles of one
// scope with the same header) that holds the same samples; `group` is cut to it.
// `whole`: group holds every OTLP profile of the message.
Profile convert(const Message& m, ConverterTables& tables, std::vector<const ProfileMsg*>& group, bool whole,
                Origin& origin) {
  Profile p;
  for (size_t joined; (joined = convert_group(m, tables, group, whole, origin, p)) < group.size();) {
    group.resize(joined);
    whole = false;
  }
  return p;
}

}  // namespace

std::vector<Decoded> to_pprof(Message& m, ConverterTables& tables) {
  std::vector<Decoded> out;
  size_t profiles = 0;
  for (const ResourceMsg& res : m.resources)
    for (const ScopeMsg& scope : res.scopes) profiles += scope.profiles.size();
  for (size_t r = 0; r < m.resources.size(); ++r) {
    const ResourceMsg& res = m.resources[r];
    std::vector<KeyValue> resource_attributes = resolve(m, res.attributes);
    for (size_t s = 0; s < res.scopes.size(); ++s) {
      const ScopeMsg& scope = res.scopes[s];
      std::vector<KeyValue> scope_attributes = resolve(m, scope.attributes);
      for (size_t i = 0; i < scope.profiles.size();) {
        std::vector<const ProfileMsg*> group{&scope.profiles[i]};
        for (size_t k = i + 1; k < scope.profiles.size() && same_header(scope.profiles[i], scope.profiles[k]); ++k)
          group.push_back(&scope.profiles[k]);
        Origin o;
        Decoded d;
        d.profile = convert(m, tables, group, group.size() == profiles, o);
        for (size_t k = 0; k < group.size(); ++k) {
          const size_t source = scope.profiles[i + k].source_index;
          if (o.profile_indices.empty() || o.profile_indices.back() != source) o.profile_indices.push_back(source);
        }
        i += group.size();
        o.resource_index = r;
        o.scope_index = s;
        o.resource_attributes = resource_attributes;
        o.resource_schema_url = res.schema_url;
        o.scope_name = scope.name;
        o.scope_version = scope.version;
        o.scope_schema_url = scope.schema_url;
        o.scope_attributes = scope_attributes;
        const ProfileMsg& first = *group[0];
        o.profile_id = first.profile_id;
        o.original_payload_format = first.original_payload_format;
        o.original_payload = first.original_payload;
        o.dropped_attributes_count = first.dropped_attributes_count;
        d.origin = std::move(o);
        out.push_back(std::move(d));
      }
    }
  }
  return out;
}

}  // namespace pprofcore::otlp::detail
