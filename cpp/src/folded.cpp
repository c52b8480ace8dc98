// folded: collapses samples to distinct node stacks and prints them root first,
// escaping what would forge a line or split a frame.
#include "pprofcore/folded.hpp"
#include "pprofcore/arith.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "pprofcore/errors.hpp"

namespace pprofcore {

namespace {

void append_escape(std::string& out, const char* prefix, unsigned code, int digits) {
  static const char hex[] = "0123456789abcdef";
  out += prefix;
  for (int d = digits - 1; d >= 0; --d) out.push_back(hex[(code >> (4 * d)) & 0xf]);
}

// Bytes of the whitespace `line` starts with, as Python's str.strip() sees it
// (readers strip lines before looking for a comment's '#'). C0 controls, U+0085,
// U+2028 and U+2029 are escaped by then; what is left is space, tab, U+00A0,
// U+1680, U+2000-U+200A, U+202F, U+205F and U+3000.
size_t leading_space(const std::string& line) {
  auto at = [&](size_t i) { return i < line.size() ? static_cast<unsigned char>(line[i]) : 0u; };
  size_t i = 0;
  for (;;) {
    const unsigned a = at(i), b = at(i + 1), c = at(i + 2);
    if (a == ' ' || a == '\t')
      i += 1;
    else if (a == 0xc2 && b == 0xa0)
      i += 2;
    else if ((a == 0xe1 && b == 0x9a && c == 0x80) ||
             (a == 0xe2 && b == 0x80 && ((c >= 0x80 && c <= 0x8a) || c == 0xaf)) ||
             (a == 0xe2 && b == 0x81 && c == 0x9f) || (a == 0xe3 && b == 0x80 && c == 0x80))
      i += 3;
    else
      return i;
  }
}

}  // namespace

void append_folded_frame(std::string& out, std::string_view name) {
  const size_t n = name.size();
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if ((c < 0x20 && c != '\t') || c == ';') {
      append_escape(out, "\\x", c, 2);
    } else if (c == 0xc2 && i + 1 < n && static_cast<unsigned char>(name[i + 1]) == 0x85) {
      append_escape(out, "\\x", 0x85, 2);  // U+0085 (NEL) ends a line for Python and Java
      ++i;
    } else if (c == 0xe2 && i + 2 < n && static_cast<unsigned char>(name[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(name[i + 2]) | 1) == 0xa9) {
      append_escape(out, "\\u", 0x2000u | (static_cast<unsigned char>(name[i + 2]) - 0x80u), 4);  // U+2028, U+2029
      i += 2;
    } else {
      out.push_back(name[i]);
    }
  }
}

std::string to_folded(const Profile& p, const NodeTable& nodes, size_t type, const std::vector<int32_t>& group,
                      const std::vector<std::vector<std::string>>& group_frames) {
  const size_t nt = p.num_types(), ns = p.num_samples();
  if (type >= nt) throw ProfileError("sample type index out of range");
  if (!group.empty() && group.size() != ns) throw InternalError("group must have one entry per sample");
  check_sums_fit(p, type);  // then no stack's sum below can wrap
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
    if (gid >= 0 && static_cast<size_t>(gid) < group_frames.size()) {
      for (const auto& f : group_frames[static_cast<size_t>(gid)]) {
        append_folded_frame(line, f);
        line.push_back(';');
      }
    }
    bool first = true;
    for (size_t o = sizeof gid; o + sizeof(int32_t) <= k.size(); o += sizeof(int32_t)) {
      int32_t n;
      std::copy_n(k.data() + o, sizeof n, reinterpret_cast<char*>(&n));
      if (!first) line.push_back(';');
      append_folded_frame(line, nodes.printable[static_cast<size_t>(n)]);
      first = false;
    }
    // Readers skip lines that start with '#' (comments), after stripping
    // whitespace: a '#' there is escaped.
    const size_t lead = leading_space(line);
    if (lead < line.size() && line[lead] == '#') line.replace(lead, 1, "\\x23");
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
