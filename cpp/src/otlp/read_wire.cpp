// read_wire: OTLP profiles protobuf -> detail::Message. Walks ProfilesData /
// ExportProfilesServiceRequest (same layout) with the bounds-checked
// wire::Reader; repeated scalars are accepted packed or not, unknown fields are
// skipped. It reads the layout it is given (layout.hpp): the newest, or an
// older one (v1.9.0, v1.8.0: other field numbers; v1.7.0: read_v1_7.cpp for
// the profiles, here for the dictionary). A field whose number or wire type
// betrays a layout older than the one being read throws OlderLayout naming it,
// and otlp.cpp reads the message again as that one. Indices are not checked
// here (to_pprof.cpp does it, knowing the table sizes).
#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "message.hpp"
#include "v1_7.hpp"
#include "pprofcore/memory.hpp"
#include "pprofcore/otlp_fields.hpp"
#include "pprofcore/scan.hpp"
#include "pprofcore/wire.hpp"
#include "wire_reading.hpp"

namespace pprofcore::otlp::detail {
namespace {

using namespace wire_reading;  // NOLINT(google-build-using-namespace): the shared field readers
namespace f = fields;

// Nesting of AnyValue (arrays and maps) deeper than this is refused: the
// reader recurses, and hostile input must not exhaust the stack.
constexpr int kMaxDepth = 64;

// What a v1.7.0 dictionary says that only the whole message can place: its
// attribute keys are text (the string table may still grow after them), and
// its attribute units name keys by string index.
struct PendingV1_7 {
  std::vector<std::pair<size_t, std::string_view>> keys;  // (attribute_table row, key)
  std::vector<AttributeUnitV1_7> units;
};

void fixed64s(Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at, std::vector<uint64_t>& out) {
  if (wt != kLen) {
    expect(r, wt, kFixed64, field, tag_at);
    out.push_back(fixed64(r, field));
    return;
  }
  Reader m = sub(r, wt, field, tag_at);
  if ((m.end() - m.pos()) % 8 != 0)
    throw DecodeError("packed fixed64 field is not a multiple of 8 bytes long", field, r.offset_of(tag_at));
  while (!m.done()) out.push_back(fixed64(m, field));
}

void any_value(Reader r, RawValue& v, int depth);

void key_value(Reader r, RawValue::Pair& kv, int depth) {
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("KeyValue");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::key_value::kKey:
        kv.key = bytes(r, wt, "KeyValue.key", at);
        break;
      case f::key_value::kValue:
        any_value(sub(r, wt, "KeyValue.value", at), kv.value, depth + 1);
        break;
      case f::key_value::kKeyStrindex:
        kv.key_strindex = scalar(r, wt, "KeyValue.key_strindex", at);
        break;
      default:
        r.skip(wt, "KeyValue");
    }
  }
}

void any_value(Reader r, RawValue& v, int depth) {
  if (depth > kMaxDepth)
    throw DecodeError("attribute values nested more than " + std::to_string(kMaxDepth) + " deep", "AnyValue",
                      r.offset());
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("AnyValue");
    uint32_t wt = tag & 7;
    // A oneof: the last member on the wire wins, as protobuf has it.
    switch (tag >> 3) {
      case f::any_value::kStringValue:
        v = RawValue{};
        v.value.kind = Value::kString;
        v.value.str = bytes(r, wt, "AnyValue.string_value", at);
        break;
      case f::any_value::kBoolValue:
        v = RawValue{};
        v.value.kind = Value::kBool;
        v.value.i = scalar(r, wt, "AnyValue.bool_value", at) != 0;
        break;
      case f::any_value::kIntValue:
        v = RawValue{};
        v.value.kind = Value::kInt;
        v.value.i = scalar(r, wt, "AnyValue.int_value", at);
        break;
      case f::any_value::kDoubleValue: {
        expect(r, wt, kFixed64, "AnyValue.double_value", at);
        uint64_t bits = fixed64(r, "AnyValue.double_value");
        v = RawValue{};
        v.value.kind = Value::kDouble;
        std::memcpy(&v.value.d, &bits, 8);
        break;
      }
      case f::any_value::kArrayValue: {
        Reader m = sub(r, wt, "AnyValue.array_value", at);
        v = RawValue{};
        v.value.kind = Value::kArray;
        while (!m.done()) {
          const uint8_t* a = m.pos();
          uint32_t t = m.tag("ArrayValue");
          if ((t >> 3) == f::array_value::kValues) {
            v.array.emplace_back();
            any_value(sub(m, t & 7, "ArrayValue.values", a), v.array.back(), depth + 1);
          } else {
            m.skip(t & 7, "ArrayValue");
          }
        }
        break;
      }
      case f::any_value::kKvlistValue: {
        Reader m = sub(r, wt, "AnyValue.kvlist_value", at);
        v = RawValue{};
        v.value.kind = Value::kMap;
        while (!m.done()) {
          const uint8_t* a = m.pos();
          uint32_t t = m.tag("KeyValueList");
          if ((t >> 3) == f::key_value_list::kValues) {
            v.map.emplace_back();
            key_value(sub(m, t & 7, "KeyValueList.values", a), v.map.back(), depth + 1);
          } else {
            m.skip(t & 7, "KeyValueList");
          }
        }
        break;
      }
      case f::any_value::kBytesValue:
        v = RawValue{};
        v.value.kind = Value::kBytes;
        v.value.str = bytes(r, wt, "AnyValue.bytes_value", at);
        break;
      case f::any_value::kStringValueStrindex:
        v = RawValue{};
        v.value.kind = Value::kString;
        v.strindex = scalar(r, wt, "AnyValue.string_value_strindex", at);
        if (v.strindex < 0) v.strindex = INT64_MAX;  // negative int32: out of range, reported later
        break;
      default:
        r.skip(wt, "AnyValue");
    }
  }
}

