// stacks_trie: the reference build of the call tree. A trie over frame ids (one
// open-addressing lookup per frame of every sample, split across threads for
// large profiles), then emitted in depth-first pre-order with sorted children
// and small subtrees merged into "..." nodes. It materialises every node before
// trimming; stacks_pruned.cpp gives the same tree without doing so.
#include <algorithm>
#include <exception>
#include <thread>

#include "pprofcore/arith.hpp"
#include "pprofcore/key_index.hpp"
#include "stacks_internal.hpp"

namespace pprofcore::stacks {

namespace {

// The untrimmed trie in insertion order (a parent always precedes its children).
struct RawTree {
  std::vector<int32_t> parent{-1}, frame{0};
  std::vector<int64_t> self{0}, total{0}, base_self{0}, base_total{0};
  KeyIndex index;  // (parent, frame) -> child

  int32_t child(int32_t p, int32_t f) {
    const int32_t c = static_cast<int32_t>(parent.size());
    const int32_t found = index.find_or_insert(KeyIndex::pair(p, f), c);
    if (found >= 0) return found;
    parent.push_back(p);
    frame.push_back(f);
    self.push_back(0);
    total.push_back(0);
    base_self.push_back(0);
    base_total.push_back(0);
    return c;
  }
};

void add_samples(const StackSource& src, const std::vector<int32_t>& frame_of, bool inverted, bool is_base,
                 size_t first, size_t last, RawTree& tree) {
  const Profile& p = *src.profile;
  const NodeTable& t = *src.nodes;
  const size_t nt = p.num_types();
  std::vector<int64_t>& self = is_base ? tree.base_self : tree.self;
  std::vector<int64_t>& total = is_base ? tree.base_total : tree.total;
  // Consecutive samples often share their root-most locations: the path of the
  // previous sample (location and the tree node reached after it) lets those
  // steps skip the hash lookups.
  std::vector<int32_t> prev_loc, prev_node;
  for (size_t s = first; s < last; ++s) {
    const int64_t v = p.values[s * nt + src.type];
    if (v == 0) continue;
    const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
    const size_t depth = static_cast<size_t>(se - sb);
    auto loc_at = [&](size_t k) {  // k-th location in walking order
      return p.stack_locations[static_cast<size_t>(inverted ? sb + static_cast<int64_t>(k)
                                                            : se - 1 - static_cast<int64_t>(k))];
    };
    size_t shared = 0;
    while (shared < depth && shared < prev_loc.size() && prev_loc[shared] == loc_at(shared)) ++shared;
    prev_loc.resize(depth);
    prev_node.resize(depth);
    total[0] = wrapping_add(total[0], v);
    int32_t node = 0;
    for (size_t k = 0; k < shared; ++k) {
      // Every tree node the shared location steps through gets the value.
      const size_t loc = static_cast<size_t>(prev_loc[k]);
      const int64_t nb = t.loc_node_offsets[loc], ne = t.loc_node_offsets[loc + 1];
      if (ne - nb == 1) {
        node = prev_node[k];
        total[static_cast<size_t>(node)] = wrapping_add(total[static_cast<size_t>(node)], v);
      } else {
        for (int64_t j = 0; j < ne - nb; ++j) {
          node = tree.child(
              node, frame_of[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(inverted ? nb + j : ne - 1 - j)])]);
          total[static_cast<size_t>(node)] = wrapping_add(total[static_cast<size_t>(node)], v);
        }
      }
    }
    for (size_t k = shared; k < depth; ++k) {
      const int32_t l = loc_at(k);
      const size_t loc = static_cast<size_t>(l);
      const int64_t nb = t.loc_node_offsets[loc], ne = t.loc_node_offsets[loc + 1];
      for (int64_t j = 0; j < ne - nb; ++j) {  // outermost inline frame first, or innermost when inverted
        node = tree.child(
            node, frame_of[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(inverted ? nb + j : ne - 1 - j)])]);
        total[static_cast<size_t>(node)] = wrapping_add(total[static_cast<size_t>(node)], v);
      }
      prev_loc[k] = l;
      prev_node[k] = node;
    }
    self[static_cast<size_t>(node)] = wrapping_add(self[static_cast<size_t>(node)], v);
  }
}

