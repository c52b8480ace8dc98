// graph_trim: pprof's EntropyOrder and RemoveRedundantEdges on a CallGraph.
#include "pprofcore/graph_trim.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pprofcore/arith.hpp"
#include "pprofcore/errors.hpp"

namespace pprofcore {

namespace {

int64_t abs64(int64_t v) { return v < 0 ? wrapping_sub(0, v) : v; }
uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

// Go's int64(x) on amd64: NaN and out-of-range values become the minimum int64.
int64_t go_int64(double x) {
  if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(x);
}

// pprof's edgeEntropyScore: -sum(frac * log2(frac)) over the weights and the
// node's own positive value. Zero and negative fractions give NaN, as in Go.
double edge_entropy(const std::vector<int64_t>& weights, int64_t self) {
  int64_t total = self;
  for (int64_t w : weights)
    if (w > 0) total = wrapping_add(total, w);
  double score = 0;
  if (total == 0) return score;
  auto term = [&](int64_t v) {
    const double frac = static_cast<double>(abs64(v)) / static_cast<double>(total);
    score += -frac * std::log2(frac);
  };
  for (int64_t w : weights) term(w);
  if (self > 0) term(self);
  return score;
}

void check_graph(const CallGraph& g, const std::vector<uint8_t>& keep_edge, const std::vector<int32_t>& name_rank) {
  if (keep_edge.size() != g.src.size() || g.dst.size() != g.src.size() || g.weight.size() != g.src.size())
    throw InternalError("keep_edge must have one entry per edge");
  if (name_rank.size() != g.flat.size() || g.cum.size() != g.flat.size())
    throw InternalError("name_rank must have one entry per node");
  for (size_t e = 0; e < g.src.size(); ++e)
    if (g.src[e] < 0 || g.dst[e] < 0 || static_cast<size_t>(g.src[e]) >= g.flat.size() ||
        static_cast<size_t>(g.dst[e]) >= g.flat.size())
      throw InternalError("edge endpoint outside the graph's nodes");
}

void check_nodes(const CallGraph& g, const std::vector<int32_t>& nodes) {
  for (int32_t n : nodes)
    if (n < 0 || static_cast<size_t>(n) >= g.flat.size()) throw InternalError("node outside the graph");
}

}  // namespace

std::vector<int32_t> entropy_order(const CallGraph& g, const std::vector<int32_t>& nodes,
                                   const std::vector<uint8_t>& keep_edge, const std::vector<int32_t>& name_rank) {
  check_graph(g, keep_edge, name_rank);
  check_nodes(g, nodes);
  const size_t nn = g.flat.size();
  std::vector<std::vector<int64_t>> ins(nn), outs(nn);  // live edge weights, in edge order
  for (size_t e = 0; e < g.src.size(); ++e) {
    if (!keep_edge[e]) continue;
    outs[static_cast<size_t>(g.src[e])].push_back(g.weight[e]);
    ins[static_cast<size_t>(g.dst[e])].push_back(g.weight[e]);
  }
  std::vector<int64_t> score(nn, 0);
  for (int32_t n : nodes) {
    const size_t r = static_cast<size_t>(n);
    double s = 0;
    s += ins[r].empty() ? 1.0 : edge_entropy(ins[r], 0);
    s += outs[r].empty() ? 1.0 : edge_entropy(outs[r], g.flat[r]);
    score[r] = wrapping_add(go_int64(s * static_cast<double>(g.cum[r])), g.flat[r]);
  }
  std::vector<int32_t> order(nodes);
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const size_t x = static_cast<size_t>(a), y = static_cast<size_t>(b);
    const int64_t sa = abs64(score[x]), sb = abs64(score[y]);
    if (sa != sb) return sa > sb;
    if (name_rank[x] != name_rank[y]) return name_rank[x] < name_rank[y];
    const uint64_t fa = magnitude(g.flat[x]), fb = magnitude(g.flat[y]);
    if (fa != fb) return fa > fb;
    return a < b;
  });
  return order;
}

void remove_redundant_edges(const CallGraph& g, const std::vector<int32_t>& order, std::vector<uint8_t>& keep_edge,
                            const std::vector<int32_t>& name_rank) {
  check_graph(g, keep_edge, name_rank);
  check_nodes(g, order);
  if (g.residual.size() != g.src.size()) throw InternalError("residual must have one entry per edge");
  const size_t nn = g.flat.size();
  std::vector<std::vector<int32_t>> ins(nn);  // live in-edges, in edge order
  for (size_t e = 0; e < g.src.size(); ++e)
    if (keep_edge[e]) ins[static_cast<size_t>(g.dst[e])].push_back(static_cast<int32_t>(e));
  std::vector<uint32_t> seen(nn, 0);  // stamp of the search that met the node
  uint32_t stamp = 0;
  std::vector<int32_t> queue;
  // Is `edge`'s destination reached from its source through other live edges?
  auto reachable_without = [&](int32_t edge) {
    const int32_t from = g.src[static_cast<size_t>(edge)];
    ++stamp;
    queue.assign(1, g.dst[static_cast<size_t>(edge)]);
    seen[static_cast<size_t>(queue[0])] = stamp;
    for (size_t head = 0; head < queue.size(); ++head) {
      for (int32_t e : ins[static_cast<size_t>(queue[head])]) {
        const int32_t s = g.src[static_cast<size_t>(e)];
        if (e == edge || seen[static_cast<size_t>(s)] == stamp) continue;
        if (s == from) return true;
        seen[static_cast<size_t>(s)] = stamp;
        queue.push_back(s);
      }
    }
    return false;
  };
  std::vector<int32_t> edges;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    auto& in = ins[static_cast<size_t>(*it)];
    edges = in;
    std::stable_sort(edges.begin(), edges.end(), [&](int32_t a, int32_t b) {
      const size_t x = static_cast<size_t>(a), y = static_cast<size_t>(b);
      const uint64_t wa = magnitude(g.weight[x]), wb = magnitude(g.weight[y]);
      if (wa != wb) return wa > wb;
      const int32_t ca = name_rank[static_cast<size_t>(g.src[x])], cb = name_rank[static_cast<size_t>(g.src[y])];
      if (ca != cb) return ca < cb;
      return name_rank[static_cast<size_t>(g.dst[x])] < name_rank[static_cast<size_t>(g.dst[y])];
    });
    for (auto e = edges.rbegin(); e != edges.rend(); ++e) {
      if (!g.residual[static_cast<size_t>(*e)]) break;
      if (reachable_without(*e)) {
        keep_edge[static_cast<size_t>(*e)] = 0;
        in.erase(std::find(in.begin(), in.end(), *e));
      }
    }
  }
}

}  // namespace pprofcore