void attributes(Reader r, RawAttributes& out, const char* field) {
  // Resource and InstrumentationScope keep their KeyValues in field 1 / 3.
  (void)field;
  out.emplace_back();
  key_value(r, out.back(), 0);
}

}  // namespace

ValueType value_type(Reader r, const char* field, Layout layout) {
  ValueType t;
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag(field);
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::value_type::kTypeStrindex:
        t.type = scalar(r, wt, "ValueType.type_strindex", at);
        break;
      case f::value_type::kUnitStrindex:
        t.unit = scalar(r, wt, "ValueType.unit_strindex", at);
        break;
      case 3:  // aggregation_temporality, which pprof has no field for
        older(r, at, "ValueType", layout, Layout::kV1_8,
              "ValueType has field 3, the aggregation_temporality of v1.8.0");
        r.skip(wt, field);
        break;
      default:
        r.skip(wt, field);
    }
  }
  return t;
}

void older(const Reader& r, const uint8_t* tag_at, const char* field, Layout reading, Layout found, const char* what) {
  if (found > reading)
    throw OlderLayout(found,
                      std::string("input is an OpenTelemetry OTLP profiles message of an older layout (") + what + ")",
                      field, r.offset_of(tag_at));
}

namespace {

// v1.9.0 and v1.8.0 number Sample's fields {stack_index, values,
// attribute_indices, link_index, timestamps}: their numbers in v1.10.0's order.
constexpr uint32_t kSampleFieldV1_9[6] = {0,
                                          f::sample::kStackIndex,
                                          f::sample::kValues,
                                          f::sample::kAttributeIndices,
                                          f::sample::kLinkIndex,
                                          f::sample::kTimestampsUnixNano};

void sample(Reader r, Layout layout, SampleView& v, std::vector<int64_t>& attrs, std::vector<int64_t>& values,
            std::vector<uint64_t>& times) {
  attrs.clear();
  values.clear();
  times.clear();
  v.stack = 0;
  v.link = 0;
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("Sample");
    uint32_t wt = tag & 7;
    uint32_t field = tag >> 3;
    if (layout != Layout::kV1_10 && field < 6) field = kSampleFieldV1_9[field];
    switch (field) {
      case f::sample::kStackIndex:
        v.stack = scalar(r, wt, "Sample.stack_index", at);
        break;
      case f::sample::kAttributeIndices:
        varints(r, wt, "Sample.attribute_indices", at, attrs);
        break;
      case f::sample::kLinkIndex:
        if (wt == kLen)
          older(r, at, "Sample.link_index", layout, Layout::kV1_9,
                "Sample field 3 holds a list, the attribute_indices of v1.9.0 and v1.8.0");
        v.link = scalar(r, wt, "Sample.link_index", at);
        break;
      case f::sample::kValues:
        varints(r, wt, "Sample.values", at, values);
        break;
      case f::sample::kTimestampsUnixNano:
        fixed64s(r, wt, "Sample.timestamps_unix_nano", at, times);
        break;
      case 6:
        older(r, at, "Sample", layout, Layout::kV1_7, "Sample has field 6, the timestamps_unix_nano of v1.7.0");
        r.skip(wt, "Sample");
        break;
      default:
        r.skip(wt, "Sample");
    }
  }
  v.attrs = attrs.data();
  v.n_attrs = attrs.size();
  v.values = values.data();
  v.n_values = values.size();
  v.times = times.data();
  v.n_times = times.size();
}

