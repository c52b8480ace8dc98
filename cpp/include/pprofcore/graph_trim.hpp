// graph_trim: pprof's ordering and trimming steps over a built call graph
// (graph.go's EntropyOrder and RemoveRedundantEdges), after build_call_graph.
// Names are compared through ranks the caller gives (rank[n] orders node n's
// printable name; equal names share a rank). Node selection (nodefraction,
// nodecount) and low-weight edge trimming stay with the caller.
#pragma once
#include <cstdint>
#include <vector>

#include "pprofcore/callgraph.hpp"

namespace pprofcore {

// The graph's `nodes` in pprof's entropy order: |score| descending (wrapping,
// as Go's abs64), then name rank, then |flat| descending, then row. A node's
// score weighs its cum by how evenly its live callers and callees (and its own
// flat) share it; `keep_edge` marks the live edges of g.
std::vector<int32_t> entropy_order(const CallGraph& g, const std::vector<int32_t>& nodes,
                                   const std::vector<uint8_t>& keep_edge, const std::vector<int32_t>& name_rank);

// Clears keep_edge of residual edges whose destination is still reached from
// their source another way: per node from the last of `order`, its live
// in-edges lightest first (ties by caller then callee name, then row) until the
// first edge that is not residual.
void remove_redundant_edges(const CallGraph& g, const std::vector<int32_t>& order, std::vector<uint8_t>& keep_edge,
                            const std::vector<int32_t>& name_rank);

}  // namespace pprofcore
