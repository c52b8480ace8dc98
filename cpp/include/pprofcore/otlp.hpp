// otlp: OpenTelemetry profiles (OTLP, opentelemetry-proto v1.10.0 / v1.11.0,
// profiles v1development) in and out of pprof's model. Reads ProfilesData and
// ExportProfilesServiceRequest, as protobuf (raw, gzip or zstd) or OTLP JSON;
// writes protobuf. Mapping (docs/otlp.md): sample attributes and links become
// labels, per-observation timestamps a numeric `timestamp_ns` label, the
// `pprof.*` semantic-convention attributes fill what OTLP lacks (mapping flags,
// folded locations, comments, drop/keep frames, doc URL). Older layouts
// (v1.9.0 and before) are refused by name. Does not read files (io.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore::otlp {

struct KeyValue;

// An attribute value (common.proto's AnyValue), strings resolved.
struct Value {
  enum Kind : uint8_t { kEmpty, kString, kBool, kInt, kDouble, kBytes, kArray, kMap };
  Kind kind = kEmpty;
  std::string str;  // kString, kBytes
  int64_t i = 0;    // kInt, kBool (0/1)
  double d = 0;     // kDouble
  std::vector<Value> array;
  std::vector<KeyValue> map;
};

struct KeyValue {
  std::string key;
  Value value;
  std::string unit;  // KeyValueAndUnit.unit; "" elsewhere
};

// Where one pprof profile came from in the OTLP message.
struct Origin {
  size_t resource_index = 0, scope_index = 0;
  std::vector<size_t> profile_indices;  // the OTLP profiles (one per sample type) it joins
  std::vector<KeyValue> resource_attributes;
  std::string resource_schema_url;
  std::string scope_name, scope_version, scope_schema_url;
  std::vector<KeyValue> scope_attributes;
  std::vector<KeyValue> profile_attributes;  // those without a pprof field
  std::string profile_id;                    // raw bytes (16 or empty)
  std::string original_payload_format;
  std::string original_payload;
  uint32_t dropped_attributes_count = 0;
};

struct Decoded {
  Profile profile;
  Origin origin;
};

// Whether the (decompressed) bytes look like an OTLP profiles message:
// protobuf whose top-level field 1 holds nested messages, or JSON naming
// resourceProfiles. Cheap; decode() is the judge.
bool looks_like_otlp(const uint8_t* data, size_t n);

// Every pprof profile in an OTLP message (raw, gzip or zstd; protobuf or JSON),
// in message order. OTLP profiles of one scope whose samples match one to one
// (one per sample type, as write() makes them) become one profile with several
// sample types. Throws DecodeError naming the field and byte offset.
std::vector<Decoded> decode(const uint8_t* data, size_t n, const DecodeOptions& options = {});

// decode() of raw (decompressed) bytes that must hold exactly one profile
// (pprofcore.load's path); more than one is a DecodeError naming load_otlp.
Profile decode_single_raw(const uint8_t* data, size_t n);

// What write() puts around the profile.
struct WriteOptions {
  std::vector<KeyValue> resource_attributes;
  std::string scope_name = "pprofcore";
  std::string scope_version;
  bool export_request = false;  // same bytes either way: the two messages share their layout
};

// The profile as an OTLP ProfilesData (protobuf, uncompressed): one resource,
// one scope, one OTLP profile per sample type. decode() gives back the same
// profile (canonically: ids, table order and unreferenced rows aside).
std::string write(const Profile& p, const WriteOptions& options = {});

}  // namespace pprofcore::otlp
