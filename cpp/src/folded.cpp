// folded: collapses samples to distinct node stacks and prints them root first.
#include "pprofcore/folded.hpp"
#include "pprofcore/arith.hpp"

#include <algorithm>
#include <unordered_map>

#include "pprofcore/errors.hpp"

namespace pprofcore {

std::string to_folded(const Profile& p, const NodeTable& nodes, size_t type, const std::vector<int32_t>& group,
                      const std::vector<std::string>& group_prefix) {
  const size_t nt = p.num_types(), ns = p.num_samples();
  if (type >= nt) throw ProfileError("sample type index out of range");
  if (!group.empty() && group.size() != ns) throw InternalError("group must have one entry per sample");
  // Key: group id followed by the node ids root first.
  std::unordered_map<std::string, int64_t> sums;
  std::string key;
  for (size_t s = 0; s < ns; ++s) {
    const int64_t v = p.values[s * nt + type];
    if (v == 0) continue;
    key.clear();
    const int32_t gid = group.empty() ? -1 : group[s];
    key.append(reinterpret_cast<const char*>(&gid), sizeof gid);
    for (int64_t i = p.stack_offsets[s + 1] - 1; i >= p.stack_offsets[s]; --i) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      for (int64_t j = nodes.loc_node_offsets[loc + 1] - 1; j >= nodes.loc_node_offsets[loc]; --j) {
        const int32_t n = nodes.loc_nodes[static_cast<size_t>(j)];
        key.append(reinterpret_cast<const char*>(&n), sizeof n);
      }
    }
    sums[key] = wrapping_add(sums[key], v);
  }
  std::vector<std::string> lines;
  lines.reserve(sums.size());
  for (const auto& [k, v] : sums) {
    if (v == 0) continue;
    std::string line;
    int32_t gid;
    std::copy_n(k.data(), sizeof gid, reinterpret_cast<char*>(&gid));
    if (gid >= 0 && static_cast<size_t>(gid) < group_prefix.size()) line += group_prefix[static_cast<size_t>(gid)];
    bool first = true;
    for (size_t o = sizeof gid; o + sizeof(int32_t) <= k.size(); o += sizeof(int32_t)) {
      int32_t n;
      std::copy_n(k.data() + o, sizeof n, reinterpret_cast<char*>(&n));
      if (!first) line.push_back(';');
      line += nodes.printable[static_cast<size_t>(n)];
      first = false;
    }
    line.push_back(' ');
    line += std::to_string(v);
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) {
    out += l;
    out.push_back('\n');
  }
  return out;
}

}  // namespace pprofcore
