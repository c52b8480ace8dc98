// aggregate_derived: the node table of a name filter's output (focus, ignore,
// hide, show: filter.hpp's NameFilterResult, whose `kept` and `hidden` say
// which samples stayed and which locations left the stacks) from its input's,
// without summing every frame again. Other filters are aggregate()'s.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

// aggregate(child, opt), found from parent_t = aggregate(parent, opt) (with
// sums, opt's granularity, inline frames and label types): child
// is parent filtered, `kept` (per parent sample) says which samples it
// holds, `hidden` (per location, empty when none) which locations left their
// stacks. The node rows are the parent's when no location lost a line, else
// aggregate()'s of the child without sums (a walk of the locations, not of
// the samples). A node's cum is its parent node's (same key) less what the
// dropped samples added (wrapping sums are exact modulo 2^64); flat and the
// inline labels come from one light pass over the child's stacks that walks
// node by node only the locations holding a node that is inline somewhere.
// nullopt when it would not pay or not hold: the dropped samples hold more
// frames than the kept ones, or a node is not in the same locations as its
// parent node (it left some with a hidden line and stayed in others).
// InternalError when the masks or tables do not fit the profiles. With
// `deferred`, `child` holds only the tables of the filter's deferred output
// (filter.hpp's NameFilterResult::deferred: parent itself when no line left a
// location), whose samples are read in place from parent's: the kept ones,
// without the hidden locations.
std::optional<NodeTable> derived_aggregate(const Profile& child, bool deferred, const Profile& parent,
                                           const NodeTable& parent_t, const std::vector<uint8_t>& kept,
                                           const std::vector<uint8_t>& hidden, const AggregateOptions& opt);

}  // namespace pprofcore
