// C++ unit tests of graph_layout: layers follow the edges, a cycle is drawn
// with one edge upward, routes start and end on their boxes, bad input throws.
#include "check.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/graph_layout.hpp"

using namespace pprofcore;

TEST(chain_and_long_edge) {
  // 0 -> 1 -> 2 and 0 -> 2: the long edge crosses layer 1 through one point
  const GraphLayout g = layered_layout({40, 40, 40}, {20, 20, 20}, {0, 1, 0}, {1, 2, 2});
  EXPECT(g.rank == std::vector<int32_t>({0, 1, 2}));
  EXPECT(g.y[0] < g.y[1] && g.y[1] < g.y[2]);
  EXPECT(g.point_offsets == std::vector<int64_t>({0, 2, 4, 7}));
  EXPECT(g.py[0] == g.y[0] + 10 && g.py[1] == g.y[1] - 10);
  EXPECT(g.py[6] == g.y[2] - 10);
  for (uint8_t u : g.upward) EXPECT(u == 0);
}

TEST(cycle_has_one_upward_edge) {
  const GraphLayout g = layered_layout({10, 10}, {10, 10}, {0, 1}, {1, 0});
  EXPECT(g.upward == std::vector<uint8_t>({0, 1}));
  EXPECT(g.py[2] == g.y[1] - 5 && g.py[3] == g.y[0] + 5);  // from the callee's top up to the caller's bottom
}

TEST(one_layer_boxes_keep_apart) {
  const GraphLayout g = layered_layout({30, 50, 20, 40}, {10, 10, 10, 10}, {0, 0, 0}, {1, 2, 3});
  EXPECT(g.x[1] + 25 + 18 <= g.x[2] - 10 + 1e-9 || g.x[2] + 10 + 18 <= g.x[1] - 25 + 1e-9);
  EXPECT(g.width > 30 + 50 + 20 + 40);
}

TEST(self_loop_and_empty_graph) {
  const GraphLayout g = layered_layout({10}, {10}, {0}, {0});
  EXPECT(g.point_offsets == std::vector<int64_t>({0, 4}));
  EXPECT(layered_layout({}, {}, {}, {}).x.empty());
}

TEST(bad_input_throws) {
  EXPECT_THROWS(layered_layout({1}, {1, 2}, {}, {}), ProfileError, "differ in length");
  EXPECT_THROWS(layered_layout({1}, {1}, {0}, {3}), ProfileError, "out of range");
  EXPECT_THROWS(layered_layout({-1}, {1}, {}, {}), ProfileError, "non-finite");
}

int main() { return check::run_all(); }
