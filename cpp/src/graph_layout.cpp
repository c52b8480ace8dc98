// graph_layout: cycles broken by a depth-first search (its back edges point
// up), layers by longest path, one dummy vertex per layer a long edge crosses,
// barycenter sweeps keeping the order with the fewest crossings, then x from
// the average of a left- and a right-packed placement around the neighbours'
// mean, which keeps every layer's boxes apart.
#include "pprofcore/graph_layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>

#include "pprofcore/errors.hpp"

namespace pprofcore {

namespace {

void check_input(const std::vector<double>& width, const std::vector<double>& height, const std::vector<int32_t>& src,
                 const std::vector<int32_t>& dst) {
  if (width.size() != height.size()) throw ProfileError("layout: width and height differ in length");
  if (src.size() != dst.size()) throw ProfileError("layout: src and dst differ in length");
  for (size_t i = 0; i < width.size(); ++i)
    if (!(std::isfinite(width[i]) && std::isfinite(height[i]) && width[i] >= 0 && height[i] >= 0))
      throw ProfileError("layout: node " + std::to_string(i) + " has a negative or non-finite size");
  const auto n = static_cast<int64_t>(width.size());
  for (size_t e = 0; e < src.size(); ++e)
    if (src[e] < 0 || src[e] >= n || dst[e] < 0 || dst[e] >= n)
      throw ProfileError("layout: edge " + std::to_string(e) + " names a node out of range");
}

// Marks the edges a depth-first search (nodes and edges in input order) finds
// going back to a node on its stack: reversed, they leave a DAG.
std::vector<uint8_t> back_edges(size_t n, const std::vector<int32_t>& src, const std::vector<int32_t>& dst) {
  std::vector<std::vector<int32_t>> out(n);
  for (size_t e = 0; e < src.size(); ++e)
    if (src[e] != dst[e]) out[static_cast<size_t>(src[e])].push_back(static_cast<int32_t>(e));
  std::vector<uint8_t> state(n, 0), back(src.size(), 0);  // state: 0 new, 1 on the stack, 2 done
  std::vector<std::pair<int32_t, size_t>> stack;          // (node, next out-edge)
  for (size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    state[root] = 1;
    stack.emplace_back(static_cast<int32_t>(root), 0);
    while (!stack.empty()) {
      auto& [u, next] = stack.back();
      const auto& edges = out[static_cast<size_t>(u)];
      if (next == edges.size()) {
        state[static_cast<size_t>(u)] = 2;
        stack.pop_back();
        continue;
      }
      const int32_t e = edges[next++];
      const auto v = static_cast<size_t>(dst[static_cast<size_t>(e)]);
      if (state[v] == 1) {
        back[static_cast<size_t>(e)] = 1;
      } else if (state[v] == 0) {
        state[v] = 1;
        stack.emplace_back(static_cast<int32_t>(v), 0);
      }
    }
  }
  return back;
}

// The graph being laid out: the nodes, then the dummy vertices of long edges.
struct Layered {
  std::vector<int32_t> rank;
  std::vector<double> half_width, height;
  std::vector<std::vector<int32_t>> up, down;  // neighbours one layer above / below
  std::vector<std::vector<int32_t>> layers;    // vertices of each layer, in order
  std::vector<int64_t> chain_offsets{0};       // per edge: its vertices top to bottom
  std::vector<int32_t> chain;

