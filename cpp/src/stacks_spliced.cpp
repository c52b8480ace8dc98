// stacks_spliced: the kept tree of a profile that hide or show made from
// another (derive_spliced_tree), from the parent's kept tree instead of a
// split of the child's samples. The filter took whole locations out of the
// stacks, so the child's paths are the parent's without the hidden frames:
// the tree is the parent's with the hidden nodes spliced out (their children
// merged into their parent's). Where the parent's tree does not say enough
// for the result to be exact, the paths leaving it by a hidden frame are
// walked on from where their node went; a trimmed rest that could hold a
// frame merged from elsewhere derives nothing (the child builds its tree). Trees read off the result equal those built
// from scratch on the child (tests/views/test_flamegraph_kept_tree.py).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "pprofcore/errors.hpp"
#include "stacks_internal.hpp"

namespace pprofcore {

namespace {

using stacks::add_row;
using stacks::Walk;

// Each kept tree node's frame of the parent against the child's frame table:
// which parent frames were hidden, and the child frame of every other one.
struct FrameMap {
  std::vector<int32_t> to_child;  // -1: hidden (or in no location)
  std::vector<uint8_t> hidden;
  bool one_frame_hidden = true;  // every hidden location holds one frame
};

// nullopt when a location lost only some of its frames or a frame is hidden
// in one location and shown in another: the splice works frame by frame.
std::optional<FrameMap> map_frames(const NodeTable& pn, const std::vector<int32_t>& pframe_of, const NodeTable& cn,
                                   const std::vector<int32_t>& cframe_of, const std::vector<uint8_t>& hidden_locs,
                                   const std::vector<uint8_t>* used, size_t n_parent_frames) {
  FrameMap m;
  m.to_child.assign(n_parent_frames, -1);
  m.hidden.assign(n_parent_frames, 0);
  std::vector<uint8_t> shown(n_parent_frames, 0);
  m.to_child[0] = 0;  // the root
  for (size_t l = 0; l + 1 < pn.loc_node_offsets.size(); ++l) {
    if (used && !(*used)[l]) continue;  // in no stack: what the filter did to it does not matter
    const int64_t pb = pn.loc_node_offsets[l], pe = pn.loc_node_offsets[l + 1];
    if (hidden_locs[l]) {
      for (int64_t j = pb; j < pe; ++j)
        m.hidden[static_cast<size_t>(pframe_of[static_cast<size_t>(pn.loc_nodes[j])])] = 1;
      if (pe - pb != 1) m.one_frame_hidden = false;
      continue;
    }
    const int64_t cb = cn.loc_node_offsets[l], ce = cn.loc_node_offsets[l + 1];
    if (ce - cb != pe - pb) return std::nullopt;
    for (int64_t j = 0; j < pe - pb; ++j) {
      const size_t pf = static_cast<size_t>(pframe_of[static_cast<size_t>(pn.loc_nodes[pb + j])]);
      const int32_t cf = cframe_of[static_cast<size_t>(cn.loc_nodes[cb + j])];
      if (m.to_child[pf] >= 0 && m.to_child[pf] != cf) return std::nullopt;
      m.to_child[pf] = cf;
      shown[pf] = 1;
    }
  }
  for (size_t f = 0; f < n_parent_frames; ++f)
    if (m.hidden[f] && shown[f]) return std::nullopt;
  return m;
}

// Where sample s's path leaves the tree: the last tree node on it (-1 when
// the path ends in the tree) and the walk just past the frame it leaves by.
struct Exit {
  int32_t node = -1, frame = 0, depth = 0;
  Walk walk{};
};

Exit exit_of(const Profile& p, const stacks::SourceFrames& sf, bool inverted, size_t s, int32_t len,
             const KeptTree& k) {
  Exit e;
  e.walk = Walk{stacks::start_pos(p, s, inverted), 0, len, s};
  size_t node = 0;
  for (int32_t d = 0; d < len; ++d) {
    const int32_t f = stacks::next_frame(sf, e.walk);
    int32_t c = k.child_begin[node];
    while (c < k.child_end[node] && k.frame[static_cast<size_t>(c)] != f) ++c;
    if (c == k.child_end[node]) {
      e.node = static_cast<int32_t>(node), e.frame = f, e.depth = d + 1;
      return e;
    }
    node = static_cast<size_t>(c);
  }
  return e;
}

// Whether sample s's path could leave the tree by a hidden frame: only from
// a tree node with a trimmed rest (`gate`, by frame), so only where the frame
// before a hidden one is such a node's. Reads the stack from the path's end
// until its `lost` hidden locations are found (a hidden leaf: one or two
// entries), and spares the walk down the tree for most paths.
bool may_leave_hidden(const Profile& p, const stacks::SourceFrames& sf, bool inverted, size_t s, int64_t lost,
                      const std::vector<uint8_t>& hidden_locs, const std::vector<uint8_t>& gate) {
  const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
  const int64_t step = inverted ? -1 : 1;  // from the path's end towards its start
  for (int64_t e = inverted ? se - 1 : sb; lost > 0 && e >= sb && e < se; e += step) {
    if (!hidden_locs[static_cast<size_t>(p.stack_locations[static_cast<size_t>(e)])]) continue;
    --lost;
    const int64_t before = e + step;  // the location before it on the path
    int32_t f = 0;                    // the root when none
    if (before >= sb && before < se) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(before)]);
      f = sf.single[loc] >= 0 ? sf.single[loc] : sf.frames[static_cast<size_t>(sf.off[loc + 1] - 1)];
    }
    if (gate[static_cast<size_t>(f)]) return true;
  }
  return false;
}

