// C++ unit tests of graph_trim: the entropy order's ties and the removal of a
// residual edge whose destination is reached another way; bad sizes refused.
// tests/views/test_graph_trim.py holds both to pprof's steps on random graphs.
#include "check.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/graph_trim.hpp"

using namespace pprofcore;

struct Edge {
  int32_t src, dst;
  int64_t weight;
  bool residual;
};

static CallGraph graph(std::vector<int64_t> flat, std::vector<int64_t> cum, const std::vector<Edge>& edges) {
  CallGraph g;
  g.flat = std::move(flat);
  g.cum = std::move(cum);
  for (const Edge& e : edges) {
    g.src.push_back(e.src);
    g.dst.push_back(e.dst);
    g.weight.push_back(e.weight);
    g.residual.push_back(e.residual ? 1 : 0);
  }
  return g;
}

// a -> b -> c (10 each) and a residual a ... c (3): c is reached from a through b.
static CallGraph triangle() {
  return graph({0, 0, 10}, {13, 10, 13}, {{0, 1, 10, false}, {1, 2, 10, false}, {0, 2, 3, true}});
}

TEST(redundant_residual_edge_is_dropped) {
  const CallGraph g = triangle();
  const std::vector<int32_t> ranks{0, 1, 2};
  const std::vector<int32_t> order = entropy_order(g, {0, 1, 2}, {1, 1, 1}, ranks);
  EXPECT(order.size() == 3);
  std::vector<uint8_t> keep{1, 1, 1};
  remove_redundant_edges(g, order, keep, ranks);
  EXPECT((keep == std::vector<uint8_t>{1, 1, 0}));
  keep = {1, 0, 1};  // without b -> c the residual edge is the only way
  remove_redundant_edges(g, order, keep, ranks);
  EXPECT((keep == std::vector<uint8_t>{1, 0, 1}));
}

TEST(equal_scores_order_by_name_then_flat) {
  const CallGraph g = graph({1, 5, 5}, {1, 5, 5}, {});
  const std::vector<int32_t> order = entropy_order(g, {0, 1, 2}, {}, {1, 0, 0});
  // No edges: each score is 2 * cum + flat; 1 and 2 tie on score and name.
  EXPECT((order == std::vector<int32_t>{1, 2, 0}));
}

TEST(bad_sizes_throw) {
  const CallGraph g = triangle();
  EXPECT_THROWS(entropy_order(g, {0}, {1, 1, 1}, {0, 1}), InternalError, "name_rank");
  EXPECT_THROWS(entropy_order(g, {0}, {1}, {0, 1, 2}), InternalError, "keep_edge");
  EXPECT_THROWS(entropy_order(g, {7}, {1, 1, 1}, {0, 1, 2}), InternalError, "node");
  std::vector<uint8_t> keep{1, 1, 1};
  EXPECT_THROWS(remove_redundant_edges(g, {0, 1, 9}, keep, {0, 1, 2}), InternalError, "node");
  CallGraph no_flags = g;
  no_flags.residual.clear();
  EXPECT_THROWS(remove_redundant_edges(no_flags, {0, 1, 2}, keep, {0, 1, 2}), InternalError, "residual");
}

int main() { return check::run_all(); }