// v1.8.0's Profile fields 8-12 are v1.10.0's 7-11 (its 7 is comment_strindices).
void profile(Reader r, Layout layout, ProfileMsg& p) {
  p.offset = r.offset();
  p.base = r.base();
  p.begin = r.pos();
  p.end = r.end();
  p.layout = layout;
  bool seen_sample_type = false;
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("Profile");
    uint32_t wt = tag & 7;
    uint32_t field = tag >> 3;
    if (layout == Layout::kV1_8 && field >= 7 && field <= 12) {
      if (field == 7) {
        varints(r, wt, "Profile.comment_strindices", at, p.comments);
        continue;
      }
      --field;
    } else if (field == 12) {
      older(r, at, "Profile", layout, Layout::kV1_8, "Profile has field 12, the attribute_indices of v1.8.0");
    }
    switch (field) {
      case f::profile::kSampleType:
        if (seen_sample_type)
          older(r, at, "Profile.sample_type", layout, Layout::kV1_7,
                "a profile with several sample_type entries, as in v1.7.0");
        seen_sample_type = true;
        p.sample_type = value_type(sub(r, wt, "Profile.sample_type", at), "ValueType", layout);
        break;
      case f::profile::kSamples: {
        sub(r, wt, "Profile.samples", at);  // read when converted (SampleCursor)
        ++p.num_samples;
        // The samples that follow, most with a one-byte tag and length, are
        // only counted here: skipped without the general reader.
        const uint8_t *q = r.pos(), *const e = r.end();
        for (; e - q >= 2 && q[0] == (f::profile::kSamples << 3 | kLen) && q[1] < 0x80 && e - q - 2 >= q[1];
             q += 2 + q[1])
          ++p.num_samples;
        r.seek(q);
        break;
      }
      case f::profile::kTimeUnixNano:
        if (wt != kFixed64)
          older(r, at, "Profile.time_unix_nano", layout, Layout::kV1_7,
                "Profile field 3 is not fixed64: it holds the location_indices of v1.7.0");
        p.time_unix_nano = fixed64(r, "Profile.time_unix_nano");
        break;
      case f::profile::kDurationNano:
        p.duration_nano = static_cast<uint64_t>(scalar(r, wt, "Profile.duration_nano", at));
        break;
      case f::profile::kPeriodType:
        if (wt == kVarint)
          older(r, at, "Profile.period_type", layout, Layout::kV1_7,
                "Profile field 5 is a number: the duration_nanos of v1.7.0");
        p.has_period_type = true;
        p.period_type = value_type(sub(r, wt, "Profile.period_type", at), "ValueType", layout);
        break;
      case f::profile::kPeriod:
        p.period = scalar(r, wt, "Profile.period", at);
        break;
      case f::profile::kProfileId:
        if (wt == kVarint)
          older(r, at, "Profile.profile_id", layout, Layout::kV1_8,
                "Profile field 7 is a number: the comment_strindices of v1.8.0");
        p.profile_id = bytes(r, wt, "Profile.profile_id", at);
        break;
      case f::profile::kDroppedAttributesCount:
        if (wt == kLen)
          older(r, at, "Profile.dropped_attributes_count", layout, Layout::kV1_8,
                "Profile field 8 holds bytes: the profile_id of v1.8.0");
        p.dropped_attributes_count = static_cast<uint32_t>(scalar(r, wt, "Profile.dropped_attributes_count", at));
        break;
      case f::profile::kOriginalPayloadFormat:
        if (wt == kVarint)
          older(r, at, "Profile.original_payload_format", layout, Layout::kV1_8,
                "Profile field 9 is a number: the dropped_attributes_count of v1.8.0");
        p.original_payload_format = bytes(r, wt, "Profile.original_payload_format", at);
        break;
      case f::profile::kOriginalPayload:
        p.original_payload = bytes(r, wt, "Profile.original_payload", at);
        break;
      case f::profile::kAttributeIndices:
        varints(r, wt, "Profile.attribute_indices", at, p.attributes);
        break;
      default:
        r.skip(wt, "Profile");
    }
  }
}

void scope_profiles(Reader r, Layout layout, ScopeMsg& s, Message& m) {
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("ScopeProfiles");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::scope_profiles::kScope: {
        Reader m = sub(r, wt, "ScopeProfiles.scope", at);
        while (!m.done()) {
          const uint8_t* a = m.pos();
          uint32_t t = m.tag("InstrumentationScope");
          uint32_t w = t & 7;
          switch (t >> 3) {
            case f::scope::kName:
              s.name = bytes(m, w, "InstrumentationScope.name", a);
              break;
            case f::scope::kVersion:
              s.version = bytes(m, w, "InstrumentationScope.version", a);
              break;
            case f::scope::kAttributes:
              attributes(sub(m, w, "InstrumentationScope.attributes", a), s.attributes, "");
              break;
            default:
              m.skip(w, "InstrumentationScope");
          }
        }
        break;
      }
      case f::scope_profiles::kProfiles:
        if (v1_7_profiles(layout)) {
          profile_v1_7(sub(r, wt, "ScopeProfiles.profiles", at), s, m);
          break;
        }
        s.profiles.emplace_back();
        s.profiles.back().source_index = s.profiles.size() - 1;
        profile(sub(r, wt, "ScopeProfiles.profiles", at), layout, s.profiles.back());
        break;
      case f::scope_profiles::kSchemaUrl:
        s.schema_url = bytes(r, wt, "ScopeProfiles.schema_url", at);
        break;
      default:
        r.skip(wt, "ScopeProfiles");
    }
  }
}

void resource_profiles(Reader r, Layout layout, ResourceMsg& res, Message& m) {
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("ResourceProfiles");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::resource_profiles::kResource: {
        Reader m = sub(r, wt, "ResourceProfiles.resource", at);
        while (!m.done()) {
          const uint8_t* a = m.pos();
          uint32_t t = m.tag("Resource");
          if ((t >> 3) == f::resource::kAttributes)
            attributes(sub(m, t & 7, "Resource.attributes", a), res.attributes, "");
          else
            m.skip(t & 7, "Resource");
        }
        break;
      }
      case f::resource_profiles::kScopeProfiles:
        res.scopes.emplace_back();
        scope_profiles(sub(r, wt, "ResourceProfiles.scope_profiles", at), layout, res.scopes.back(), m);
        break;
      case f::resource_profiles::kSchemaUrl:
        res.schema_url = bytes(r, wt, "ResourceProfiles.schema_url", at);
        break;
      default:
        r.skip(wt, "ResourceProfiles");
    }
  }
}

constexpr const char* kMappingFlagFields[4] = {"Mapping.has_functions", "Mapping.has_filenames",
                                               "Mapping.has_line_numbers", "Mapping.has_inline_frames"};

void mapping(Reader r, Layout layout, Message& m) {
  Mapping x;
  x.offset = r.offset();
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("Mapping");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::mapping::kMemoryStart:
        x.memory_start = static_cast<uint64_t>(scalar(r, wt, "Mapping.memory_start", at));
        break;
      case f::mapping::kMemoryLimit:
        x.memory_limit = static_cast<uint64_t>(scalar(r, wt, "Mapping.memory_limit", at));
        break;
      case f::mapping::kFileOffset:
        x.file_offset = static_cast<uint64_t>(scalar(r, wt, "Mapping.file_offset", at));
        break;
      case f::mapping::kFilenameStrindex:
        x.filename = scalar(r, wt, "Mapping.filename_strindex", at);
        break;
      case f::mapping::kAttributeIndices:
        varints(r, wt, "Mapping.attribute_indices", at, x.attributes);
        break;
      case 6:  // v1.7.0: has_functions, has_filenames, has_line_numbers, has_inline_frames
      case 7:
      case 8:
      case 9:
        older(r, at, "Mapping", layout, Layout::kV1_7, "Mapping has the has_* flags (fields 6-9) of v1.7.0");
        if (scalar(r, wt, kMappingFlagFields[(tag >> 3) - 6], at) != 0)
          x.flags |= static_cast<uint8_t>(1u << ((tag >> 3) - 6));
        break;
      default:
        r.skip(wt, "Mapping");
    }
  }
  m.mappings.push_back(std::move(x));
}

