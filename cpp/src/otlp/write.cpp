// write: a pprof Profile -> OTLP ProfilesData protobuf. One resource, one
// scope, one OTLP profile per sample type sharing the samples (to_pprof.cpp
// joins them back). The dictionary keeps pprof's rows in order after the zero
// entries the spec asks for, and pprof's string table as its first strings;
// stacks, attributes and links are deduplicated. A single `timestamp_ns`
// label in nanoseconds becomes the sample's timestamp, a `trace_id`/`span_id`
// pair of hex labels its link; every other label an attribute (a key that
// repeats on one sample becomes one array attribute).
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

#include "conventions.hpp"
#include "pprofcore/hashing.hpp"
#include "pprofcore/otlp.hpp"
#include "pprofcore/otlp_fields.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore::otlp {
namespace {

using wire::Writer;
namespace f = fields;

void packed(Writer& w, uint32_t field, const std::vector<int64_t>& v) {
  if (v.empty()) return;
  size_t bytes = 0;
  for (int64_t x : v) bytes += Writer::varint_size(static_cast<uint64_t>(x));
  w.tag(field, wire::kLen);
  w.varint(bytes);
  for (int64_t x : v) w.varint(static_cast<uint64_t>(x));
}

void fixed64(Writer& w, uint32_t field, uint64_t v) {
  w.tag(field, wire::kFixed64);
  char b[8];
  for (int k = 0; k < 8; ++k) b[k] = static_cast<char>(v >> (8 * k));
  w.buffer().append(b, 8);
}

void string_field(Writer& w, uint32_t field, std::string_view s) {
  if (!s.empty()) w.bytes_field(field, s.data(), s.size());
}

// AnyValue: the oneof member is written even when it holds its zero value.
void any_value(Writer& w, uint32_t field, const Value& v) {
  size_t at = w.begin_message(field);
  switch (v.kind) {
    case Value::kString:
      w.bytes_field(f::any_value::kStringValue, v.str.data(), v.str.size());
      break;
    case Value::kBool:
      w.tag(f::any_value::kBoolValue, wire::kVarint);
      w.varint(v.i ? 1 : 0);
      break;
    case Value::kInt:
      w.tag(f::any_value::kIntValue, wire::kVarint);
      w.varint(static_cast<uint64_t>(v.i));
      break;
    case Value::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.d, 8);
      fixed64(w, f::any_value::kDoubleValue, bits);
      break;
    }
    case Value::kBytes:
      w.bytes_field(f::any_value::kBytesValue, v.str.data(), v.str.size());
      break;
    case Value::kArray: {
      size_t a = w.begin_message(f::any_value::kArrayValue);
      for (const Value& e : v.array) any_value(w, f::array_value::kValues, e);
      w.end_message(a);
      break;
    }
    case Value::kMap: {
      size_t a = w.begin_message(f::any_value::kKvlistValue);
      for (const KeyValue& kv : v.map) {
        size_t k = w.begin_message(f::key_value_list::kValues);
        string_field(w, f::key_value::kKey, kv.key);
        any_value(w, f::key_value::kValue, kv.value);
        w.end_message(k);
      }
      w.end_message(a);
      break;
    }
    default:
      break;
  }
  w.end_message(at);
}

