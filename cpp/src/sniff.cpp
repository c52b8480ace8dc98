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

bool has_magic(const uint8_t* data, size_t n, std::string_view magic, size_t at = 0) {
  return n >= at + magic.size() && std::memcmp(data + at, magic.data(), magic.size()) == 0;
}

// UTF-16 text: a byte-order mark, or ASCII with every other byte zero.
bool utf16_text(const uint8_t* data, size_t n) {
  if (n >= 2 && ((data[0] == 0xff && data[1] == 0xfe) || (data[0] == 0xfe && data[1] == 0xff))) return true;
  size_t m = n < 256 ? n & ~size_t(1) : 256;
  if (m < 8) return false;
  for (int zero_at = 0; zero_at < 2; ++zero_at) {
    size_t ok = 0;
    for (size_t i = 0; i < m; i += 2) {
      uint8_t c = data[i + 1 - zero_at], z = data[i + zero_at];
      if (z == 0 && (c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c < 0x7f))) ++ok;
    }
    if (ok * 100 >= (m / 2) * 95) return true;
  }
  return false;
}

// Containers and file types named by their magic numbers (the first bytes, or
// for tar the "ustar" at offset 257).
std::string describe_container(const uint8_t* data, size_t n) {
  const char* decompress = "; pprofcore reads raw or gzip-compressed profile.proto (decompress it first)";
  const char* extract = "; extract the profile from the archive first";
  if (has_magic(data, n, "\x28\xb5\x2f\xfd")) return std::string("input is zstd-compressed") + decompress;
  if (has_magic(data, n,
                std::string_view("\xfd"
                                 "7zXZ\0",
                                 6)))
    return std::string("input is xz-compressed") + decompress;
  if (has_magic(data, n, "BZh") && n > 3 && data[3] >= '1' && data[3] <= '9')
    return std::string("input is bzip2-compressed") + decompress;
  if (has_magic(data, n, "\x04\x22\x4d\x18")) return std::string("input is lz4-compressed (frame format)") + decompress;
  if (has_magic(data, n, std::string_view("\xff\x06\0\0sNaPpY", 10)))
    return std::string("input is snappy-compressed (framing format)") + decompress;
  // zlib: the 32K-window header with one of the four FLG bytes zlib writes.
  if (n >= 2 && data[0] == 0x78 && (data[1] == 0x01 || data[1] == 0x5e || data[1] == 0x9c || data[1] == 0xda))
    return std::string("input looks like a zlib stream (RFC 1950, not gzip)") + decompress;
  if (has_magic(data, n, "PK\x03\x04") || has_magic(data, n, "PK\x05\x06"))
    return std::string("input is a zip archive") + extract;
  if (has_magic(data, n, "ustar", 257)) return std::string("input is a tar archive") + extract;
  if (has_magic(data, n, std::string_view("7z\xbc\xaf\x27\x1c", 6)))
    return std::string("input is a 7-Zip archive") + extract;
  // Other profilers' binary formats: named, with the converter to pprof.
  if (has_magic(data, n, std::string_view("FLR\0", 4)))
    return "input is a Java Flight Recorder (JFR) recording, not a pprof profile; pprofcore.load reads it "
           "(docs/producers.md), but this entry point takes pprof only: load it, then merge or save the profile";
  if (has_magic(data, n, "PERFILE2") || has_magic(data, n, "2ELIFREP"))
    return "input is a Linux perf recording (perf.data), not a pprof profile; convert it to text that pprofcore.load "
           "reads with `perf script -i perf.data > perf.txt`, or to pprof with google/perf_data_converter: "
           "`perf_to_profile -i perf.data -o profile.pb.gz`";
  if (has_magic(data, n, "\x89PNG\r\n\x1a\n")) return "input is a PNG image, not a profile";
  if (has_magic(data, n, "\xff\xd8\xff")) return "input is a JPEG image, not a profile";
  if (has_magic(data, n,
                "\x7f"
                "ELF"))
    return "input is an ELF binary, not a profile";
  if (has_magic(data, n, "\xcf\xfa\xed\xfe") || has_magic(data, n, "\xce\xfa\xed\xfe"))
    return "input is a Mach-O binary, not a profile";
  if (utf16_text(data, n))
    return "input looks like UTF-16 text, not a binary profile.proto (a text profile saved as UTF-16 must be "
           "converted to UTF-8, and pprofcore reads profile.proto only)";
  return "";
}