  int32_t add_vertex(int32_t r, double hw, double h) {
    rank.push_back(r);
    half_width.push_back(hw);
    height.push_back(h);
    up.emplace_back();
    down.emplace_back();
    return static_cast<int32_t>(rank.size() - 1);
  }
  void link(int32_t a, int32_t b) {
    down[static_cast<size_t>(a)].push_back(b);
    up[static_cast<size_t>(b)].push_back(a);
  }
};

std::vector<int32_t> longest_path_ranks(size_t n, const std::vector<std::pair<int32_t, int32_t>>& dag) {
  std::vector<std::vector<int32_t>> out(n);
  std::vector<int32_t> indegree(n, 0), rank(n, 0);
  for (const auto& [a, b] : dag) {
    out[static_cast<size_t>(a)].push_back(b);
    ++indegree[static_cast<size_t>(b)];
  }
  std::vector<int32_t> queue;
  for (size_t v = 0; v < n; ++v)
    if (indegree[v] == 0) queue.push_back(static_cast<int32_t>(v));
  for (size_t i = 0; i < queue.size(); ++i) {
    const auto a = static_cast<size_t>(queue[i]);
    for (int32_t b : out[a]) {
      const auto bb = static_cast<size_t>(b);
      rank[bb] = std::max(rank[bb], rank[a] + 1);
      if (--indegree[bb] == 0) queue.push_back(b);
    }
  }
  return rank;
}

// Crossings between layers r and r+1: inversions of the lower ends once the
// segments are sorted by their upper ends (a Fenwick tree counts them).
int64_t crossings(const Layered& g, const std::vector<int32_t>& pos, size_t r) {
  std::vector<std::pair<int32_t, int32_t>> segs;
  for (int32_t a : g.layers[r])
    for (int32_t b : g.down[static_cast<size_t>(a)])
      segs.emplace_back(pos[static_cast<size_t>(a)], pos[static_cast<size_t>(b)]);
  std::sort(segs.begin(), segs.end());
  const size_t width = g.layers[r + 1].size();
  std::vector<int64_t> tree(width + 1, 0);
  int64_t count = 0, seen = 0;
  for (const auto& s : segs) {
    int64_t le = 0;  // segments so far whose lower end is at or left of this one's
    for (size_t i = static_cast<size_t>(s.second) + 1; i > 0; i -= i & (~i + 1)) le += tree[i];
    count += seen - le;
    for (size_t i = static_cast<size_t>(s.second) + 1; i <= width; i += i & (~i + 1)) ++tree[i];
    ++seen;
  }
  return count;
}

int64_t all_crossings(const Layered& g, const std::vector<int32_t>& pos) {
  int64_t c = 0;
  for (size_t r = 0; r + 1 < g.layers.size(); ++r) c += crossings(g, pos, r);
  return c;
}

void number_layer(const std::vector<int32_t>& layer, std::vector<int32_t>& pos) {
  for (size_t i = 0; i < layer.size(); ++i) pos[static_cast<size_t>(layer[i])] = static_cast<int32_t>(i);
}

// Barycenter sweeps: each layer sorted by its neighbours' mean position in
// the layer just placed; the order with the fewest crossings is kept.
void reduce_crossings(Layered& g, int sweeps) {
  std::vector<int32_t> pos(g.rank.size(), 0);
  for (const auto& layer : g.layers) number_layer(layer, pos);
  auto best = g.layers;
  int64_t best_count = all_crossings(g, pos);
  std::vector<std::pair<double, int32_t>> keyed;
  for (int s = 0; s < sweeps && best_count > 0; ++s) {
    const bool downward = s % 2 == 0;
    const size_t nl = g.layers.size();
    for (size_t k = 1; k < nl; ++k) {
      const size_t r = downward ? k : nl - 1 - k;
      auto& layer = g.layers[r];
      keyed.clear();
      for (int32_t v : layer) {
        const auto& nb = downward ? g.up[static_cast<size_t>(v)] : g.down[static_cast<size_t>(v)];
        double key = pos[static_cast<size_t>(v)];
        if (!nb.empty()) {
          double sum = 0;
          for (int32_t u : nb) sum += pos[static_cast<size_t>(u)];
          key = sum / static_cast<double>(nb.size());
        }
        keyed.emplace_back(key, v);
      }
      std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < layer.size(); ++i) layer[i] = keyed[i].second;
      number_layer(layer, pos);
    }
    const int64_t c = all_crossings(g, pos);
    if (c < best_count) {
      best_count = c;
      best = g.layers;
    }
  }
  g.layers = std::move(best);
}

// x per vertex: each pass moves a layer towards its neighbours' mean x, as the
// average of the placement packed from the left and the one packed from the
// right (both keep the gaps, so their average does too).
std::vector<double> assign_x(const Layered& g, const LayoutOptions& o) {
  std::vector<double> x(g.rank.size(), 0);
  auto gap = [&](int32_t a, int32_t b) {
    return g.half_width[static_cast<size_t>(a)] + g.half_width[static_cast<size_t>(b)] + o.node_gap;
  };
  for (const auto& layer : g.layers)
    for (size_t i = 1; i < layer.size(); ++i)
      x[static_cast<size_t>(layer[i])] = x[static_cast<size_t>(layer[i - 1])] + gap(layer[i - 1], layer[i]);
  std::vector<double> want, left, right;
  const size_t nl = g.layers.size();
  for (int pass = 0; pass < 16; ++pass) {
    const bool downward = pass % 2 == 0, both = pass >= 14;
    for (size_t k = 0; k < nl; ++k) {
      const auto& layer = g.layers[downward ? k : nl - 1 - k];
      const size_t m = layer.size();
      want.assign(m, 0);
      for (size_t i = 0; i < m; ++i) {
        const auto v = static_cast<size_t>(layer[i]);
        double sum = 0;
        size_t count = 0;
        for (int pick = 0; pick < 2; ++pick) {
          if (!both && (pick == 0) != downward) continue;
          for (int32_t u : pick == 0 ? g.up[v] : g.down[v]) {
            sum += x[static_cast<size_t>(u)];
            ++count;
          }
        }
        want[i] = count ? sum / static_cast<double>(count) : x[v];
      }
      left.assign(m, 0);
      right.assign(m, 0);
      for (size_t i = 0; i < m; ++i)
        left[i] = i == 0 ? want[i] : std::max(want[i], left[i - 1] + gap(layer[i - 1], layer[i]));
      for (size_t i = m; i-- > 0;)
        right[i] = i + 1 == m ? want[i] : std::min(want[i], right[i + 1] - gap(layer[i], layer[i + 1]));
      for (size_t i = 0; i < m; ++i) x[static_cast<size_t>(layer[i])] = (left[i] + right[i]) / 2;
    }
  }
  return x;
}

// Where an edge leaves (bottom of `a`) or enters (top of `b`) a box: ports
// spread over the middle of the side in the order of the other ends' x.
double port(const Layered& g, const std::vector<double>& x, int32_t v, int32_t other, bool below) {
  const auto& nb = below ? g.down[static_cast<size_t>(v)] : g.up[static_cast<size_t>(v)];
  const double ox = x[static_cast<size_t>(other)];
  size_t before = 0, k = 0;
  for (int32_t u : nb) {
    const double ux = x[static_cast<size_t>(u)];
    if (ux < ox || (ux == ox && u < other)) ++before;
    if (u != other) ++k;
  }
  const double share = (static_cast<double>(before) + 1) / (static_cast<double>(k) + 2) - 0.5;
  return x[static_cast<size_t>(v)] + share * 1.2 * g.half_width[static_cast<size_t>(v)];
}

}  // namespace