// v1.7.0's Location is {optional mapping_index, address, line, is_folded,
// attribute_indices}: field 4 is is_folded there.
void location(Reader r, Layout layout, Message& m) {
  Location x;
  x.offset = r.offset();
  if (v1_7_profiles(layout)) x.mapping = kAbsent;
  x.lines_begin = m.lines.size();
  x.attrs_begin = m.location_attributes.size();
  bool folded = false;
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("Location");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::location::kMappingIndex:
        x.mapping = scalar(r, wt, "Location.mapping_index", at);
        if (x.mapping == kAbsent) x.mapping = INT64_MAX;  // out of range, as it is
        break;
      case f::location::kAddress:
        x.address = static_cast<uint64_t>(scalar(r, wt, "Location.address", at));
        break;
      case f::location::kLines: {
        Reader l = sub(r, wt, "Location.lines", at);
        Line line;
        while (!l.done()) {
          const uint8_t* a = l.pos();
          uint32_t t = l.tag("Line");
          uint32_t w = t & 7;
          switch (t >> 3) {
            case f::line::kFunctionIndex:
              line.function = scalar(l, w, "Line.function_index", a);
              break;
            case f::line::kLine:
              line.line = scalar(l, w, "Line.line", a);
              break;
            case f::line::kColumn:
              line.column = scalar(l, w, "Line.column", a);
              break;
            default:
              l.skip(w, "Line");
          }
        }
        m.lines.push_back(line);
        break;
      }
      case f::location::kAttributeIndices:
        if (v1_7_profiles(layout)) {
          folded = scalar(r, wt, "Location.is_folded", at) != 0;
          break;
        }
        varints(r, wt, "Location.attribute_indices", at, m.location_attributes);
        break;
      case 5:
        if (v1_7_profiles(layout)) {
          varints(r, wt, "Location.attribute_indices", at, m.location_attributes);
          break;
        }
        r.skip(wt, "Location");
        break;
      default:
        r.skip(wt, "Location");
    }
  }
  x.lines_end = m.lines.size();
  x.attrs_end = m.location_attributes.size();
  m.locations.push_back(x);
  if (v1_7_profiles(layout)) m.location_folded.push_back(folded);
}

PPROFCORE_INLINE void function(Reader r, Message& m) {
  Function x;
  x.offset = r.offset();
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("Function");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::function::kNameStrindex:
        x.name = scalar(r, wt, "Function.name_strindex", at);
        break;
      case f::function::kSystemNameStrindex:
        x.system_name = scalar(r, wt, "Function.system_name_strindex", at);
        break;
      case f::function::kFilenameStrindex:
        x.filename = scalar(r, wt, "Function.filename_strindex", at);
        break;
      case f::function::kStartLine:
        x.start_line = scalar(r, wt, "Function.start_line", at);
        break;
      default:
        r.skip(wt, "Function");
    }
  }
  m.functions.push_back(x);
}

// Stack.location_indices, packed or not, as int32 (stack_location()): the
// stack table holds most of a large message's varints.
void stack_locations(Reader& r, uint32_t wt, const uint8_t* tag_at, Message& m) {
  if (wt != kLen) {
    m.stack_locations.push_back(stack_location(m, scalar(r, wt, "Stack.location_indices", tag_at)));
    return;
  }
  Reader s = sub(r, wt, "Stack.location_indices", tag_at);
  std::vector<int32_t>& out = m.stack_locations;
  const size_t size = out.size(), most = static_cast<size_t>(s.end() - s.pos());
  if (out.capacity() - size < most) out.reserve(std::max(out.capacity() * 2, size + most));
  // A local position and end (not the Reader's): the loop keeps them in registers.
  const uint8_t *p = s.pos(), *const e = s.end();
  while (p < e) {
    uint64_t x = *p;
    if (x < 0x80) {
      ++p;
    } else if (e - p >= 2 && p[1] < 0x80) {
      x = (x & 0x7f) | uint64_t(p[1]) << 7;
      p += 2;
    } else {
      const wire::VarintAt v = wire::varint_at(s.base(), p, e, "Stack.location_indices");
      x = v.value;
      p = v.next;
    }
    out.push_back(stack_location(m, static_cast<int64_t>(x)));
  }
}

