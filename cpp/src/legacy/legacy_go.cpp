// legacy_go: Go runtime/pprof debug=1 text (heap, allocs, block, mutex,
// goroutine, threadcreate, custom count profiles) and the C++ heap/contention
// text formats with the same grammar. See legacy_go.hpp for what is covered.
#include "pprofcore/legacy_go.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pprofcore/legacy_builder.hpp"
#include "pprofcore/legacy_text.hpp"

namespace pprofcore::legacy {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_re2_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

// Go's float64 -> int64 conversion on amd64: out of range and NaN give INT64_MIN.
int64_t go_float_to_int(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(v);
}

int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(uint64_t(a) * uint64_t(b)); }

// A cursor over one line for the fixed grammars of the sample lines.
struct Cursor {
  std::string_view s;
  size_t i = 0;
  bool eat(char c) {
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  void spaces() {
    while (i < s.size() && s[i] == ' ') ++i;
  }
  std::string_view digits(bool allow_minus) {
    size_t b = i;
    if (allow_minus && i < s.size() && s[i] == '-') ++i;
    size_t d = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == d) {
      i = b;
      return {};
    }
    return s.substr(b, i - b);
  }
};

// The text after the memory-map sentinel ("--- Memory map: ---" or
// "MAPPED_LIBRARIES:"), from the reader's current line on (pprof's
// parseAdditionalSections; other sections are skipped).
std::string_view memory_map_text(LineReader& r) {
  if (is_memory_map_sentinel(r.line())) return r.remaining();
  while (r.next())
    if (is_memory_map_sentinel(r.line())) return r.remaining();
  return {};
}

// The addresses from `from` on (the run of hex digits, 'x' and spaces that
// pprof's regex takes) into `addrs`; one past 64 bits fails the line.
void read_addresses(std::string_view line, size_t from, std::vector<uint64_t>& addrs, const std::string& format,
                    const LineReader& r) {
  size_t e = from;
  while (e < line.size() &&
         (line[e] == ' ' || line[e] == 'x' || is_digit(line[e]) || (line[e] >= 'a' && line[e] <= 'f')))
    ++e;
  addrs.clear();
  std::string_view bad;
  if (!parse_hex_addresses(line.substr(from, e - from), addrs, bad))
    fail_line(format, r, "address " + std::string(bad) + " does not fit in 64 bits");
}

// Ends a Go text profile: the memory map after the samples, then the profile.
bool finish_with_memory_map(Builder& b, LineReader& r, Profile& out) {
  b.parse_memory_map(memory_map_text(r));
  out = b.finish();
  return true;
}

// Appends "0x..." addresses minus one (return addresses -> the call).
void add_call_addresses(Builder& b, const std::vector<uint64_t>& addrs) {
  for (uint64_t a : addrs) b.addresses.push_back(a - 1);
  b.end_sample();
}

// ---------------------------------------------------------------- heap

struct HeapHeader {
  std::string_view counts[4];
  std::string_view kind;  // heap, heap_v2, heapz_v2, heapprofile, growth, fragmentation...
  std::string_view rate;
};

// "heap profile: A: B [ C: D] @ <kind>[/<rate>]" anywhere in the line, as
// pprof's unanchored header regexes read it. `tail` is " *@ *" for heap kinds
// and exactly " @ " for growthz / fragmentationz.
bool match_heap_header(std::string_view line, HeapHeader& h, bool heap_kind, std::string_view word) {
  const std::string_view lead = "heap profile:";
  for (size_t at = line.find(lead); at != std::string_view::npos; at = line.find(lead, at + 1)) {
    Cursor c{line, at + lead.size()};
    c.spaces();
    if ((h.counts[0] = c.digits(false)).empty() || !c.eat(':')) continue;
    c.spaces();
    if ((h.counts[1] = c.digits(false)).empty()) continue;
    c.spaces();
    if (!c.eat('[')) continue;
    c.spaces();
    if ((h.counts[2] = c.digits(false)).empty() || !c.eat(':')) continue;
    c.spaces();
    if ((h.counts[3] = c.digits(false)).empty()) continue;
    c.spaces();
    if (!c.eat(']')) continue;
    if (heap_kind) {
      c.spaces();
      if (!c.eat('@')) continue;
      c.spaces();
    } else if (!c.eat(' ') || !c.eat('@') || !c.eat(' ')) {
      continue;
    }
    if (line.substr(c.i, word.size()) != word) continue;
    size_t b = c.i;
    c.i += word.size();
    if (heap_kind) {
      while (c.i < line.size() && (line[c.i] == '_' || is_digit(line[c.i]) || (line[c.i] >= 'a' && line[c.i] <= 'z')))
        ++c.i;
      h.kind = line.substr(b, c.i - b);
      c.eat('/');
      h.rate = c.digits(false);
    } else {
      h.kind = word;
    }
    return true;
  }
  return false;
}

const char* const kHeap = "legacy heap profile (text)";

int64_t parse_heap_number(const LineReader& r, std::string_view s, const char* what) {
  int64_t v;
  if (!parse_int(s, 10, v)) fail_line(kHeap, r, std::string(what) + " \"" + std::string(s) + "\" out of range");
  return v;
}

