// legacy: reads pprof's pre-protobuf formats into a Profile, as google/pprof's
// profile.Parse does when the input is not profile.proto. Owns the dispatch (which
// parser recognises the input, in pprof's order) and the finishing steps every
// legacy parser shares: the /proc/self/maps text that becomes mappings, pprof's
// mapping heuristics, location numbering by first use, and the drop/keep frame
// regexes pprof attaches to legacy profiles. The formats themselves live in
// legacy_go (text) and legacy_gperftools (binary CPU). Symbol comments in the text
// (`# 0x... func file:line`) are not read, as in pprof: legacy profiles come out
// unsymbolized. Java formats: legacy_java; threadz: legacy_threadz; Go
// goroutine dumps (debug=2, tracebacks), tried last: goroutine_dump. Not
// supported: jemalloc.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Parses `data` as a legacy profile into `out`. Returns false when no legacy
// parser recognises the input (then the caller reports it as not a profile);
// throws DecodeError (what is wrong, field "line N" and the byte offset of that
// line) when a parser recognises its header but the rest is malformed.
bool decode_legacy(const uint8_t* data, size_t n, Profile& out);

namespace legacy {

// One line of text input: its content (without "\n" or a trailing "\r"), its
// 1-based number and the byte offset where it starts, as bufio.ScanLines splits.
class LineReader {
 public:
  LineReader(const char* data, size_t n) : p_(data), begin_(data), end_(data + n) {}
  bool next();  // advances to the next line; false at the end of input
  std::string_view line() const { return line_; }
  int64_t number() const { return number_; }
  int64_t offset() const { return offset_; }
  // The input after the current line.
  std::string_view remaining() const { return std::string_view(p_, static_cast<size_t>(end_ - p_)); }

 private:
  const char* p_;
  const char* begin_;
  const char* end_;
  std::string_view line_;
  int64_t number_ = 0;
  int64_t offset_ = 0;
};

// At most `max_bytes` of `line` for an error message, "..." when cut; bytes that
// are not UTF-8 and control characters shown as \xNN.
std::string line_excerpt(std::string_view line, size_t max_bytes);

// A DecodeError for a malformed line of a recognised legacy text profile.
[[noreturn]] void fail_line(const std::string& format, const LineReader& r, const std::string& what);

struct RawMapping {
  uint64_t start = 0, limit = 0, offset = 0;
  std::string file, build_id;
};

// Collects a legacy profile's samples as address stacks (leaf first, already
// adjusted as the format requires) and turns them into a Profile the way pprof
// finishes every legacy parse (ParseMemoryMap and addLegacyFrameInfo).
class Builder {
 public:
  std::vector<std::pair<std::string, std::string>> sample_types;
  std::string period_type, period_unit;
  int64_t period = 0;
  int64_t duration_nanos = 0;

  std::vector<int64_t> values;            // n_samples x sample_types.size()
  std::vector<int64_t> stack_offsets{0};  // n_samples + 1 into addresses
  std::vector<uint64_t> addresses;        // leaf first
  std::vector<int64_t> bytes_label;       // heap profiles: one "bytes" label per sample
  std::vector<RawMapping> mappings;

  // Java profiles name their frames: address -> (function, line), functions as
  // (name, file). Symbolized locations get no mapping; with `zero_addresses` every
  // location's address becomes 0 (pprof's Aggregate without addresses).
  struct Symbol {
    int32_t function;
    int64_t line;
  };
  std::unordered_map<uint64_t, Symbol> symbols;
  std::vector<std::pair<std::string, std::string>> functions;
  bool zero_addresses = false;

  size_t num_samples() const { return stack_offsets.size() - 1; }
  void end_sample() { stack_offsets.push_back(static_cast<int64_t>(addresses.size())); }

  // Reads /proc/self/maps-style lines (and pprof's brief "start-end file" form)
  // from `text`; non-executable and unrecognised lines are skipped.
  void parse_memory_map(std::string_view text);

  // Numbers locations by first use in the samples (pprof's remapLocationIDs).
  // finish() calls it when the parser has not; a parser that edits stacks after
  // pprof numbers them (gperftools) calls it first and edits stack_rows().
  void number_locations();
  // Numbers the locations, then drops the second frame of every stack whose
  // leaf is that frame's address + 1 (a frame the unwinder duplicated): pprof
  // does it after numbering, so the dropped location stays in the table.
  void drop_duplicated_leaf_frames();
  // Builds the Profile: mapping heuristics, location -> mapping, strings.
  Profile finish();
  std::vector<int32_t>& stack_rows() { return sample_locations_; }
  const std::vector<uint64_t>& location_addresses() const { return location_addresses_; }

 private:
  std::vector<uint64_t> location_addresses_;
  std::vector<int32_t> sample_locations_;
  bool numbered_ = false;
};

// Helpers shared by the text parsers.
std::string_view trim_space(std::string_view s);
bool is_space_or_comment(std::string_view line);
bool is_memory_map_sentinel(std::string_view line);
// Go's strconv.ParseInt(s, 0, 64) / (s, 10, 64): false on syntax error or overflow.
bool parse_int(std::string_view s, int base, int64_t& out);
// Go's ParseUint(s, 16, 64) on hex digits without prefix: false on overflow/syntax.
bool parse_hex(std::string_view s, uint64_t& out);
// Every "0x[0-9a-f]+" in `s` (pprof's parseHexAddresses). False when one overflows
// 64 bits; `bad` then receives it.
bool parse_hex_addresses(std::string_view s, std::vector<uint64_t>& out, std::string_view& bad);

}  // namespace legacy

}  // namespace pprofcore
