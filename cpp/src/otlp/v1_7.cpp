// v1_7: a v1.7.0 profile as read -> ProfileMsg rows, and the dictionary's
// last steps (v1_7.hpp).
#include "v1_7.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pprofcore::otlp::detail {
namespace {

// The stack_table row of location_indices[start, start + length), added on
// the range's first use.
int64_t stack_of(const RawProfileV1_7& raw, const RawSampleV1_7& s, Message& m,
                 std::unordered_map<uint64_t, int64_t>& stacks) {
  const uint64_t n = raw.location_indices.size();
  if (s.start < 0 || static_cast<uint64_t>(s.start) > n)
    throw DecodeError("locations_start_index " + std::to_string(s.start) + " is out of range of the profile's " +
                          std::to_string(n) + " location_indices",
                      "Sample.locations_start_index", s.offset);
  if (s.length < 0 || static_cast<uint64_t>(s.length) > n - static_cast<uint64_t>(s.start))
    throw DecodeError("locations_length " + std::to_string(s.length) + " runs past the profile's " + std::to_string(n) +
                          " location_indices (from locations_start_index " + std::to_string(s.start) + ")",
                      "Sample.locations_length", s.offset);
  const uint64_t key = static_cast<uint64_t>(s.start) << 32 | static_cast<uint64_t>(s.length);
  auto [it, added] = stacks.emplace(key, static_cast<int64_t>(m.stack_offsets.size() - 1));
  if (!added) return it->second;
  if (m.stack_locations.size() + static_cast<size_t>(s.length) > m.max_stack_locations())
    throw DecodeError("the samples' ranges of location_indices expand to more than " +
                          std::to_string(m.max_stack_locations()) + " locations from a message of " +
                          std::to_string(m.input_bytes) + " bytes (refused as a decompression bomb)",
                      "Sample.locations_length", s.offset);
  m.stack_offset.push_back(s.offset);
  m.stack_packed.push_back(nullptr);
  m.stack_first.push_back(static_cast<int64_t>(m.stack_locations.size()));
  for (int64_t k = 0; k < s.length; ++k)
    m.stack_locations.push_back(stack_location(m, raw.location_indices[static_cast<size_t>(s.start + k)]));
  m.stack_offsets.push_back(m.stack_offsets.back() + s.length);
  return it->second;
}

// async-profiler 4.2 (with its thread option) counted a pseudo-frame for the
// thread in each locations_length but wrote no location for it: its samples'
// ranges follow each other with each one location too long, the last running
// one past the end. That shape (no reading of the spec fits it: the last range
// is out of bounds) is read as the producer meant it, each range one shorter.
void repair_thread_frames(std::vector<RawSampleV1_7>& samples, size_t n_locations) {
  if (samples.empty() || samples[0].start != 0) return;
  for (size_t k = 0; k + 1 < samples.size(); ++k)
    if (samples[k].length < 1 || samples[k + 1].start != samples[k].start + samples[k].length - 1) return;
  const RawSampleV1_7& last = samples.back();
  if (last.length < 1 || static_cast<uint64_t>(last.start + last.length) != n_locations + 1) return;
  for (RawSampleV1_7& s : samples) --s.length;
}

}  // namespace

