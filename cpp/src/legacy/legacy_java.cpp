// legacy_java: pprof's Java heapz/contentionz text and Java frame names (see
// legacy_java.hpp).
#include "pprofcore/legacy_java.hpp"

#include <cctype>
#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "pprofcore/errors.hpp"
#include "pprofcore/legacy_text.hpp"

namespace pprofcore::legacy {
namespace {

const char* const kFormat = "legacy Java profile (text)";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
bool is_word(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "<name> = <value>" as pprof's `([\w ]+)=([\w ]+)` finds it anywhere in the line.
bool match_attribute(std::string_view line, std::string_view& key, std::string_view& value) {
  for (size_t eq = line.find('='); eq != std::string_view::npos; eq = line.find('=', eq + 1)) {
    size_t b = eq;
    while (b > 0 && (is_word(line[b - 1]) || line[b - 1] == ' ')) --b;
    size_t e = eq + 1;
    while (e < line.size() && (is_word(line[e]) || line[e] == ' ')) ++e;
    if (b == eq || e == eq + 1) continue;
    // The leftmost match starts at the first word/space run that reaches an '='.
    key = trim_space(line.substr(b, eq - b));
    value = trim_space(line.substr(eq + 1, e - eq - 1));
    return true;
  }
  return false;
}

// " *(\d+) +(\d+) +@ +([ x0-9a-f]*)" anywhere in the line.
bool match_sample(std::string_view line, std::string_view& v1, std::string_view& v2, std::string_view& addrs) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (!is_digit(line[i]) || (i > 0 && is_digit(line[i - 1]))) continue;
    size_t k = i;
    while (k < line.size() && is_digit(line[k])) ++k;
    size_t s = k;
    while (k < line.size() && line[k] == ' ') ++k;
    if (k == s) continue;
    size_t d = k;
    while (k < line.size() && is_digit(line[k])) ++k;
    if (k == d) continue;
    size_t e = k;
    while (k < line.size() && line[k] == ' ') ++k;
    if (k == e || k >= line.size() || line[k] != '@') continue;
    ++k;
    size_t a = k;
    while (k < line.size() && line[k] == ' ') ++k;
    if (k == a) continue;
    size_t z = k;
    while (z < line.size() &&
           (line[z] == ' ' || line[z] == 'x' || is_digit(line[z]) || (line[z] >= 'a' && line[z] <= 'f')))
      ++z;
    v1 = line.substr(i, s - i);
    v2 = line.substr(d, e - d);
    addrs = line.substr(k, z - k);
    return true;
  }
  return false;
}

// pprof's `^(.*)\s+\((.+):(-?\d+)\)$` (file_line) or `^(.*)\s+\((.*)\)$`: the
// greedy (.*) takes the rightmost "<space>(" that still leaves a match.
bool split_paren(std::string_view s, std::string_view& func, std::string_view& inner, bool file_line,
                 std::string_view& line_no) {
  if (s.size() < 3 || s.back() != ')') return false;
  size_t colon = std::string_view::npos;
  if (file_line) {
    colon = s.rfind(':', s.size() - 2);
    if (colon == std::string_view::npos) return false;
    std::string_view num = s.substr(colon + 1, s.size() - colon - 2);
    std::string_view digits = !num.empty() && num[0] == '-' ? num.substr(1) : num;
    if (digits.empty()) return false;
    for (char ch : digits)
      if (!is_digit(ch)) return false;
    line_no = num;
  }
  size_t limit = file_line ? colon - 1 : s.size() - 2;  // "(" must leave (.+) non-empty before the colon
  for (size_t i = std::min(limit, s.size() - 2) + 1; i-- > 1;) {
    if (s[i] != '(' || !is_space(s[i - 1])) continue;
    if (file_line && i + 1 >= colon) continue;
    inner = file_line ? s.substr(i + 1, colon - i - 1) : s.substr(i + 1, s.size() - i - 2);
    func = s.substr(0, i - 1);
    return true;
  }
  return false;
}

std::string base_name(std::string_view path) {
  if (path.empty()) return ".";
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/") return "/";
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Complete lines ("...\n") of `text`, as pprof's Java header/sample loops read them.
struct CompleteLines {
  std::string_view text;
  size_t pos = 0;
  bool next(std::string_view& line, size_t& start) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return false;
    start = pos;
    line = text.substr(pos, nl - pos);
    pos = nl + 1;
    return true;
  }
};

[[noreturn]] void fail_at(std::string_view all, size_t start, std::string_view line, const std::string& what) {
  int64_t number = 1;
  for (size_t i = 0; i < start; ++i) number += all[i] == '\n';
  std::string shown(line.substr(0, 80));
  throw DecodeError(std::string(kFormat) + ": " + what + " in line " + std::to_string(number) + " \"" + shown + "\"",
                    "line " + std::to_string(number), static_cast<int64_t>(start));
}

}  // namespace