GraphLayout layered_layout(const std::vector<double>& width, const std::vector<double>& height,
                           const std::vector<int32_t>& src, const std::vector<int32_t>& dst, const LayoutOptions& o) {
  check_input(width, height, src, dst);
  const size_t n = width.size(), m = src.size();
  GraphLayout out;
  out.upward = back_edges(n, src, dst);
  std::vector<std::pair<int32_t, int32_t>> dag;  // per non-loop edge, (top, bottom)
  for (size_t e = 0; e < m; ++e)
    if (src[e] != dst[e]) dag.emplace_back(out.upward[e] ? dst[e] : src[e], out.upward[e] ? src[e] : dst[e]);
  const std::vector<int32_t> rank = longest_path_ranks(n, dag);

  Layered g;
  for (size_t v = 0; v < n; ++v) g.add_vertex(rank[v], width[v] / 2, height[v]);
  size_t next = 0;
  for (size_t e = 0; e < m; ++e) {
    if (src[e] != dst[e]) {
      auto [a, b] = dag[next++];
      g.chain.push_back(a);
      int32_t prev = a;
      for (int32_t r = rank[static_cast<size_t>(a)] + 1; r < rank[static_cast<size_t>(b)]; ++r) {
        const int32_t d = g.add_vertex(r, 0, 0);
        g.link(prev, d);
        g.chain.push_back(d);
        prev = d;
      }
      g.link(prev, b);
      g.chain.push_back(b);
    }
    g.chain_offsets.push_back(static_cast<int64_t>(g.chain.size()));
  }
  const int32_t top_rank = n ? *std::max_element(rank.begin(), rank.end()) : -1;
  g.layers.resize(static_cast<size_t>(top_rank + 1));
  for (size_t v = 0; v < g.rank.size(); ++v)
    g.layers[static_cast<size_t>(g.rank[v])].push_back(static_cast<int32_t>(v));
  reduce_crossings(g, o.sweeps);
  std::vector<double> x = assign_x(g, o);

  // Layer tops: each layer as tall as its tallest box.
  std::vector<double> layer_top(g.layers.size(), o.margin), layer_height(g.layers.size(), 0);
  for (size_t v = 0; v < g.rank.size(); ++v) {
    auto& h = layer_height[static_cast<size_t>(g.rank[v])];
    h = std::max(h, g.height[v]);
  }
  for (size_t r = 1; r < g.layers.size(); ++r) layer_top[r] = layer_top[r - 1] + layer_height[r - 1] + o.rank_gap;
  std::vector<double> y(g.rank.size());
  for (size_t v = 0; v < g.rank.size(); ++v) {
    const auto r = static_cast<size_t>(g.rank[v]);
    y[v] = layer_top[r] + layer_height[r] / 2;
  }
  double left = 0;
  for (size_t v = 0; v < g.rank.size(); ++v) left = std::min(left, x[v] - g.half_width[v]);
  for (auto& xv : x) xv += o.margin - left;

  out.point_offsets.push_back(0);
  auto add_point = [&](double px, double py) {
    out.px.push_back(px);
    out.py.push_back(py);
  };
  for (size_t e = 0; e < m; ++e) {
    const auto s = static_cast<size_t>(src[e]);
    if (src[e] == dst[e]) {  // a loop on the right side of the box
      const double r = x[s] + g.half_width[s], q = g.height[s] / 4;
      add_point(r, y[s] - q);
      add_point(r + 20, y[s] - q);
      add_point(r + 20, y[s] + q);
      add_point(r, y[s] + q);
    } else {
      const int64_t b = g.chain_offsets[e], end = g.chain_offsets[e + 1];
      const size_t first = out.px.size();
      for (int64_t i = b; i < end; ++i) {
        const int32_t v = g.chain[static_cast<size_t>(i)];
        const auto vv = static_cast<size_t>(v);
        if (i == b) {
          add_point(port(g, x, v, g.chain[static_cast<size_t>(i + 1)], true), y[vv] + g.height[vv] / 2);
        } else if (i + 1 == end) {
          add_point(port(g, x, v, g.chain[static_cast<size_t>(i - 1)], false), y[vv] - g.height[vv] / 2);
        } else {
          add_point(x[vv], y[vv]);
        }
      }
      if (out.upward[e]) {  // routed top to bottom; listed from the caller
        std::reverse(out.px.begin() + static_cast<std::ptrdiff_t>(first), out.px.end());
        std::reverse(out.py.begin() + static_cast<std::ptrdiff_t>(first), out.py.end());
      }
    }
    out.point_offsets.push_back(static_cast<int64_t>(out.px.size()));
  }
  out.x.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
  out.y.assign(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n));
  out.rank = rank;
  double right = 0, bottom = 0;
  for (size_t v = 0; v < g.rank.size(); ++v) {
    right = std::max(right, x[v] + g.half_width[v]);
    bottom = std::max(bottom, y[v] + g.height[v] / 2);
  }
  for (double px : out.px) right = std::max(right, px);
  out.width = right + o.margin;
  out.height = bottom + o.margin;
  return out;
}

}  // namespace pprofcore
