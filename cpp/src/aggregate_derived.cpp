// aggregate_derived: a filtered profile's node table from its input's (see
// aggregate_derived.hpp). The node rows, names and location map are the
// input's, since the filter left the location and line tables as they were;
// only the sums and the inline labels are found again.
#include "pprofcore/aggregate_derived.hpp"

#include <algorithm>
#include <limits>

#include "aggregate_internal.hpp"
#include "pprofcore/arith.hpp"
#include "pprofcore/errors.hpp"

namespace pprofcore {

namespace {

using namespace aggregate_detail;

bool same_key(const NodeTable& a, size_t n, const NodeTable& b, size_t m) {
  return a.name[n] == b.name[m] && a.start_line[n] == b.start_line[m] && a.lineno[n] == b.lineno[m] &&
         a.address[n] == b.address[m] && a.objfile[n] == b.objfile[m] && a.file[n] == b.file[m];
}

// Per child node, the parent node of the same key, found through the
// locations the child's samples can hold (-1: a node of hidden locations
// only). Empty when a node cannot be matched, or sits in other locations
// than its parent node does: then its samples are not its parent node's.
std::vector<int32_t> parent_nodes(const Profile& child, const NodeTable& ct, const Profile& parent, const NodeTable& pt,
                                  const std::vector<uint8_t>& hidden) {
  std::vector<int32_t> of(ct.size(), -1);
  std::vector<size_t> child_locs(ct.size(), 0), parent_locs(pt.size(), 0);
  std::vector<int64_t> last_child(ct.size(), -1), last_parent(pt.size(), -1);
  auto pair = [&](size_t n, size_t m) {
    if (of[n] >= 0 && static_cast<size_t>(of[n]) != m) return false;
    of[n] = static_cast<int32_t>(m);
    return same_key(ct, n, pt, m);
  };
  const size_t nloc = parent.locations.size();
  for (size_t l = 0; l < nloc; ++l) {
    const int64_t pb = pt.loc_node_offsets[l], pe = pt.loc_node_offsets[l + 1];
    for (int64_t j = pb; j < pe; ++j) {
      const size_t m = static_cast<size_t>(pt.loc_nodes[static_cast<size_t>(j)]);
      if (last_parent[m] != static_cast<int64_t>(l)) ++parent_locs[m];
      last_parent[m] = static_cast<int64_t>(l);
    }
    if (!hidden.empty() && hidden[l]) continue;
    const int64_t cb = ct.loc_node_offsets[l], ce = ct.loc_node_offsets[l + 1];
    const int64_t clb = child.locations.line_offsets[l], cle = child.locations.line_offsets[l + 1];
    const int64_t plb = parent.locations.line_offsets[l], ple = parent.locations.line_offsets[l + 1];
    if (ce - cb == pe - pb) {  // the location kept its nodes: row by row
      for (int64_t k = 0; k < ce - cb; ++k)
        if (!pair(static_cast<size_t>(ct.loc_nodes[static_cast<size_t>(cb + k)]),
                  static_cast<size_t>(pt.loc_nodes[static_cast<size_t>(pb + k)])))
          return {};
    } else if (ce - cb == cle - clb && pe - pb == ple - plb) {  // a node per line: the kept lines, in order
      int64_t i = plb;
      for (int64_t k = clb; k < cle; ++k, ++i) {
        const auto& cl = child.lines;
        const auto& pl = parent.lines;
        const size_t ck = static_cast<size_t>(k);
        while (i < ple && (pl.function[static_cast<size_t>(i)] != cl.function[ck] ||
                           pl.line[static_cast<size_t>(i)] != cl.line[ck]))
          ++i;
        if (i == ple || !pair(static_cast<size_t>(ct.loc_nodes[static_cast<size_t>(cb + (k - clb))]),
                              static_cast<size_t>(pt.loc_nodes[static_cast<size_t>(pb + (i - plb))])))
          return {};
      }
    } else {
      return {};
    }
    for (int64_t j = cb; j < ce; ++j) {
      const size_t n = static_cast<size_t>(ct.loc_nodes[static_cast<size_t>(j)]);
      if (last_child[n] != static_cast<int64_t>(l)) ++child_locs[n];
      last_child[n] = static_cast<int64_t>(l);
    }
  }
  // A child node is in the locations of its parent node that are shown; the
  // same count means all of them.
  for (size_t n = 0; n < ct.size(); ++n)
    if (of[n] >= 0 && child_locs[n] != parent_locs[static_cast<size_t>(of[n])]) return {};
  return of;
}

// Takes the samples the filter dropped out of the cum sums (each node once per sample).
void subtract_dropped(const Profile& parent, const NodeTable& t, const std::vector<uint8_t>& kept,
                      std::vector<int64_t>& cum) {
  const size_t nt = parent.num_types();
  std::vector<uint32_t> seen(t.size(), 0);
  uint32_t stamp = 0;
  for (size_t s = 0; s < kept.size(); ++s) {
    if (kept[s]) continue;
    const int64_t* v = parent.values.data() + s * nt;
    ++stamp;
    for (int64_t i = parent.stack_offsets[s]; i < parent.stack_offsets[s + 1]; ++i) {
      const size_t loc = static_cast<size_t>(parent.stack_locations[static_cast<size_t>(i)]);
      for (int64_t j = t.loc_node_offsets[loc]; j < t.loc_node_offsets[loc + 1]; ++j) {
        const size_t n = static_cast<size_t>(t.loc_nodes[static_cast<size_t>(j)]);
        if (seen[n] == stamp) continue;
        seen[n] = stamp;
        int64_t* c = cum.data() + n * nt;
        for (size_t k = 0; k < nt; ++k) c[k] = wrapping_sub(c[k], v[k]);
      }
    }
  }
}

// Flat per node and the label bits of samples [first, last) of `p` (with
// `rows`, of the samples rows[first, last) of p, their stacks without the
// locations `hidden` marks when not null), as aggregate's pass finds them; a
// location without an inlined node is passed over in one step (it can only
// add an edge into a node that is never inline).
void flat_and_labels(const Profile& p, const uint32_t* rows, const uint8_t* hidden, const NodeTable& t,
                     const SumContext& c, size_t first, size_t last, SampleSums& out) {
  const size_t nt = c.nt;
  out.flat.assign(c.nn * nt, 0);
  out.noinline_in.assign(c.nn, 0);
  for (size_t i = first; i < last; ++i) {
    const size_t s = rows ? rows[i] : i;
    const int64_t* v = p.values.data() + s * nt;
    bool nonzero = false;
    for (size_t k = 0; k < nt; ++k) nonzero |= v[k] != 0;
    int64_t sb = p.stack_offsets[s];
    const int64_t se = p.stack_offsets[s + 1];
    if (hidden)  // the kept sample's leaf is its first location left
      while (sb < se && hidden[static_cast<size_t>(p.stack_locations[static_cast<size_t>(sb)])]) ++sb;
    if (!nonzero || sb == se) continue;
    const size_t leaf_loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(sb)]);
    const size_t leaf = static_cast<size_t>(t.loc_nodes[static_cast<size_t>(t.loc_node_offsets[leaf_loc])]);
    int64_t* f = out.flat.data() + leaf * nt;
    for (size_t k = 0; k < nt; ++k) f[k] = wrapping_add(f[k], v[k]);
    const uint64_t bits = sample_label_bits(c, v);
    if (!bits) continue;
    int32_t parent = -1;
    for (int64_t i = se - 1; i >= sb; --i) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      if (hidden && hidden[loc]) continue;
      const int64_t nb = t.loc_node_offsets[loc], ne = t.loc_node_offsets[loc + 1];
      if (!c.holds_inline[loc]) {
        parent = t.loc_nodes[static_cast<size_t>(nb)];  // its innermost node
        continue;
      }
      for (int64_t j = ne - 1; j >= nb; --j) {
        const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
        const size_t nr = static_cast<size_t>(n);
        if (parent >= 0 && parent != n) {
          const bool is_inline = j != ne - 1;
          if (!is_inline) out.noinline_in[nr] |= bits;
          if (c.inline_capable[nr]) (is_inline ? out.edge_inline : out.edge_plain)[out.edge_row(parent, n)] |= bits;
        }
        parent = n;
      }
    }
  }
}

