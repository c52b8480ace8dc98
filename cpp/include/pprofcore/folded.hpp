// folded: Brendan Gregg's collapsed-stack text ("root;caller;leaf value\n"), one
// line per distinct (prefix group, node stack), built from aggregate's nodes.
// Does not parse folded text (Python's from_folded builds profiles from it).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

// Lines sorted bytewise; stacks whose summed value is 0 are left out. `group`
// (empty, or one id per sample) selects the frames of `group_frames` that are
// written before the stack (e.g. "key=value"). Frame names are the nodes'
// printable names, escaped by folded_frame. A stack's sum past int64 throws
// ProfileError naming the sample type.
std::string to_folded(const Profile& p, const NodeTable& nodes, size_t type, const std::vector<int32_t>& group,
                      const std::vector<std::vector<std::string>>& group_frames);

// Appends `name` as one folded frame: a line break or a `;` in it would forge
// lines or split the frame, so C0 controls (tab excepted), `;`, U+0085, U+2028
// and U+2029 are written as visible escapes (`\x0a`, `\x3b`, `\u2028`).
void append_folded_frame(std::string& out, std::string_view name);

}  // namespace pprofcore