// Adds `from` into `into`, node by node (parents come first in both).
void merge_into(RawTree& into, const RawTree& from) {
  std::vector<int32_t> map(from.parent.size(), 0);
  for (size_t i = 0; i < from.parent.size(); ++i) {
    if (i > 0) map[i] = into.child(map[static_cast<size_t>(from.parent[i])], from.frame[i]);
    const size_t j = static_cast<size_t>(map[i]);
    into.self[j] = wrapping_add(into.self[j], from.self[i]);
    into.total[j] = wrapping_add(into.total[j], from.total[i]);
    into.base_self[j] = wrapping_add(into.base_self[j], from.base_self[i]);
    into.base_total[j] = wrapping_add(into.base_total[j], from.base_total[i]);
  }
}

// Large profiles are split into sample ranges, one trie per thread, merged at the
// end; the output does not depend on the split (children are sorted on output).
void build_parallel(const StackSource& cur, const std::vector<int32_t>& cur_frames, const StackSource* base,
                    const std::vector<int32_t>& base_frames, bool inverted, size_t min_per_thread, RawTree& raw) {
  struct Job {
    const StackSource* src;
    const std::vector<int32_t>* frames;
    bool is_base;
    size_t first, last;
  };
  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Job> jobs;
  for (int b = 0; b < (base ? 2 : 1); ++b) {
    const StackSource* src = b ? base : &cur;
    const size_t ns = src->profile->num_samples();
    const size_t parts = std::max<size_t>(1, std::min(hw, ns / std::max<size_t>(1, min_per_thread)));
    for (size_t k = 0; k < parts; ++k)
      jobs.push_back(Job{src, b ? &base_frames : &cur_frames, b != 0, ns * k / parts, ns * (k + 1) / parts});
  }
  if (jobs.size() == 1 || hw == 1) {
    for (const Job& j : jobs) add_samples(*j.src, *j.frames, inverted, j.is_base, j.first, j.last, raw);
    return;
  }
  std::vector<RawTree> trees(jobs.size() - 1);
  std::vector<std::exception_ptr> errors(jobs.size());
  std::vector<std::thread> pool;
  for (size_t k = 1; k < jobs.size(); ++k)
    pool.emplace_back([&, k] {
      try {
        const Job& j = jobs[k];
        add_samples(*j.src, *j.frames, inverted, j.is_base, j.first, j.last, trees[k - 1]);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  try {
    add_samples(*jobs[0].src, *jobs[0].frames, inverted, jobs[0].is_base, jobs[0].first, jobs[0].last, raw);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (const RawTree& t : trees) merge_into(raw, t);
}

// Children of every raw node as CSR (raw ids, insertion order).
void child_lists(const RawTree& r, std::vector<int64_t>& off, std::vector<int32_t>& kids) {
  const size_t n = r.parent.size();
  off.assign(n + 1, 0);
  for (size_t i = 1; i < n; ++i) ++off[static_cast<size_t>(r.parent[i]) + 1];
  for (size_t i = 0; i < n; ++i) off[i + 1] += off[i];
  kids.assign(n > 0 ? n - 1 : 0, 0);
  std::vector<int64_t> fill(off.begin(), off.end() - 1);
  for (size_t i = 1; i < n; ++i)
    kids[static_cast<size_t>(fill[static_cast<size_t>(r.parent[i])]++)] = static_cast<int32_t>(i);
}

// pprof's flat and cum per frame: cum counts a node's total only when no ancestor
// has the same frame, so recursion is counted once per sample.
void frame_sums(const RawTree& r, const std::vector<int64_t>& off, const std::vector<int32_t>& kids, CallTree& out) {
  const size_t nf = out.frame_name.size();
  out.frame_self.assign(nf, 0);
  out.frame_total.assign(nf, 0);
  out.frame_base_self.assign(nf, 0);
  out.frame_base_total.assign(nf, 0);
  std::vector<int32_t> active(nf, 0);
  // Iterative DFS: a positive entry enters a node, a negative one (~id) leaves it.
  std::vector<int32_t> stack{0};
  while (!stack.empty()) {
    const int32_t e = stack.back();
    stack.pop_back();
    if (e < 0) {
      --active[static_cast<size_t>(r.frame[static_cast<size_t>(~e)])];
      continue;
    }
    const size_t n = static_cast<size_t>(e);
    const size_t f = static_cast<size_t>(r.frame[n]);
    out.frame_self[f] = wrapping_add(out.frame_self[f], r.self[n]);
    out.frame_base_self[f] = wrapping_add(out.frame_base_self[f], r.base_self[n]);
    if (active[f]++ == 0) {
      out.frame_total[f] = wrapping_add(out.frame_total[f], r.total[n]);
      out.frame_base_total[f] = wrapping_add(out.frame_base_total[f], r.base_total[n]);
    }
    stack.push_back(~e);
    for (int64_t k = off[n]; k < off[n + 1]; ++k) stack.push_back(kids[static_cast<size_t>(k)]);
  }
}

}  // namespace

void build_trie(const StackSource& cur, const StackSource* base, const CallTreeOptions& opt, CallTree& out) {
  FrameTable frames(out);
  RawTree raw;
  const std::vector<int32_t> cur_frames = frames_of(cur, frames);
  const std::vector<int32_t> base_frames = base ? frames_of(*base, frames) : std::vector<int32_t>{};
  build_parallel(cur, cur_frames, base, base_frames, opt.inverted, opt.min_samples_per_thread, raw);

  std::vector<int64_t> off;
  std::vector<int32_t> kids;
  child_lists(raw, off, kids);
  frame_sums(raw, off, kids, out);

  const TrimRule rule(opt.min_fraction, raw.total[0], raw.base_total[0], base != nullptr);
  auto kept = [&](int32_t n) {
    const size_t i = static_cast<size_t>(n);
    return rule.kept(raw.total[i], raw.base_total[i]);
  };
  auto before = [&](int32_t a, int32_t b) {
    const size_t i = static_cast<size_t>(a), j = static_cast<size_t>(b);
    return wider(raw.total[i], raw.base_total[i], out.frame_name[static_cast<size_t>(raw.frame[i])], raw.total[j],
                 raw.base_total[j], out.frame_name[static_cast<size_t>(raw.frame[j])]);
  };

  // Merged siblings waiting to be emitted as one "..." node (after their kept siblings).
  struct Ellipsis {
    int64_t self = 0, base_self = 0;
  };
  std::vector<Ellipsis> pending;
  struct Entry {
    int32_t raw;  // >= 0: a raw node; < 0: pending[~raw] is a "..." node
    int32_t out_parent, depth;
  };
  out.parent.reserve(raw.parent.size());
  std::vector<Entry> stack{{0, -1, 0}};
  std::vector<int32_t> keep;
  while (!stack.empty()) {
    const Entry e = stack.back();
    stack.pop_back();
    const int32_t id = static_cast<int32_t>(out.parent.size());
    out.parent.push_back(e.out_parent);
    out.depth.push_back(e.depth);
    if (e.raw < 0) {
      const Ellipsis& m = pending[static_cast<size_t>(~e.raw)];
      out.frame.push_back(frames.ellipsis());
      out.self.push_back(m.self);
      out.total.push_back(m.self);
      out.base_self.push_back(m.base_self);
      out.base_total.push_back(m.base_self);
      continue;
    }
    const size_t n = static_cast<size_t>(e.raw);
    out.frame.push_back(raw.frame[n]);
    out.self.push_back(raw.self[n]);
    out.total.push_back(raw.total[n]);
    out.base_self.push_back(raw.base_self[n]);
    out.base_total.push_back(raw.base_total[n]);
    keep.clear();
    Ellipsis merged;
    bool any_merged = false;
    for (int64_t k = off[n]; k < off[n + 1]; ++k) {
      const int32_t c = kids[static_cast<size_t>(k)];
      if (kept(c)) {
        keep.push_back(c);
      } else {
        any_merged = true;
        merged.self = wrapping_add(merged.self, raw.total[static_cast<size_t>(c)]);
        merged.base_self = wrapping_add(merged.base_self, raw.base_total[static_cast<size_t>(c)]);
      }
    }
    std::sort(keep.begin(), keep.end(), before);
    if (any_merged) {
      pending.push_back(merged);
      stack.push_back(Entry{~static_cast<int32_t>(pending.size() - 1), id, e.depth + 1});
    }
    for (auto it = keep.rbegin(); it != keep.rend(); ++it) stack.push_back(Entry{*it, id, e.depth + 1});
  }
}

}  // namespace pprofcore::stacks
