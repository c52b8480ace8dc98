// stacks_pruned: the call tree built top-down, materialising only the nodes that
// survive trimming. One pass over every sample's frames sums pprof's per-frame
// flat and cum and each path's length; then, from the root down,
// the samples passing through a node are partitioned by their next frame: each
// child's total is known before the child exists, so a child below
// min_fraction goes straight into its parent's "..." node and its samples are
// never looked at again. The work is the samples times the depth they reach in
// the kept tree, instead of every frame of every sample going through a trie.
// The output equals stacks_trie.cpp's node for node (cpp/tests/test_stacks.cpp and
// tests/views/test_flamegraph_pruned.py hold them to it).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "pprofcore/arith.hpp"
#include "pprofcore/fork_join.hpp"
#include "stacks_internal.hpp"

namespace pprofcore::stacks {

namespace {

// One source's frames per location, in walking order: a location's frames
// are frames[off[loc], off[loc + 1]), outermost inline frame first (innermost
// when inverted), and a sample's locations are walked by `step` from its
// stack's root end (its leaf end when inverted).
struct SourceFrames {
  const int32_t* stack = nullptr;  // the profile's stack_locations
  int64_t step = -1;
  std::vector<int64_t> off{0};
  std::vector<int32_t> frames;
};

// One sample's walk: the frame it is at is the `sub`-th of the location at
// stack[pos]; `len` frames in all. The split advances it one frame per level,
// so no path is ever copied out.
struct PathRef {
  int64_t pos;
  int32_t sub;
  int32_t len;
  int64_t value;
  int32_t is_base;  // 1: the value goes to the base columns (and SourceFrames[1] walks it)
};

struct Paths {
  SourceFrames src[2];
  std::vector<PathRef> refs;
  int64_t total = 0, base_total = 0;  // the root's
};

// A source's frames per location (see SourceFrames).
void prepare(const StackSource& src, const std::vector<int32_t>& frame_of, bool inverted, SourceFrames& sf) {
  const Profile& p = *src.profile;
  const NodeTable& t = *src.nodes;
  sf.stack = p.stack_locations.data();
  sf.step = inverted ? 1 : -1;
  sf.frames.reserve(t.loc_nodes.size());
  for (size_t l = 0; l < p.locations.size(); ++l) {
    const int64_t nb = t.loc_node_offsets[l], ne = t.loc_node_offsets[l + 1];
    for (int64_t j = 0; j < ne - nb; ++j)
      sf.frames.push_back(
          frame_of[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(inverted ? nb + j : ne - 1 - j)])]);
    sf.off.push_back(static_cast<int64_t>(sf.frames.size()));
  }
}

// What one range of samples adds: their walks, pprof's flat and cum per frame
// (flat to the path's last frame, cum once per distinct frame of a path, so
// recursion is counted once per sample) and the root's total.
struct Part {
  std::vector<PathRef> refs;
  std::vector<int64_t> fself, ftotal;
  int64_t root = 0;
};

void walk_samples(const StackSource& src, const SourceFrames& sf, bool inverted, bool is_base, size_t first,
                  size_t last, size_t n_frames, Part& part) {
  const Profile& p = *src.profile;
  const size_t nt = p.num_types();
  part.fself.assign(n_frames, 0);
  part.ftotal.assign(n_frames, 0);
  std::vector<uint32_t> seen(n_frames, 0);
  const int64_t* off = sf.off.data();
  const int32_t* frames = sf.frames.data();
  for (size_t s = first; s < last; ++s) {
    const int64_t v = p.values[s * nt + src.type];
    if (v == 0) continue;
    part.root = wrapping_add(part.root, v);
    const uint32_t stamp = static_cast<uint32_t>(part.refs.size() + 1);
    const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
    int64_t len = 0;
    int32_t leaf = 0;  // an empty stack ends at the root
    for (int64_t k = 0; k < se - sb; ++k) {
      const size_t loc = static_cast<size_t>(sf.stack[inverted ? sb + k : se - 1 - k]);
      for (int64_t j = off[loc]; j < off[loc + 1]; ++j) {
        const int32_t f = frames[j];
        if (seen[static_cast<size_t>(f)] != stamp) {
          seen[static_cast<size_t>(f)] = stamp;
          part.ftotal[static_cast<size_t>(f)] = wrapping_add(part.ftotal[static_cast<size_t>(f)], v);
        }
        leaf = f;
      }
      len += off[loc + 1] - off[loc];
    }
    part.fself[static_cast<size_t>(leaf)] = wrapping_add(part.fself[static_cast<size_t>(leaf)], v);
    // aggregate() gives every location at least one node, so every step of the walk has a frame.
    part.refs.push_back(PathRef{inverted ? sb : se - 1, 0, static_cast<int32_t>(len), v, is_base ? 1 : 0});
  }
}