// The path's last frame (where pprof's flat goes), as add_frame_sums walks it.
int32_t last_frame(const Profile& p, const stacks::SourceFrames& sf, bool inverted, size_t s) {
  const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
  if (sb == se) return 0;
  const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(inverted ? se - 1 : sb)]);
  const int32_t one = sf.single[loc];
  return one >= 0 ? one : sf.frames[static_cast<size_t>(sf.off[loc + 1] - 1)];
}

// The child's stacks: its own samples', or, for a deferred filter output
// (tables only), the parent's kept samples' without the hidden locations.
struct ChildStacks {
  const Profile& child;
  const Profile& parent;
  const std::vector<uint8_t>* hidden;  // null: the child's own samples

  // The stack of child sample c (parent sample s) as [begin, end) of `base`,
  // hidden entries still in it when deferred.
  const int32_t* base() const { return (hidden ? parent : child).stack_locations.data(); }
  std::pair<int64_t, int64_t> range(size_t c, size_t s) const {
    const Profile& p = hidden ? parent : child;
    const size_t i = hidden ? s : c;
    return {p.stack_offsets[i], p.stack_offsets[i + 1]};
  }
  bool skip(int32_t loc) const { return hidden && (*hidden)[static_cast<size_t>(loc)]; }
  int64_t entries(size_t c, size_t s) const {
    const auto [b, e] = range(c, s);
    if (!hidden) return e - b;
    int64_t n = 0;
    for (int64_t i = b; i < e; ++i) n += !skip(base()[i]);
    return n;
  }
  const int64_t* values(size_t c, size_t s) const {
    return hidden ? parent.values.data() + s * parent.num_types() : child.values.data() + c * child.num_types();
  }
  // last_frame's of the child's path.
  int32_t last_frame(const stacks::SourceFrames& sf, bool inverted, size_t c, size_t s) const {
    auto [b, e] = range(c, s);
    const int32_t* st = base();
    while (b < e && skip(st[inverted ? e - 1 : b])) inverted ? --e : ++b;
    if (b == e) return 0;
    const size_t loc = static_cast<size_t>(st[inverted ? e - 1 : b]);
    const int32_t one = sf.single[loc];
    return one >= 0 ? one : sf.frames[static_cast<size_t>(sf.off[loc + 1] - 1)];
  }
};

bool any_covered(const KeptTree& k, const int64_t* row) {
  for (size_t t = 0; t < k.bound.size(); ++t)
    if (row[t] != 0 && k.bound[t] != stacks::kUncovered) return true;
  return false;
}

