// sniff: cheap content checks used only to explain decode failures.
#include "pprofcore/sniff.hpp"

#include <cstring>
#include <string_view>

#include "pprofcore/wire.hpp"

namespace pprofcore {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool mostly_text(const uint8_t* data, size_t n) {
  // Raw profile.proto starts with a tag byte (usually 0x0a), never a letter.
  if (n == 0 || data[0] < 0x20 || data[0] >= 0x7f) return false;
  size_t m = n < 512 ? n : 512, printable = 0;
  for (size_t i = 0; i < m; ++i) {
    uint8_t c = data[i];
    if (c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f)) ++printable;
  }
  return m > 0 && printable * 100 >= m * 95;
}

}  // namespace

std::string describe_non_pprof(const uint8_t* data, size_t n) {
  const char* legacy = "; pprofcore does not read this legacy format (convert with `go tool pprof -proto`)";
  if (n >= 16) {
    // gperftools CPU profile: binary header of words {0, 3, 0, period, 0}.
    uint64_t w[2];
    std::memcpy(w, data, 16);
    if (w[0] == 0 && w[1] == 3) return std::string("input looks like a legacy gperftools CPU profile (binary)") + legacy;
    uint32_t h[2];
    std::memcpy(h, data, 8);
    if (h[0] == 0 && h[1] == 3) return std::string("input looks like a legacy 32-bit gperftools CPU profile") + legacy;
  }
  if (mostly_text(data, n)) {
    std::string_view s(reinterpret_cast<const char*>(data), n < 256 ? n : 256);
    while (!s.empty() && (s[0] == ' ' || s[0] == '\n' || s[0] == '\r' || s[0] == '\t')) s.remove_prefix(1);
    if (starts_with(s, "heap_v2/")) return std::string("input looks like a jemalloc heap_v2 text profile") + legacy;
    if (starts_with(s, "heap profile:")) return std::string("input looks like a legacy heap profile (text)") + legacy;
    if (starts_with(s, "goroutine profile:")) return std::string("input looks like a Go goroutine profile (debug=1 text)") + legacy;
    if (starts_with(s, "threadcreate profile:")) return std::string("input looks like a Go threadcreate profile (debug=1 text)") + legacy;
    if (starts_with(s, "--- heapz")) return std::string("input looks like a legacy heap profile (text)") + legacy;
    if (starts_with(s, "--- threadz")) return std::string("input looks like a legacy thread profile (text)") + legacy;
    if (starts_with(s, "--- contention") || starts_with(s, "--- mutex"))
      return std::string("input looks like a legacy contention profile (text)") + legacy;
    if (starts_with(s, "---")) return std::string("input looks like a legacy pprof text profile") + legacy;
    if (starts_with(s, "{") || starts_with(s, "[")) return "input looks like JSON, not a pprof profile";
    return std::string("input looks like text, not a binary profile.proto") + legacy;
  }
  return "";
}

std::string describe_foreign_protobuf(const uint8_t* data, size_t n) {
  wire::Reader r(data, data, data + n);
  bool nested_field1 = false;
  try {
    while (!r.done()) {
      uint32_t tag = r.tag("");
      uint32_t field = tag >> 3, wt = tag & 7;
      const uint8_t* start = r.pos();
      r.skip(wt, "");
      // profile.proto's field 1 is a ValueType (varints); OTLP's is ResourceProfiles,
      // whose own fields are messages (resource, scope_profiles).
      if (field == 1 && wt == wire::kLen) {
        wire::Reader m(data, start, r.pos());
        m.varint("");
        if (!m.done() && (*m.pos() & 7) == wire::kLen) nested_field1 = true;
      }
    }
  } catch (const DecodeError&) {
    return "";
  }
  if (nested_field1)
    return "input is protobuf but not profile.proto (top-level field 1 holds nested messages, as in an "
           "OpenTelemetry OTLP ExportProfilesServiceRequest)";
  return "input is protobuf but its fields do not match profile.proto";
}

}  // namespace pprofcore
