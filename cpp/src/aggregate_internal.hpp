// aggregate_internal (private): what aggregate.cpp and aggregate_derived.cpp
// share. The per-sample label bits, the sums a pass over some samples adds up
// (flat, cum, the bits of the edges behind the inline labels) and the labels
// made from them. Not installed; only aggregate*.cpp include it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/fork_join.hpp"
#include "pprofcore/key_index.hpp"

namespace pprofcore::aggregate_detail {

// The label bit of a sample with any non-zero value.
inline constexpr uint64_t kAnyTypeBit = uint64_t{1} << 63;

// Per node of a table: whether it is an inlined frame somewhere; per
// location, whether it holds such a node (only their in-edges make labels).
struct InlinePlaces {
  std::vector<uint8_t> inline_capable, holds_inline;
};
InlinePlaces inline_places(const NodeTable& t, size_t nn);  // nn: the table's nodes

// What a pass over samples reads besides the profile and the node table
// (inline_capable and holds_inline: an InlinePlaces').
struct SumContext {
  size_t nt, nn;
  const uint8_t *inline_capable, *holds_inline;
  bool by_type;
  int label_type, label_div_type;
};

// The label bits of a sample whose values are `v` (0: it adds no edge). With
// at most kMaxInlineLabelTypes types: bit k when its value of type k is
// non-zero, kAnyTypeBit when any is; with more: bit 0 when it counts for the
// label type.
uint64_t sample_label_bits(const SumContext& c, const int64_t* v);

// What samples [first, last) add: flat and cum per node, the label bits of
// each node's non-inline in-edges, and of the edges into nodes that can be
// inline, keyed by (caller, callee) in order of first appearance.
struct SampleSums {
  std::vector<int64_t> flat, cum;  // either may be empty when a pass does not sum it
  std::vector<uint64_t> noinline_in;
  KeyIndex edge_index;
  std::vector<int32_t> edge_caller, edge_callee;
  std::vector<uint64_t> edge_inline, edge_plain;

  // The row of edge caller -> callee, added with no bits when new.
  size_t edge_row(int32_t caller, int32_t callee) {
    const int32_t row =
        edge_index.find_or_insert(KeyIndex::pair(caller, callee), static_cast<int32_t>(edge_callee.size()));
    if (row >= 0) return static_cast<size_t>(row);
    edge_caller.push_back(caller);
    edge_callee.push_back(callee);
    edge_inline.push_back(0);
    edge_plain.push_back(0);
    return edge_callee.size() - 1;
  }
};

// Notes the in-edge parent -> n of a sample with label bits `bits` (none
// from the root, between frames of one node, or without bits); `is_inline`
// when n is not its location's outermost frame.
inline void note_in_edge(const SumContext& c, SampleSums& out, int32_t parent, int32_t n, bool is_inline,
                         uint64_t bits) {
  if (!bits || parent < 0 || parent == n) return;
  const size_t nr = static_cast<size_t>(n);
  if (!is_inline) out.noinline_in[nr] |= bits;
  if (c.inline_capable[nr]) (is_inline ? out.edge_inline : out.edge_plain)[out.edge_row(parent, n)] |= bits;
}

// Parts a pass over `ns` samples is split into: one per core, each of at
// least opt.min_samples_per_thread samples.
inline size_t sample_parts(size_t ns, const AggregateOptions& opt) {
  return std::max<size_t>(1,
                          std::min<size_t>(hardware_threads(), ns / std::max<size_t>(1, opt.min_samples_per_thread)));
}

// Runs pass(context, first, last, out) over samples [0, ns) in parts on
// threads (as many as opt allows) and adds the parts in sample order (sums
// wrap as one pass would, edges keep their first appearance); sets t's flat,
// its cum when the pass sums it, and its inline labels. `nn`: t's nodes.
using SamplePass = std::function<void(const SumContext&, size_t, size_t, SampleSums&)>;
void sum_into(NodeTable& t, size_t nn, size_t ns, const AggregateOptions& opt, const SamplePass& pass);

// Sets t.inline_label (for opt's label type) of the table's `nn` nodes and t.inline_labels_by_type
// from the bits of `sums`, as report.TextItems labels nodes; all zero when
// `summed` is false (a table without sums).
void set_inline_labels(NodeTable& t, size_t nn, const SampleSums& sums, const AggregateOptions& opt, bool by_type,
                       bool summed);

}  // namespace pprofcore::aggregate_detail
