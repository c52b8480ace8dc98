// stacks_kept: every sample type's trimmed call tree of one profile, split
// once (kept_tree), so that a sample type switch reads the tree off it instead
// of splitting the samples again (emit_kept), and a filtered profile that
// keeps some samples unchanged (focus, ignore, label filters) gets its own by
// taking the dropped samples away (derive_kept_tree) instead of reading every
// frame of the kept ones. The split is stacks_pruned.cpp's, with every type's
// sums side by side and a lower bar (the slack), so that a child whose totals
// shrank still finds every node it keeps. Trees read off it equal the pruned
// build's column for column (cpp/tests/test_stacks.cpp,
// tests/views/test_flamegraph_kept_tree.py).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "pprofcore/arith.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/filter.hpp"
#include "stacks_internal.hpp"

namespace pprofcore {

namespace stacks {

int64_t start_pos(const Profile& p, size_t s, bool inverted) {
  return inverted ? p.stack_offsets[s] : p.stack_offsets[s + 1] - 1;
}

void add_row(int64_t* sums, int64_t* counts, const int64_t* v, size_t nt, int64_t sign) {
  for (size_t t = 0; t < nt; ++t) {
    sums[t] = sign > 0 ? wrapping_add(sums[t], v[t]) : wrapping_sub(sums[t], v[t]);
    if (counts && v[t] != 0) counts[t] += sign;
  }
}

int32_t add_node(KeptTree& k, int32_t parent, int32_t frame, int32_t depth, const int64_t* total,
                 const int64_t* count) {
  const size_t nt = k.sums.num_types;
  const int32_t id = static_cast<int32_t>(k.parent.size());
  k.parent.push_back(parent);
  k.frame.push_back(frame);
  k.depth.push_back(depth);
  k.child_begin.push_back(0);
  k.child_end.push_back(0);
  k.total.insert(k.total.end(), total, total + nt);
  k.count.insert(k.count.end(), count, count + nt);
  for (auto* v : {&k.self, &k.rest_total, &k.rest_count}) v->resize(v->size() + nt, 0);
  return id;
}

namespace {

// Whether a child with these sums stays: it reaches the bound of some type.
bool reaches_bound(const KeptTree& k, const int64_t* total) {
  for (size_t t = 0; t < k.bound.size(); ++t)
    if (total[t] != 0 && static_cast<double>(abs64(total[t])) >= k.bound[t]) return true;
  return false;
}

// The split: from the root down, each node's samples partitioned by their
// next frame; children below every bound are summed into the node's rest.
void split(const Profile& p, const SourceFrames& sf, std::vector<Walk>& walks, KeptTree& k) {
  const size_t nt = k.sums.num_types, nf = k.sums.num_frames;
  std::vector<Walk> scratch(walks.size());
  std::vector<int32_t> slot_of(nf, -1), child_frame, slot_at;
  std::vector<int64_t> child_total, child_count;
  std::vector<size_t> child_walks, fill;
  struct Work {
    int32_t node;
    size_t begin, end;
  };
  std::vector<Work> work{{0, 0, walks.size()}};
  while (!work.empty()) {
    const Work w = work.back();
    work.pop_back();
    const size_t node = static_cast<size_t>(w.node);
    const size_t d = static_cast<size_t>(k.depth[node]);
    child_frame.clear(), child_total.clear(), child_count.clear(), child_walks.clear();
    slot_at.resize(w.end - w.begin);
    for (size_t i = w.begin; i < w.end; ++i) {
      Walk& r = walks[i];
      if (i + kPrefetch < w.end) {  // the stack entry and the values ahead miss the cache
        __builtin_prefetch(sf.stack + walks[i + kPrefetch].pos);
        __builtin_prefetch(p.values.data() + walks[i + kPrefetch].sample * nt);
      }
      const int64_t* v = p.values.data() + r.sample * nt;
      if (static_cast<size_t>(r.len) == d) {
        add_row(&k.self[node * nt], nullptr, v, nt, 1);
        slot_at[i - w.begin] = -1;
        continue;
      }
      const int32_t f = next_frame(sf, r);
      int32_t& slot = slot_of[static_cast<size_t>(f)];
      if (slot < 0) {
        slot = static_cast<int32_t>(child_frame.size());
        child_frame.push_back(f);
        child_total.resize(child_total.size() + nt, 0);
        child_count.resize(child_count.size() + nt, 0);
        child_walks.push_back(0);
      }
      const size_t c = static_cast<size_t>(slot);
      add_row(&child_total[c * nt], &child_count[c * nt], v, nt, 1);
      ++child_walks[c];
      slot_at[i - w.begin] = slot;
    }
    for (const int32_t f : child_frame) slot_of[static_cast<size_t>(f)] = -1;

    // Children that stay get ids in a row and consecutive ranges of walks.
    const size_t first = k.parent.size();
    std::vector<int32_t> id_of(child_frame.size(), -1);
    fill.assign(child_frame.size(), 0);
    size_t at = w.begin;
    for (size_t c = 0; c < child_frame.size(); ++c) {
      const int64_t* tot = &child_total[c * nt];
      if (reaches_bound(k, tot)) {
        id_of[c] = add_node(k, w.node, child_frame[c], static_cast<int32_t>(d + 1), tot, &child_count[c * nt]);
        fill[c] = at;
        work.push_back(Work{id_of[c], at, at + child_walks[c]});
        at += child_walks[c];
      } else {
        add_row(&k.rest_total[node * nt], nullptr, tot, nt, 1);
        for (size_t t = 0; t < nt; ++t) k.rest_count[node * nt + t] += child_count[c * nt + t];
      }
    }
    k.child_begin[node] = static_cast<int32_t>(first);
    k.child_end[node] = static_cast<int32_t>(k.parent.size());
    for (size_t i = w.begin; i < w.end; ++i) {
      const int32_t c = slot_at[i - w.begin];
      if (c >= 0 && id_of[static_cast<size_t>(c)] >= 0) scratch[fill[static_cast<size_t>(c)]++] = walks[i];
    }
    std::copy(scratch.begin() + static_cast<std::ptrdiff_t>(w.begin), scratch.begin() + static_cast<std::ptrdiff_t>(at),
              walks.begin() + static_cast<std::ptrdiff_t>(w.begin));
  }
}

// Which of parent's samples the child kept (filter's matching_samples);
// false when some child sample has no parent sample left to match.
bool kept_rows(const Profile& child, const Profile& parent, std::vector<uint8_t>& kept) {
  bool ok = false;
  const std::vector<size_t> rows = matching_samples(child, parent, ok);
  if (!ok) return false;
  kept.assign(parent.num_samples(), 0);
  for (const size_t i : rows) kept[i] = 1;
  return true;
}

}  // namespace

void drop_sample(const Profile& p, const SourceFrames& sf, bool inverted, size_t s, int32_t len, KeptTree& k) {
  const size_t nt = k.sums.num_types;
  const int64_t* v = p.values.data() + s * nt;
  size_t node = 0;
  add_row(&k.total[0], &k.count[0], v, nt, -1);
  Walk r{start_pos(p, s, inverted), 0, len, s};
  for (int32_t d = 0;; ++d) {
    if (d == r.len) {
      add_row(&k.self[node * nt], nullptr, v, nt, -1);
      return;
    }
    const int32_t f = next_frame(sf, r);
    int32_t c = k.child_begin[node];
    while (c < k.child_end[node] && k.frame[static_cast<size_t>(c)] != f) ++c;
    if (c == k.child_end[node]) {
      add_row(&k.rest_total[node * nt], &k.rest_count[node * nt], v, nt, -1);
      return;
    }
    node = static_cast<size_t>(c);
    add_row(&k.total[node * nt], &k.count[node * nt], v, nt, -1);
  }
}

void emit_kept(const KeptTree& k, size_t type, double min_fraction, CallTree& out) {
  const size_t nt = k.sums.num_types, t = type - k.sums.first_type, nf = k.sums.num_frames;
  out.frame_name = k.frame_name;
  out.frame_file = k.frame_file;
  out.frame_line = k.frame_line;
  out.ellipsis_frame = -1;
  out.frame_self.resize(nf);
  out.frame_total.resize(nf);
  for (size_t f = 0; f < nf; ++f) {
    out.frame_self[f] = k.sums.fself[f * nt + t];
    out.frame_total[f] = k.sums.ftotal[f * nt + t];
  }
  out.frame_base_self.assign(nf, 0);
  out.frame_base_total.assign(nf, 0);
  const int64_t root = k.total[t];
  out.frame_total[0] = root;  // the root frame is on no path
  const TrimRule rule(min_fraction, root, 0, false);
  struct Item {
    int32_t node;  // -1: a "..." node
    int32_t out_parent, depth;
    int64_t total;
  };
  std::vector<Item> stack{{0, -1, 0, root}};
  std::vector<int32_t> keep;
  while (!stack.empty()) {
    const Item e = stack.back();
    stack.pop_back();
    const int32_t id = open_node(out, e.out_parent, e.depth, e.total, 0);
    out.base_self.push_back(0);
    if (e.node < 0) {
      out.frame.push_back(add_ellipsis(out));
      out.self.push_back(e.total);
      continue;
    }
    const size_t n = static_cast<size_t>(e.node);
    out.frame.push_back(k.frame[n]);
    out.self.push_back(k.self[n * nt + t]);
    int64_t merged = k.rest_total[n * nt + t];
    bool any_merged = k.rest_count[n * nt + t] != 0;
    keep.clear();
    for (int32_t c = k.child_begin[n]; c < k.child_end[n]; ++c) {
      const size_t i = static_cast<size_t>(c) * nt + t;
      if (k.count[i] == 0) continue;  // no sample of this type goes there
      if (rule.kept(k.total[i], 0)) {
        keep.push_back(c);
      } else {
        any_merged = true;
        merged = wrapping_add(merged, k.total[i]);
      }
    }
    std::sort(keep.begin(), keep.end(), [&](int32_t a, int32_t b) {
      const size_t i = static_cast<size_t>(a), j = static_cast<size_t>(b);
      return wider(k.total[i * nt + t], 0, out.frame_name[static_cast<size_t>(k.frame[i])], k.total[j * nt + t], 0,
                   out.frame_name[static_cast<size_t>(k.frame[j])]);
    });
    // Popped in sibling order, the "..." node last.
    if (any_merged) stack.push_back(Item{-1, id, e.depth + 1, merged});
    for (auto it = keep.rbegin(); it != keep.rend(); ++it)
      stack.push_back(Item{*it, id, e.depth + 1, k.total[static_cast<size_t>(*it) * nt + t]});
  }
}

KeptTree copy_but_lengths(const KeptTree& k) {
  KeptTree out;
  out.sums.profile = k.sums.profile;
  out.sums.nodes = k.sums.nodes;
  out.sums.inverted = k.sums.inverted;
  out.sums.first_type = k.sums.first_type;
  out.sums.num_types = k.sums.num_types;
  out.sums.num_frames = k.sums.num_frames;
  out.sums.fself = k.sums.fself;
  out.sums.ftotal = k.sums.ftotal;
  out.bound = k.bound;
  out.nonneg = k.nonneg;
  out.parent = k.parent, out.frame = k.frame, out.depth = k.depth;
  out.child_begin = k.child_begin, out.child_end = k.child_end;
  out.self = k.self, out.total = k.total, out.count = k.count;
  out.rest_total = k.rest_total, out.rest_count = k.rest_count;
  out.frame_name = k.frame_name, out.frame_file = k.frame_file, out.frame_line = k.frame_line;
  return out;
}

}  // namespace stacks

size_t KeptTree::bytes() const {
  return sums.bytes() + (parent.size() * 5) * sizeof(int32_t) +
         (self.size() + total.size() + count.size() + rest_total.size() + rest_count.size()) * sizeof(int64_t) +
         frame_name.data.size() + frame_file.data.size() + frame_line.size() * sizeof(int64_t);
}

bool KeptTree::covers(size_t type, double min_fraction) const {
  if (type < sums.first_type || type - sums.first_type >= bound.size() || parent.empty()) return false;
  const int64_t root = total[type - sums.first_type];
  if (root == 0 || !(min_fraction > 0.0)) return false;
  return min_fraction * static_cast<double>(stacks::abs64(root)) >= bound[type - sums.first_type];
}

KeptTree kept_tree(const Profile& p, const NodeTable& nodes, bool inverted, double min_fraction, double slack) {
  if (!(min_fraction > 0.0 && min_fraction <= 1.0)) throw ProfileError("kept_tree: min_fraction must be in (0, 1]");
  if (!(slack > 0.0 && slack <= 1.0)) throw ProfileError("kept_tree: slack must be in (0, 1]");
  KeptTree k;
  CallTree frames;
  stacks::SourceFrames sf;
  k.sums = stacks::all_type_sums(p, nodes, inverted, frames, sf);
  k.frame_name = std::move(frames.frame_name);
  k.frame_file = std::move(frames.frame_file);
  k.frame_line = std::move(frames.frame_line);
  const size_t nt = p.num_types(), ns = p.num_samples();
  std::vector<int64_t> root(nt, 0), count(nt, 0);
  k.nonneg.assign(nt, 1);
  for (size_t s = 0; s < ns; ++s) {
    const int64_t* v = p.values.data() + s * nt;
    stacks::add_row(root.data(), count.data(), v, nt, 1);
    for (size_t t = 0; t < nt; ++t)
      if (v[t] < 0) k.nonneg[t] = 0;
  }
  k.bound.assign(nt, stacks::kUncovered);
  for (size_t t = 0; t < nt; ++t)
    if (root[t] != 0) k.bound[t] = slack * (min_fraction * static_cast<double>(stacks::abs64(root[t])));
  stacks::add_node(k, -1, 0, 0, root.data(), count.data());
  if (ns >= std::numeric_limits<uint32_t>::max()) {  // 32-bit stamps of the pruned build: cover nothing
    k.bound.assign(nt, stacks::kUncovered);
    return k;
  }
  std::vector<stacks::Walk> walks;
  walks.reserve(ns);
  for (size_t s = 0; s < ns; ++s) {
    const int64_t* v = p.values.data() + s * nt;
    bool any = false;
    for (size_t t = 0; t < nt; ++t) any = any || (v[t] != 0 && k.bound[t] != stacks::kUncovered);
    if (any) walks.push_back(stacks::Walk{stacks::start_pos(p, s, inverted), 0, k.sums.len[s], s});
  }
  stacks::split(p, sf, walks, k);
  return k;
}

std::optional<KeptTree> derive_kept_tree(const Profile& child, const NodeTable& child_nodes, const KeptTree& parent,
                                         const std::vector<uint8_t>* kept_mask, bool deferred) {
  const Profile& p = *parent.sums.profile;
  const NodeTable& pn = *parent.sums.nodes;
  const size_t nt = p.num_types();
  if (deferred && !kept_mask) throw InternalError("derive_kept_tree: a deferred output needs its kept mask");
  if (parent.sums.tables_only || child.num_types() != nt || child.locations.size() != p.locations.size() ||
      child_nodes.loc_node_offsets != pn.loc_node_offsets || child_nodes.loc_nodes != pn.loc_nodes)
    return std::nullopt;
  // Walking the dropped samples must be cheaper than reading the kept ones.
  size_t child_entries = child.stack_locations.size(), child_samples = child.num_samples();
  if (deferred) {
    if (kept_mask->size() != p.num_samples())
      throw InternalError("derive_kept_tree: the kept mask does not fit the parent and child profiles");
    child_entries = child_samples = 0;
    for (size_t s = 0; s < p.num_samples(); ++s)
      if ((*kept_mask)[s]) {
        child_entries += static_cast<size_t>(p.stack_offsets[s + 1] - p.stack_offsets[s]);
        ++child_samples;
      }
  }
  if (child_entries * 2 < p.stack_locations.size()) return std::nullopt;
  CallTree frames;
  stacks::FrameTable table(frames);
  // Equal node tables give equal frame ids; the names must match too.
  const std::vector<int32_t> frame_of = stacks::frames_of(StackSource{&child, &child_nodes, 0}, table);
  if (!(frames.frame_name == parent.frame_name) || !(frames.frame_file == parent.frame_file) ||
      frames.frame_line != parent.frame_line)
    return std::nullopt;
  std::vector<uint8_t> matched;
  if (kept_mask) {
    const size_t n_kept =
        static_cast<size_t>(std::count_if(kept_mask->begin(), kept_mask->end(), [](uint8_t k) { return k != 0; }));
    if (kept_mask->size() != p.num_samples() || n_kept != child_samples)
      throw InternalError("derive_kept_tree: the kept mask does not fit the parent and child profiles");
  } else if (!stacks::kept_rows(child, p, matched)) {
    return std::nullopt;
  }
  const std::vector<uint8_t>& kept = kept_mask ? *kept_mask : matched;
  // No sum of child's can wrap: its values are some of parent's, whose
  // magnitudes' sums fit (checked when the parent's tree was built).

  KeptTree k = stacks::copy_but_lengths(parent);
  k.sums.profile = &child;
  k.sums.nodes = &child_nodes;
  k.sums.tables_only = deferred;
  k.sums.len.reserve(child_samples);
  stacks::SourceFrames sf;
  stacks::prepare(StackSource{&p, &pn, 0}, frame_of, parent.sums.inverted, sf);
  std::vector<uint32_t> seen(k.sums.num_frames, 0);
  uint32_t stamp = 0;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    if (kept[s]) {
      k.sums.len.push_back(parent.sums.len[s]);
      continue;
    }
    stacks::add_frame_sums(p, sf, parent.sums.inverted, 0, nt, s, ++stamp, seen, k.sums.fself.data(),
                           k.sums.ftotal.data(), true);
    stacks::drop_sample(p, sf, parent.sums.inverted, s, parent.sums.len[s], k);
  }
  // A type with negative values can grow where samples are dropped: nodes
  // left out of the parent's tree could then be wide enough to keep.
  for (size_t t = 0; t < nt; ++t)
    if (!k.nonneg[t]) k.bound[t] = stacks::kUncovered;
  return k;
}

}  // namespace pprofcore