// The number of varints in a packed payload, or -1 when it does not end
// with a varint's last byte or holds one longer than 5 bytes (35 bits: past
// any table's size), which the general path then reads and reports. Eight
// bytes at a time (the stack table holds most of a large message's bytes):
// a varint ends at each byte without the high bit, and a run of five high
// bits lies inside one of the words read at p or at p + 4.
int64_t short_varints(const uint8_t* p, const uint8_t* e) {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  const auto five_high = [](uint64_t h) { return (h & h << 8 & h << 16 & h << 24 & h << 32) != 0; };
  // One per byte below 0x80, summed by a multiply (no popcount instruction in a baseline x86-64 build).
  const auto ends = [](uint64_t h) { return static_cast<int64_t>((h >> 7) * 0x0101010101010101ull >> 56); };
  if (e - p < 8) {  // byte by byte
    int64_t n = 0;
    int run = 0;
    for (; p < e; ++p) {
      if (*p < 0x80) {
        ++n;
        run = 0;
      } else if (++run == 5) {
        return -1;
      }
    }
    return run ? -1 : n;
  }
  if (e[-1] >= 0x80) return -1;
  int64_t n = 0;
  uint64_t w;
  for (; e - p >= 12; p += 8) {
    uint64_t shifted;
    std::memcpy(&w, p, 8);
    std::memcpy(&shifted, p + 4, 8);
    if (five_high(w & kHigh) || five_high(shifted & kHigh)) return -1;
    n += ends(~w & kHigh);
  }
  // The last 0-11 bytes: the word at p when there are 8 or more, and the one
  // ending at e (inside the payload, which is 8 bytes or more) with the bytes
  // already counted masked off. Those two words hold every run of five bytes
  // the loop's words did not.
  const size_t left = static_cast<size_t>(e - p);
  size_t counted = 8 - left;  // bytes of the last word before p
  if (left >= 8) {
    std::memcpy(&w, p, 8);
    if (five_high(w & kHigh)) return -1;
    n += ends(~w & kHigh);
    counted = 16 - left;
  }
  if (counted < 8) {
    std::memcpy(&w, e - 8, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);  // the mask counts bytes from the first
#endif
    if (five_high(w & kHigh)) return -1;
    n += ends(~w & kHigh & ~uint64_t(0) << (8 * counted));  // byte i at bits 8i
  }
  return n;
}

// One stack_table entry. The usual shape, a single packed location_indices,
// is only checked and counted here: to_pprof.cpp decodes it on first use,
// straight into the profile (the stack table is most of a large message).
PPROFCORE_INLINE void stack(Reader s, Message& m) {
  m.stack_offset.push_back(s.offset());
  const uint8_t *b = s.pos(), *e = s.end();
  if (e - b >= 2 && *b == (f::stack::kLocationIndices << 3 | kLen)) {
    Reader x(s.base(), b + 1, e);
    const uint8_t* end = x.length_delimited("Stack.location_indices");
    const int64_t n = end == e ? short_varints(x.pos(), e) : -1;
    if (n >= 0) {
      m.stack_packed.push_back(x.pos());
      m.stack_first.push_back(-1);
      m.stack_offsets.push_back(m.stack_offsets.back() + n);
      return;
    }
  }
  const size_t before = m.stack_locations.size();
  while (!s.done()) {
    const uint8_t* p = s.pos();
    uint32_t t = s.tag("Stack");
    if ((t >> 3) == f::stack::kLocationIndices)
      stack_locations(s, t & 7, p, m);
    else
      s.skip(t & 7, "Stack");
  }
  m.stack_packed.push_back(nullptr);
  m.stack_first.push_back(static_cast<int64_t>(before));
  m.stack_offsets.push_back(m.stack_offsets.back() + static_cast<int64_t>(m.stack_locations.size() - before));
}

// Sizes the tables before they are read: one pass over the dictionary's tags
// counts each table's entries, so no table grows by copying. A malformed
// dictionary stops the count; the reading pass then reports it.
void reserve_tables(Reader r, Message& m) {
  size_t count[8] = {};
  try {
    while (!r.done()) {
      const uint32_t tag = r.tag("ProfilesDictionary");
      if ((tag & 7) != kLen) {
        r.skip(tag & 7, "ProfilesDictionary");
        continue;
      }
      const uint8_t* e = r.length_delimited("ProfilesDictionary");
      const size_t field = tag >> 3;
      if (field < 8) ++count[field];
      r.seek(e);
    }
  } catch (const DecodeError&) {
  }
  m.mappings.reserve(m.mappings.size() + count[f::dictionary::kMappingTable]);
  m.locations.reserve(m.locations.size() + count[f::dictionary::kLocationTable]);
  m.lines.reserve(m.lines.size() + count[f::dictionary::kLocationTable]);
  m.functions.reserve(m.functions.size() + count[f::dictionary::kFunctionTable]);
  m.links.reserve(m.links.size() + count[f::dictionary::kLinkTable]);
  m.attributes.reserve(m.attributes.size() + count[f::dictionary::kAttributeTable]);
  m.strings.views.reserve(m.strings.size() + count[f::dictionary::kStringTable]);
  const size_t stacks = count[f::dictionary::kStackTable];
  m.stack_offsets.reserve(m.stack_offsets.size() + stacks);
  m.stack_offset.reserve(m.stack_offset.size() + stacks);
  m.stack_packed.reserve(m.stack_packed.size() + stacks);
  m.stack_first.reserve(m.stack_first.size() + stacks);
}

// v1.7.0's attribute_table entry: a KeyValue, its key as text.
__attribute__((noinline)) void key_value_v1_7(Reader a, Attribute& x, std::string_view& key) {
  while (!a.done()) {
    const uint8_t* p = a.pos();
    uint32_t t = a.tag("KeyValue");
    uint32_t w = t & 7;
    switch (t >> 3) {
      case f::key_value::kKey: {
        Reader k = sub(a, w, "KeyValue.key", p);
        key = std::string_view(reinterpret_cast<const char*>(k.pos()), static_cast<size_t>(k.end() - k.pos()));
        break;
      }
      case f::key_value::kValue:
        any_value(sub(a, w, "KeyValue.value", p), x.value, 1);
        break;
      default:
        a.skip(w, "KeyValue");
    }
  }
}

