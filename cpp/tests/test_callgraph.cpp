// C++ unit tests of callgraph: flat/cum once per sample, edges, residual edges
// over dropped nodes, flat only on kept leaves, label tags.
#include "check.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/callgraph.hpp"
#include "pprofcore/errors.hpp"

using namespace pprofcore;

// main -> mid -> leaf (5), main -> leaf (2), main -> mid -> mid (recursion, 1) with labels on the first.
static Profile graph_profile() {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  p.functions.id = {1, 2, 3};
  p.functions.name = {s.intern("main"), s.intern("mid"), s.intern("leaf")};
  p.functions.system_name = p.functions.name;
  p.functions.filename = {0, 0, 0};
  p.functions.start_line = {0, 0, 0};
  p.locations.id = {1, 2, 3};
  p.locations.mapping = {-1, -1, -1};
  p.locations.address = {0, 0, 0};
  p.locations.is_folded = {0, 0, 0};
  p.locations.line_offsets = {0, 1, 2, 3};
  p.lines.function = {0, 1, 2};
  p.lines.line = {1, 2, 3};
  p.lines.column = {0, 0, 0};
  p.values = {5, 2, 1};
  p.stack_offsets = {0, 3, 5, 8};
  p.stack_locations = {2, 1, 0, 2, 0, 1, 1, 0};
  p.labels.key = {s.intern("tenant"), s.intern("bytes")};
  p.labels.str = {s.intern("acme"), -1};
  p.labels.num = {0, 4096};
  p.labels.num_unit = {0, 0};
  p.label_offsets = {0, 2, 2, 2};
  p.strings = s.take();
  return p;
}

static int edge(const CallGraph& g, int a, int b) {
  for (size_t e = 0; e < g.src.size(); ++e)
    if (g.src[e] == a && g.dst[e] == b) return static_cast<int>(e);
  return -1;
}

TEST(full_graph) {
  Profile p = graph_profile();
  NodeTable t = aggregate(p, AggregateOptions{});
  CallGraph g = build_call_graph(p, t, 0, {}, 0);
  const int main_ = check::node_row(t, "main"), mid = check::node_row(t, "mid"), leaf = check::node_row(t, "leaf");
  EXPECT(g.cum[static_cast<size_t>(main_)] == 8 && g.flat[static_cast<size_t>(main_)] == 0);
  EXPECT(g.cum[static_cast<size_t>(mid)] == 6);  // once per sample despite recursion
  EXPECT(g.flat[static_cast<size_t>(leaf)] == 7 && g.flat[static_cast<size_t>(mid)] == 1);
  EXPECT(g.weight[static_cast<size_t>(edge(g, main_, mid))] == 6);
  EXPECT(g.weight[static_cast<size_t>(edge(g, main_, leaf))] == 2);
  EXPECT(edge(g, mid, mid) < 0);  // no self edges
  EXPECT(g.residual[static_cast<size_t>(edge(g, main_, leaf))] == 0);
  // one string label set + one bytes value on leaf's flat
  EXPECT(g.tag_count[static_cast<size_t>(leaf)] == 2 && g.tag_count[static_cast<size_t>(main_)] == 0);
  EXPECT(build_call_graph(p, t, 0, {}, 6).tag_count[static_cast<size_t>(leaf)] == 0);  // below the cutoff
}

TEST(dropped_nodes_make_residual_edges) {
  Profile p = graph_profile();
  NodeTable t = aggregate(p, AggregateOptions{});
  const int main_ = check::node_row(t, "main"), mid = check::node_row(t, "mid"), leaf = check::node_row(t, "leaf");
  std::vector<uint8_t> kept(t.size(), 1);
  kept[static_cast<size_t>(mid)] = 0;
  CallGraph g = build_call_graph(p, t, 0, kept, 0);
  const int e = edge(g, main_, leaf);
  EXPECT(e >= 0 && g.weight[static_cast<size_t>(e)] == 7 && g.residual[static_cast<size_t>(e)] == 1);
  EXPECT(g.cum[static_cast<size_t>(mid)] == 0);
  // the recursion sample ends in a dropped node: no flat anywhere
  EXPECT(g.flat[static_cast<size_t>(main_)] == 0 && g.flat[static_cast<size_t>(leaf)] == 7);
}

TEST(bad_arguments_throw) {
  Profile p = graph_profile();
  NodeTable t = aggregate(p, AggregateOptions{});
  bool threw = false;
  try {
    build_call_graph(p, t, 0, std::vector<uint8_t>(1, 1), 0);
  } catch (const InternalError&) {  // a mask of the wrong length is a caller bug
    threw = true;
  }
  EXPECT(threw);
}

int main() { return check::run_all(); }