// The parent's tree (less the samples already taken away) with its hidden
// nodes spliced out, into `out` (root added); `image` says where each parent
// node went. Each child node merges the
// parent nodes with its path once hidden frames are taken out. Exact when at
// each node either one parent node (or spliced one) brings children or a
// trimmed rest, or none brings a rest (their children merge by frame), or
// none brings children (their rests add up: a frame trimmed in each of
// `pieces` rests stays below pieces times the bound). False otherwise.
bool splice(const KeptTree& k, const FrameMap& m, size_t n_child_frames, KeptTree& out, size_t& pieces,
            std::vector<int32_t>& image) {
  image.assign(k.size(), -1);
  const size_t nt = k.sums.num_types;
  struct Work {
    int32_t node;
    std::vector<int32_t> from;
  };
  std::vector<Work> work{{0, {0}}};
  std::vector<int32_t> slot_of(n_child_frames, -1), child_frame, sources;
  std::vector<std::vector<int32_t>> groups;
  std::vector<int64_t> total, count;
  while (!work.empty()) {
    Work w = std::move(work.back());
    work.pop_back();
    const size_t node = static_cast<size_t>(w.node);
    sources = w.from;
    child_frame.clear();
    groups.clear();
    size_t with_rest = 0, with_children = 0, contributing = 0;
    for (size_t i = 0; i < sources.size(); ++i) {  // grows as hidden children are spliced in
      const size_t v = static_cast<size_t>(sources[i]);
      image[v] = w.node;
      add_row(&out.self[node * nt], nullptr, &k.self[v * nt], nt, 1);
      add_row(&out.rest_total[node * nt], nullptr, &k.rest_total[v * nt], nt, 1);
      for (size_t t = 0; t < nt; ++t) out.rest_count[node * nt + t] += k.rest_count[v * nt + t];
      const bool rest = any_covered(k, &k.rest_count[v * nt]);
      bool children = false;
      for (int32_t c = k.child_begin[v]; c < k.child_end[v]; ++c) {
        const size_t ci = static_cast<size_t>(c);
        if (!any_covered(k, &k.count[ci * nt])) continue;  // every sample through it was taken away
        if (m.hidden[static_cast<size_t>(k.frame[ci])]) {
          sources.push_back(c);
          continue;
        }
        children = true;
        const int32_t f = m.to_child[static_cast<size_t>(k.frame[ci])];
        int32_t& slot = slot_of[static_cast<size_t>(f)];
        if (slot < 0) {
          slot = static_cast<int32_t>(child_frame.size());
          child_frame.push_back(f);
          groups.emplace_back();
        }
        groups[static_cast<size_t>(slot)].push_back(c);
      }
      with_rest += rest, with_children += children, contributing += rest || children;
    }
    for (const int32_t f : child_frame) slot_of[static_cast<size_t>(f)] = -1;
    if (contributing > 1 && with_rest > 0 && with_children > 0) return false;
    pieces = std::max(pieces, with_rest);
    const size_t first = out.parent.size();
    for (size_t g = 0; g < groups.size(); ++g) {
      total.assign(nt, 0);
      count.assign(nt, 0);
      for (const int32_t c : groups[g]) {
        add_row(total.data(), nullptr, &k.total[static_cast<size_t>(c) * nt], nt, 1);
        for (size_t t = 0; t < nt; ++t) count[t] += k.count[static_cast<size_t>(c) * nt + t];
      }
      const int32_t id = stacks::add_node(out, w.node, child_frame[g], out.depth[node] + 1, total.data(), count.data());
      work.push_back(Work{id, std::move(groups[g])});
    }
    out.child_begin[node] = static_cast<int32_t>(first);
    out.child_end[node] = static_cast<int32_t>(out.parent.size());
  }
  return true;
}

}  // namespace