// v1.7.0's attribute_units entry: {attribute_key_strindex, unit_strindex}.
__attribute__((noinline)) void attribute_unit(Reader u, PendingV1_7& pending) {
  AttributeUnitV1_7 x;
  x.offset = u.offset();
  while (!u.done()) {
    const uint8_t* p = u.pos();
    uint32_t t = u.tag("AttributeUnit");
    uint32_t w = t & 7;
    if ((t >> 3) == 1)
      x.key = scalar(u, w, "AttributeUnit.attribute_key_strindex", p);
    else if ((t >> 3) == 2)
      x.unit = scalar(u, w, "AttributeUnit.unit_strindex", p);
    else
      u.skip(w, "AttributeUnit");
  }
  pending.units.push_back(x);
}

// The tables of a ProfilesDictionary, or (kShift 1: v1.6.0) those of a
// ProfilesData, one field number further on, its resource_profiles skipped.
template <uint32_t kShift = 0>
void dictionary(Reader r, Layout layout, Message& m, PendingV1_7& pending) {
  if (kShift == 0) reserve_tables(r, m);
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("ProfilesDictionary");
    uint32_t wt = tag & 7;
    if (kShift && (tag >> 3) <= kShift) {
      r.skip(wt, "ProfilesData");
      continue;
    }
    switch ((tag >> 3) - kShift) {
      case f::dictionary::kMappingTable:
        mapping(sub(r, wt, "ProfilesDictionary.mapping_table", at), layout, m);
        break;
      case f::dictionary::kLocationTable:
        location(sub(r, wt, "ProfilesDictionary.location_table", at), layout, m);
        break;
      case f::dictionary::kFunctionTable:
        function(sub(r, wt, "ProfilesDictionary.function_table", at), m);
        break;
      case f::dictionary::kLinkTable: {
        Reader l = sub(r, wt, "ProfilesDictionary.link_table", at);
        Link link;
        while (!l.done()) {
          const uint8_t* a = l.pos();
          uint32_t t = l.tag("Link");
          uint32_t w = t & 7;
          if ((t >> 3) == f::link::kTraceId)
            link.trace_id = bytes(l, w, "Link.trace_id", a);
          else if ((t >> 3) == f::link::kSpanId)
            link.span_id = bytes(l, w, "Link.span_id", a);
          else
            l.skip(w, "Link");
        }
        m.links.push_back(std::move(link));
        break;
      }
      case f::dictionary::kStringTable: {
        Reader b = sub(r, wt, "ProfilesDictionary.string_table", at);
        m.strings.push_back(
            std::string_view(reinterpret_cast<const char*>(b.pos()), static_cast<size_t>(b.end() - b.pos())));
        break;
      }
      case f::dictionary::kAttributeTable: {
        Reader a = sub(r, wt, "ProfilesDictionary.attribute_table", at);
        Attribute x;
        x.offset = r.offset_of(a.pos());
        if (v1_7_profiles(layout)) {
          std::string_view key;
          key_value_v1_7(a, x, key);
          pending.keys.emplace_back(m.attributes.size(), key);
          m.attributes.push_back(std::move(x));
          break;
        }
        while (!a.done()) {
          const uint8_t* p = a.pos();
          uint32_t t = a.tag("KeyValueAndUnit");
          uint32_t w = t & 7;
          switch (t >> 3) {
            case f::key_value_and_unit::kKeyStrindex:
              if (w == kLen)
                older(a, p, "KeyValueAndUnit.key_strindex", layout, Layout::kV1_7,
                      "attribute_table holds a KeyValue with its key as text, as in v1.7.0");
              x.key = scalar(a, w, "KeyValueAndUnit.key_strindex", p);
              break;
            case f::key_value_and_unit::kValue:
              any_value(sub(a, w, "KeyValueAndUnit.value", p), x.value, 1);
              break;
            case f::key_value_and_unit::kUnitStrindex:
              x.unit = scalar(a, w, "KeyValueAndUnit.unit_strindex", p);
              break;
            default:
              a.skip(w, "KeyValueAndUnit");
          }
        }
        m.attributes.push_back(std::move(x));
        break;
      }
      case f::dictionary::kStackTable:  // v1.7.0: attribute_units
        if (v1_7_profiles(layout))
          attribute_unit(sub(r, wt, "ProfilesDictionary.attribute_units", at), pending);
        else
          stack(sub(r, wt, "ProfilesDictionary.stack_table", at), m);
        break;
      default:
        r.skip(wt, "ProfilesDictionary");
    }
  }
}

// v1.6.0 kept the tables in ProfilesData (fields 2-8): its field 2 is a
// mapping, which would read as a damaged dictionary, so its fields 3-8 are
// looked for first (the top level has a few fields: no cost).
void betray_v1_6(Reader r, Layout layout) {
  try {
    while (!r.done()) {
      const uint8_t* at = r.pos();
      const uint32_t tag = r.tag("ProfilesData");
      if ((tag >> 3) >= 3 && (tag >> 3) <= 8)
        older(r, at, "ProfilesData", layout, Layout::kV1_6,
              "ProfilesData has the tables of v1.6.0, which later layouts keep in ProfilesDictionary");
      r.skip(tag & 7, "ProfilesData");
    }
  } catch (const OlderLayout&) {
    throw;
  } catch (const DecodeError&) {  // damage: the reading proper reports it
  }
}

// v1.7.0: the attribute keys join the string table (once each, after the
// table as read), and each attribute whose key has a unit in
// attribute_units takes it.
void finish_v1_7(Message& m, const PendingV1_7& pending) {
  std::unordered_map<std::string_view, int64_t> key_index;
  for (const auto& [row, key] : pending.keys) {
    auto [it, added] = key_index.emplace(key, static_cast<int64_t>(m.strings.size()));
    if (added) m.strings.push_back(key);
    m.attributes[row].key = it->second;
  }
  finish_dictionary_v1_7(m, pending.units);
}

}  // namespace