// Walks every sample of one source with a non-zero value, split across
// threads for large profiles, and appends the walks in sample order (so the
// result does not depend on the split).
void add_source(const StackSource& src, const std::vector<int32_t>& frame_of, const CallTreeOptions& opt, bool is_base,
                Paths& paths, CallTree& out) {
  SourceFrames& sf = paths.src[is_base ? 1 : 0];
  prepare(src, frame_of, opt.inverted, sf);
  const size_t ns = src.profile->num_samples(), nf = out.frame_name.size();
  const size_t parts =
      std::max<size_t>(1, std::min<size_t>(hardware_threads(), ns / std::max<size_t>(1, opt.min_samples_per_thread)));
  std::vector<Part> done(parts);
  fork_join(parts, [&](size_t k) {
    walk_samples(src, sf, opt.inverted, is_base, ns * k / parts, ns * (k + 1) / parts, nf, done[k]);
  });
  std::vector<int64_t>& fself = is_base ? out.frame_base_self : out.frame_self;
  std::vector<int64_t>& ftotal = is_base ? out.frame_base_total : out.frame_total;
  int64_t& root = is_base ? paths.base_total : paths.total;
  for (Part& part : done) {
    for (size_t f = 0; f < nf; ++f) {
      fself[f] = wrapping_add(fself[f], part.fself[f]);
      ftotal[f] = wrapping_add(ftotal[f], part.ftotal[f]);
    }
    root = wrapping_add(root, part.root);
    paths.refs.insert(paths.refs.end(), part.refs.begin(), part.refs.end());
    part = Part{};
  }
}

// The frame `r` is at, and the walk moved on to the next one.
inline int32_t next_frame(const SourceFrames& sf, PathRef& r) {
  const size_t loc = static_cast<size_t>(sf.stack[r.pos]);
  const int64_t b = sf.off[loc];
  const int32_t f = sf.frames[static_cast<size_t>(b + r.sub)];
  if (b + r.sub + 1 < sf.off[loc + 1]) {
    ++r.sub;
  } else {
    r.pos += sf.step;
    r.sub = 0;
  }
  return f;
}

// How many samples ahead the split loop prefetches the stack entry it will read.
constexpr size_t kPrefetch = 16;

// A node waiting to be emitted: its samples are refs[begin, end) (none for a
// "..." node, whose self is given).
struct Pending {
  int32_t out_parent, depth, frame;  // frame -1: a "..." node
  int64_t total, base_total;
  size_t begin, end;
};

}  // namespace

