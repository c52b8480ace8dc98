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

// add_frame_sums; `Fixed` is nt when known at compile time (1: one flame
// graph's type, whose adds then need no loop), 0 when only known at run time.
template <size_t Fixed>
int64_t add_frame_sums_of(const Profile& p, const SourceFrames& sf, bool inverted, size_t tb, size_t runtime_nt,
                          size_t s, uint32_t stamp, std::vector<uint32_t>& seen, int64_t* fself, int64_t* ftotal,
                          bool subtract) {
  const size_t nt = Fixed ? Fixed : runtime_nt;
  const int64_t* v = &p.values[s * p.num_types() + tb];
  if (std::all_of(v, v + nt, [](int64_t x) { return x == 0; })) return 0;
  const auto add = [&](int64_t* to) {
    for (size_t t = 0; t < nt; ++t) to[t] = subtract ? wrapping_sub(to[t], v[t]) : wrapping_add(to[t], v[t]);
  };
  const int64_t* off = sf.off.data();
  const int32_t* frames = sf.frames.data();
  const int32_t* single = sf.single.data();
  const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
  int64_t len = 0;
  int32_t leaf = 0;  // an empty stack ends at the root
  const auto visit = [&](int32_t frame) {
    const size_t f = static_cast<size_t>(frame);
    if (seen[f] != stamp) {  // cum once per distinct frame of a path: recursion counts once
      seen[f] = stamp;
      add(ftotal + f * nt);
    }
    leaf = frame;
  };
  for (int64_t k = 0; k < se - sb; ++k) {
    const size_t loc = static_cast<size_t>(sf.stack[inverted ? sb + k : se - 1 - k]);
    if (single[loc] >= 0) {
      visit(single[loc]);
      ++len;
      continue;
    }
    for (int64_t j = off[loc]; j < off[loc + 1]; ++j) visit(frames[j]);
    len += off[loc + 1] - off[loc];
  }
  add(fself + static_cast<size_t>(leaf) * nt);  // flat to the path's last frame
  return len;
}

// Sums one range of samples [first, last) for sample types [tb, tb + nt):
// each path's length and pprof's flat and cum per frame. Samples with no
// value in those types are skipped.
template <size_t Fixed>
void sum_paths_of(const Profile& p, const SourceFrames& sf, bool inverted, size_t tb, size_t nt, size_t first,
                  size_t last, PathSums& part) {
  const size_t nf = part.num_frames;
  part.len.assign(last - first, 0);
  part.fself.assign(nf * nt, 0);
  part.ftotal.assign(nf * nt, 0);
  std::vector<uint32_t> seen(nf, 0);
  for (size_t s = first; s < last; ++s) {
    const uint32_t stamp = static_cast<uint32_t>(s - first + 1);
    part.len[s - first] = static_cast<int32_t>(add_frame_sums_of<Fixed>(p, sf, inverted, tb, nt, s, stamp, seen,
                                                                        part.fself.data(), part.ftotal.data(), false));
  }
}

void sum_paths(const Profile& p, const SourceFrames& sf, bool inverted, size_t tb, size_t nt, size_t first, size_t last,
               PathSums& part) {
  if (nt == 1)
    sum_paths_of<1>(p, sf, inverted, tb, nt, first, last, part);
  else
    sum_paths_of<0>(p, sf, inverted, tb, nt, first, last, part);
}

// Adds one source's walks (every sample with a non-zero value, in sample
// order), its per-frame sums and its root total, from its path sums.
void add_source(const StackSource& src, const PathSums& sums, bool inverted, bool is_base, Paths& paths,
                CallTree& out) {
  const Profile& p = *src.profile;
  const size_t nt = p.num_types(), col = src.type - sums.first_type, snt = sums.num_types;
  std::vector<int64_t>& fself = is_base ? out.frame_base_self : out.frame_self;
  std::vector<int64_t>& ftotal = is_base ? out.frame_base_total : out.frame_total;
  for (size_t f = 0; f < sums.num_frames; ++f) {
    fself[f] = sums.fself[f * snt + col];
    ftotal[f] = sums.ftotal[f * snt + col];
  }
  int64_t& root = is_base ? paths.base_total : paths.total;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int64_t v = p.values[s * nt + src.type];
    if (v == 0) continue;
    root = wrapping_add(root, v);
    const int64_t pos = inverted ? p.stack_offsets[s] : p.stack_offsets[s + 1] - 1;
    // aggregate() gives every location at least one node, so every step of the walk has a frame.
    paths.refs.push_back(PathRef{pos, 0, sums.len[s], v, is_base ? 1 : 0});
  }
}

// Whether `sums` were computed from this source, direction and frame count.
bool sums_fit(const PathSums& sums, const StackSource& src, bool inverted, size_t n_frames) {
  return sums.profile == src.profile && sums.nodes == src.nodes && sums.inverted == inverted &&
         sums.num_frames == n_frames && src.type >= sums.first_type && src.type < sums.first_type + sums.num_types;
}