std::optional<KeptTree> derive_spliced_tree(const Profile& child, const NodeTable& child_nodes, const KeptTree& parent,
                                            const std::vector<uint8_t>& kept, const std::vector<uint8_t>& hidden,
                                            const std::vector<uint8_t>* used, bool deferred) {
  const Profile& p = *parent.sums.profile;
  const NodeTable& pn = *parent.sums.nodes;
  const size_t nt = p.num_types(), ns = p.num_samples();
  const bool inverted = parent.sums.inverted;
  const size_t n_kept = static_cast<size_t>(std::count_if(kept.begin(), kept.end(), [](uint8_t x) { return x != 0; }));
  if (kept.size() != ns || hidden.size() != p.locations.size() || (used && used->size() != p.locations.size()) ||
      (!deferred && n_kept != child.num_samples()))
    throw InternalError("derive_kept_tree: the kept or hidden mask does not fit the parent and child profiles");
  if (parent.sums.tables_only || child.num_types() != nt || child.locations.size() != p.locations.size() ||
      parent.sums.len.size() != ns || child_nodes.loc_node_offsets.size() != pn.loc_node_offsets.size())
    return std::nullopt;
  const ChildStacks cs{child, p, deferred ? &hidden : nullptr};
  // Walking the dropped samples must be cheaper than reading the kept ones.
  int64_t dropped_entries = 0;
  for (size_t s = 0; s < ns; ++s)
    if (!kept[s]) dropped_entries += p.stack_offsets[s + 1] - p.stack_offsets[s];
  if (dropped_entries * 2 > static_cast<int64_t>(p.stack_locations.size())) return std::nullopt;
  // No sum of child's can wrap: its values are some of parent's, whose
  // magnitudes' sums fit (checked when the parent's tree was built).

  // Frames numbered as the parent's tree and as a build on the child do.
  CallTree pframes, cframes;
  stacks::FrameTable ptable(pframes), ctable(cframes);
  const std::vector<int32_t> pframe_of = stacks::frames_of(StackSource{&p, &pn, 0}, ptable);
  if (!(pframes.frame_name == parent.frame_name) || !(pframes.frame_file == parent.frame_file) ||
      pframes.frame_line != parent.frame_line)
    return std::nullopt;
  const std::vector<int32_t> cframe_of = stacks::frames_of(StackSource{&child, &child_nodes, 0}, ctable);
  const size_t pnf = parent.sums.num_frames, cnf = cframes.frame_name.size();
  const std::optional<FrameMap> m = map_frames(pn, pframe_of, child_nodes, cframe_of, hidden, used, pnf);
  if (!m) return std::nullopt;
  stacks::SourceFrames psf, csf;
  stacks::prepare(StackSource{&p, &pn, 0}, pframe_of, inverted, psf);
  stacks::prepare(StackSource{&child, &child_nodes, 0}, cframe_of, inverted, csf);

  // The dropped samples and those leaving the tree at a hidden frame taken
  // away; each kept sample's path length and whether its flat moves.
  KeptTree k = stacks::copy_but_lengths(parent);
  std::vector<uint32_t> seen(pnf, 0);
  uint32_t stamp = 0;
  std::vector<int32_t> len(n_kept, 0);
  for (size_t s = 0; s < ns; ++s) {
    if (kept[s]) continue;
    stacks::add_frame_sums(p, psf, inverted, 0, nt, s, ++stamp, seen, k.sums.fself.data(), k.sums.ftotal.data(), true);
    stacks::drop_sample(p, psf, inverted, s, parent.sums.len[s], k);
  }
  // A splice that fails on the tree as it is now fails after the walks too
  // (unless they empty a trimmed rest): fail before them.
  {
    KeptTree trial;
    trial.sums.num_types = nt;
    trial.bound = k.bound;
    stacks::add_node(trial, -1, 0, 0, &k.total[0], &k.count[0]);
    size_t pieces = 1;
    std::vector<int32_t> image;
    if (!splice(k, *m, cnf, trial, pieces, image)) return std::nullopt;
  }
  std::vector<uint8_t> gate(pnf, 0);
  for (size_t n = 0; n < k.size(); ++n)
    if (any_covered(k, &k.rest_count[n * nt])) gate[static_cast<size_t>(k.frame[n])] = 1;
  struct Continued {
    size_t sample, parent_sample;  // the child's, and the parent's it is
    int32_t node, depth;
    Walk walk;
  };
  std::vector<Continued> walk_on;
  // Flat moved to the new last frame of paths whose last frame was hidden.
  std::vector<int64_t> flat_moved(cnf * nt, 0);
  for (size_t s = 0, j = 0; s < ns; ++s) {
    if (!kept[s]) continue;
    const size_t c = j++;
    if (s + stacks::kPrefetch < ns && c + stacks::kPrefetch < n_kept) {  // the leaf ends miss the cache
      __builtin_prefetch(p.stack_locations.data() + p.stack_offsets[s + stacks::kPrefetch]);
      if (!deferred) __builtin_prefetch(child.stack_locations.data() + child.stack_offsets[c + stacks::kPrefetch]);
    }
    const int32_t plen = parent.sums.len[s];
    const int64_t lost = (p.stack_offsets[s + 1] - p.stack_offsets[s]) - cs.entries(c, s);
    if (lost == 0 || plen == 0) {  // unchanged, or no value in any sum
      len[c] = plen;
      continue;
    }
    if (m->one_frame_hidden) {
      len[c] = static_cast<int32_t>(plen - lost);
    } else {
      int64_t n = 0;
      const auto [b, e] = cs.range(c, s);
      for (int64_t i = b; i < e; ++i) {
        const int32_t loc = cs.base()[i];
        if (!cs.skip(loc)) n += csf.off[static_cast<size_t>(loc) + 1] - csf.off[static_cast<size_t>(loc)];
      }
      len[c] = static_cast<int32_t>(n);
    }
    if (m->hidden[static_cast<size_t>(last_frame(p, psf, inverted, s))])
      add_row(&flat_moved[static_cast<size_t>(cs.last_frame(csf, inverted, c, s)) * nt], nullptr, cs.values(c, s), nt,
              1);
    // A path leaving the tree by a hidden frame goes on from the spliced node:
    // it leaves the parent node's rest now, and is walked on after the splice.
    if (!may_leave_hidden(p, psf, inverted, s, lost, hidden, gate)) continue;
    const Exit e = exit_of(p, psf, inverted, s, plen, k);
    if (e.node >= 0 && m->hidden[static_cast<size_t>(e.frame)]) {
      const size_t n = static_cast<size_t>(e.node);
      add_row(&k.rest_total[n * nt], &k.rest_count[n * nt], p.values.data() + s * nt, nt, -1);
      walk_on.push_back(Continued{c, s, e.node, e.depth, e.walk});
    }
  }

  KeptTree out;
  out.sums.profile = &child;
  out.sums.nodes = &child_nodes;
  out.sums.tables_only = deferred;
  out.sums.inverted = inverted;
  out.sums.first_type = parent.sums.first_type;
  out.sums.num_types = nt;
  out.sums.num_frames = cnf;
  out.sums.len = std::move(len);
  out.bound = k.bound;
  out.nonneg = k.nonneg;
  out.frame_name = std::move(cframes.frame_name);
  out.frame_file = std::move(cframes.frame_file);
  out.frame_line = std::move(cframes.frame_line);
  stacks::add_node(out, -1, 0, 0, &k.total[0], &k.count[0]);
  size_t pieces = 1;
  std::vector<int32_t> image;
  if (!splice(k, *m, cnf, out, pieces, image)) return std::nullopt;

  // The paths that left the parent's tree by a hidden frame, walked on from
  // where it went in the spliced tree. One leaving that joins a trimmed rest,
  // where a frame it brings adds to what the rest held of that frame: kept
  // below one more bound, it stays trimmed.
  std::unordered_map<uint64_t, size_t> moved_at;
  std::vector<int64_t> moved;
  for (Continued& w : walk_on) {
    if (image[static_cast<size_t>(w.node)] < 0) continue;  // no value of a covered type
    const int64_t* v = cs.values(w.sample, w.parent_sample);
    size_t node = static_cast<size_t>(image[static_cast<size_t>(w.node)]);
    const int32_t plen = w.walk.len;
    for (int32_t d = w.depth;; ++d) {
      if (d == plen) {
        add_row(&out.self[node * nt], nullptr, v, nt, 1);
        break;
      }
      const int32_t pf = stacks::next_frame(psf, w.walk);
      if (m->hidden[static_cast<size_t>(pf)]) continue;
      const int32_t f = m->to_child[static_cast<size_t>(pf)];
      int32_t ch = out.child_begin[node];
      while (ch < out.child_end[node] && out.frame[static_cast<size_t>(ch)] != f) ++ch;
      if (ch == out.child_end[node]) {
        add_row(&out.rest_total[node * nt], &out.rest_count[node * nt], v, nt, 1);
        const uint64_t key = (static_cast<uint64_t>(node) << 32) | static_cast<uint32_t>(f);
        const auto [it, fresh] = moved_at.try_emplace(key, moved.size());
        if (fresh) moved.resize(moved.size() + nt, 0);
        add_row(&moved[it->second], nullptr, v, nt, 1);
        break;
      }
      node = static_cast<size_t>(ch);
      add_row(&out.total[node * nt], &out.count[node * nt], v, nt, 1);
    }
  }
  for (size_t i = 0; i < moved.size(); i += nt)
    for (size_t t = 0; t < nt; ++t)
      if (out.bound[t] != stacks::kUncovered && static_cast<double>(stacks::abs64(moved[i + t])) >= out.bound[t])
        return std::nullopt;
  const size_t widen = pieces + (moved.empty() ? 0 : 1);

  // pprof's flat and cum per child frame: a frame's cum counts each sample
  // holding it, which hiding others does not change; flat moves to the new
  // last frame of the paths whose last frame was hidden.
  out.sums.fself.assign(cnf * nt, 0);
  out.sums.ftotal.assign(cnf * nt, 0);
  for (size_t f = 0; f < pnf; ++f) {
    if (m->hidden[f] || m->to_child[f] < 0) continue;
    const size_t cf = static_cast<size_t>(m->to_child[f]);
    std::copy_n(&k.sums.fself[f * nt], nt, &out.sums.fself[cf * nt]);
    std::copy_n(&k.sums.ftotal[f * nt], nt, &out.sums.ftotal[cf * nt]);
  }
  for (size_t i = 0; i < flat_moved.size(); ++i) out.sums.fself[i] = wrapping_add(out.sums.fself[i], flat_moved[i]);
  for (size_t t = 0; t < nt; ++t)
    out.bound[t] = out.nonneg[t] && out.bound[t] != stacks::kUncovered ? out.bound[t] * static_cast<double>(widen)
                                                                       : stacks::kUncovered;
  return out;
}

}  // namespace pprofcore
