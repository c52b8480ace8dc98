// prune: drop_frames/keep_frames pruning on a per-function mask (see prune.hpp).
#include "pprofcore/prune.hpp"

#include "pprofcore/errors.hpp"
#include "pprofcore/rebuild.hpp"

namespace pprofcore {

Profile prune(const Profile& p, const std::vector<uint8_t>& drop) {
  if (drop.size() != p.functions.size()) throw InternalError("prune: mask size mismatch");
  const size_t nloc = p.locations.size();
  const auto& lo = p.locations.line_offsets;
  // 1 = prune the whole location, 2 = prune beneath it (some of its lines stay).
  std::vector<uint8_t> mode(nloc, 0);
  std::vector<uint8_t> line_keep(p.lines.size(), 1);
  bool lines_changed = false;
  for (size_t l = 0; l < nloc; ++l) {
    for (int64_t i = lo[l + 1] - 1; i >= lo[l]; --i) {
      if (!drop[static_cast<size_t>(p.lines.function[static_cast<size_t>(i)])]) continue;
      if (i == lo[l + 1] - 1) {
        mode[l] = 1;  // the outermost line matched: the whole location goes (lines untouched)
      } else {
        mode[l] = 2;  // keep only the callers of the matching inline frame
        for (int64_t j = lo[l]; j <= i; ++j) line_keep[static_cast<size_t>(j)] = 0;
        lines_changed = true;
      }
      break;
    }
  }
  return with_cut_stacks(p, lines_changed ? &line_keep : nullptr, [&](const int32_t* b, size_t n) {
    const auto len = static_cast<int64_t>(n);
    int64_t start = 0;  // first kept frame (leaf side)
    bool found_user = false;
    for (int64_t j = len - 1; j >= 0; --j) {
      const uint8_t m = mode[static_cast<size_t>(b[j])];
      if (m == 0) {
        found_user = true;
        continue;
      }
      if (!found_user) continue;
      start = m == 1 ? j + 1 : j;
      break;
    }
    return std::optional(std::make_pair(static_cast<size_t>(start), n));
  });
}

}  // namespace pprofcore