// A node waiting to be emitted: its samples are refs[begin, end) (none for a
// "..." node, whose self is given).
struct Pending {
  int32_t out_parent, depth, frame;  // frame -1: a "..." node
  int64_t total, base_total;
  size_t begin, end;
};

}  // namespace

// A source's frames per location (see SourceFrames).
void prepare(const StackSource& src, const std::vector<int32_t>& frame_of, bool inverted, SourceFrames& sf) {
  const Profile& p = *src.profile;
  const NodeTable& t = *src.nodes;
  sf.stack = p.stack_locations.data();
  sf.step = inverted ? 1 : -1;
  sf.frames.reserve(t.loc_nodes.size());
  sf.single.reserve(p.locations.size());
  for (size_t l = 0; l < p.locations.size(); ++l) {
    const int64_t nb = t.loc_node_offsets[l], ne = t.loc_node_offsets[l + 1];
    for (int64_t j = 0; j < ne - nb; ++j)
      sf.frames.push_back(
          frame_of[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(inverted ? nb + j : ne - 1 - j)])]);
    sf.off.push_back(static_cast<int64_t>(sf.frames.size()));
    sf.single.push_back(ne - nb == 1 ? sf.frames.back() : -1);
  }
}

// The path sums of one source for types [tb, tb + nt), split across threads
// for large profiles; sums wrap, so the split does not change them.
void sum_source(const StackSource& src, const SourceFrames& sf, bool inverted, size_t tb, size_t nt,
                size_t min_samples_per_thread, size_t n_frames, PathSums& out) {
  const Profile& p = *src.profile;
  const size_t ns = p.num_samples();
  const size_t parts =
      std::max<size_t>(1, std::min<size_t>(hardware_threads(), ns / std::max<size_t>(1, min_samples_per_thread)));
  std::vector<PathSums> done(parts);
  for (PathSums& d : done) d.num_frames = n_frames;
  fork_join(parts,
            [&](size_t k) { sum_paths(p, sf, inverted, tb, nt, ns * k / parts, ns * (k + 1) / parts, done[k]); });
  out.profile = &p;
  out.nodes = src.nodes;
  out.inverted = inverted;
  out.first_type = tb;
  out.num_types = nt;
  out.num_frames = n_frames;
  out.len.clear();
  out.len.reserve(ns);
  out.fself.assign(n_frames * nt, 0);
  out.ftotal.assign(n_frames * nt, 0);
  for (PathSums& part : done) {
    for (size_t i = 0; i < out.fself.size(); ++i) {
      out.fself[i] = wrapping_add(out.fself[i], part.fself[i]);
      out.ftotal[i] = wrapping_add(out.ftotal[i], part.ftotal[i]);
    }
    out.len.insert(out.len.end(), part.len.begin(), part.len.end());
    part = PathSums{};
  }
}

int64_t add_frame_sums(const Profile& p, const SourceFrames& sf, bool inverted, size_t tb, size_t nt, size_t s,
                       uint32_t stamp, std::vector<uint32_t>& seen, int64_t* fself, int64_t* ftotal, bool subtract) {
  return add_frame_sums_of<0>(p, sf, inverted, tb, nt, s, stamp, seen, fself, ftotal, subtract);
}

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
  prepare(cur, cur_frames, opt.inverted, paths.src[0]);
  PathSums own;
  const PathSums* cur_sums = opt.sums;
  if (base || !cur_sums || !sums_fit(*cur_sums, cur, opt.inverted, nf)) {
    sum_source(cur, paths.src[0], opt.inverted, cur.type, 1, opt.min_samples_per_thread, nf, own);
    cur_sums = &own;
  }
  add_source(cur, *cur_sums, opt.inverted, false, paths, out);
  if (base) {
    prepare(*base, base_frames, opt.inverted, paths.src[1]);
    sum_source(*base, paths.src[1], opt.inverted, base->type, 1, opt.min_samples_per_thread, nf, own);
    add_source(*base, own, opt.inverted, true, paths, out);
  }
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
    const int32_t id = open_node(out, e.out_parent, e.depth, e.total, e.base_total);
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

namespace pprofcore {

namespace stacks {

PathSums all_type_sums(const Profile& profile, const NodeTable& nodes, bool inverted, CallTree& frame_table,
                       SourceFrames& sf) {
  const StackSource src{&profile, &nodes, 0};
  for (size_t t = 0; t < std::max<size_t>(1, profile.num_types()); ++t)
    check_source(StackSource{&profile, &nodes, t}, "profile");  // each type's sums fit int64
  FrameTable frames(frame_table);
  const std::vector<int32_t> frame_of = frames_of(src, frames);
  prepare(src, frame_of, inverted, sf);
  PathSums out;
  sum_source(src, sf, inverted, 0, profile.num_types(), CallTreeOptions{}.min_samples_per_thread,
             frame_table.frame_name.size(), out);
  return out;
}

}  // namespace stacks

PathSums path_sums(const Profile& profile, const NodeTable& nodes, bool inverted) {
  CallTree scratch;
  stacks::SourceFrames sf;
  return stacks::all_type_sums(profile, nodes, inverted, scratch, sf);
}

}  // namespace pprofcore
