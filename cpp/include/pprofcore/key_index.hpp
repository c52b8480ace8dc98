// key_index: a 64-bit key -> dense row map (open addressing, the key inside the
// slot), for the per-frame lookups of the call tree, the call graph's edges and
// the report nodes' edges: one lookup touches one cache line, where
// std::unordered_map chases a node pointer.
#pragma once
#include <cstdint>
#include <vector>

#include "pprofcore/hashing.hpp"

namespace pprofcore {

class KeyIndex {
 public:
  KeyIndex() { slots_.assign(1 << 10, Slot{kEmpty, 0}); }
  // The row of `key`, or -1 after recording `fresh` as its row (the caller appends it).
  // The all-ones key is reserved (no (parent, child) pair of 32-bit rows >= -1 makes it
  // except (-1, -1)).
  int32_t find_or_insert(uint64_t key, int32_t fresh) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    for (size_t i = hash_mix(key, 0) & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.key == key) return s.row;
      if (s.key == kEmpty) {
        s = Slot{key, fresh};
        ++count_;
        return -1;
      }
    }
  }
  size_t size() const { return count_; }

  // Two 32-bit rows as one key.
  static uint64_t pair(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key;
    int32_t row;
  };
  size_t mask() const { return slots_.size() - 1; }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2, Slot{kEmpty, 0});
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.key == kEmpty) continue;
      size_t i = hash_mix(s.key, 0) & mask();
      while (slots_[i].key != kEmpty) i = (i + 1) & mask();
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace pprofcore
