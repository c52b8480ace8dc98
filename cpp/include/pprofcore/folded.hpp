// folded: Brendan Gregg's collapsed-stack text ("root;caller;leaf value\n"), one
// line per distinct (prefix group, node stack), built from aggregate's nodes.
// Does not parse folded text (Python's from_folded builds profiles from it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

// Lines sorted bytewise; stacks whose summed value is 0 are left out. `group`
// (empty, or one id per sample) selects a prefix from `group_prefix` that is
// written before the stack (e.g. "key=value;"). Frame names are the nodes'
// printable names.
std::string to_folded(const Profile& p, const NodeTable& nodes, size_t type, const std::vector<int32_t>& group,
                      const std::vector<std::string>& group_prefix);

}  // namespace pprofcore
