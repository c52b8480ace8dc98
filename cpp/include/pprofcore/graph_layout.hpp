// graph_layout: a layered (Sugiyama) drawing of a directed graph, top-down,
// for the explorer's call graph in place of Graphviz's `dot`. It owns cycle
// breaking, layering, crossing reduction, coordinates and edge routes; it does
// not know what the nodes are (their boxes' sizes come in) nor draw anything.
#pragma once
#include <cstdint>
#include <vector>

namespace pprofcore {

struct LayoutOptions {
  double rank_gap = 48;  // vertical space between two layers' boxes
  double node_gap = 18;  // horizontal space between two boxes (or edge routes) of a layer
  double margin = 8;     // around the drawing
  int sweeps = 12;       // crossing-reduction passes (alternately down and up)
};

struct GraphLayout {
  std::vector<double> x, y;     // per node, the centre of its box
  std::vector<int32_t> rank;    // per node, its layer (0 at the top)
  std::vector<uint8_t> upward;  // per edge: it closes a cycle, so it is drawn up the page
  // Per edge, its route (offsets n_edges+1 into px/py): from the caller's box
  // edge through one point per layer crossed to the callee's box edge; a
  // self-loop gets four points on the right of its box.
  std::vector<int64_t> point_offsets;
  std::vector<double> px, py;
  double width = 0, height = 0;  // of the whole drawing, margins included
};

// Lays out nodes 0..n-1 (boxes of `width` x `height`) and edges src[i] -> dst[i].
// Deterministic: the same input gives the same output; ties keep the input
// order, so nodes listed first (the heaviest, in pprof's order) go left.
// Boxes of one layer never overlap. Throws ProfileError on mismatched sizes,
// a node index out of range or a negative or non-finite size.
GraphLayout layered_layout(const std::vector<double>& width, const std::vector<double>& height,
                           const std::vector<int32_t>& src, const std::vector<int32_t>& dst,
                           const LayoutOptions& options = {});

}  // namespace pprofcore