// JSON formats of other profilers, told apart by keys near the start (a
// substring test on the first 64 KiB, not a JSON parse).
std::string describe_json(const uint8_t* data, size_t n) {
  std::string_view s(reinterpret_cast<const char*>(data), n < (size_t(64) << 10) ? n : size_t(64) << 10);
  auto has = [&](std::string_view key) { return s.find(key) != std::string_view::npos; };
  if (has("speedscope.app/file-format-schema"))
    return "input is a speedscope JSON file, not a pprof profile; pprofcore.load reads it (docs/producers.md), but "
           "this entry point takes pprof only: load it, then merge or save the profile";
  if (has("\"resourceProfiles\"") || has("\"resource_profiles\""))
    return "input is an OpenTelemetry profile (OTLP JSON), not a pprof profile (pprofcore.load_otlp reads OTLP "
           "profiles of opentelemetry-proto v1.10.0 and v1.11.0)";
  // The samples and timeDeltas follow the nodes, which may fill the first 64 KiB.
  if (has("\"nodes\"") && (has("\"timeDeltas\"") || has("\"callFrame\"")) && !has("\"traceEvents\""))
    return "input is a V8/Chrome CPU profile (.cpuprofile JSON), not a pprof profile; pprofcore.load reads it "
           "(docs/producers.md), but this entry point takes pprof only: load it, then merge or save the profile";
  if (has("\"traceEvents\"")) return "input is a Chrome trace (Trace Event JSON), not a pprof profile";
  // node --heap-prof: one tree under "head", each node with its callFrame and selfSize
  if (has("\"head\"") && has("\"callFrame\"") && has("\"selfSize\""))
    return "input is a V8 sampling heap profile (node --heap-prof, .heapprofile JSON), not a pprof profile; "
           "pprofcore.load reads it (docs/producers.md), but this entry point takes pprof only: load it, then merge "
           "or save the profile";
  return "input looks like JSON, not a pprof profile";
}

// Folded stacks: every line of the first few is "<frames> <integer>" and at
// least one stack has a ";".
bool looks_folded(const uint8_t* data, size_t n) {
  std::string_view s(reinterpret_cast<const char*>(data), n < 4096 ? n : 4096);
  int lines = 0;
  bool semicolon = false;
  while (!s.empty() && lines < 20) {
    size_t nl = s.find('\n');
    std::string_view line = s.substr(0, nl);
    s = nl == std::string_view::npos ? std::string_view() : s.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    if (nl == std::string_view::npos && n > 4096) break;  // cut by the 4 KiB window
    size_t sp = line.rfind(' ');
    if (sp == std::string_view::npos || sp == 0 || sp + 1 == line.size()) return false;
    for (char c : line.substr(sp + 1))
      if (c < '0' || c > '9') return false;
    semicolon |= line.substr(0, sp).find(';') != std::string_view::npos;
    ++lines;
  }
  return lines > 0 && semicolon;
}

// describe_non_pprof for input without a byte-order mark (below).
std::string describe_unmarked(const uint8_t* data, size_t n);

}  // namespace

std::string describe_non_pprof(const uint8_t* data, size_t n) {
  // Text editors on Windows save UTF-8 with a byte-order mark; it hides what
  // follows. (Skipped in a loop: a file of marks must not recurse per mark.)
  size_t marks = 0;
  while (has_magic(data + marks, n - marks, "\xef\xbb\xbf")) marks += 3;
  if (marks == 0) return describe_unmarked(data, n);
  std::string inner = describe_unmarked(data + marks, n - marks);
  return "input starts with a UTF-8 byte-order mark (EF BB BF), so it is text, not a binary profile.proto" +
         (inner.empty() ? std::string() : "; after the mark, " + inner);
}