void read_wire(const uint8_t* data, size_t n, Message& m, Layout layout) {
  m.layout = layout;
  m.input_bytes = n;
  PendingV1_7 pending;
  Reader r(data, data, data + n);
  if (layout == Layout::kV1_6)
    dictionary<1>(Reader(data, data, data + n), layout, m, pending);
  else
    betray_v1_6(Reader(data, data, data + n), layout);
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("ProfilesData");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case f::data::kResourceProfiles:
        m.resources.emplace_back();
        resource_profiles(sub(r, wt, "ProfilesData.resource_profiles", at), layout, m.resources.back(), m);
        break;
      case f::data::kDictionary:
        if (layout == Layout::kV1_6) {  // its mapping_table, read above
          r.skip(wt, "ProfilesData");
          break;
        }
        // Two dictionary fields merge, as protobuf merges a repeated message field.
        dictionary(sub(r, wt, "ProfilesData.dictionary", at), layout, m, pending);
        break;
      default:  // v1.6.0's fields 3-8 included: betray_v1_6 has looked for them
        r.skip(wt, "ProfilesData");
    }
  }
  if (v1_7_profiles(layout)) finish_v1_7(m, pending);
  // A profile id is 16 bytes: another length in field 7 is more likely
  // v1.8.0's packed comment_strindices (otlp.cpp tries that reading).
  if (layout < Layout::kV1_8)
    for (const ResourceMsg& res : m.resources)
      for (const ScopeMsg& scope : res.scopes)
        for (const ProfileMsg& p : scope.profiles)
          if (!p.profile_id.empty() && p.profile_id.size() != 16) m.prefer_layout = Layout::kV1_8;
}

// A varint of at most nine bytes (any int64 a sample's list may hold but a
// negative one) ending before e, read at p (which moves past it) by the
// shared readers: one byte inline, up to eight by the decoder's word step
// (values of heap profiles are 3-5 bytes; an out-of-line call each cost
// gen-bigheap-500k 8%), the rest by the profile.proto scanner's reader.
// false for anything else, which the Reader then reads and reports: a
// ten-byte varint (a negative index) goes there too, so that its error
// names the same field and offset as the general path's.
PPROFCORE_INLINE bool short_varint(const uint8_t*& p, const uint8_t* e, uint64_t& x) {
  if (p < e && *p < 0x80) {
    x = *p++;
    return true;
  }
#if defined(PPROFCORE_VARINT_IN_WORD)
  if (e - p >= 8) {
    const wire::VarintAt v = wire::varint_in_word(p);
    if (v.next) {
      x = v.value;
      p = v.next;
      return true;
    }
  }
#endif
  const uint8_t* q = p;
  if (!scanning::varint(q, e, x) || q - p > 9) return false;
  p = q;
  return true;
}

// The varints of a packed payload [p, e) into out (at most room), or false
// for more of them or one short_varint() does not read.
PPROFCORE_INLINE bool short_packed(const uint8_t* p, const uint8_t* e, int64_t* out, size_t room, size_t& n) {
  n = 0;
  for (uint64_t x; p < e; out[n++] = static_cast<int64_t>(x))
    if (n == room || !short_varint(p, e, x)) return false;
  return true;
}

// Packed varints into `out` (room for `room`); false when there are more (or
// one short_varint() does not read), for the general path to read.
PPROFCORE_INLINE bool packed_inline(Reader& r, const char* field, int64_t* out, size_t room, size_t& n) {
  const uint8_t* e = r.length_delimited(field);
  if (!short_packed(r.pos(), e, out, room, n)) return false;
  r.seek(e);
  return true;
}

// sample() for the common shape: every field one of Sample's five, with its
// usual wire type and one-byte tag, and short lists. Returns false for
// anything else, and sample() then reads the sample (and reports its errors).
PPROFCORE_INLINE bool sample_inline(Reader r, SampleView& v, int64_t* attrs, int64_t* values, uint64_t* times,
                                    size_t room, const uint8_t*& values_field, const uint8_t*& values_end) {
  v.stack = 0;
  v.link = 0;
  v.n_attrs = v.n_values = v.n_times = 0;
  while (!r.done()) {
    const uint8_t tag = *r.pos();  // one byte: field and wire type (other tags: return false)
    r.seek(r.pos() + 1);
    switch (tag) {
      case f::sample::kStackIndex << 3 | kVarint:
        v.stack = static_cast<int64_t>(r.varint("Sample.stack_index"));
        break;
      case f::sample::kLinkIndex << 3 | kVarint:
        v.link = static_cast<int64_t>(r.varint("Sample.link_index"));
        break;
      case f::sample::kAttributeIndices << 3 | kLen:
        if (v.n_attrs || !packed_inline(r, "Sample.attribute_indices", attrs, room, v.n_attrs)) return false;
        break;
      case f::sample::kValues << 3 | kLen:
        values_field = r.pos() - 1;
        if (v.n_values || !packed_inline(r, "Sample.values", values, room, v.n_values)) return false;
        values_end = r.pos();
        break;
      case f::sample::kTimestampsUnixNano << 3 | kLen: {
        const uint8_t* e = r.length_delimited("Sample.timestamps_unix_nano");
        const size_t bytes = static_cast<size_t>(e - r.pos());
        if (v.n_times || bytes % 8 != 0 || bytes / 8 > room) return false;
        for (size_t k = 0; k < bytes / 8; ++k) times[k] = fixed64(r, "Sample.timestamps_unix_nano");
        v.n_times = bytes / 8;
        break;
      }
      default:
        return false;
    }
  }
  v.attrs = attrs;
  v.values = values;
  v.times = times;
  return true;
}

