// read_v1_7: a protobuf Profile of opentelemetry-proto v1.7.0's layout
// (async-profiler 4.1-4.2 and the OpenTelemetry eBPF profiler and Collector of
// mid-2025 wrote it), read into a RawProfileV1_7 and its header, which v1_7.cpp
// turns into ProfileMsg rows.
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "v1_7.hpp"
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

void read_sample(Reader r, RawProfileV1_7& raw) {
  RawSampleV1_7 s;
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

}  // namespace

void profile_v1_7(Reader r, ScopeMsg& scope, Message& m) {
  namespace pf = profile_fields;
  RawProfileV1_7 raw;
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

  add_profile_v1_7(raw, header, scope, m);
}

}  // namespace pprofcore::otlp::detail
