// legacy_builder: the finishing steps every legacy reader shares. A reader
// collects its samples as address stacks into a Builder; the Builder turns them
// into a Profile as pprof finishes every legacy parse: the /proc/self/maps text
// that becomes mappings, pprof's mapping heuristics, location numbering by
// first use, and the drop/keep frame regexes pprof attaches to legacy profiles.
// Reads no format itself (see legacy.hpp for the readers).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore::legacy {

// A mapping as a memory-map line states it, before pprof's heuristics.
struct RawMapping {
  uint64_t start = 0, limit = 0, offset = 0;
  std::string file, build_id;
};

// Collects a legacy profile's samples as address stacks (leaf first, already
// adjusted as the format requires) and turns them into a Profile the way pprof
// finishes every legacy parse (ParseMemoryMap and addLegacyFrameInfo).
class Builder {
 public:
  std::vector<std::pair<std::string, std::string>> sample_types;
  std::string period_type, period_unit;
  int64_t period = 0;
  int64_t duration_nanos = 0;

  std::vector<int64_t> values;            // n_samples x sample_types.size()
  std::vector<int64_t> stack_offsets{0};  // n_samples + 1 into addresses
  std::vector<uint64_t> addresses;        // leaf first
  std::vector<int64_t> bytes_label;       // heap profiles: one "bytes" label per sample
  std::vector<RawMapping> mappings;

  // Java profiles name their frames: address -> (function, line), functions as
  // (name, file). Symbolized locations get no mapping; with `zero_addresses` every
  // location's address becomes 0 (pprof's Aggregate without addresses).
  struct Symbol {
    int32_t function;
    int64_t line;
  };
  std::unordered_map<uint64_t, Symbol> symbols;
  std::vector<std::pair<std::string, std::string>> functions;
  bool zero_addresses = false;

  size_t num_samples() const { return stack_offsets.size() - 1; }
  void end_sample() { stack_offsets.push_back(static_cast<int64_t>(addresses.size())); }

  // Reads /proc/self/maps-style lines (and pprof's brief "start-end file" form)
  // from `text`; non-executable and unrecognised lines are skipped.
  void parse_memory_map(std::string_view text);

  // Numbers locations by first use in the samples (pprof's remapLocationIDs).
  // finish() calls it when the parser has not; a parser that edits stacks after
  // pprof numbers them (gperftools) calls it first and edits stack_rows().
  void number_locations();
  // Numbers the locations, then drops the second frame of every stack whose
  // leaf is that frame's address + 1 (a frame the unwinder duplicated): pprof
  // does it after numbering, so the dropped location stays in the table.
  void drop_duplicated_leaf_frames();
  // Builds the Profile: mapping heuristics, location -> mapping, strings.
  Profile finish();
  std::vector<int32_t>& stack_rows() { return sample_locations_; }
  const std::vector<uint64_t>& location_addresses() const { return location_addresses_; }

 private:
  std::vector<uint64_t> location_addresses_;
  std::vector<int32_t> sample_locations_;
  bool numbered_ = false;
};

}  // namespace pprofcore::legacy