// pprof's scaleHeapSample: a Poisson-sampled (count, size) divided by the
// probability 1 - exp(-avg/rate) that an allocation of that size was sampled.
void unsample_heap(int64_t& count, int64_t& size, int64_t rate) {
  if (count == 0 || size == 0) {
    count = size = 0;
    return;
  }
  if (rate <= 1) return;
  double avg = double(size) / double(count);
  double scale = 1 / (1 - std::exp(-avg / double(rate)));
  count = go_float_to_int(double(count) * scale);
  size = go_float_to_int(double(size) * scale);
}

}  // namespace

bool parse_heap_text(const char* data, size_t n, Profile& out) {
  LineReader r(data, n);
  if (!r.next()) return false;
  HeapHeader h;
  bool v2 = false, has_alloc = false;
  int64_t period = 0;
  if (match_heap_header(r.line(), h, true, "heap")) {
    if (!h.rate.empty() && !parse_int(h.rate, 10, period)) return false;
    if ((h.counts[2] != h.counts[0] && h.counts[2] != "0") || (h.counts[3] != h.counts[1] && h.counts[3] != "0"))
      has_alloc = true;
    if (h.kind == "heapz_v2" || h.kind == "heap_v2") {
      v2 = true;
    } else if (h.kind == "heapprofile") {
      period = 1;
    } else if (h.kind == "heap") {
      // Go writes 2x its MemProfileRate here; pprof halves it back.
      v2 = true;
      period /= 2;
    } else {
      return false;
    }
  } else if (match_heap_header(r.line(), h, false, "growth") ||
             match_heap_header(r.line(), h, false, "fragmentation")) {
    period = 1;
  } else {
    return false;
  }

  Builder b;
  b.period_type = "space";
  b.period_unit = "bytes";
  b.period = period;
  if (has_alloc)  // alloc first so that pprof's default type stays inuse_space
    b.sample_types = {
        {"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"}};
  else
    b.sample_types = {{"objects", "count"}, {"space", "bytes"}};

  std::vector<uint64_t> addrs;
  while (r.next()) {
    std::string_view line = trim_space(r.line());
    if (line.empty() || line[0] == '#') continue;
    if (is_memory_map_sentinel(line)) break;
    // "<inuse count>: <inuse bytes> [<alloc count>: <alloc bytes>] @ 0x... 0x..."
    Cursor c{line};
    std::string_view f[4];
    bool ok = !(f[0] = c.digits(true)).empty() && c.eat(':');
    if (ok) c.spaces(), ok = !(f[1] = c.digits(true)).empty();
    if (ok) c.spaces(), ok = c.eat('[');
    if (ok) c.spaces(), ok = !(f[2] = c.digits(false)).empty() && c.eat(':');
    if (ok) c.spaces(), ok = !(f[3] = c.digits(false)).empty();
    if (ok) c.spaces(), ok = c.eat(']') && c.eat(' ') && c.eat('@');
    if (!ok) fail_line(kHeap, r, "expected \"<count>: <bytes> [<count>: <bytes>] @ <addresses>\"");
    int64_t blocksize = 0;
    auto add = [&](std::string_view cs, std::string_view ss, const char* label) {
      int64_t count = parse_heap_number(r, cs, "count"), size = parse_heap_number(r, ss, "bytes");
      if (count == 0 && size != 0)
        fail_line(kHeap, r, std::string(label) + " count is 0 but its bytes are " + std::to_string(size));
      if (count != 0) {
        // Go's division wraps INT64_MIN / -1 instead of trapping.
        blocksize = count == -1 ? static_cast<int64_t>(0 - uint64_t(size)) : size / count;
        if (v2) unsample_heap(count, size, period);
      }
      b.values.push_back(count);
      b.values.push_back(size);
    };
    if (has_alloc) add(f[2], f[3], "allocation");
    add(f[0], f[1], "in-use");
    read_addresses(line, c.i, addrs, kHeap, r);
    b.bytes_label.push_back(blocksize);
    add_call_addresses(b, addrs);
  }
  return finish_with_memory_map(b, r, out);
}

// ---------------------------------------------------------------- count profiles

