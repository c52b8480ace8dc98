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
  Profile out = copy_without_samples(p);
  if (lines_changed) keep_lines(out, p, line_keep);
  SampleAppender app(p, out);
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int32_t* b = p.stack_locations.data() + p.stack_offsets[s];
    const int64_t n = p.stack_offsets[s + 1] - p.stack_offsets[s];
    int64_t start = 0;  // first kept frame (leaf side)
    bool found_user = false;
    for (int64_t j = n - 1; j >= 0; --j) {
      const uint8_t m = mode[static_cast<size_t>(b[j])];
      if (m == 0) {
        found_user = true;
        continue;
      }
      if (!found_user) continue;
      start = m == 1 ? j + 1 : j;
      break;
    }
    app.add(s, b + start, static_cast<size_t>(n - start));
  }
  return out;
}

}  // namespace pprofcore