PPROFCORE_INLINE bool SampleCursor::next_payload(const uint8_t*& begin, const uint8_t*& end) {
  // Most often: the samples field's one-byte tag and a one-byte length.
  if (p_.end - at_ >= 2 && at_[0] == (f::profile::kSamples << 3 | kLen) && at_[1] < 0x80 &&
      static_cast<size_t>(p_.end - at_ - 2) >= at_[1]) {
    begin = at_ + 2;
    end = at_ = begin + at_[1];
    return true;
  }
  return next_payload_slow(begin, end);
}

bool SampleCursor::next_payload_slow(const uint8_t*& begin, const uint8_t*& end) {
  Reader r(p_.base, at_, p_.end);
  while (!r.done()) {
    const uint8_t* at = r.pos();
    const uint32_t tag = r.tag("Profile");
    if ((tag >> 3) != f::profile::kSamples) {
      r.skip(tag & 7, "Profile");
      continue;
    }
    Reader m = sub(r, tag & 7, "Profile.samples", at);
    at_ = r.pos();
    begin = m.pos();
    end = m.end();
    return true;
  }
  at_ = r.pos();
  return false;
}

void SampleCursor::read(const uint8_t* begin, const uint8_t* end, SampleView& v) {
  v.offset = begin - p_.base;
  sample_begin_ = begin;
  sample_end_ = end;
  const uint8_t *values_field = nullptr, *values_end = nullptr;
  if (current_ && sample_inline(Reader(p_.base, begin, end), v, attrs_inline_, values_inline_, times_inline_, kInline,
                                values_field, values_end)) {
    values_begin_ = values_field;
    values_end_ = values_end;
    return;
  }
  values_begin_ = values_end_ = nullptr;
  sample(Reader(p_.base, begin, end), p_.layout, v, attrs_, values_, times_);
}

// JSON and v1.7.0: the next row of the columns (out of next()'s way).
__attribute__((noinline)) bool SampleCursor::next_row(SampleView& v) {
  const Samples& s = p_.samples;
  const Samples& c = p_.shared_samples ? *p_.shared_samples : s;  // all columns but the values
  if (j_ >= c.size()) return false;
  const size_t j = j_++;
  v.stack = c.stack[j];
  v.link = c.link[j];
  v.offset = c.offset[j];
  v.attrs = c.attrs.data() + c.attr_offsets[j];
  v.n_attrs = static_cast<size_t>(c.attr_offsets[j + 1] - c.attr_offsets[j]);
  v.values = s.values.data() + s.value_offsets[j];
  v.n_values = static_cast<size_t>(s.value_offsets[j + 1] - s.value_offsets[j]);
  v.times = c.times.data() + c.time_offsets[j];
  v.n_times = static_cast<size_t>(c.time_offsets[j + 1] - c.time_offsets[j]);
  return true;
}

bool SampleCursor::next(SampleView& v) {
  if (!p_.begin) return next_row(v);
  // Protobuf: the next Profile.samples field (the profile's other fields were read with it).
  const uint8_t *begin, *end;
  if (!next_payload(begin, end)) return false;
  read(begin, end, v);
  return true;
}

// memcmp() == 0 for the few bytes of a sample, without a call: a word at a
// time, the last (partial) word read overlapping the one before.
PPROFCORE_INLINE bool same_bytes(const uint8_t* a, const uint8_t* b, size_t n) {
  if (n >= 8) {
    uint64_t x, y;
    for (size_t k = 0; k + 8 < n; k += 8) {
      std::memcpy(&x, a + k, 8);
      std::memcpy(&y, b + k, 8);
      if (x != y) return false;
    }
    std::memcpy(&x, a + n - 8, 8);
    std::memcpy(&y, b + n - 8, 8);
    return x == y;
  }
  if (n >= 4) {
    uint32_t x0, y0, x1, y1;
    std::memcpy(&x0, a, 4);
    std::memcpy(&y0, b, 4);
    std::memcpy(&x1, a + n - 4, 4);
    std::memcpy(&y1, b + n - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  for (; n; --n)
    if (*a++ != *b++) return false;
  return true;
}

bool SampleCursor::next_sibling(const SampleCursor& first, const SampleView& like, SampleView& v, bool& same) {
  same = false;
  if (!p_.begin || !first.values_begin_) return next(v);
  const uint8_t *begin, *end;
  if (!next_payload(begin, end)) return false;
  // Same bytes before and after the values field, and between them exactly
  // one values field (tag, length, that many bytes of short varints) with as
  // many values as first's.
  const size_t head = static_cast<size_t>(first.values_begin_ - first.sample_begin_);
  const size_t tail = static_cast<size_t>(first.sample_end_ - first.values_end_);
  const uint8_t* field = begin + head;
  if (static_cast<size_t>(end - begin) >= head + tail + 2 && *field == first.values_begin_[0] &&
      same_bytes(begin, first.sample_begin_, head) && same_bytes(end - tail, first.values_end_, tail)) {
    const uint8_t* payload = field + 2;
    const size_t len = field[1];  // a one-byte length (a few values)
    size_t n = 0;
    if (len < 0x80 && payload + len == end - tail && short_packed(payload, payload + len, values_inline_, kInline, n) &&
        n == like.n_values) {
      v.offset = begin - p_.base;
      v.values = values_inline_;
      v.n_values = n;
      same = true;
      return true;
    }
  }
  read(begin, end, v);
  return true;
}

}  // namespace pprofcore::otlp::detail
