// read_v1_7: a Profile of opentelemetry-proto v1.7.0's layout (async-profiler
// 4.1-4.2 and the OpenTelemetry eBPF profiler of mid-2025 wrote it) -> the
// ProfileMsg rows the converter reads. There a profile has several sample
// types, each sample one value per type, and a sample's stack is a range of
// the profile's own location_indices. It becomes one ProfileMsg per sample
// type with the same samples (the converter joins them into one pprof
// profile, as it joins the profiles the writer splits), its stacks added to
// the message's stack table once per distinct range.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "wire_reading.hpp"

namespace pprofcore::otlp::detail {
namespace {

using namespace wire_reading;  // NOLINT(google-build-using-namespace): the shared field readers

// v1.7.0's field numbers (later layouts renumbered both messages).
namespace profile_fields {
constexpr uint32_t kSampleType = 1, kSample = 2, kLocationIndices = 3, kTimeNanos = 4, kDurationNanos = 5,
                   kPeriodType = 6, kPeriod = 7, kCommentStrindices = 8, kDefaultSampleTypeIndex = 9, kProfileId = 10,
                   kDroppedAttributesCount = 11, kOriginalPayloadFormat = 12, kOriginalPayload = 13,
                   kAttributeIndices = 14;
}
namespace sample_fields {
constexpr uint32_t kLocationsStartIndex = 1, kLocationsLength = 2, kValue = 3, kAttributeIndices = 4, kLinkIndex = 5,
                   kTimestampsUnixNano = 6;
}

// One sample as read: its lists are ranges of the profile's shared columns.
struct RawSample {
  int64_t start = 0, length = 0, link = kAbsent, offset = -1;
  size_t values_end = 0, attrs_end = 0, times_end = 0;  // each list starts where the previous sample's ended
};

struct RawProfile {
  std::vector<ValueType> sample_types;
  std::vector<int64_t> location_indices;
  std::vector<RawSample> samples;
  std::vector<int64_t> values, attrs;
  std::vector<int64_t> times;  // uint64 on the wire, as varints
  int64_t default_index = -1, default_offset = -1;
};

void read_sample(Reader r, RawProfile& raw) {
  RawSample s;
  s.offset = r.offset();
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("Sample");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case sample_fields::kLocationsStartIndex:
        s.start = scalar(r, wt, "Sample.locations_start_index", at);
        break;
      case sample_fields::kLocationsLength:
        s.length = scalar(r, wt, "Sample.locations_length", at);
        break;
      case sample_fields::kValue:
        varints(r, wt, "Sample.value", at, raw.values);
        break;
      case sample_fields::kAttributeIndices:
        varints(r, wt, "Sample.attribute_indices", at, raw.attrs);
        break;
      case sample_fields::kLinkIndex:
        s.link = scalar(r, wt, "Sample.link_index", at);
        if (s.link == kAbsent) s.link = INT64_MAX;  // out of range, as it is
        break;
      case sample_fields::kTimestampsUnixNano:
        varints(r, wt, "Sample.timestamps_unix_nano", at, raw.times);
        break;
      default:
        r.skip(wt, "Sample");
    }
  }
  s.values_end = raw.values.size();
  s.attrs_end = raw.attrs.size();
  s.times_end = raw.times.size();
  raw.samples.push_back(s);
}

// The stack_table row of location_indices[start, start + length), added on
// the range's first use.
int64_t stack_of(const RawProfile& raw, const RawSample& s, Message& m, std::unordered_map<uint64_t, int64_t>& stacks) {
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
void repair_thread_frames(std::vector<RawSample>& samples, size_t n_locations) {
  if (samples.empty() || samples[0].start != 0) return;
  for (size_t k = 0; k + 1 < samples.size(); ++k)
    if (samples[k].length < 1 || samples[k + 1].start != samples[k].start + samples[k].length - 1) return;
  const RawSample& last = samples.back();
  if (last.length < 1 || static_cast<uint64_t>(last.start + last.length) != n_locations + 1) return;
  for (RawSample& s : samples) --s.length;
}

}  // namespace

void profile_v1_7(Reader r, ScopeMsg& scope, Message& m) {
  namespace pf = profile_fields;
  RawProfile raw;
  ProfileMsg header;  // every field but sample_type and the samples
  header.offset = r.offset();
  header.layout = Layout::kV1_7;
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag("Profile");
    uint32_t wt = tag & 7;
    switch (tag >> 3) {
      case pf::kSampleType:
        raw.sample_types.push_back(value_type(sub(r, wt, "Profile.sample_type", at), "ValueType", Layout::kV1_7));
        break;
      case pf::kSample:
        read_sample(sub(r, wt, "Profile.sample", at), raw);
        break;
      case pf::kLocationIndices:
        varints(r, wt, "Profile.location_indices", at, raw.location_indices);
        break;
      case pf::kTimeNanos:
        header.time_unix_nano = static_cast<uint64_t>(scalar(r, wt, "Profile.time_nanos", at));
        break;
      case pf::kDurationNanos:
        header.duration_nano = static_cast<uint64_t>(scalar(r, wt, "Profile.duration_nanos", at));
        break;
      case pf::kPeriodType:
        header.has_period_type = true;
        header.period_type = value_type(sub(r, wt, "Profile.period_type", at), "ValueType", Layout::kV1_7);
        break;
      case pf::kPeriod:
        header.period = scalar(r, wt, "Profile.period", at);
        break;
      case pf::kCommentStrindices:
        varints(r, wt, "Profile.comment_strindices", at, header.comments);
        break;
      case pf::kDefaultSampleTypeIndex:
        raw.default_offset = r.offset_of(at);
        raw.default_index = scalar(r, wt, "Profile.default_sample_type_index", at);
        break;
      case pf::kProfileId:
        header.profile_id = bytes(r, wt, "Profile.profile_id", at);
        break;
      case pf::kDroppedAttributesCount:
        header.dropped_attributes_count = static_cast<uint32_t>(scalar(r, wt, "Profile.dropped_attributes_count", at));
        break;
      case pf::kOriginalPayloadFormat:
        header.original_payload_format = bytes(r, wt, "Profile.original_payload_format", at);
        break;
      case pf::kOriginalPayload:
        header.original_payload = bytes(r, wt, "Profile.original_payload", at);
        break;
      case pf::kAttributeIndices:
        varints(r, wt, "Profile.attribute_indices", at, header.attributes);
        break;
      default:
        r.skip(wt, "Profile");
    }
  }

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
  for (const RawSample& s : raw.samples) {
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

}  // namespace pprofcore::otlp::detail
