// aggregate_locations: node tables from per-location sums (see the header).
#include "pprofcore/aggregate_locations.hpp"

#include <algorithm>

#include "aggregate_internal.hpp"
#include "pprofcore/arith.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/fork_join.hpp"

namespace pprofcore {

namespace {

using namespace aggregate_detail;

// Sums of samples [first, last) into `out` (zeroed first).
void add_location_sums(const Profile& p, size_t first, size_t last, LocationSums& out) {
  const size_t nt = p.num_types(), nloc = p.locations.size();
  out.flat.assign(nloc * nt, 0);
  out.cum.assign(nloc * nt, 0);
  out.frames.assign(nloc, 0);
  std::vector<uint32_t> seen(nloc, 0);  // stamp = sample index + 1
  for (size_t s = first; s < last; ++s) {
    const int64_t* v = p.values.data() + s * nt;
    const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
    if (sb == se) continue;
    const uint32_t stamp = static_cast<uint32_t>(s + 1);
    out.total_frames += se - sb;
    for (int64_t i = sb; i < se; ++i) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      ++out.frames[loc];
      if (seen[loc] == stamp) continue;
      seen[loc] = stamp;
      int64_t* cum = out.cum.data() + loc * nt;
      for (size_t k = 0; k < nt; ++k) cum[k] = wrapping_add(cum[k], v[k]);
    }
    int64_t* flat = out.flat.data() + static_cast<size_t>(p.stack_locations[static_cast<size_t>(sb)]) * nt;
    for (size_t k = 0; k < nt; ++k) flat[k] = wrapping_add(flat[k], v[k]);
  }
}

}  // namespace

LocationSums location_sums(const Profile& p, const AggregateOptions& opt) {
  const size_t ns = p.num_samples();
  const size_t parts = sample_parts(ns, opt);
  std::vector<LocationSums> done(parts);
  fork_join(parts, [&](size_t k) { add_location_sums(p, ns * k / parts, ns * (k + 1) / parts, done[k]); });
  LocationSums& out = done[0];
  out.n_types = p.num_types();
  for (size_t k = 1; k < parts; ++k) {
    for (size_t i = 0; i < out.flat.size(); ++i) out.flat[i] = wrapping_add(out.flat[i], done[k].flat[i]);
    for (size_t i = 0; i < out.cum.size(); ++i) out.cum[i] = wrapping_add(out.cum[i], done[k].cum[i]);
    for (size_t i = 0; i < out.frames.size(); ++i) out.frames[i] += done[k].frames[i];
    out.total_frames += done[k].total_frames;
  }
  return std::move(out);
}

std::optional<NodeTable> aggregate_from_locations(const Profile& p, const LocationSums& sums,
                                                  const AggregateOptions& opt, double max_walked_share) {
  const size_t nt = p.num_types(), nloc = p.locations.size();
  if (sums.n_types != nt || sums.frames.size() != nloc)
    throw InternalError("aggregate_from_locations: the sums are not the profile's");
  if (!opt.sums || nt > kMaxInlineLabelTypes) return std::nullopt;
  AggregateOptions nodes_only = opt;
  nodes_only.sums = false;
  NodeTable t = aggregate(p, nodes_only);
  const size_t nn = t.size();

  // A node in one place of one location is in a sample exactly when that
  // location is: its cum is the location's. Others are summed by a walk.
  std::vector<int32_t> places(nn, 0), only_location(nn, -1);
  for (size_t l = 0; l < nloc; ++l)
    for (int64_t j = t.loc_node_offsets[l]; j < t.loc_node_offsets[l + 1]; ++j) {
      const size_t n = static_cast<size_t>(t.loc_nodes[static_cast<size_t>(j)]);
      ++places[n];
      only_location[n] = static_cast<int32_t>(l);
    }
  const InlinePlaces inl = inline_places(t, nn);
  constexpr uint8_t kWalkCum = 1, kWalkEdges = 2;
  std::vector<uint8_t> walk(nloc, 0);
  int64_t walked_frames = 0;
  for (size_t l = 0; l < nloc; ++l) {
    for (int64_t j = t.loc_node_offsets[l]; j < t.loc_node_offsets[l + 1]; ++j)
      if (places[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(j)])] > 1) walk[l] |= kWalkCum;
    if (inl.holds_inline[l]) walk[l] |= kWalkEdges;
    if (walk[l]) walked_frames += sums.frames[l];
  }
  if (static_cast<double>(walked_frames) > max_walked_share * static_cast<double>(sums.total_frames))
    return std::nullopt;

  t.sums_overflow.assign(nt, 0);
  for (size_t k = 0; k < nt; ++k) t.sums_overflow[k] = sums_fit(p, k) ? 0 : 1;
  sum_into(t, nn, p.num_samples(), opt, [&](const SumContext& c, size_t first, size_t last, SampleSums& out) {
    out.flat.assign(nn * nt, 0);
    out.cum.assign(nn * nt, 0);
    out.noinline_in.assign(nn, 0);
    if (first == 0) {  // the location sums, once
      for (size_t l = 0; l < nloc; ++l) {
        const size_t leaf = static_cast<size_t>(t.loc_nodes[static_cast<size_t>(t.loc_node_offsets[l])]);
        for (size_t k = 0; k < nt; ++k)
          out.flat[leaf * nt + k] = wrapping_add(out.flat[leaf * nt + k], sums.flat[l * nt + k]);
      }
      for (size_t n = 0; n < nn; ++n)
        if (places[n] == 1)
          std::copy_n(sums.cum.data() + static_cast<size_t>(only_location[n]) * nt, nt, out.cum.data() + n * nt);
    }
    std::vector<uint32_t> seen(nn, 0);  // stamp = sample index + 1
    for (size_t s = first; s < last; ++s) {
      const int64_t* v = p.values.data() + s * nt;
      if (std::all_of(v, v + nt, [](int64_t x) { return x == 0; })) continue;
      const uint64_t bits = sample_label_bits(c, v);
      const uint32_t stamp = static_cast<uint32_t>(s + 1);
      const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
      for (int64_t i = se - 1; i >= sb; --i) {
        const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
        if (!walk[loc]) continue;
        // The frame before it in the walk (root first) ends at its caller's innermost node.
        int32_t parent =
            i + 1 < se ? t.loc_nodes[static_cast<size_t>(
                             t.loc_node_offsets[static_cast<size_t>(p.stack_locations[static_cast<size_t>(i + 1)])])]
                       : -1;
        const int64_t nb = t.loc_node_offsets[loc], ne = t.loc_node_offsets[loc + 1];
        for (int64_t j = ne - 1; j >= nb; --j) {
          const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
          const size_t nr = static_cast<size_t>(n);
          if (places[nr] > 1 && seen[nr] != stamp) {
            seen[nr] = stamp;
            int64_t* cum = out.cum.data() + nr * nt;
            for (size_t k = 0; k < nt; ++k) cum[k] = wrapping_add(cum[k], v[k]);
          }
          if (walk[loc] & kWalkEdges) note_in_edge(c, out, parent, n, j != ne - 1, bits);
          parent = n;
        }
      }
    }
  });
  return t;
}

}  // namespace pprofcore
