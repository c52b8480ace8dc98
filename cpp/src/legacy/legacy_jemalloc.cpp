// legacy_jemalloc: jemalloc's heap_v2 text -> Profile, with jeprof's semantics
// (see the header).
#include "pprofcore/legacy_jemalloc.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pprofcore/legacy_builder.hpp"
#include "pprofcore/legacy_text.hpp"

namespace pprofcore::legacy {
namespace {

const char* const kFormat = "jemalloc heap profile (heap_v2 text)";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

// One "t*: ..." or "t<uid>: ..." line: in-use objects and bytes, then the
// accumulated ones (non-zero only with prof_accum:true).
struct CountsLine {
  bool total = false;  // "t*", else one thread's share
  int64_t v[4] = {0, 0, 0, 0};
};

// A cursor over one trimmed counts line; any mismatch fails the line.
class CountsParser {
 public:
  CountsParser(const LineReader& r, std::string_view s) : r_(r), s_(s) {}

  // False when the line is not a counts line at all (no "t" opening it).
  bool parse(CountsLine& out, bool thread_name_allowed) {
    if (s_.empty() || s_[0] != 't') return false;
    i_ = 1;
    if (i_ < s_.size() && s_[i_] == '*') {
      out.total = true;
      ++i_;
    } else if (digits().empty()) {
      bad();
    }
    expect(':');
    for (int k = 0; k < 4; ++k) {
      blanks();
      if (k == 2) {
        expect('[');
        blanks();
      }
      out.v[k] = number();
      if (k % 2 == 0) expect(':');
    }
    blanks();
    expect(']');
    // jemalloc appends the thread's name (mallctl thread.prof.name) to the
    // per-thread totals of the header.
    if (i_ < s_.size() && !(thread_name_allowed && !out.total && is_blank(s_[i_]))) bad();
    return true;
  }

 private:
  std::string_view digits() {
    size_t b = i_;
    while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
    return s_.substr(b, i_ - b);
  }
  void blanks() {
    while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
  }
  void expect(char c) {
    if (i_ >= s_.size() || s_[i_] != c) bad();
    ++i_;
  }
  int64_t number() {
    std::string_view d = digits();
    int64_t v = 0;
    if (d.empty()) bad();
    if (!parse_int(d, 10, v)) fail_line(kFormat, r_, "count " + std::string(d) + " does not fit in 63 bits");
    return v;
  }
  [[noreturn]] void bad() {
    fail_line(kFormat, r_, "expected \"t*: <objects>: <bytes> [<objects>: <bytes>]\" (or t<thread> for one thread)");
  }

  const LineReader& r_;
  std::string_view s_;
  size_t i_ = 0;
};

// "@ 0x... 0x...": the stack, leaf first, as jemalloc prints it (%#x: a zero
// address is a bare "0").
void parse_stack(const LineReader& r, std::string_view line, std::vector<uint64_t>& out) {
  out.clear();
  size_t i = 1;
  while (true) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size()) return;
    size_t b = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    std::string_view tok = line.substr(b, i - b);
    uint64_t a = 0;
    bool ok = tok == "0" ||
              (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X') && parse_hex(tok.substr(2), a));
    if (!ok) fail_line(kFormat, r, "address \"" + line_excerpt(tok, 40) + "\" is not a 64-bit hex number");
    out.push_back(a);
  }
}

// jeprof's AdjustSamples for heap_v2: an allocation of `bytes / objects` bytes
// was sampled with probability 1 - exp(-size / period), so both counts are
// divided by it. jeprof keeps the fraction; a profile holds integers, so the
// nearest one (jeprof's reports truncate its sums).
void unsample(const LineReader& r, int64_t& objects, int64_t& bytes, int64_t period) {
  if (objects == 0 || period == 0) return;  // as jeprof: nothing to scale by
  if (bytes == 0) fail_line(kFormat, r, std::to_string(objects) + " objects of 0 bytes cannot be unsampled");
  double scale = 1 / (1 - std::exp(-(double(bytes) / double(objects)) / double(period)));
  for (int64_t* v : {&objects, &bytes}) {
    double x = std::nearbyint(double(*v) * scale);
    if (!(x < 9223372036854775808.0)) fail_line(kFormat, r, "unsampled value does not fit in 63 bits");
    *v = static_cast<int64_t>(x);
  }
}

}  // namespace

bool parse_jemalloc_heap(const char* data, size_t n, Profile& out) {
  LineReader r(data, n);
  const std::string_view magic = "heap_v2/";
  if (!r.next() || r.line().substr(0, magic.size()) != magic) return false;
  std::string_view rate = trim_space(r.line().substr(magic.size()));
  int64_t period = 0;
  bool digits_only = !rate.empty();
  for (char c : rate) digits_only &= is_digit(c);
  if (!digits_only || !parse_int(rate, 10, period))
    fail_line(kFormat, r, "expected \"heap_v2/<sample period in bytes>\"");

  Builder b;
  std::vector<int64_t> counts;  // per sample: in-use objects, bytes, accumulated objects, bytes
  std::vector<uint64_t> stack;
  bool in_stack = false, counted = false, has_alloc = false;
  while (r.next()) {
    std::string_view line = trim_space(r.line());
    if (line.empty()) continue;
    if (is_memory_map_sentinel(line)) {
      b.parse_memory_map(r.remaining());
      break;
    }
    if (line[0] == '@') {
      parse_stack(r, line, stack);
      in_stack = true;
      counted = false;
      continue;
    }
    CountsLine c;
    if (!CountsParser(r, line).parse(c, !in_stack))
      fail_line(kFormat, r, "expected \"@ <addresses>\", a \"t*:\" or \"t<thread>:\" counts line or MAPPED_LIBRARIES:");
    // The header's totals and every per-thread line: jeprof's reports read neither.
    if (!in_stack || !c.total) continue;
    if (counted) fail_line(kFormat, r, "a second \"t*:\" line for the same stack");
    counted = true;
    // pprof's "bytes" label of heap samples: the block size before unsampling.
    int64_t block = c.v[0] != 0 ? c.v[1] / c.v[0] : c.v[2] != 0 ? c.v[3] / c.v[2] : 0;
    b.bytes_label.push_back(block);
    unsample(r, c.v[0], c.v[1], period);
    unsample(r, c.v[2], c.v[3], period);
    has_alloc |= c.v[2] != 0 || c.v[3] != 0;
    counts.insert(counts.end(), c.v, c.v + 4);
    // Return addresses point after the call; all but the leaf move onto it (jeprof's FixCallerAddresses).
    for (size_t i = 0; i < stack.size(); ++i) b.addresses.push_back(stack[i] - (i > 0 ? 1 : 0));
    b.end_sample();
  }

  b.period_type = "space";
  b.period_unit = "bytes";
  b.period = period;
  // Accumulated counts only when jemalloc kept them; alloc first so that the
  // default type (the last) stays inuse_space, as in pprof's heap profiles.
  if (has_alloc)
    b.sample_types = {
        {"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"}};
  else
    b.sample_types = {{"inuse_objects", "count"}, {"inuse_space", "bytes"}};
  b.values.reserve(counts.size());
  for (size_t s = 0; s < counts.size(); s += 4) {
    if (has_alloc) b.values.insert(b.values.end(), {counts[s + 2], counts[s + 3]});
    b.values.insert(b.values.end(), {counts[s], counts[s + 1]});
  }
  out = b.finish();
  return true;
}

}  // namespace pprofcore::legacy
