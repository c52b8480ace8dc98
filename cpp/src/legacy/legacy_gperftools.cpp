// legacy_gperftools: gperftools' binary CPU profile -> Profile (see the header).
#include "pprofcore/legacy_gperftools.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "pprofcore/errors.hpp"
#include "pprofcore/legacy_builder.hpp"
#include "pprofcore/legacy_java.hpp"

namespace pprofcore::legacy {
namespace {

struct WordReader {
  const uint8_t* p;
  const uint8_t* end;
  unsigned size;  // 4 or 8
  bool big_endian;
  bool has_words(size_t k) const { return static_cast<size_t>(end - p) / size >= k; }
  uint64_t next() {
    uint64_t v;
    if (size == 8) {
      std::memcpy(&v, p, 8);
      if (big_endian) v = __builtin_bswap64(v);
    } else {
      uint32_t w;
      std::memcpy(&w, p, 4);
      v = big_endian ? __builtin_bswap32(w) : w;
    }
    p += size;
    return v;
  }
};

}  // namespace

bool parse_gperftools_cpu(const uint8_t* data, size_t n, Profile& out) {
  // pprof tries these word shapes in this order and takes the first whose
  // header reads {0, 3, 0, period > 0, 0}.
  const struct {
    unsigned size;
    bool big;
  } shapes[] = {{4, false}, {4, true}, {8, false}, {8, true}};
  WordReader w{nullptr, nullptr, 0, false};
  int64_t period_us = 0;
  bool found = false, java = false;
  for (auto s : shapes) {
    WordReader t{data, data + n, s.size, s.big};
    if (!t.has_words(5)) continue;
    uint64_t h[5];
    for (auto& x : h) x = t.next();
    if (h[0] == 0 && h[1] == 3 && h[2] <= 1 && h[3] > 0 && h[4] == 0) {
      w = t;
      period_us = static_cast<int64_t>(h[3]);
      java = h[2] == 1;
      found = true;
      break;
    }
  }
  if (!found) return false;

  Builder b;
  b.addresses.reserve(static_cast<size_t>(w.end - w.p) / w.size);
  b.period_type = "cpu";
  b.period_unit = "nanoseconds";
  b.period = static_cast<int64_t>(uint64_t(period_us) * 1000);
  b.sample_types = {{"samples", "count"}, {"cpu", "nanoseconds"}};
  const char* what = java ? (w.size == 4 ? "legacy Java CPU profile (binary) with 32-bit words"
                                         : "legacy Java CPU profile (binary) with 64-bit words")
                          : (w.size == 4 ? "legacy gperftools CPU profile (binary) with 32-bit words"
                                         : "legacy gperftools CPU profile (binary) with 64-bit words");
  while (w.p < w.end) {
    int64_t at = w.p - data;
    if (!w.has_words(2)) throw DecodeError(std::string(what) + ": truncated record header", "record", at);
    uint64_t count = w.next(), depth = w.next();
    if (!w.has_words(depth))
      throw DecodeError(
          std::string(what) + ": record of " + std::to_string(depth) + " frames runs past the end of the input",
          "record", at);
    if (count == 0 && depth == 1) {
      uint64_t a = w.next();
      if (a == 0) break;  // end-of-data marker {0, 1, 0}
      w.p -= w.size;
    }
    // Return addresses point after the call; all but the leaf move back onto it
    // (Java profiles hold frame ids, not addresses).
    const uint64_t adjust = java ? 0 : 1;
    for (uint64_t i = 0; i < depth; ++i) b.addresses.push_back(w.next() - (i > 0 ? adjust : 0));
    b.values.push_back(static_cast<int64_t>(count));
    b.values.push_back(static_cast<int64_t>(count * uint64_t(b.period)));
    b.end_sample();
  }

  if (java) {  // then "0x<id> <frame>" lines name the frames
    parse_java_symbols(std::string_view(reinterpret_cast<const char*>(w.p), static_cast<size_t>(w.end - w.p)), b);
    out = b.finish();
    return true;
  }

  // A frame that the signal handler pushed sits second from the leaf in (nearly)
  // every sample: if all but 1 in 32 samples share it, pprof removes it, twice.
  const size_t ns = b.num_samples();
  const size_t margin = ns / 32;
  for (int iter = 0; iter < 2; ++iter) {
    // Such a frame is a majority of the second frames: find the one candidate
    // (Boyer-Moore vote), then count it.
    uint64_t victim = 0;
    size_t votes = 0;
    for (size_t s = 0; s < ns; ++s) {
      if (b.stack_offsets[s + 1] - b.stack_offsets[s] < 2) continue;
      uint64_t a = b.addresses[size_t(b.stack_offsets[s]) + 1];
      if (votes == 0)
        victim = a, votes = 1;
      else
        votes += a == victim ? 1 : size_t(-1);
    }
    size_t count = 0;
    for (size_t s = 0; s < ns && votes > 0; ++s)
      if (b.stack_offsets[s + 1] - b.stack_offsets[s] > 1 && b.addresses[size_t(b.stack_offsets[s]) + 1] == victim)
        ++count;
    bool strip = votes > 0 && count + margin >= ns;
    if (!strip) continue;
    std::vector<uint64_t> kept;
    kept.reserve(b.addresses.size());
    std::vector<int64_t> offsets{0};
    for (size_t s = 0; s < ns; ++s) {
      size_t lo = size_t(b.stack_offsets[s]), hi = size_t(b.stack_offsets[s + 1]);
      for (size_t i = lo; i < hi; ++i)
        if (!(i == lo + 1 && hi - lo > 1 && b.addresses[i] == victim)) kept.push_back(b.addresses[i]);
      offsets.push_back(static_cast<int64_t>(kept.size()));
    }
    b.addresses = std::move(kept);
    b.stack_offsets = std::move(offsets);
  }

  // The maps text follows the end marker.
  b.parse_memory_map(std::string_view(reinterpret_cast<const char*>(w.p), static_cast<size_t>(w.end - w.p)));

  // pprof numbers locations before dropping a leaf the unwinder duplicated
  // (leaf == caller + 1), so the dropped location stays in the table.
  b.drop_duplicated_leaf_frames();
  out = b.finish();
  return true;
}

}  // namespace pprofcore::legacy