bool is_hex(std::string_view s, size_t digits) {
  if (s.size() != digits) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string unhex(std::string_view s) {
  auto nib = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string out;
  for (size_t k = 0; k + 1 < s.size(); k += 2) out += static_cast<char>(nib(s[k]) << 4 | nib(s[k + 1]));
  return out;
}

class Encoder {
 public:
  Encoder(const Profile& p, const WriteOptions& o) : p_(p), o_(o) {
    for (size_t i = 0; i < p.strings.size(); ++i) strings_.emplace_back(p.strings[i]);
    if (strings_.empty()) strings_.emplace_back();
  }

  std::string run() {
    if (p_.num_types() == 0)
      throw ProfileError("a profile without sample types has no OTLP form (an OTLP profile has one sample type)");
    samples();
    header_attributes();
    Writer w;
    // The output's likely size up front: growing it by doubling copied it several times.
    w.buffer().reserve(16 * p_.num_samples() * p_.num_types() + 4 * stack_locations_.size() + p_.strings.data.size() +
                       32 * (p_.locations.size() + p_.lines.size() + p_.functions.size() + p_.mappings.size()) + 4096);
    {
      size_t rp = w.begin_message(f::data::kResourceProfiles);
      if (!o_.resource_attributes.empty()) {
        size_t r = w.begin_message(f::resource_profiles::kResource);
        for (const KeyValue& kv : o_.resource_attributes) key_value(w, f::resource::kAttributes, kv);
        w.end_message(r);
      }
      size_t sp = w.begin_message(f::resource_profiles::kScopeProfiles);
      size_t sc = w.begin_message(f::scope_profiles::kScope);
      string_field(w, f::scope::kName, o_.scope_name);
      string_field(w, f::scope::kVersion, o_.scope_version);
      w.end_message(sc);
      for (size_t t = 0; t < p_.num_types(); ++t) profile(w, t);
      w.end_message(sp);
      w.end_message(rp);
    }
    dictionary(w);
    return std::move(w.buffer());
  }

 private:
  // Index of `s` in the string table: pprof's code when it has the string.
  int32_t str(std::string_view s) {
    if (index_.empty())
      for (size_t i = strings_.size(); i-- > 0;) index_[strings_[i]] = static_cast<int32_t>(i);
    auto it = index_.find(std::string(s));
    if (it != index_.end()) return it->second;
    int32_t i = static_cast<int32_t>(strings_.size());
    strings_.emplace_back(s);
    index_.emplace(strings_.back(), i);
    return i;
  }

  void key_value(Writer& w, uint32_t field, const KeyValue& kv) {
    size_t at = w.begin_message(field);
    string_field(w, f::key_value::kKey, kv.key);
    any_value(w, f::key_value::kValue, kv.value);
    w.end_message(at);
  }

  // attribute_table index of (key, value, unit), deduplicated by content.
  int64_t attribute(int32_t key, const Value& v, int32_t unit) {
    std::string id = std::to_string(key) + ':' + std::to_string(unit) + ':';
    Writer tmp;
    any_value(tmp, f::key_value_and_unit::kValue, v);
    id += tmp.buffer();
    auto it = attr_index_.find(id);
    if (it != attr_index_.end()) return it->second;
    int64_t i = static_cast<int64_t>(attrs_.size()) + 1;
    attrs_.push_back({key, std::move(tmp.buffer()), unit});
    attr_index_.emplace(std::move(id), i);
    return i;
  }

  // attribute() of one scalar label, found by the label's codes first: most
  // labels repeat, and this needs no allocation.
  int64_t label_attribute(size_t row) {
    const Labels& l = p_.labels;
    const int32_t key = l.key[row], s = l.str[row];
    const int64_t num = s < 0 ? l.num[row] : 0;
    const int32_t unit = s < 0 ? l.num_unit[row] : 0;
    const uint64_t h =
        hash_mix(hash_mix(hash_mix(static_cast<uint32_t>(key), static_cast<uint32_t>(s)), static_cast<uint64_t>(num)),
                 static_cast<uint32_t>(unit));
    int32_t r = label_table_.find(h, [&](int32_t q) {
      const LabelKey& k = label_keys_[static_cast<size_t>(q)];
      return k.key == key && k.str == s && k.num == num && k.unit == unit;
    });
    if (r >= 0) return label_keys_[static_cast<size_t>(r)].index;
    const int64_t index = attribute(key, label_value(row), unit);
    label_table_.insert(h, static_cast<int32_t>(label_keys_.size()));
    label_keys_.push_back({key, s, num, unit, index});
    return index;
  }

  Value label_value(size_t row) const {
    Value v;
    const Labels& l = p_.labels;
    if (l.str[row] >= 0) {
      v.kind = Value::kString;
      v.str = std::string(p_.str(l.str[row]));
    } else {
      v.kind = Value::kInt;
      v.i = l.num[row];
    }
    return v;
  }

  // Per sample: stack index, attribute indices, link index, timestamp.
  void samples() {
    const size_t n = p_.num_samples();
    const Labels& l = p_.labels;
    stack_.resize(n);
    link_.resize(n);
    time_.assign(n, 0);
    has_time_.assign(n, 0);
    attr_offsets_.assign(1, 0);
    IdTable stacks;
    std::unordered_map<std::string, int64_t> links;
    const std::string_view ts_key = names::kTimestampLabel, ns = names::kNanoseconds;
    std::vector<size_t> rows, grouped;
    for (size_t i = 0; i < n; ++i) {
      // Stack: deduplicated by its location rows; the empty one is stack_table[0].
      const int64_t b = p_.stack_offsets[i], e = p_.stack_offsets[i + 1];
      stack_[i] = 0;
      if (b != e) {
        const int32_t* sl = p_.stack_locations.data();
        const uint64_t h =
            hash_bytes(std::string_view(reinterpret_cast<const char*>(sl + b), static_cast<size_t>(e - b) * 4));
        int32_t row = stacks.find(h, [&](int32_t r) {
          const int64_t rb = stack_offsets_[static_cast<size_t>(r)], re = stack_offsets_[static_cast<size_t>(r) + 1];
          if (re - rb != e - b) return false;
          for (int64_t k = 0; k < e - b; ++k)
            if (stack_locations_[static_cast<size_t>(rb + k)] != sl[b + k] + 1) return false;
          return true;
        });
        if (row < 0) {
          row = static_cast<int32_t>(stacks.size());
          stacks.insert(h, row);
          for (int64_t k = b; k < e; ++k) stack_locations_.push_back(sl[k] + 1);
          stack_offsets_.push_back(static_cast<int64_t>(stack_locations_.size()));
        }
        stack_[i] = row + 1;
      }
      // Labels: the special ones first, the rest grouped by key.
      const int64_t lb = p_.label_offsets[i], le = p_.label_offsets[i + 1];
      rows.clear();
      int64_t ts_row = -1, trace_row = -1, span_row = -1;
      int ts_count = 0, trace_count = 0, span_count = 0;
      for (int64_t r = lb; r < le; ++r) {
        std::string_view k = p_.str(l.key[static_cast<size_t>(r)]);
        if (k == ts_key && l.str[static_cast<size_t>(r)] < 0 && p_.str(l.num_unit[static_cast<size_t>(r)]) == ns) {
          ts_row = r, ++ts_count;
        } else if (k == names::kTraceIdLabel && l.str[static_cast<size_t>(r)] >= 0) {
          trace_row = r, ++trace_count;
        } else if (k == names::kSpanIdLabel && l.str[static_cast<size_t>(r)] >= 0) {
          span_row = r, ++span_count;
        }
      }
      if (ts_count == 1) {
        time_[i] = static_cast<uint64_t>(l.num[static_cast<size_t>(ts_row)]);
        has_time_[i] = 1;
      }
      bool linked = trace_count == 1 && span_count == 1 && is_hex(p_.str(l.str[static_cast<size_t>(trace_row)]), 32) &&
                    is_hex(p_.str(l.str[static_cast<size_t>(span_row)]), 16);
      link_[i] = 0;
      if (linked) {
        std::string trace = unhex(p_.str(l.str[static_cast<size_t>(trace_row)]));
        std::string span = unhex(p_.str(l.str[static_cast<size_t>(span_row)]));
        auto [lt, new_link] = links.emplace(trace + span, static_cast<int64_t>(links.size()) + 1);
        if (new_link) links_.push_back({trace, span});
        link_[i] = lt->second;
      }
      for (int64_t r = lb; r < le; ++r) {
        if ((ts_count == 1 && r == ts_row) || (linked && (r == trace_row || r == span_row))) continue;
        rows.push_back(static_cast<size_t>(r));
      }
      // Labels of one key together, keys in order of first appearance (a few
      // labels a sample: the quadratic walk is the cheap one).
      grouped.clear();
      for (size_t k = 0; k < rows.size(); ++k) {
        if (rows[k] == SIZE_MAX) continue;
        const int32_t key = l.key[rows[k]];
        for (size_t q = k; q < rows.size(); ++q)
          if (rows[q] != SIZE_MAX && l.key[rows[q]] == key) grouped.push_back(rows[q]), rows[q] = SIZE_MAX;
      }
      rows.swap(grouped);
      for (size_t k = 0; k < rows.size();) {
        size_t m = k + 1;
        while (m < rows.size() && l.key[rows[m]] == l.key[rows[k]]) ++m;
        int32_t key = l.key[rows[k]];
        // An array keeps one unit: numbers of several units stay separate
        // attributes (lossless, though the key then repeats on the sample).
        bool one_unit = true;
        int32_t unit0 = -1;
        for (size_t q = k; q < m; ++q) {
          if (l.str[rows[q]] >= 0) continue;
          if (unit0 < 0) unit0 = l.num_unit[rows[q]];
          one_unit &= l.num_unit[rows[q]] == unit0;
        }
        for (size_t q = k; q < m && !one_unit; ++q) attrs_of_samples_.push_back(label_attribute(rows[q]));
        if (!one_unit) {
          k = m;
          continue;
        }
        if (m == k + 1) {
          attrs_of_samples_.push_back(label_attribute(rows[k]));
        } else {
          Value arr;
          arr.kind = Value::kArray;
          int32_t unit = 0;
          for (size_t q = k; q < m; ++q) {
            arr.array.push_back(label_value(rows[q]));
            if (l.str[rows[q]] < 0) unit = l.num_unit[rows[q]];
          }
          attrs_of_samples_.push_back(attribute(key, arr, unit));
        }
        k = m;
      }
      attr_offsets_.push_back(static_cast<int64_t>(attrs_of_samples_.size()));
    }
  }

  void header_attributes() {
    auto string_attr = [&](const char* key, int32_t code) {
      if (code == 0) return;
      Value v;
      v.kind = Value::kString;
      v.str = std::string(p_.str(code));
      profile_attrs_.push_back(attribute(str(key), v, 0));
    };
    if (!p_.comments.empty()) {
      Value v;
      v.kind = Value::kArray;
      for (int32_t c : p_.comments) {
        Value s;
        s.kind = Value::kString;
        s.str = std::string(p_.str(c));
        v.array.push_back(std::move(s));
      }
      profile_attrs_.push_back(attribute(str(names::kComment), v, 0));
    }
    string_attr(names::kDropFrames, p_.drop_frames);
    string_attr(names::kKeepFrames, p_.keep_frames);
    string_attr(names::kDocUrl, p_.doc_url);
    string_attr(names::kDefaultSampleType, p_.default_sample_type);
  }

  void value_type(Writer& w, uint32_t field, int32_t type, int32_t unit) {
    size_t at = w.begin_message(field);
    w.uint_field(f::value_type::kTypeStrindex, static_cast<uint64_t>(type));
    w.uint_field(f::value_type::kUnitStrindex, static_cast<uint64_t>(unit));
    w.end_message(at);
  }

  void profile(Writer& w, size_t t) {
    const size_t n = p_.num_samples(), nt = p_.num_types();
    size_t at = w.begin_message(f::scope_profiles::kProfiles);
    value_type(w, f::profile::kSampleType, p_.sample_type_type[t], p_.sample_type_unit[t]);
    // Samples are many and small: each is built with raw writes into a
    // scratch buffer and appended once (a std::string append per varint costs
    // more than the encoding).
    std::string scratch;
    for (size_t i = 0; i < n; ++i) {
      const int64_t ab = attr_offsets_[i], ae = attr_offsets_[i + 1];
      const int64_t value = p_.values[i * nt + t];
      size_t attr_bytes = 0;
      for (int64_t k = ab; k < ae; ++k)
        attr_bytes += Writer::varint_size(static_cast<uint64_t>(attrs_of_samples_[static_cast<size_t>(k)]));
      scratch.resize(48 + attr_bytes);
      char* d = &scratch[0];
      auto put = [&d](uint64_t v) {
        while (v >= 0x80) {
          *d++ = static_cast<char>(v | 0x80);
          v >>= 7;
        }
        *d++ = static_cast<char>(v);
      };
      if (stack_[i]) put(f::sample::kStackIndex << 3 | wire::kVarint), put(static_cast<uint64_t>(stack_[i]));
      if (ae > ab) {
        put(f::sample::kAttributeIndices << 3 | wire::kLen), put(attr_bytes);
        for (int64_t k = ab; k < ae; ++k) put(static_cast<uint64_t>(attrs_of_samples_[static_cast<size_t>(k)]));
      }
      if (link_[i]) put(f::sample::kLinkIndex << 3 | wire::kVarint), put(static_cast<uint64_t>(link_[i]));
      // Always one value, even 0: a sample must hold a value or a timestamp.
      put(f::sample::kValues << 3 | wire::kLen), put(Writer::varint_size(static_cast<uint64_t>(value)));
      put(static_cast<uint64_t>(value));
      if (has_time_[i]) {
        put(f::sample::kTimestampsUnixNano << 3 | wire::kLen), put(8);
        for (int k = 0; k < 8; ++k) *d++ = static_cast<char>(time_[i] >> (8 * k));
      }
      const size_t len = static_cast<size_t>(d - scratch.data());
      w.tag(f::profile::kSamples, wire::kLen);
      w.varint(len);
      w.buffer().append(scratch.data(), len);
    }
    if (p_.time_nanos != 0) fixed64(w, f::profile::kTimeUnixNano, static_cast<uint64_t>(p_.time_nanos));
    w.uint_field(f::profile::kDurationNano, static_cast<uint64_t>(p_.duration_nanos));
    if (p_.has_period_type) value_type(w, f::profile::kPeriodType, p_.period_type_type, p_.period_type_unit);
    w.int_field(f::profile::kPeriod, p_.period);
    packed(w, f::profile::kAttributeIndices, profile_attrs_);
    w.end_message(at);
  }

  void dictionary(Writer& w) {
    // Flags and build ids of mappings, is_folded of locations: attributes too,
    // so they are made before the attribute table is written.
    std::vector<std::vector<int64_t>> mapping_attrs(p_.mappings.size()), location_attrs(p_.locations.size());
    Value yes;
    yes.kind = Value::kBool;
    yes.i = 1;
    const Mappings& mp = p_.mappings;
    for (size_t i = 0; i < mp.size(); ++i) {
      if (mp.build_id[i] != 0) {
        Value v;
        v.kind = Value::kString;
        v.str = std::string(p_.str(mp.build_id[i]));
        mapping_attrs[i].push_back(attribute(str(names::kBuildIds[0]), v, 0));
      }
      if (mp.has_functions[i]) mapping_attrs[i].push_back(attribute(str(names::kHasFunctions), yes, 0));
      if (mp.has_filenames[i]) mapping_attrs[i].push_back(attribute(str(names::kHasFilenames), yes, 0));
      if (mp.has_line_numbers[i]) mapping_attrs[i].push_back(attribute(str(names::kHasLineNumbers), yes, 0));
      if (mp.has_inline_frames[i]) mapping_attrs[i].push_back(attribute(str(names::kHasInlineFrames), yes, 0));
    }
    for (size_t i = 0; i < p_.locations.size(); ++i)
      if (p_.locations.is_folded[i]) location_attrs[i].push_back(attribute(str(names::kIsFolded), yes, 0));

    size_t d = w.begin_message(f::data::kDictionary);
    w.bytes_field(f::dictionary::kMappingTable, "", 0);  // the zero entries
    for (size_t i = 0; i < mp.size(); ++i) {
      size_t at = w.begin_message(f::dictionary::kMappingTable);
      w.uint_field(f::mapping::kMemoryStart, mp.memory_start[i]);
      w.uint_field(f::mapping::kMemoryLimit, mp.memory_limit[i]);
      w.uint_field(f::mapping::kFileOffset, mp.file_offset[i]);
      w.uint_field(f::mapping::kFilenameStrindex, static_cast<uint64_t>(mp.filename[i]));
      packed(w, f::mapping::kAttributeIndices, mapping_attrs[i]);
      w.end_message(at);
    }
    w.bytes_field(f::dictionary::kLocationTable, "", 0);
    const Locations& lc = p_.locations;
    for (size_t i = 0; i < lc.size(); ++i) {
      size_t at = w.begin_message(f::dictionary::kLocationTable);
      w.uint_field(f::location::kMappingIndex, static_cast<uint64_t>(lc.mapping[i] + 1));
      w.uint_field(f::location::kAddress, lc.address[i]);
      for (int64_t k = lc.line_offsets[i]; k < lc.line_offsets[i + 1]; ++k) {
        size_t ln = w.begin_message(f::location::kLines);
        w.uint_field(f::line::kFunctionIndex, static_cast<uint64_t>(p_.lines.function[static_cast<size_t>(k)]) + 1);
        w.int_field(f::line::kLine, p_.lines.line[static_cast<size_t>(k)]);
        w.int_field(f::line::kColumn, p_.lines.column[static_cast<size_t>(k)]);
        w.end_message(ln);
      }
      packed(w, f::location::kAttributeIndices, location_attrs[i]);
      w.end_message(at);
    }
    w.bytes_field(f::dictionary::kFunctionTable, "", 0);
    const Functions& fn = p_.functions;
    for (size_t i = 0; i < fn.size(); ++i) {
      size_t at = w.begin_message(f::dictionary::kFunctionTable);
      w.uint_field(f::function::kNameStrindex, static_cast<uint64_t>(fn.name[i]));
      w.uint_field(f::function::kSystemNameStrindex, static_cast<uint64_t>(fn.system_name[i]));
      w.uint_field(f::function::kFilenameStrindex, static_cast<uint64_t>(fn.filename[i]));
      w.int_field(f::function::kStartLine, fn.start_line[i]);
      w.end_message(at);
    }
    w.bytes_field(f::dictionary::kLinkTable, "", 0);
    for (const auto& l : links_) {
      size_t at = w.begin_message(f::dictionary::kLinkTable);
      w.bytes_field(f::link::kTraceId, l.first.data(), l.first.size());
      w.bytes_field(f::link::kSpanId, l.second.data(), l.second.size());
      w.end_message(at);
    }
    w.bytes_field(f::dictionary::kAttributeTable, "", 0);
    for (const Attr& a : attrs_) {
      size_t at = w.begin_message(f::dictionary::kAttributeTable);
      w.uint_field(f::key_value_and_unit::kKeyStrindex, static_cast<uint64_t>(a.key));
      w.buffer() += a.value;  // field 2 (value), as encoded for deduplication
      w.uint_field(f::key_value_and_unit::kUnitStrindex, static_cast<uint64_t>(a.unit));
      w.end_message(at);
    }
    w.bytes_field(f::dictionary::kStackTable, "", 0);
    std::vector<int64_t> list;
    for (size_t s = 0; s + 1 < stack_offsets_.size(); ++s) {
      size_t at = w.begin_message(f::dictionary::kStackTable);
      list.assign(stack_locations_.begin() + stack_offsets_[s], stack_locations_.begin() + stack_offsets_[s + 1]);
      packed(w, f::stack::kLocationIndices, list);
      w.end_message(at);
    }
    // Strings last: the attributes above may have added some.
    for (const std::string& s : strings_) w.bytes_field(f::dictionary::kStringTable, s.data(), s.size());
    w.end_message(d);
  }

  struct LabelKey {
    int32_t key, str;
    int64_t num;
    int32_t unit;
    int64_t index;
  };
  IdTable label_table_;
  std::vector<LabelKey> label_keys_;

  struct Attr {
    int32_t key;
    std::string value;  // the encoded AnyValue field (field number 2)
    int32_t unit;
  };

  const Profile& p_;
  const WriteOptions& o_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, int32_t> index_;
  std::vector<Attr> attrs_;
  std::unordered_map<std::string, int64_t> attr_index_;
  std::vector<int64_t> stack_, link_, attr_offsets_, attrs_of_samples_, profile_attrs_;
  std::vector<uint64_t> time_;
  std::vector<uint8_t> has_time_;
  std::vector<int64_t> stack_offsets_{0}, stack_locations_;
  std::vector<std::pair<std::string, std::string>> links_;
};

}  // namespace

std::string write(const Profile& p, const WriteOptions& options) { return Encoder(p, options).run(); }

}  // namespace pprofcore::otlp