bool parse_go_count(const char* data, size_t n, Profile& out) {
  LineReader r(data, n);
  bool have = false;
  while ((have = r.next()) && is_space_or_comment(r.line())) {
  }
  if (!have) return false;
  // "<name> profile: total <N>", the whole line.
  std::string_view head = r.line();
  size_t sp = 0;
  while (sp < head.size() && !is_re2_space(head[sp])) ++sp;
  const std::string_view mid = " profile: total ";
  if (sp == 0 || head.substr(sp, mid.size()) != mid) return false;
  std::string_view total = head.substr(sp + mid.size());
  if (total.empty()) return false;
  for (char ch : total)
    if (!is_digit(ch)) return false;
  std::string name(head.substr(0, sp));

  Builder b;
  b.period_type = name;
  b.period_unit = "count";
  b.period = 1;
  b.sample_types = {{name, "count"}};
  std::vector<uint64_t> addrs;
  const std::string format = "Go " + name + " profile (debug=1 text)";
  while (r.next()) {
    std::string_view line = r.line();
    if (is_space_or_comment(line)) continue;
    if (line.substr(0, 3) == "---") break;
    // "<count> @ 0x... 0x...", single spaces, nothing else on the line.
    Cursor c{line};
    std::string_view count = c.digits(false);
    if (count.empty() || !c.eat(' ') || !c.eat('@') || c.i >= line.size())
      fail_line(format, r, "expected \"<count> @ 0x<address> ...\"");
    int64_t v;
    if (!parse_int(count, 0, v)) fail_line(format, r, "count \"" + std::string(count) + "\" is not a number in range");
    addrs.clear();
    while (c.i < line.size()) {
      if (!c.eat(' ') || !c.eat('0') || !c.eat('x')) fail_line(format, r, "expected \" 0x<hex address>\"");
      size_t s = c.i;
      while (c.i < line.size() && (is_digit(line[c.i]) || (line[c.i] >= 'a' && line[c.i] <= 'f'))) ++c.i;
      uint64_t a;
      if (c.i == s || (c.i < line.size() && line[c.i] != ' ')) fail_line(format, r, "bad hex address");
      if (!parse_hex(line.substr(s, c.i - s), a))
        fail_line(format, r, "address 0x" + std::string(line.substr(s, c.i - s)) + " does not fit in 64 bits");
      addrs.push_back(a);
    }
    b.values.push_back(v);
    add_call_addresses(b, addrs);
  }
  return finish_with_memory_map(b, r, out);
}

// ---------------------------------------------------------------- contention

bool parse_contention(const char* data, size_t n, Profile& out) {
  LineReader r(data, n);
  if (!r.next()) return false;
  std::string_view first = r.line();
  if (first.rfind("--- contentionz ", 0) != 0 && first.rfind("--- mutex:", 0) != 0 &&
      first.rfind("--- contention:", 0) != 0)
    return false;
  const std::string format = "legacy contention profile (text)";
  Builder b;
  b.period_type = "contentions";
  b.period_unit = "count";
  b.period = 1;
  b.sample_types = {{"contentions", "count"}, {"delay", "nanoseconds"}};
  int64_t cpu_hz = 0;
  // "key = value" attributes before the samples.
  bool have = false;
  while ((have = r.next())) {
    std::string_view line = trim_space(r.line());
    if (line.empty() || line[0] == '#') continue;
    if (line.substr(0, 3) == "---") break;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) break;
    std::string_view key = trim_space(line.substr(0, eq)), val = trim_space(line.substr(eq + 1));
    int64_t v = 0;
    if (key == "cycles/second" || key == "sampling period" || key == "ms since reset") {
      if (!parse_int(val, 0, v)) fail_line(format, r, "value of \"" + std::string(key) + "\" is not a number in range");
      if (key == "cycles/second")
        cpu_hz = v;
      else if (key == "sampling period")
        b.period = v;
      else
        b.duration_nanos = wrap_mul(v, 1000 * 1000);
    } else if (key == "format" || key == "resolution") {
      return false;  // Java and C++ contentionz profiles: not this parser's (pprof tries its Java parser)
    } else if (key != "discarded samples") {
      // pprof reads Go's attributes only; C++ contentionz "format"/"resolution" too are refused.
      fail_line(format, r, "unknown attribute \"" + std::string(key) + "\"");
    }
  }
  std::vector<uint64_t> addrs;
  while (have) {
    std::string_view line = trim_space(r.line());
    if (line.substr(0, 3) == "---") break;
    if (!line.empty() && line[0] != '#') {
      // "<cycles> <count> @ 0x... 0x..."
      Cursor c{line};
      std::string_view cycles = c.digits(false), count;
      size_t after_cycles = c.i;
      c.spaces();
      count = c.digits(false);
      if (count.empty() && cycles.size() >= 2) {
        // pprof's regex backtracks into a lone number: "123 @" reads as 12, 3.
        count = cycles.substr(cycles.size() - 1);
        cycles.remove_suffix(1);
        c.i = after_cycles;
      }
      if (cycles.empty() || count.empty() || !c.eat(' ') || !c.eat('@'))
        fail_line(format, r, "expected \"<cycles> <count> @ <addresses>\"");
      int64_t v1, v2;
      if (!parse_int(cycles, 10, v1) || !parse_int(count, 10, v2)) fail_line(format, r, "a value is out of range");
      if (b.period > 0) {
        // Unsample: cycles -> nanoseconds at the sampling period, counts by the period.
        if (cpu_hz > 0) v1 = go_float_to_int(double(v1) * double(b.period) / (double(cpu_hz) / 1e9));
        v2 = wrap_mul(v2, b.period);
      }
      read_addresses(line, c.i, addrs, format, r);
      b.values.push_back(v2);
      b.values.push_back(v1);
      add_call_addresses(b, addrs);
    }
    have = r.next();
  }
  return finish_with_memory_map(b, r, out);
}

}  // namespace pprofcore::legacy
