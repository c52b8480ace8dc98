// hashing: content hashes and an open-addressing id table for the merge and
// delta tables. The table stores (hash tag, row) pairs only; rows live in the
// caller's columns, so equality is a caller-supplied predicate. It never
// allocates except when it grows (load factor 1/2), which keeps steady-state
// merging and delta allocation-free.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace pprofcore {

inline uint64_t hash_mix(uint64_t h, uint64_t v) {
  // One round of a 128-bit multiply-fold (the wyhash mixer): fast and well spread.
  __uint128_t m = static_cast<__uint128_t>(h ^ v ^ 0xa0761d6478bd642fULL) * 0xe7037ed1a0b428dbULL;
  return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
}

// The last 1-7 bytes of a string as one word (the value a memcpy into a
// zeroed word gives on a little-endian machine), read with fixed-size loads:
// a memcpy of a variable length is a library call, and its stores stall the
// load that follows. Two loads that overlap give each byte once (or twice, at
// the same place: OR keeps it).
inline uint64_t tail_word(const char* p, size_t n) {
  auto byte = [p](size_t i) { return uint64_t(static_cast<unsigned char>(p[i])); };
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return uint64_t(lo) | (uint64_t(hi) << (8 * (n - 4)));
  }
  return byte(0) | (byte(n / 2) << (8 * (n / 2))) | (byte(n - 1) << (8 * (n - 1)));
}

inline uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ s.size();
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = hash_mix(h, w);
    p += 8;
    n -= 8;
  }
  if (n) h = hash_mix(h, tail_word(p, n) ^ (uint64_t(n) << 56));
  return h;
}

// A 128-bit content hash, for tables that keep it instead of the content.
struct Fingerprint {
  uint64_t lo = 0, hi = 0;
  bool operator==(const Fingerprint& o) const { return lo == o.lo && hi == o.hi; }
};

// The fingerprint of 32-bit words: two lanes with different multipliers,
// computed in one pass (independent chains, so about the cost of one).
inline Fingerprint fingerprint_words(const uint32_t* w, size_t n) {
  auto mix2 = [](uint64_t h, uint64_t v) {
    __uint128_t m = static_cast<__uint128_t>(h ^ v ^ 0x8ebc6af09c88c6e3ULL) * 0x589965cc75374cc3ULL;
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  };
  uint64_t a = hash_mix(0x51, n), b = mix2(0x52, n);
  size_t i = 0;
  for (; i + 1 < n; i += 2) {
    const uint64_t x = uint64_t(w[i]) | (uint64_t(w[i + 1]) << 32);
    a = hash_mix(a, x);
    b = mix2(b, x);
  }
  if (i < n) a = hash_mix(a, w[i]), b = mix2(b, w[i]);
  return {a, b};
}

// Maps content (through its hash and an equality predicate) to a dense row.
// Slots are 8 bytes (32-bit hash tag + row) so large tables stay cache-friendly;
// the full hash of each row is kept aside (rows are dense) for rehashing.
class IdTable {
 public:
  size_t size() const { return row_hash_.size(); }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot) + row_hash_.capacity() * 8; }
  void clear() {
    slots_.clear();
    row_hash_.clear();
    mask_ = 0;
  }

  // Row whose content equals the probe (eq(row) == true), or -1.
  template <class Eq>
  int32_t find(uint64_t h, Eq&& eq) const {
    if (slots_.empty()) return -1;
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.row < 0) return -1;
      if (s.tag == tag && eq(s.row)) return s.row;
    }
  }

  // Starts loading the slot where a lookup of `h` begins: a hint that lets
  // the caller overlap the cache misses of several lookups.
  void prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }

  // Room for `rows` rows without growing (one rehash now instead of several).
  void reserve(size_t rows) {
    size_t n = slots_.empty() ? 64 : slots_.size();
    while (rows * 2 > n) n *= 2;
    row_hash_.reserve(rows);
    if (n != slots_.size()) rehash(n);
  }

  // Records `row` (== size(), rows are dense) under `h`; the caller has checked it is absent.
  void insert(uint64_t h, int32_t row) {
    if ((row_hash_.size() + 1) * 2 > slots_.size()) grow();
    row_hash_.push_back(h);
    place(h, row);
  }

 private:
  struct Slot {
    uint32_t tag;
    int32_t row;
  };
  void place(uint64_t h, int32_t row) {
    size_t i = h & mask_;
    while (slots_[i].row >= 0) i = (i + 1) & mask_;
    slots_[i] = Slot{static_cast<uint32_t>(h >> 32), row};
  }
  void grow() { rehash(slots_.empty() ? 64 : slots_.size() * 2); }
  void rehash(size_t n) {
    slots_.assign(n, Slot{0, -1});
    mask_ = n - 1;
    for (size_t r = 0; r < row_hash_.size(); ++r) place(row_hash_[r], static_cast<int32_t>(r));
  }
  std::vector<Slot> slots_;
  std::vector<uint64_t> row_hash_;
  size_t mask_ = 0;
};

}  // namespace pprofcore
