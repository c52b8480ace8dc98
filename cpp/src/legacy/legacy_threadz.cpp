// legacy_threadz: C++ threadz text -> Profile (see legacy_threadz.hpp).
#include "pprofcore/legacy_threadz.hpp"

#include <string>
#include <vector>

#include "pprofcore/legacy_builder.hpp"
#include "pprofcore/legacy_text.hpp"

namespace pprofcore::legacy {
namespace {

const char* const kFormat = "legacy thread profile (text)";

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "--- threadz <digits> ---" anywhere in the line.
bool is_threadz_header(std::string_view line) {
  const std::string_view lead = "--- threadz ";
  for (size_t at = line.find(lead); at != std::string_view::npos; at = line.find(lead, at + 1)) {
    size_t k = at + lead.size(), d = k;
    while (k < line.size() && is_digit(line[k])) ++k;
    if (k > d && line.substr(k, 4) == " ---") return true;
  }
  return false;
}

// "--- Thread <hex> (name: <anything>/<digits>) stack: ---" anywhere in the line.
bool is_thread_header(std::string_view line) {
  const std::string_view lead = "--- Thread ", name = " (name: ", tail = ") stack: ---";
  // The last "/<digits>) stack: ---" decides for every opening before it (one pass each way).
  size_t last_slash = std::string_view::npos;
  for (size_t t = line.find(tail); t != std::string_view::npos; t = line.find(tail, t + 1)) {
    size_t d = t;
    while (d > 0 && is_digit(line[d - 1])) --d;
    if (d < t && d > 0 && line[d - 1] == '/') last_slash = d - 1;
  }
  if (last_slash == std::string_view::npos) return false;
  for (size_t at = line.find(lead); at != std::string_view::npos && at < last_slash; at = line.find(lead, at + 1)) {
    size_t k = at + lead.size(), h = k;
    while (k < line.size() && is_hex(line[k])) ++k;
    if (k > h && line.substr(k, name.size()) == name && k + name.size() <= last_slash) return true;
  }
  return false;
}

}  // namespace

bool parse_threadz(const char* data, size_t n, Profile& out) {
  LineReader r(data, n);
  bool have = false;
  while ((have = r.next()) && is_space_or_comment(r.line())) {
  }
  if (!have) return false;
  // `line` follows pprof's scanner text: it keeps the last line read at the end.
  std::string line(r.line());
  if (is_threadz_header(line)) {
    while (r.next()) {
      line = std::string(r.line());
      if (is_memory_map_sentinel(line) || (!line.empty() && line[0] == '-')) break;
    }
  } else if (!is_thread_header(line)) {
    return false;
  }

  Builder b;
  b.period_type = "thread";
  b.period_unit = "count";
  b.period = 1;
  b.sample_types = {{"thread", "count"}};
  bool at_end = false;  // the reader is past the last line (pprof's Text() is then "")
  std::vector<uint64_t> addrs;
  while (!is_memory_map_sentinel(line)) {
    if (line.rfind("---- no stack trace for", 0) == 0) break;
    if (!is_thread_header(line)) fail_line(kFormat, r, "expected \"--- Thread <id> (name: <name>/<tid>) stack: ---\"");
    // The thread's stack: addresses on the lines up to the next "---".
    addrs.clear();
    bool same = false, more = false;
    line.clear();  // pprof's sample reader returns "" when no line follows
    while ((more = r.next())) {
      std::string_view t = trim_space(r.line());
      line = std::string(t);
      if (t.empty()) continue;
      if (t.substr(0, 3) == "---") break;
      if (t.find("same as previous thread") != std::string_view::npos) {
        same = true;
        continue;
      }
      std::string_view bad;
      if (!parse_hex_addresses(t, addrs, bad))
        fail_line(kFormat, r, "address " + std::string(bad) + " does not fit in 64 bits");
    }
    at_end = !more;
    if (same || addrs.empty()) {
      // "[same as previous thread]": one more thread on the previous stack.
      if (b.num_samples() > 0) ++b.values.back();
      continue;
    }
    for (size_t i = 0; i < addrs.size(); ++i) b.addresses.push_back(addrs[i] - (i > 0 ? 1 : 0));
    b.values.push_back(1);
    b.end_sample();
  }
  std::string_view maps;
  if (!at_end) {
    if (is_memory_map_sentinel(r.line())) {
      maps = r.remaining();
    } else {
      while (r.next())
        if (is_memory_map_sentinel(r.line())) {
          maps = r.remaining();
          break;
        }
    }
  }
  b.parse_memory_map(maps);
  // As for CPU profiles, a leaf duplicated by the unwinder is dropped after numbering.
  b.drop_duplicated_leaf_frames();
  out = b.finish();
  return true;
}

}  // namespace pprofcore::legacy
