// legacy_text: what the legacy text readers share to walk their input: lines
// split as Go's bufio.ScanLines splits them, the DecodeError naming a bad line,
// and Go's whitespace and integer syntax (strconv.ParseInt, pprof's hex address
// regexes). Knows no format; the readers and legacy_builder's memory-map
// reader use it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pprofcore::legacy {

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

// Go's unicode.IsSpace on ASCII, and a hex digit of either case.
inline bool is_go_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
inline bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Go's strings.TrimSpace; a blank or "#" line; a line that starts a memory map.
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

}  // namespace pprofcore::legacy