void parse_java_symbols(std::string_view text, Builder& b) {
  std::unordered_set<uint64_t> used(b.addresses.begin(), b.addresses.end());
  std::unordered_map<std::string, int32_t> by_name;
  LineReader r(text.data(), text.size());
  while (r.next()) {
    std::string_view line = trim_space(r.line());
    // "0x<hex><space><frame>"
    if (line.size() < 4 || line[0] != '0' || line[1] != 'x') continue;
    size_t k = 2;
    while (k < line.size() && std::isxdigit(static_cast<unsigned char>(line[k]))) ++k;
    if (k == 2 || k >= line.size() || !is_space(line[k])) continue;
    uint64_t addr;
    if (!parse_hex(line.substr(2, k - 2), addr)) fail_line(kFormat, r, "address does not fit in 64 bits");
    if (!used.count(addr)) continue;
    std::string_view frame = trim_space(line.substr(k)), func, file, num;
    std::string file_name;
    int64_t line_no = 0;
    if (split_paren(frame, func, file, true, num)) {
      file_name = std::string(file);
      int64_t v;
      if (parse_int(num, 10, v) && v > 0) line_no = v;
    } else if (split_paren(frame, func, file, false, num)) {
      file_name = base_name(file);
    } else if (frame.find("generated stub/JIT") != std::string_view::npos) {
      func = "STUB";
    } else {
      func = frame;
    }
    auto it = by_name.emplace(std::string(func), static_cast<int32_t>(b.functions.size()));
    if (it.second) b.functions.emplace_back(std::string(func), file_name);
    b.symbols[addr] = Builder::Symbol{it.first->second, line_no};
  }
  b.zero_addresses = true;
}

bool parse_java_text(const char* data, size_t n, Profile& out) {
  std::string_view all(data, n);
  size_t nl = all.find('\n');
  if (nl == std::string_view::npos) return false;
  std::string_view header = trim_space(all.substr(0, nl));
  bool heap = header == "--- heapz 1 ---";
  if (!heap && header != "--- contentionz 1 ---") return false;

  Builder b;
  b.period_type = "";
  b.period_unit = "";
  CompleteLines lines{all, nl + 1};
  std::string_view line;
  size_t start = lines.pos, body = all.size();
  bool in_body = false;
  while (lines.next(line, start)) {
    std::string_view t = trim_space(line);
    if (t.empty()) continue;
    std::string_view key, value;
    if (!match_attribute(t, key, value)) {
      body = start;
      in_body = true;
      break;
    }
    if (key == "format") {
      if (value != "java") fail_at(all, start, line, "format \"" + std::string(value) + "\" is not java");
    } else if (key == "resolution") {
      b.sample_types = heap ? std::vector<std::pair<std::string, std::string>>{{"inuse_objects", "count"},
                                                                               {"inuse_space", std::string(value)}}
                            : std::vector<std::pair<std::string, std::string>>{{"contentions", "count"},
                                                                               {"delay", std::string(value)}};
    } else if (!heap && key == "sampling period") {
      b.period_type = "contentions";
      b.period_unit = "count";
      if (!parse_int(value, 0, b.period)) fail_at(all, start, line, "sampling period is not a number in range");
    } else if (!heap && key == "ms since reset") {
      int64_t ms;
      if (!parse_int(value, 0, ms)) fail_at(all, start, line, "ms since reset is not a number in range");
      b.duration_nanos = static_cast<int64_t>(uint64_t(ms) * 1000000u);
    } else {
      fail_at(all, start, line, "unknown attribute \"" + std::string(key) + "\"");
    }
  }
  if (!in_body) body = lines.pos;
  // Samples: "<value> <count> @ 0x...", until the first line that is not one.
  lines.pos = body;
  size_t symbols_at = all.size();
  bool stopped = false;
  std::vector<uint64_t> addrs;
  while (lines.next(line, start)) {
    std::string_view t = trim_space(line);
    if (t.empty()) continue;
    std::string_view v1, v2, as;
    if (!match_sample(t, v1, v2, as)) {
      symbols_at = start;
      stopped = true;
      break;
    }
    addrs.clear();
    std::string_view bad;
    if (!parse_hex_addresses(as, addrs, bad))
      fail_at(all, start, line, "address " + std::string(bad) + " does not fit in 64 bits");
    int64_t count, value;
    if (!parse_int(v2, 0, count) || !parse_int(v1, 0, value))
      fail_at(all, start, line, "a value is not a number in range");
    if (heap) {
      if (count == 0) fail_at(all, start, line, "count must be non-zero");
      b.bytes_label.push_back(count == -1 ? static_cast<int64_t>(0 - uint64_t(value)) : value / count);
      // Java heapz samples every 512 KiB on average.
      const int64_t rate = 524288;
      if (value == 0) {
        count = value = 0;
      } else {
        double scale = 1 / (1 - std::exp(-(double(value) / double(count)) / double(rate)));
        auto to_int = [](double v) {
          return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? static_cast<int64_t>(v) : INT64_MIN;
        };
        count = to_int(double(count) * scale);
        value = to_int(double(value) * scale);
      }
    } else if (b.period != 0) {
      count = static_cast<int64_t>(uint64_t(count) * uint64_t(b.period));
      value = static_cast<int64_t>(uint64_t(value) * uint64_t(b.period));
    }
    b.values.push_back(count);
    b.values.push_back(value);
    b.addresses.insert(b.addresses.end(), addrs.begin(), addrs.end());
    b.end_sample();
  }
  if (!stopped) symbols_at = lines.pos;
  if (b.sample_types.empty() && b.num_samples() > 0)
    throw DecodeError(std::string(kFormat) + ": samples but no \"resolution\" attribute (no sample types)", "", -1);
  parse_java_symbols(all.substr(symbols_at), b);
  out = b.finish();
  return true;
}

}  // namespace pprofcore::legacy
