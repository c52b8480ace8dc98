// legacy_text: the line reader and the Go-compatible number parsing the legacy
// text readers share (see legacy_text.hpp).
#include "pprofcore/legacy_text.hpp"

#include <cstring>

#include "pprofcore/errors.hpp"

namespace pprofcore::legacy {

bool LineReader::next() {
  if (p_ >= end_) return false;
  const char* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
  const char* stop = nl ? nl : end_;
  offset_ = p_ - begin_;
  line_ = std::string_view(p_, static_cast<size_t>(stop - p_));
  if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
  p_ = nl ? nl + 1 : end_;
  ++number_;
  return true;
}

// The start of a line as the error message shows it: control characters and
// bytes that are not UTF-8 as \xNN, so the message is always valid text.
std::string line_excerpt(std::string_view line, size_t max_bytes) {
  std::string out;
  static const char* kHexDigits = "0123456789abcdef";
  size_t i = 0;
  for (; i < line.size() && i < max_bytes;) {
    size_t n = utf8_sequence_length(line, i);
    const auto c = static_cast<uint8_t>(line[i]);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f) && c != '\t')) {
      out += "\\x";
      out += kHexDigits[c >> 4];
      out += kHexDigits[c & 15];
      n = 1;
    } else {
      out.append(line.data() + i, n);
    }
    i += n;
  }
  if (i < line.size()) out += "...";
  return out;
}

void fail_line(const std::string& format, const LineReader& r, const std::string& what) {
  std::string shown = line_excerpt(r.line(), 80);
  throw DecodeError(format + ": " + what + " in line " + std::to_string(r.number()) + " \"" + shown + "\"",
                    "line " + std::to_string(r.number()), r.offset());
}

namespace {
int hex_value(char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }
}  // namespace

std::string_view trim_space(std::string_view s) {
  while (!s.empty() && is_go_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_go_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_space_or_comment(std::string_view line) {
  line = trim_space(line);
  return line.empty() || line[0] == '#';
}

bool is_memory_map_sentinel(std::string_view line) {
  return line.find("--- Memory map: ---") != std::string_view::npos ||
         line.find("MAPPED_LIBRARIES:") != std::string_view::npos;
}

bool parse_int(std::string_view s, int base, int64_t& out) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (base == 0) {
    base = 10;
    if (s.size() > 1 && s[0] == '0') {
      if (s[1] == 'x' || s[1] == 'X')
        base = 16, s.remove_prefix(2);
      else if (s[1] == 'o' || s[1] == 'O')
        base = 8, s.remove_prefix(2);
      else if (s[1] == 'b' || s[1] == 'B')
        base = 2, s.remove_prefix(2);
      else
        base = 8, s.remove_prefix(1);
    }
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  const uint64_t limit = neg ? uint64_t(1) << 63 : (uint64_t(1) << 63) - 1;
  for (char c : s) {
    if (!is_hex(c)) return false;
    int d = hex_value(c);
    if (d >= base) return false;
    if (v > (limit - uint64_t(d)) / uint64_t(base)) return false;
    v = v * uint64_t(base) + uint64_t(d);
  }
  out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

namespace {
// Digit values for hex parsing: lowercase only (pprof's address regexes) and any case.
struct HexTables {
  int8_t lower[256], any[256];
  HexTables() {
    for (int c = 0; c < 256; ++c) {
      lower[c] = (c >= '0' && c <= '9') ? int8_t(c - '0') : (c >= 'a' && c <= 'f') ? int8_t(c - 'a' + 10) : int8_t(-1);
      any[c] = lower[c] >= 0 ? lower[c] : (c >= 'A' && c <= 'F') ? int8_t(c - 'A' + 10) : int8_t(-1);
    }
  }
};
const HexTables kHex;
}  // namespace

bool parse_hex(std::string_view s, uint64_t& out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d = kHex.any[static_cast<uint8_t>(c)];
    if (d < 0 || (v >> 60) != 0) return false;
    v = (v << 4) | uint64_t(d);
  }
  out = v;
  return true;
}

bool parse_hex_addresses(std::string_view s, std::vector<uint64_t>& out, std::string_view& bad) {
  // Every "0x[0-9a-f]+", left to right, in one pass.
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = 0;
  while (i + 2 < n) {
    if (p[i] != '0' || p[i + 1] != 'x' || kHex.lower[static_cast<uint8_t>(p[i + 2])] < 0) {
      ++i;
      continue;
    }
    size_t j = i + 2;
    uint64_t v = 0;
    bool overflow = false;
    for (int d; j < n && (d = kHex.lower[static_cast<uint8_t>(p[j])]) >= 0; ++j) {
      overflow |= (v >> 60) != 0;
      v = (v << 4) | uint64_t(d);
    }
    if (overflow) {
      bad = s.substr(i, j - i);
      return false;
    }
    out.push_back(v);
    i = j;
  }
  return true;
}

}  // namespace pprofcore::legacy