void add_profile_v1_7(RawProfileV1_7& raw, const ProfileMsg& header_in, ScopeMsg& scope, Message& m) {
  ProfileMsg header = header_in;
  // Its index among the scope's Profile messages (those read before it made
  // one ProfileMsg per sample type, all with their message's index).
  header.source_index = scope.profiles.empty() ? 0 : scope.profiles.back().source_index + 1;
  repair_thread_frames(raw.samples, raw.location_indices.size());
  const size_t types = raw.sample_types.size();
  if (raw.default_offset >= 0) {
    if (raw.default_index < 0 || static_cast<uint64_t>(raw.default_index) >= types)
      throw DecodeError("default_sample_type_index " + std::to_string(raw.default_index) +
                            " is out of range of the profile's " + std::to_string(types) + " sample_type entries",
                        "Profile.default_sample_type_index", raw.default_offset);
    header.default_sample_type = raw.sample_types[static_cast<size_t>(raw.default_index)].type;
  }

  // The samples' columns, shared by every sample type but for the values.
  auto columns = std::make_shared<Samples>();
  Samples& shared = *columns;
  std::vector<size_t> values_begin;  // per sample: its first value in raw.values
  std::unordered_map<uint64_t, int64_t> stacks;
  size_t values_at = 0, attrs_at = 0, times_at = 0;
  for (const RawSampleV1_7& s : raw.samples) {
    const size_t n_values = s.values_end - values_at;
    // No values: counted by its timestamps (as later layouts have it), for a
    // profile of one sample type at most (several would each repeat them).
    if (n_values != types && !(n_values == 0 && types <= 1))
      throw DecodeError("sample has " + std::to_string(n_values) + " values for the profile's " +
                            std::to_string(types) + " sample_type entries",
                        "Sample.value", s.offset);
    values_begin.push_back(n_values ? values_at : SIZE_MAX);
    shared.stack.push_back(stack_of(raw, s, m, stacks));
    shared.link.push_back(s.link);
    shared.offset.push_back(s.offset);
    shared.attrs.insert(shared.attrs.end(), raw.attrs.begin() + static_cast<ptrdiff_t>(attrs_at),
                        raw.attrs.begin() + static_cast<ptrdiff_t>(s.attrs_end));
    shared.attr_offsets.push_back(static_cast<int64_t>(shared.attrs.size()));
    for (size_t k = times_at; k < s.times_end; ++k) shared.times.push_back(static_cast<uint64_t>(raw.times[k]));
    shared.time_offsets.push_back(static_cast<int64_t>(shared.times.size()));
    values_at = s.values_end;
    attrs_at = s.attrs_end;
    times_at = s.times_end;
  }

  // One ProfileMsg per sample type (one with no type when the profile names none).
  for (size_t t = 0; t < std::max<size_t>(types, 1); ++t) {
    scope.profiles.push_back(header);
    ProfileMsg& p = scope.profiles.back();
    if (types) p.sample_type = raw.sample_types[t];
    p.num_samples = raw.samples.size();
    p.shared_samples = columns;
    for (size_t j = 0; j < raw.samples.size(); ++j) {
      if (values_begin[j] != SIZE_MAX) p.samples.values.push_back(raw.values[values_begin[j] + t]);
      p.samples.value_offsets.push_back(static_cast<int64_t>(p.samples.values.size()));
    }
  }
}

void finish_dictionary_v1_7(Message& m, const std::vector<AttributeUnitV1_7>& units) {
  std::unordered_map<std::string_view, int64_t> unit_of;
  for (const AttributeUnitV1_7& u : units) {
    if (u.key < 0 || static_cast<uint64_t>(u.key) >= m.strings.size())
      throw DecodeError("attribute_key_strindex " + std::to_string(u.key) + " is out of range of string_table (" +
                            std::to_string(m.strings.size()) + " entries)",
                        "AttributeUnit.attribute_key_strindex", u.offset);
    unit_of[m.strings[static_cast<size_t>(u.key)]] = u.unit;
  }
  if (!unit_of.empty())
    for (Attribute& a : m.attributes)
      if (a.key >= 0 && static_cast<uint64_t>(a.key) < m.strings.size())
        if (auto it = unit_of.find(m.strings[static_cast<size_t>(a.key)]); it != unit_of.end()) a.unit = it->second;
  // v1.7.0 has no zero entries, but producers already wrote them (async-profiler
  // sets mapping_index 0 with an empty mapping_table): index 0 of an empty
  // table, or naming a row of zeros, means none.
  const bool no_mapping_0 = m.mappings.empty() || (m.mappings[0].memory_start == 0 && m.mappings[0].memory_limit == 0 &&
                                                   m.mappings[0].file_offset == 0 && m.mappings[0].filename == 0 &&
                                                   m.mappings[0].attributes.empty() && m.mappings[0].flags == 0);
  if (no_mapping_0)
    for (Location& x : m.locations)
      if (x.mapping == 0) x.mapping = kAbsent;
  if (m.links.empty() || (m.links[0].trace_id.empty() && m.links[0].span_id.empty()))
    for (ResourceMsg& res : m.resources)
      for (ScopeMsg& scope : res.scopes)
        for (ProfileMsg& p : scope.profiles)
          if (p.shared_samples)
            for (int64_t& link : p.shared_samples->link)
              if (link == 0) link = kAbsent;
}

}  // namespace pprofcore::otlp::detail
