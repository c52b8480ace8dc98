// aggregate_locations: a node table's sums from sums kept per location. A
// profile's samples are summed once per location (flat of the leaf, cum once
// per sample, frames); a table of any granularity then maps locations to its
// nodes, and walks only the frames of locations whose nodes need it: nodes in
// more than one place of the locations (a sample may hold two of them) and
// the in-edges behind the inline labels.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

// Per location of a profile: what its samples add, for every sample type.
struct LocationSums {
  size_t n_types = 0;
  std::vector<int64_t> flat;    // n_locations x n_types: samples whose leaf is the location
  std::vector<int64_t> cum;     // n_locations x n_types: samples holding it, once per sample
  std::vector<int64_t> frames;  // per location: its frames in all stacks
  int64_t total_frames = 0;
};

LocationSums location_sums(const Profile& p, const AggregateOptions& opt = {});

// aggregate(p, opt) built from `sums` (location_sums(p)): equal field by
// field. nullopt when it would walk much of the frames anyway (the locations
// whose nodes need a walk hold more than `max_walked_share` of them) or the
// labels depend on the label type (more than kMaxInlineLabelTypes sample
// types); then aggregate.
std::optional<NodeTable> aggregate_from_locations(const Profile& p, const LocationSums& sums,
                                                  const AggregateOptions& opt, double max_walked_share = 0.5);

}  // namespace pprofcore