// sums_fit (aggregate.hpp) of the samples `rows` of p.
bool rows_sums_fit(const Profile& p, const std::vector<uint32_t>& rows, size_t type) {
  const size_t nt = p.num_types();
  int64_t sum = 0;
  for (uint32_t s : rows) {
    const int64_t v = p.values[s * nt + type];
    if (v == std::numeric_limits<int64_t>::min() || !checked_add(sum, v < 0 ? -v : v)) return false;
  }
  return true;
}

}  // namespace

std::optional<NodeTable> derived_aggregate(const Profile& child, bool deferred, const Profile& parent,
                                           const NodeTable& parent_t, const std::vector<uint8_t>& kept,
                                           const std::vector<uint8_t>& hidden, const AggregateOptions& opt) {
  const size_t nt = parent.num_types(), nloc = parent.locations.size();
  if (kept.size() != parent.num_samples() || (!hidden.empty() && hidden.size() != nloc))
    throw InternalError("derived_aggregate: the masks do not fit the input profile");
  // A deferred output's samples are parent's `rows`, read without the hidden locations.
  const Profile* child_p = deferred ? nullptr : &child;
  const uint8_t* skip = deferred && !hidden.empty() ? hidden.data() : nullptr;
  std::vector<uint32_t> rows;
  if (!child_p)
    for (size_t s = 0; s < kept.size(); ++s)
      if (kept[s]) rows.push_back(static_cast<uint32_t>(s));
  const size_t ns = child_p ? child.num_samples() : rows.size();
  if (child.num_types() != nt || child.locations.size() != nloc || parent_t.n_types != nt ||
      parent_t.loc_node_offsets.size() != nloc + 1 || parent_t.flat.size() != parent_t.size() * nt ||
      static_cast<size_t>(std::count(kept.begin(), kept.end(), 1)) != ns)
    throw InternalError("derived_aggregate: the profile is not its input filtered, or the table not the input's");
  size_t dropped_frames = 0;
  for (size_t s = 0; s < kept.size(); ++s)
    if (!kept[s]) dropped_frames += static_cast<size_t>(parent.stack_offsets[s + 1] - parent.stack_offsets[s]);
  // (A deferred output's count holds its hidden frames: a bound, enough to choose by.)
  const size_t child_frames = child_p ? child.stack_locations.size() : parent.stack_locations.size() - dropped_frames;
  if (dropped_frames > child_frames) return std::nullopt;  // summing the kept ones costs less

  // The child's nodes: the parent's when no line left a location (the same
  // tables give the same rows), else found from the child's few locations.
  NodeTable t;
  if (child.locations.line_offsets == parent.locations.line_offsets) {
    t = parent_t;  // its sums and labels are found again below
    t.inline_labels_by_type.clear();
  } else {
    AggregateOptions nodes_only = opt;
    nodes_only.sums = false;
    t = aggregate(child, nodes_only);
  }
  const std::vector<int32_t> of = parent_nodes(child, t, parent, parent_t, hidden);
  if (of.empty()) return std::nullopt;
  const size_t nn = t.size();
  t.sums_overflow.assign(nt, 0);
  for (size_t k = 0; ns && k < nt; ++k)
    t.sums_overflow[k] = (child_p ? sums_fit(child, k) : rows_sums_fit(parent, rows, k)) ? 0 : 1;

  // A child node is in a kept sample's stack exactly when its parent node was.
  std::vector<int64_t> parent_cum = parent_t.cum;
  subtract_dropped(parent, parent_t, kept, parent_cum);
  t.cum.assign(nn * nt, 0);
  for (size_t n = 0; n < nn; ++n)
    if (of[n] >= 0)
      std::copy_n(parent_cum.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(of[n]) * nt), nt,
                  t.cum.begin() + static_cast<ptrdiff_t>(n * nt));

  sum_into(t, nn, ns, opt, [&](const SumContext& c, size_t first, size_t last, SampleSums& out) {
    flat_and_labels(child_p ? child : parent, child_p ? nullptr : rows.data(), skip, t, c, first, last, out);
  });
  return t;
}

}  // namespace pprofcore
