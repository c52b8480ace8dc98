// inline_labels: the report nodes' "(inline)" / "(partial-inline)" labels for
// every choice of label sample type in one pass over the samples, so a report
// of another sample type reuses the node table instead of aggregating again.
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/key_index.hpp"

namespace pprofcore {

std::vector<uint8_t> inline_labels_by_type(const Profile& p, const NodeTable& t) {
  const size_t nt = p.num_types(), ns = p.num_samples(), nn = t.size();
  if (nt > kMaxInlineLabelTypes) throw ProfileError("too many sample types for inline labels by type");
  if (t.loc_node_offsets.size() != p.locations.size() + 1)
    throw InternalError("node table was built from another profile");
  // A sample's bits: bit k when its value of type k is non-zero, bit 63 when any is.
  constexpr uint64_t kAny = uint64_t{1} << 63;
  // Nodes that appear as a non-outermost frame of a location: only their in-edges can be inline.
  std::vector<uint8_t> inline_capable(nn, 0);
  bool any_inline = false;
  for (size_t l = 0; l + 1 < t.loc_node_offsets.size(); ++l)
    for (int64_t j = t.loc_node_offsets[l]; j + 1 < t.loc_node_offsets[l + 1]; ++j) {
      inline_capable[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(j)])] = 1;
      any_inline = true;
    }
  std::vector<uint64_t> noinline_in(nn, 0);  // samples with a non-inline in-edge
  KeyIndex edge_index;
  std::vector<int32_t> edge_callee;
  std::vector<uint64_t> edge_inline, edge_plain;  // samples of the edge's inline / non-inline occurrences
  for (size_t s = 0; s < ns; ++s) {
    const int64_t* v = p.values.data() + s * nt;
    uint64_t bits = 0;
    for (size_t k = 0; k < nt; ++k)
      if (v[k] != 0) bits |= uint64_t{1} << k;
    if (bits == 0) continue;
    bits |= kAny;
    int32_t parent = -1;
    for (int64_t i = p.stack_offsets[s + 1] - 1; i >= p.stack_offsets[s]; --i) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      const int64_t nb = t.loc_node_offsets[loc], ne = t.loc_node_offsets[loc + 1];
      for (int64_t j = ne - 1; j >= nb; --j) {
        const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
        const size_t nr = static_cast<size_t>(n);
        if (parent >= 0 && parent != n) {
          const bool is_inline = j != ne - 1;
          if (!is_inline) noinline_in[nr] |= bits;
          if (any_inline && inline_capable[nr]) {
            int32_t row =
                edge_index.find_or_insert(KeyIndex::pair(parent, n), static_cast<int32_t>(edge_callee.size()));
            if (row < 0) {
              row = static_cast<int32_t>(edge_callee.size());
              edge_callee.push_back(n);
              edge_inline.push_back(0);
              edge_plain.push_back(0);
            }
            (is_inline ? edge_inline : edge_plain)[static_cast<size_t>(row)] |= bits;
          }
        }
        parent = n;
      }
    }
  }
  // Choice c counts the samples with any of its bits: 0 any sample (label type
  // -1), 1 + k type k, 1 + nt + k type k or type 0 (pprof's -mean).
  const size_t nc = 2 * nt + 1;
  std::vector<uint64_t> choice(nc, kAny);
  for (size_t k = 0; k < nt; ++k) {
    choice[1 + k] = uint64_t{1} << k;
    choice[1 + nt + k] = (uint64_t{1} << k) | 1;
  }
  std::vector<uint8_t> inline_in(nn * nc, 0);
  for (size_t e = 0; e < edge_callee.size(); ++e)
    for (size_t c = 0; c < nc; ++c)  // every occurrence among the counted samples was inline
      if ((edge_inline[e] & choice[c]) && !(edge_plain[e] & choice[c]))
        inline_in[static_cast<size_t>(edge_callee[e]) * nc + c] = 1;
  std::vector<uint8_t> out(nn * nc, 0);
  for (size_t n = 0; n < nn; ++n)
    for (size_t c = 0; c < nc; ++c)
      if (inline_in[n * nc + c]) out[n * nc + c] = (noinline_in[n] & choice[c]) ? 2 : 1;
  return out;
}

}  // namespace pprofcore
