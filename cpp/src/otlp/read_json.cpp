// read_json: OTLP JSON (the protobuf JSON mapping with OTLP's rules: field
// names in lowerCamelCase or as in the .proto, 64-bit integers as strings or
// numbers, trace and span ids as hex, other bytes as base64) -> detail::Message.
// A small DOM parser with a nesting limit; errors carry the text offset.
// JSON names its fields, so the older layouts need no second reading: v1.8.0's
// names (`sample`, `line`, `commentStrindices`) are read as aliases, and a
// message with v1.7.0's (`locationIndices`, a `sampleType` list, attributes
// keyed by text...) is read as v1.7.0 throughout (v1_7.hpp).
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "message.hpp"
#include "v1_7.hpp"

namespace pprofcore::otlp::detail {
namespace {

constexpr int kMaxDepth = 128;

struct Json {
  enum Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  std::string text;  // kString: the decoded string; kNumber: the literal
  bool b = false;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;
  int64_t offset = 0;
};

class Parser {
 public:
  Parser(const uint8_t* data, size_t n) : p_(reinterpret_cast<const char*>(data)), b_(p_), e_(p_ + n) {}

  Json document() {
    skip_ws();
    Json j = value(0);
    skip_ws();
    if (p_ != e_) fail("text after the JSON document");
    return j;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DecodeError("malformed JSON: " + what, "json", static_cast<int64_t>(p_ - b_));
  }
  void skip_ws() {
    while (p_ < e_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool literal(const char* word) {
    size_t k = std::strlen(word);
    if (static_cast<size_t>(e_ - p_) < k || std::memcmp(p_, word, k) != 0) return false;
    p_ += k;
    return true;
  }

  Json value(int depth) {
    if (depth > kMaxDepth) fail("nested more than " + std::to_string(kMaxDepth) + " deep");
    if (p_ >= e_) fail("unexpected end of input");
    Json j;
    j.offset = p_ - b_;
    char c = *p_;
    if (c == '{') {
      j.kind = Json::kObject;
      ++p_;
      skip_ws();
      if (p_ < e_ && *p_ == '}') {
        ++p_;
        return j;
      }
      for (;;) {
        skip_ws();
        if (p_ >= e_ || *p_ != '"') fail("expected a member name");
        std::string key = string();
        skip_ws();
        if (p_ >= e_ || *p_ != ':') fail("expected ':'");
        ++p_;
        skip_ws();
        j.members.emplace_back(std::move(key), value(depth + 1));
        skip_ws();
        if (p_ < e_ && *p_ == ',') {
          ++p_;
          continue;
        }
        if (p_ < e_ && *p_ == '}') {
          ++p_;
          return j;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      j.kind = Json::kArray;
      ++p_;
      skip_ws();
      if (p_ < e_ && *p_ == ']') {
        ++p_;
        return j;
      }
      for (;;) {
        skip_ws();
        j.items.push_back(value(depth + 1));
        skip_ws();
        if (p_ < e_ && *p_ == ',') {
          ++p_;
          continue;
        }
        if (p_ < e_ && *p_ == ']') {
          ++p_;
          return j;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      j.kind = Json::kString;
      j.text = string();
      return j;
    }
    if (literal("true")) {
      j.kind = Json::kBool;
      j.b = true;
      return j;
    }
    if (literal("false")) {
      j.kind = Json::kBool;
      return j;
    }
    if (literal("null")) return j;
    if (c == '-' || (c >= '0' && c <= '9')) {
      const char* s = p_;
      while (p_ < e_ && (std::strchr("+-.eE", *p_) || (*p_ >= '0' && *p_ <= '9'))) ++p_;
      j.kind = Json::kNumber;
      j.text.assign(s, p_);
      return j;
    }
    fail("unexpected character");
  }

  static void utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  uint32_t hex4() {
    if (e_ - p_ < 4) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = *p_++;
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return v;
  }

  std::string string() {
    ++p_;  // the opening quote
    std::string out;
    while (p_ < e_ && *p_ != '"') {
      char c = *p_++;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p_ >= e_) break;
      char esc = *p_++;
      switch (esc) {
        case '"':
        case '\\':
        case '/':
          out += esc;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00 && e_ - p_ >= 6 && p_[0] == '\\' && p_[1] == 'u') {
            p_ += 2;
            uint32_t lo = hex4();
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          }
          utf8(out, cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
    if (p_ >= e_) fail("unterminated string");
    ++p_;
    return out;
  }

  const char* p_;
  const char* b_;
  const char* e_;
};

// The member `camel` of an object, also under its .proto (snake_case) name.
const Json* get(const Json& o, const char* camel) {
  if (o.kind != Json::kObject) return nullptr;
  std::string snake;
  for (const char* c = camel; *c; ++c) {
    if (*c >= 'A' && *c <= 'Z') {
      snake += '_';
      snake += static_cast<char>(*c - 'A' + 'a');
    } else {
      snake += *c;
    }
  }
  for (const auto& m : o.members)
    if (m.first == camel || m.first == snake) return &m.second;
  return nullptr;
}

[[noreturn]] void bad(const Json& j, const char* field, const char* what) {
  throw DecodeError(std::string(field) + " " + what, field, j.offset);
}

int64_t integer(const Json* j, const char* field) {
  if (!j || j->kind == Json::kNull) return 0;
  if (j->kind != Json::kNumber && j->kind != Json::kString) bad(*j, field, "is not a number");
  const std::string& t = j->text;
  if (t.empty()) bad(*j, field, "is empty");
  size_t i = t[0] == '-' ? 1 : 0;
  bool plain = i < t.size();
  for (size_t k = i; k < t.size(); ++k) plain &= t[k] >= '0' && t[k] <= '9';
  if (plain) {
    uint64_t v = 0;
    for (size_t k = i; k < t.size(); ++k) {
      uint64_t d = static_cast<uint64_t>(t[k] - '0');
      if (v > (UINT64_MAX - d) / 10) bad(*j, field, "is out of the 64-bit range");
      v = v * 10 + d;
    }
    return i ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }
  // 1e3 and 1.0 are integers in the protobuf JSON mapping.
  char* end = nullptr;
  double d = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || d != std::floor(d) || std::fabs(d) > 9.2e18) bad(*j, field, "is not an integer");
  return static_cast<int64_t>(d);
}

double number(const Json* j, const char* field) {
  if (!j || j->kind == Json::kNull) return 0;
  if (j->kind == Json::kString) {
    if (j->text == "NaN") return NAN;
    if (j->text == "Infinity") return INFINITY;
    if (j->text == "-Infinity") return -INFINITY;
  }
  if (j->kind != Json::kNumber && j->kind != Json::kString) bad(*j, field, "is not a number");
  char* end = nullptr;
  double d = std::strtod(j->text.c_str(), &end);
  if (end != j->text.c_str() + j->text.size()) bad(*j, field, "is not a number");
  return d;
}

std::string text(const Json* j, const char* field) {
  if (!j || j->kind == Json::kNull) return {};
  if (j->kind != Json::kString) bad(*j, field, "is not a string");
  return j->text;
}

std::string hex_bytes(const Json* j, const char* field) {
  std::string t = text(j, field), out;
  auto nibble = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    bad(*j, field, "is not hex");
  };
  if (t.size() % 2) bad(*j, field, "has an odd number of hex digits");
  for (size_t k = 0; k < t.size(); k += 2) out += static_cast<char>(nibble(t[k]) << 4 | nibble(t[k + 1]));
  return out;
}

std::string base64(const Json* j, const char* field) {
  std::string t = text(j, field), out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : t) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+' || c == '-')
      v = 62;
    else if (c == '/' || c == '_')
      v = 63;
    else if (c == '=')
      break;
    else
      bad(*j, field, "is not base64");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

const std::vector<Json>& list(const Json* j, const char* field) {
  static const std::vector<Json> kNone;
  if (!j || j->kind == Json::kNull) return kNone;
  if (j->kind != Json::kArray) bad(*j, field, "is not an array");
  return j->items;
}

void integers(const Json* j, const char* field, std::vector<int64_t>& out) {
  for (const Json& e : list(j, field)) out.push_back(integer(&e, field));
}

void any_value(const Json* j, RawValue& v);

void key_value(const Json& j, RawValue::Pair& kv) {
  kv.key = text(get(j, "key"), "KeyValue.key");
  if (const Json* s = get(j, "keyStrindex")) kv.key_strindex = integer(s, "KeyValue.key_strindex");
  any_value(get(j, "value"), kv.value);
}

void any_value(const Json* j, RawValue& v) {
  if (!j || j->kind != Json::kObject) return;
  for (const auto& m : j->members) {
    const Json* x = &m.second;
    const std::string& k = m.first;
    v = RawValue{};
    if (k == "stringValue" || k == "string_value") {
      v.value.kind = Value::kString;
      v.value.str = text(x, "AnyValue.string_value");
    } else if (k == "boolValue" || k == "bool_value") {
      if (x->kind != Json::kBool) bad(*x, "AnyValue.bool_value", "is not true or false");
      v.value.kind = Value::kBool;
      v.value.i = x->b;
    } else if (k == "intValue" || k == "int_value") {
      v.value.kind = Value::kInt;
      v.value.i = integer(x, "AnyValue.int_value");
    } else if (k == "doubleValue" || k == "double_value") {
      v.value.kind = Value::kDouble;
      v.value.d = number(x, "AnyValue.double_value");
    } else if (k == "bytesValue" || k == "bytes_value") {
      v.value.kind = Value::kBytes;
      v.value.str = base64(x, "AnyValue.bytes_value");
    } else if (k == "stringValueStrindex" || k == "string_value_strindex") {
      v.value.kind = Value::kString;
      v.strindex = integer(x, "AnyValue.string_value_strindex");
      if (v.strindex < 0) v.strindex = INT64_MAX;
    } else if (k == "arrayValue" || k == "array_value") {
      v.value.kind = Value::kArray;
      for (const Json& e : list(get(*x, "values"), "ArrayValue.values")) {
        v.array.emplace_back();
        any_value(&e, v.array.back());
      }
    } else if (k == "kvlistValue" || k == "kvlist_value") {
      v.value.kind = Value::kMap;
      for (const Json& e : list(get(*x, "values"), "KeyValueList.values")) {
        v.map.emplace_back();
        key_value(e, v.map.back());
      }
    }
  }
}

void attributes(const Json* j, const char* field, RawAttributes& out) {
  for (const Json& e : list(j, field)) {
    out.emplace_back();
    key_value(e, out.back());
  }
}

ValueType value_type(const Json* j) {
  ValueType t;
  if (!j) return t;
  t.type = integer(get(*j, "typeStrindex"), "ValueType.type_strindex");
  t.unit = integer(get(*j, "unitStrindex"), "ValueType.unit_strindex");
  return t;
}

// The Profile fields every layout names alike (v1.8.0 and v1.7.0 add
// commentStrindices); the times, sample types and samples are each layout's.
void profile_header(const Json& j, ProfileMsg& p) {
  p.offset = j.offset;
  if (const Json* pt = get(j, "periodType")) {
    p.has_period_type = true;
    p.period_type = value_type(pt);
  }
  p.period = integer(get(j, "period"), "Profile.period");
  p.profile_id = hex_bytes(get(j, "profileId"), "Profile.profile_id");
  p.dropped_attributes_count =
      static_cast<uint32_t>(integer(get(j, "droppedAttributesCount"), "Profile.dropped_attributes_count"));
  p.original_payload_format = text(get(j, "originalPayloadFormat"), "Profile.original_payload_format");
  p.original_payload = base64(get(j, "originalPayload"), "Profile.original_payload");
  integers(get(j, "attributeIndices"), "Profile.attribute_indices", p.attributes);
  integers(get(j, "commentStrindices"), "Profile.comment_strindices", p.comments);
}

void profile(const Json& j, ProfileMsg& p) {
  profile_header(j, p);
  p.sample_type = value_type(get(j, "sampleType"));
  p.time_unix_nano = static_cast<uint64_t>(integer(get(j, "timeUnixNano"), "Profile.time_unix_nano"));
  p.duration_nano = static_cast<uint64_t>(integer(get(j, "durationNano"), "Profile.duration_nano"));
  Samples& s = p.samples;
  const Json* samples = get(j, "samples");
  if (!samples) samples = get(j, "sample");  // v1.8.0's name
  for (const Json& e : list(samples, "Profile.samples")) {
    s.offset.push_back(e.offset);
    s.stack.push_back(integer(get(e, "stackIndex"), "Sample.stack_index"));
    s.link.push_back(integer(get(e, "linkIndex"), "Sample.link_index"));
    integers(get(e, "attributeIndices"), "Sample.attribute_indices", s.attrs);
    integers(get(e, "values"), "Sample.values", s.values);
    for (const Json& t : list(get(e, "timestampsUnixNano"), "Sample.timestamps_unix_nano"))
      s.times.push_back(static_cast<uint64_t>(integer(&t, "Sample.timestamps_unix_nano")));
    s.attr_offsets.push_back(static_cast<int64_t>(s.attrs.size()));
    s.value_offsets.push_back(static_cast<int64_t>(s.values.size()));
    s.time_offsets.push_back(static_cast<int64_t>(s.times.size()));
  }
  p.num_samples = s.size();
}

bool boolean(const Json* j, const char* field) {
  if (!j || j->kind == Json::kNull) return false;
  if (j->kind != Json::kBool) bad(*j, field, "is not true or false");
  return j->b;
}

// Whether the message has v1.7.0's layout: a name only it has, in a profile,
// a sample or the dictionary.
// The object holding the message's tables: its dictionary, or (v1.6.0) the
// ProfilesData itself, which held them before the dictionary did.
const Json* tables_of(const Json& doc) {
  if (const Json* d = get(doc, "dictionary")) return d;
  for (const char* table : {"stringTable", "mappingTable", "locationTable", "functionTable", "attributeTable"})
    if (get(doc, table)) return &doc;
  return nullptr;
}

bool is_v1_7(const Json& doc) {
  if (tables_of(doc) == &doc) return true;  // v1.6.0: v1.7.0's profiles, the tables at the top
  if (const Json* d = get(doc, "dictionary")) {
    if (get(*d, "attributeUnits")) return true;
    for (const Json& e : list(get(*d, "attributeTable"), "ProfilesDictionary.attribute_table"))
      if (get(e, "key")) return true;
  }
  for (const Json& r : list(get(doc, "resourceProfiles"), "ProfilesData.resource_profiles"))
    for (const Json& s : list(get(r, "scopeProfiles"), "ResourceProfiles.scope_profiles"))
      for (const Json& p : list(get(s, "profiles"), "ScopeProfiles.profiles")) {
        const Json* types = get(p, "sampleType");
        if ((types && types->kind == Json::kArray) || get(p, "locationIndices") || get(p, "timeNanos") ||
            get(p, "durationNanos") || get(p, "defaultSampleTypeIndex"))
          return true;
        for (const Json& e : list(get(p, "sample"), "Profile.sample"))
          if (get(e, "locationsStartIndex") || get(e, "locationsLength") || get(e, "value")) return true;
      }
  return false;
}

void profile_v1_7(const Json& j, ScopeMsg& scope, Message& m) {
  RawProfileV1_7 raw;
  ProfileMsg header;
  profile_header(j, header);
  header.layout = Layout::kV1_7;
  if (const Json* types = get(j, "sampleType")) {
    if (types->kind == Json::kArray)
      for (const Json& t : types->items) raw.sample_types.push_back(value_type(&t));
    else
      raw.sample_types.push_back(value_type(types));
  }
  integers(get(j, "locationIndices"), "Profile.location_indices", raw.location_indices);
  header.time_unix_nano = static_cast<uint64_t>(integer(get(j, "timeNanos"), "Profile.time_nanos"));
  header.duration_nano = static_cast<uint64_t>(integer(get(j, "durationNanos"), "Profile.duration_nanos"));
  if (const Json* d = get(j, "defaultSampleTypeIndex")) {
    raw.default_offset = d->offset;
    raw.default_index = integer(d, "Profile.default_sample_type_index");
  }
  const Json* samples = get(j, "sample");
  if (!samples) samples = get(j, "samples");
  for (const Json& e : list(samples, "Profile.sample")) {
    RawSampleV1_7 x;
    x.offset = e.offset;
    x.start = integer(get(e, "locationsStartIndex"), "Sample.locations_start_index");
    x.length = integer(get(e, "locationsLength"), "Sample.locations_length");
    integers(get(e, "value"), "Sample.value", raw.values);
    integers(get(e, "attributeIndices"), "Sample.attribute_indices", raw.attrs);
    if (const Json* l = get(e, "linkIndex")) {
      x.link = integer(l, "Sample.link_index");
      if (x.link == kAbsent) x.link = INT64_MAX;  // out of range, as it is
    }
    integers(get(e, "timestampsUnixNano"), "Sample.timestamps_unix_nano", raw.times);
    x.values_end = raw.values.size();
    x.attrs_end = raw.attrs.size();
    x.times_end = raw.times.size();
    raw.samples.push_back(x);
  }
  add_profile_v1_7(raw, header, scope, m);
}

void dictionary(const Json& d, Message& m) {
  const bool v1_7 = v1_7_profiles(m.layout);
  for (const Json& e : list(get(d, "mappingTable"), "ProfilesDictionary.mapping_table")) {
    Mapping x;
    x.offset = e.offset;
    x.memory_start = static_cast<uint64_t>(integer(get(e, "memoryStart"), "Mapping.memory_start"));
    x.memory_limit = static_cast<uint64_t>(integer(get(e, "memoryLimit"), "Mapping.memory_limit"));
    x.file_offset = static_cast<uint64_t>(integer(get(e, "fileOffset"), "Mapping.file_offset"));
    x.filename = integer(get(e, "filenameStrindex"), "Mapping.filename_strindex");
    integers(get(e, "attributeIndices"), "Mapping.attribute_indices", x.attributes);
    const char* flags[4] = {"hasFunctions", "hasFilenames", "hasLineNumbers", "hasInlineFrames"};  // v1.7.0
    const char* fields[4] = {"Mapping.has_functions", "Mapping.has_filenames", "Mapping.has_line_numbers",
                             "Mapping.has_inline_frames"};
    for (int k = 0; k < 4; ++k)
      if (boolean(get(e, flags[k]), fields[k])) x.flags |= static_cast<uint8_t>(1u << k);
    m.mappings.push_back(std::move(x));
  }
  for (const Json& e : list(get(d, "locationTable"), "ProfilesDictionary.location_table")) {
    Location x;
    x.offset = e.offset;
    const Json* mapping = get(e, "mappingIndex");
    x.mapping = integer(mapping, "Location.mapping_index");
    if (v1_7 && !mapping) x.mapping = kAbsent;                           // optional there: unset means none
    if (v1_7 && mapping && x.mapping == kAbsent) x.mapping = INT64_MAX;  // out of range, as it is
    x.address = static_cast<uint64_t>(integer(get(e, "address"), "Location.address"));
    if (v1_7) m.location_folded.push_back(boolean(get(e, "isFolded"), "Location.is_folded"));
    x.lines_begin = m.lines.size();
    const Json* lines = get(e, "lines");
    if (!lines) lines = get(e, "line");  // v1.8.0 and v1.7.0's name
    for (const Json& l : list(lines, "Location.lines"))
      m.lines.push_back({integer(get(l, "functionIndex"), "Line.function_index"), integer(get(l, "line"), "Line.line"),
                         integer(get(l, "column"), "Line.column")});
    x.lines_end = m.lines.size();
    x.attrs_begin = m.location_attributes.size();
    integers(get(e, "attributeIndices"), "Location.attribute_indices", m.location_attributes);
    x.attrs_end = m.location_attributes.size();
    m.locations.push_back(x);
  }
  for (const Json& e : list(get(d, "functionTable"), "ProfilesDictionary.function_table")) {
    Function x;
    x.offset = e.offset;
    x.name = integer(get(e, "nameStrindex"), "Function.name_strindex");
    x.system_name = integer(get(e, "systemNameStrindex"), "Function.system_name_strindex");
    x.filename = integer(get(e, "filenameStrindex"), "Function.filename_strindex");
    x.start_line = integer(get(e, "startLine"), "Function.start_line");
    m.functions.push_back(x);
  }
  for (const Json& e : list(get(d, "linkTable"), "ProfilesDictionary.link_table"))
    m.links.push_back({hex_bytes(get(e, "traceId"), "Link.trace_id"), hex_bytes(get(e, "spanId"), "Link.span_id")});
  std::vector<std::string>& texts = m.strings.unescaped;
  for (const Json& e : list(get(d, "stringTable"), "ProfilesDictionary.string_table"))
    texts.push_back(text(&e, "ProfilesDictionary.string_table"));
  // v1.7.0 keys attributes by text: each key joins the string table once, after it.
  std::vector<int64_t> key_of_text;
  if (v1_7) {
    std::unordered_map<std::string, int64_t> seen;
    for (const Json& e : list(get(d, "attributeTable"), "ProfilesDictionary.attribute_table")) {
      std::string key = text(get(e, "key"), "KeyValue.key");
      auto [it, added] = seen.emplace(key, static_cast<int64_t>(texts.size()));
      if (added) texts.push_back(std::move(key));
      key_of_text.push_back(it->second);
    }
  }
  for (const std::string& t : texts) m.strings.push_back(t);  // texts is complete: the views stay valid
  size_t row = 0;
  for (const Json& e : list(get(d, "attributeTable"), "ProfilesDictionary.attribute_table")) {
    Attribute a;
    a.offset = e.offset;
    a.key = v1_7 ? key_of_text[row++] : integer(get(e, "keyStrindex"), "KeyValueAndUnit.key_strindex");
    a.unit = integer(get(e, "unitStrindex"), "KeyValueAndUnit.unit_strindex");
    any_value(get(e, "value"), a.value);
    m.attributes.push_back(std::move(a));
  }
  std::vector<int64_t> indices;
  for (const Json& e : list(get(d, "stackTable"), "ProfilesDictionary.stack_table")) {
    m.stack_offset.push_back(e.offset);
    indices.clear();
    integers(get(e, "locationIndices"), "Stack.location_indices", indices);
    m.stack_first.push_back(static_cast<int64_t>(m.stack_locations.size()));
    for (int64_t i : indices) m.stack_locations.push_back(stack_location(m, i));
    m.stack_offsets.push_back(static_cast<int64_t>(m.stack_locations.size()));
  }
}

}  // namespace

bool looks_like_json(const uint8_t* data, size_t n) {
  size_t i = 0;
  if (n >= 3 && std::memcmp(data, "\xef\xbb\xbf", 3) == 0) i = 3;
  while (i < n && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) ++i;
  if (i >= n || data[i] != '{') return false;
  std::string_view s(reinterpret_cast<const char*>(data + i), std::min(n - i, size_t(64) << 10));
  return s.find("\"resourceProfiles\"") != std::string_view::npos ||
         s.find("\"resource_profiles\"") != std::string_view::npos;
}

Message read_json(const uint8_t* data, size_t n, Layout* layout) {
  size_t skip = n >= 3 && std::memcmp(data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
  Json doc = Parser(data + skip, n - skip).document();
  if (doc.kind != Json::kObject) bad(doc, "ProfilesData", "is not a JSON object");
  Message m;
  m.json = true;
  m.input_bytes = n;
  if (is_v1_7(doc)) m.layout = tables_of(doc) == &doc ? Layout::kV1_6 : Layout::kV1_7;
  if (layout) *layout = m.layout;  // for the errors of what follows
  for (const Json& r : list(get(doc, "resourceProfiles"), "ProfilesData.resource_profiles")) {
    ResourceMsg res;
    if (const Json* resource = get(r, "resource"))
      attributes(get(*resource, "attributes"), "Resource.attributes", res.attributes);
    res.schema_url = text(get(r, "schemaUrl"), "ResourceProfiles.schema_url");
    for (const Json& s : list(get(r, "scopeProfiles"), "ResourceProfiles.scope_profiles")) {
      ScopeMsg scope;
      if (const Json* sc = get(s, "scope")) {
        scope.name = text(get(*sc, "name"), "InstrumentationScope.name");
        scope.version = text(get(*sc, "version"), "InstrumentationScope.version");
        attributes(get(*sc, "attributes"), "InstrumentationScope.attributes", scope.attributes);
      }
      scope.schema_url = text(get(s, "schemaUrl"), "ScopeProfiles.schema_url");
      for (const Json& p : list(get(s, "profiles"), "ScopeProfiles.profiles")) {
        if (v1_7_profiles(m.layout)) {
          profile_v1_7(p, scope, m);
          continue;
        }
        scope.profiles.emplace_back();
        scope.profiles.back().source_index = scope.profiles.size() - 1;
        profile(p, scope.profiles.back());
      }
      res.scopes.push_back(std::move(scope));
    }
    m.resources.push_back(std::move(res));
  }
  if (const Json* d = tables_of(doc)) dictionary(*d, m);
  if (v1_7_profiles(m.layout)) {
    std::vector<AttributeUnitV1_7> units;
    if (const Json* d = tables_of(doc))
      for (const Json& e : list(get(*d, "attributeUnits"), "ProfilesDictionary.attribute_units"))
        units.push_back({integer(get(e, "attributeKeyStrindex"), "AttributeUnit.attribute_key_strindex"),
                         integer(get(e, "unitStrindex"), "AttributeUnit.unit_strindex"), e.offset});
    finish_dictionary_v1_7(m, units);
  }
  return m;
}

}  // namespace pprofcore::otlp::detail