namespace {

std::string describe_unmarked(const uint8_t* data, size_t n) {
  const char* legacy = "; pprofcore does not read this legacy format (convert with `go tool pprof -proto`)";
  if (std::string c = describe_container(data, n); !c.empty()) return c;
  if (n >= 16) {
    // gperftools CPU profile: binary header of words {0, 3, 0, period, 0}.
    uint64_t w[2];
    std::memcpy(w, data, 16);
    if (w[0] == 0 && w[1] == 3)
      return std::string("input looks like a legacy gperftools CPU profile (binary)") + legacy;
    uint32_t h[2];
    std::memcpy(h, data, 8);
    if (h[0] == 0 && h[1] == 3) return std::string("input looks like a legacy 32-bit gperftools CPU profile") + legacy;
  }
  if (mostly_text(data, n)) {
    std::string_view s(reinterpret_cast<const char*>(data), n < 256 ? n : 256);
    while (!s.empty() && (s[0] == ' ' || s[0] == '\n' || s[0] == '\r' || s[0] == '\t')) s.remove_prefix(1);
    if (starts_with(s, "heap profile:")) return std::string("input looks like a legacy heap profile (text)") + legacy;
    if (starts_with(s, "goroutine profile:"))
      return std::string("input looks like a Go goroutine profile (debug=1 text)") + legacy;
    if (starts_with(s, "threadcreate profile:"))
      return std::string("input looks like a Go threadcreate profile (debug=1 text)") + legacy;
    if (starts_with(s, "--- heapz")) return std::string("input looks like a legacy heap profile (text)") + legacy;
    if (starts_with(s, "--- threadz")) return std::string("input looks like a legacy thread profile (text)") + legacy;
    if (starts_with(s, "--- contention") || starts_with(s, "--- mutex"))
      return std::string("input looks like a legacy contention profile (text)") + legacy;
    if (starts_with(s, "---")) return std::string("input looks like a legacy pprof text profile") + legacy;
    if (starts_with(s, "{") || starts_with(s, "[")) return describe_json(data, n);
    if (looks_folded(data, n))
      return "input looks like folded stacks (`frame;frame;frame <count>` per line, as stackcollapse and "
             "FlameGraph write them), not a pprof profile; pprofcore.load (or pprofcore.from_folded(text)) reads it, "
             "but this entry point takes pprof only: load it, then merge or save the profile";
    // Unrecognised text: say what it is not, and show it (it may be any file).
    std::string shown;
    for (size_t i = 0; i < n && i < 16; ++i) {
      uint8_t c = data[i];
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        shown += static_cast<char>(c);
      } else {
        static const char hex[] = "0123456789abcdef";
        shown += "\\x";
        shown += hex[c >> 4];
        shown += hex[c & 15];
      }
    }
    return "input looks like text but is not a pprof profile (gzip or profile.proto) nor a legacy text format "
           "pprofcore reads; first bytes: \"" +
           shown + (n > 16 ? "\"..." : "\"");
  }
  return "";
}

}  // namespace

std::string describe_foreign_protobuf(const uint8_t* data, size_t n, int64_t error_offset) {
  wire::Reader r(data, data, data + n);
  bool nested_field1 = false;
  try {
    // A profile damaged further in is still a profile: only an input whose first
    // field already fails is called foreign.
    wire::Reader first(data, data, data + n);
    first.skip(first.tag("") & 7, "");
    if (error_offset >= first.offset()) return "";
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
           "OpenTelemetry OTLP ExportProfilesServiceRequest; pprofcore.load_otlp reads OTLP profiles of "
           "opentelemetry-proto v1.10.0 and v1.11.0)";
  return "input is protobuf but its fields do not match profile.proto";
}

}  // namespace pprofcore
