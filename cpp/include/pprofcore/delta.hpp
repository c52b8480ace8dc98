// delta: turns a series of cumulative profiles (Go heap allocs, mutex, block)
// into per-interval deltas with Datadog fastdelta's semantics. The first
// profile passes through unchanged; afterwards duplicate samples (same merge
// key) are aggregated, only the named sample types are subtracted from the
// previous profile's values (others, e.g. inuse_*, pass through), and samples
// whose resulting values are all zero are dropped. Samples that vanished from
// the current profile are not emitted. As fastdelta's, a delta keeps only the
// locations, functions, mappings and strings its samples reference (ids kept),
// its time_nanos is the current profile's and its duration_nanos the time since
// the previous profile. Not here: decoding/encoding (callers).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/merge.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

class DeltaComputer {
 public:
  // `sample_types`: names (ValueType.type) to subtract; empty = all types.
  explicit DeltaComputer(std::vector<std::string> sample_types);

  // Writes the delta of `cur` against the previous call's profile into `out`,
  // reusing out's storage: once the series is in steady state (no new distinct
  // samples, profiles no larger than before) the call performs no heap
  // allocation. Returns false when `cur` was passed through (first profile or
  // changed sample types), in which case `out` is a copy of `cur`.
  bool delta_into(const Profile& cur, Profile& out);
  // The same, taking `cur` over (it is left valid but unspecified): the
  // delta's samples are compacted within cur's columns, which then move to
  // `out`, so the samples are never held twice (delta_bytes' peak memory).
  bool delta_into(Profile&& cur, Profile& out);
  Profile delta(const Profile& cur) {
    Profile out;
    delta_into(cur, out);
    return out;
  }

  size_t num_calls() const { return calls_; }
  // Distinct samples remembered (the state is bounded by these).
  size_t num_states() const { return canon_.num_samples(); }
  size_t memory_bytes() const;

 private:
  void reset_state();
  void reserve_state(const Profile& cur);
  void rebuild(const Profile& cur);
  bool step(const Profile& cur, Profile& out, Profile* owned);
  void aggregate(const Profile& cur);
  void copy_header(const Profile& cur, Profile& out) const;
  // The delta values of merged sample `sid` into x; false when all are zero.
  bool delta_values(size_t sid, int64_t* x) const;
  void emit_copy(const Profile& cur, Profile& out);
  void emit_in_place(Profile& cur, Profile& out);
  void copy_referenced(const Profile& cur, Profile& out);

  std::vector<std::string> names_;
  Merger canon_{Merger::Keep::KeysOnly};  // sample identities across calls
  std::vector<std::string> types_;        // "type/unit" of the previous profile
  std::vector<uint8_t> is_delta_;         // per value column of the current profile
  size_t nt_ = 0;
  std::vector<int64_t> prev_, cur_;  // per distinct sample x nt
  std::vector<uint32_t> prev_gen_, cur_gen_;
  std::vector<int32_t> first_row_, touched_;
  std::vector<int64_t> values_;                                // one sample's delta values (scratch)
  std::vector<int32_t> loc_map_, fn_map_, map_map_, str_map_;  // scratch of copy_referenced
  int64_t prev_time_ = 0;                                      // time_nanos of the previous profile (0 = none)
  uint32_t gen_ = 0;
  size_t calls_ = 0;
};

}  // namespace pprofcore
