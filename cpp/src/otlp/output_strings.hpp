// output_strings: the string table of a profile converted from OTLP, code 0
// "", strings in order of first use. A dictionary string gets its code by its
// string_table index, without hashing its text: OTLP writers put each string
// in the table once, and a duplicate entry becomes a duplicate string of the
// profile, which pprof's model allows (the profile.proto decoder keeps its
// table as it is). The texts made here (label keys, hex ids, numbers as text)
// are deduplicated against every code given so far, so a made text never
// repeats a dictionary string nor the reverse.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "pprofcore/hashing.hpp"
#include "pprofcore/strings.hpp"

namespace pprofcore::otlp::detail {

// An open-addressing index of texts by content: a hash tag and the code in one
// word, the text only in the table (no allocation per lookup), at most half full.
class TextIndex {
 public:
  size_t size() const { return used_; }

  // The code of s in `table` among those added, or -1.
  int32_t find(const StringTable& table, std::string_view s, uint64_t h) const {
    if (slots_.empty()) return -1;
    const size_t mask = slots_.size() - 1;
    for (size_t i = (h >> 32) & mask;; i = (i + 1) & mask) {
      const uint64_t e = slots_[i];
      if (e == 0) return -1;
      if (e >> 32 == h >> 32 && table[code_of(e)] == s) return static_cast<int32_t>(code_of(e));
    }
  }

  // Adds code (not in the index yet) with hash h of its text.
  void add(int32_t code, uint64_t h) {
    if ((used_ + 1) * 2 > slots_.size()) grow(used_ + 1);
    place(slots_, slot(h, code));
    ++used_;
  }

 private:
  static uint64_t slot(uint64_t hash, int32_t code) { return (hash >> 32) << 32 | static_cast<uint32_t>(code + 1); }
  static size_t code_of(uint64_t slot) { return static_cast<uint32_t>(slot) - 1u; }

  // A slot keeps only the hash's high half, which also picks the first slot
  // (so growing needs no text).
  static void place(std::vector<uint64_t>& slots, uint64_t e) {
    const size_t mask = slots.size() - 1;
    size_t i = static_cast<size_t>(e >> 32) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = e;
  }

  void grow(size_t need) {
    size_t n = 64;
    while (n < need * 2) n *= 2;
    n = std::max(n, slots_.size() * 2);
    std::vector<uint64_t> old(n, 0);
    old.swap(slots_);
    for (uint64_t e : old)
      if (e) place(slots_, e);
  }

  std::vector<uint64_t> slots_;  // 0: empty; else (hash >> 32) << 32 | (code + 1)
  size_t used_ = 0;
};

class OutputStrings {
 public:
  // Room for `expected` strings (the input's string table: most reach the output).
  explicit OutputStrings(size_t expected) {
    table_.offsets.reserve(expected + 1);
    intern(std::string_view());
  }

  void reserve_bytes(size_t n) { table_.data.reserve(n); }

  // The code of a dictionary string on its first use (the caller keeps it by
  // index). It is only compared with the texts made so far, and a length no
  // made text has rules most out without hashing.
  int32_t first_use(std::string_view s) {
    if (made_lengths_ >> (s.size() & 63) & 1) {
      const int32_t code = made_.find(table_, s, hash_bytes(s));
      if (code >= 0) return code;
    }
    return append(s);
  }

  // The code of a text made by the converter, deduplicated by content against
  // every string of the table. The content index catches up with the codes
  // given since its last use, so each string is hashed once at most, and only
  // when a text is made after it.
  int32_t intern(std::string_view s) {
    for (; indexed_ < table_.size(); ++indexed_) all_.add(static_cast<int32_t>(indexed_), hash_bytes(table_[indexed_]));
    const uint64_t h = hash_bytes(s);
    int32_t code = all_.find(table_, s, h);
    if (code >= 0) return code;
    code = append(s);
    all_.add(code, h);
    made_.add(code, h);
    made_lengths_ |= uint64_t(1) << (s.size() & 63);
    indexed_ = table_.size();
    return code;
  }

  StringTable take() { return std::move(table_); }

 private:
  int32_t append(std::string_view s) {
    table_.push_back(s);
    return static_cast<int32_t>(table_.size() - 1);
  }

  StringTable table_{{}, {0}};
  TextIndex all_;  // codes [0, indexed_)
  size_t indexed_ = 0;
  TextIndex made_;             // the codes of made texts
  uint64_t made_lengths_ = 0;  // bit (length % 64) of each made text
};

}  // namespace pprofcore::otlp::detail