void build_pruned(const StackSource& cur, const StackSource* base, const CallTreeOptions& opt, CallTree& out) {
  size_t n_samples = cur.profile->num_samples();
  if (base) n_samples += base->profile->num_samples();
  if (n_samples >= std::numeric_limits<uint32_t>::max()) return build_trie(cur, base, opt, out);  // 32-bit stamps

  FrameTable frames(out);
  const std::vector<int32_t> cur_frames = frames_of(cur, frames);
  const std::vector<int32_t> base_frames = base ? frames_of(*base, frames) : std::vector<int32_t>{};
  const size_t nf = out.frame_name.size();
  for (auto* v : {&out.frame_self, &out.frame_total, &out.frame_base_self, &out.frame_base_total}) v->assign(nf, 0);
  Paths paths;
  paths.refs.reserve(n_samples);
  add_source(cur, cur_frames, opt, false, paths, out);
  if (base) add_source(*base, base_frames, opt, true, paths, out);
  out.frame_total[0] = paths.total;  // the root frame is on no path
  out.frame_base_total[0] = paths.base_total;
  const TrimRule rule(opt.min_fraction, paths.total, paths.base_total, base != nullptr);

  std::vector<PathRef>& refs = paths.refs;
  std::vector<PathRef> scratch(refs.size());
  // Per frame: its child slot at the node being split (-1: none yet).
  std::vector<int32_t> slot_of(nf, -1);
  // Per child of the node being split.
  std::vector<int32_t> child_frame;
  std::vector<uint8_t> is_kept;
  std::vector<int64_t> child_total, child_base_total;
  std::vector<size_t> child_count, child_begin;
  std::vector<int32_t> slot_at;  // the child slot of each sample in the range (-1: ends here)
  std::vector<int32_t> keep;

  std::vector<Pending> stack{{-1, 0, 0, paths.total, paths.base_total, 0, refs.size()}};
  while (!stack.empty()) {
    const Pending e = stack.back();
    stack.pop_back();
    const int32_t id = static_cast<int32_t>(out.parent.size());
    out.parent.push_back(e.out_parent);
    out.depth.push_back(e.depth);
    out.total.push_back(e.total);
    out.base_total.push_back(e.base_total);
    if (e.frame < 0) {
      out.frame.push_back(frames.ellipsis());
      out.self.push_back(e.total);
      out.base_self.push_back(e.base_total);
      continue;
    }
    out.frame.push_back(e.frame);

    // Split the node's samples by their next frame (the one at index `depth`).
    const size_t d = static_cast<size_t>(e.depth);
    int64_t self = 0, base_self = 0;
    child_frame.clear(), child_total.clear(), child_base_total.clear(), child_count.clear();
    slot_at.resize(e.end - e.begin);
    for (size_t i = e.begin; i < e.end; ++i) {
      PathRef& r = refs[i];
      // The stack reads below miss the cache (stacks are far apart): ask ahead.
      if (i + kPrefetch < e.end) {
        const PathRef& ahead = refs[i + kPrefetch];
        __builtin_prefetch(paths.src[ahead.is_base].stack + ahead.pos);
      }
      if (static_cast<size_t>(r.len) == d) {
        (r.is_base ? base_self : self) = wrapping_add(r.is_base ? base_self : self, r.value);
        slot_at[i - e.begin] = -1;
        continue;
      }
      const int32_t f = next_frame(paths.src[r.is_base], r);
      int32_t& slot = slot_of[static_cast<size_t>(f)];
      if (slot < 0) {
        slot = static_cast<int32_t>(child_frame.size());
        child_frame.push_back(f);
        child_total.push_back(0);
        child_base_total.push_back(0);
        child_count.push_back(0);
      }
      const size_t c = static_cast<size_t>(slot);
      ++child_count[c];
      int64_t& sum = r.is_base ? child_base_total[c] : child_total[c];
      sum = wrapping_add(sum, r.value);
      slot_at[i - e.begin] = slot;
    }
    out.self.push_back(self);
    out.base_self.push_back(base_self);
    for (const int32_t f : child_frame) slot_of[static_cast<size_t>(f)] = -1;

    keep.clear();
    int64_t merged = 0, merged_base = 0;
    bool any_merged = false;
    for (size_t c = 0; c < child_frame.size(); ++c) {
      if (rule.kept(child_total[c], child_base_total[c])) {
        keep.push_back(static_cast<int32_t>(c));
      } else {
        any_merged = true;
        merged = wrapping_add(merged, child_total[c]);
        merged_base = wrapping_add(merged_base, child_base_total[c]);
      }
    }
    std::sort(keep.begin(), keep.end(), [&](int32_t a, int32_t b) {
      const size_t i = static_cast<size_t>(a), j = static_cast<size_t>(b);
      return wider(child_total[i], child_base_total[i], out.frame_name[static_cast<size_t>(child_frame[i])],
                   child_total[j], child_base_total[j], out.frame_name[static_cast<size_t>(child_frame[j])]);
    });

    // Kept children's samples go to consecutive sub-ranges of the node's range;
    // the others are dropped. When one child holds every sample, nothing moves.
    child_begin.assign(child_frame.size(), 0);
    is_kept.assign(child_frame.size(), 0);
    const bool all_to_one = keep.size() == 1 && child_frame.size() == 1 && child_count[0] == e.end - e.begin;
    size_t at = e.begin;
    for (const int32_t c : keep) {
      child_begin[static_cast<size_t>(c)] = at;
      at += child_count[static_cast<size_t>(c)];
    }
    if (!all_to_one && !keep.empty()) {
      std::vector<size_t> fill(child_begin);
      for (const int32_t c : keep) is_kept[static_cast<size_t>(c)] = 1;
      for (size_t i = e.begin; i < e.end; ++i) {
        const int32_t c = slot_at[i - e.begin];
        if (c >= 0 && is_kept[static_cast<size_t>(c)]) scratch[fill[static_cast<size_t>(c)]++] = refs[i];
      }
      std::copy(scratch.begin() + static_cast<std::ptrdiff_t>(e.begin),
                scratch.begin() + static_cast<std::ptrdiff_t>(at), refs.begin() + static_cast<std::ptrdiff_t>(e.begin));
    }

    // Popped in sibling order, the "..." node last.
    if (any_merged) stack.push_back(Pending{id, e.depth + 1, -1, merged, merged_base, 0, 0});
    for (auto it = keep.rbegin(); it != keep.rend(); ++it) {
      const size_t c = static_cast<size_t>(*it);
      const size_t b = child_begin[c];
      stack.push_back(
          Pending{id, e.depth + 1, child_frame[c], child_total[c], child_base_total[c], b, b + child_count[c]});
    }
  }
}

}  // namespace pprofcore::stacks
