// stacks_internal (private): what the two builds of the call tree share. The
// frame table (one frame per printable name), the checks of a source, the
// trimming rule (which children stay, in which order, and the "..." frame).
// stacks_trie.cpp builds the whole trie and trims it; stacks_pruned.cpp never
// builds what would be trimmed. Not installed; only stacks*.cpp include it.
#pragma once
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "pprofcore/arith.hpp"
#include "pprofcore/hashing.hpp"
#include "pprofcore/stacks.hpp"

namespace pprofcore::stacks {

inline int64_t abs64(int64_t v) { return v < 0 ? wrapping_sub(0, v) : v; }

// Frames keyed by printable name; frame 0 is "root" and never matched by name.
class FrameTable {
 public:
  explicit FrameTable(CallTree& out);
  int32_t intern(std::string_view name, std::string_view file, int64_t line);
  // The "..." frame, added (with zero sums) the first time it is asked for.
  int32_t ellipsis();
  // Room for the frames of `nodes` (at most one each): tens of thousands of
  // names otherwise grow the columns by doubling, copying them each time.
  void reserve(const NodeTable& nodes);

 private:
  int32_t add(std::string_view name, std::string_view file, int64_t line, uint64_t h);
  CallTree& out_;
  IdTable index_;
};

// Frame id of every report node of one source.
std::vector<int32_t> frames_of(const StackSource& src, FrameTable& frames);

// Throws when a source cannot be read (type out of range, foreign node table,
// sums that would pass int64).
void check_source(const StackSource& src, const char* what);

// Which children survive trimming: |total| (or, with a base, |base_total|) at
// least min_fraction of the root's; every child when min_fraction is 0.
struct TrimRule {
  double min_fraction = 0.0, thr = 0.0, bthr = 0.0;
  bool with_base = false;
  TrimRule(double min_fraction, int64_t root_total, int64_t root_base_total, bool with_base);
  bool kept(int64_t total, int64_t base_total) const {
    if (min_fraction <= 0.0) return true;
    if (static_cast<double>(abs64(total)) >= thr && (total != 0 || thr == 0.0)) return true;
    return with_base && static_cast<double>(abs64(base_total)) >= bthr && (base_total != 0 || bthr == 0.0);
  }
};

// Sibling order: |total| descending, then |base_total| descending, then name.
inline bool wider(int64_t ta, int64_t ba, std::string_view na, int64_t tb, int64_t bb, std::string_view nb) {
  const uint64_t ua = static_cast<uint64_t>(abs64(ta)), ub = static_cast<uint64_t>(abs64(tb));
  if (ua != ub) return ua > ub;
  const uint64_t va = static_cast<uint64_t>(abs64(ba)), vb = static_cast<uint64_t>(abs64(bb));
  if (va != vb) return va > vb;
  return na < nb;
}

// One source's frames per location, in walking order: a location's frames
// are frames[off[loc], off[loc + 1]), outermost inline frame first (innermost
// when inverted), and a sample's locations are walked by `step` from its
// stack's root end (its leaf end when inverted).
struct SourceFrames {
  const int32_t* stack = nullptr;  // the profile's stack_locations
  int64_t step = -1;
  std::vector<int64_t> off{0};
  std::vector<int32_t> frames;
  // Per location: its frame when it has exactly one, else -1. Most locations
  // have one (no inlining), and the sum pass then reads one array instead of
  // off and frames in turn (a dependent cache miss less per frame).
  std::vector<int32_t> single;
};

void prepare(const StackSource& src, const std::vector<int32_t>& frame_of, bool inverted, SourceFrames& sf);

// The path sums of one source for types [tb, tb + nt), split across threads
// for large profiles; sums wrap, so the split does not change them.
void sum_source(const StackSource& src, const SourceFrames& sf, bool inverted, size_t tb, size_t nt,
                size_t min_samples_per_thread, size_t n_frames, PathSums& out);

// Every sample type's path sums of a profile (path_sums), with the frame
// table they number (frame_table's frame columns) and the frames per location.
PathSums all_type_sums(const Profile& profile, const NodeTable& nodes, bool inverted, CallTree& frame_table,
                       SourceFrames& sf);

// Adds the "..." frame to `out`'s frame table (zero sums) unless it is there.
int32_t add_ellipsis(CallTree& out);

// Adds (or takes away) sample s's values of types [tb, tb + nt) to pprof's
// flat and cum per frame ([frame * nt + type]); returns its path length (0
// when it has no value in those types). `seen` holds one stamp per frame,
// `stamp` new for each sample.
int64_t add_frame_sums(const Profile& p, const SourceFrames& sf, bool inverted, size_t tb, size_t nt, size_t s,
                       uint32_t stamp, std::vector<uint32_t>& seen, int64_t* fself, int64_t* ftotal, bool subtract);

// The frame a walk (pos: its stack entry, sub: the frame within that
// location) is at, and the walk moved on to the next one.
template <class Walk>
inline int32_t next_frame(const SourceFrames& sf, Walk& r) {
  const size_t loc = static_cast<size_t>(sf.stack[r.pos]);
  if (const int32_t one = sf.single[loc]; one >= 0) {  // r.sub is 0 at a one-frame location
    r.pos += sf.step;
    return one;
  }
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

// How many samples ahead a split loop prefetches the stack entry it will read.
constexpr size_t kPrefetch = 16;

// Appends a tree node's parent, depth and totals to `out`; returns its id.
inline int32_t open_node(CallTree& out, int32_t parent, int32_t depth, int64_t total, int64_t base_total) {
  out.parent.push_back(parent);
  out.depth.push_back(depth);
  out.total.push_back(total);
  out.base_total.push_back(base_total);
  return static_cast<int32_t>(out.parent.size() - 1);
}

// A kept tree's bound for a type it does not cover.
constexpr double kUncovered = std::numeric_limits<double>::infinity();

// One sample's walk down a kept tree's split (see stacks_pruned.cpp's PathRef).
struct Walk {
  int64_t pos;
  int32_t sub;
  int32_t len;
  size_t sample;
};

// The stack entry a sample's walk starts at: its root end, its leaf end when inverted.
int64_t start_pos(const Profile& p, size_t s, bool inverted);

// Adds (sign 1) or takes away (-1) one sample's values of every type to a row
// of sums, and its non-zero values' count to a row of counts.
void add_row(int64_t* sums, int64_t* counts, const int64_t* v, size_t nt, int64_t sign);

// Appends a kept tree node (its sums zero but for total and count); returns its id.
int32_t add_node(KeptTree& k, int32_t parent, int32_t frame, int32_t depth, const int64_t* total, const int64_t* count);

// A copy of a kept tree without its per-sample path lengths (sums.len), for
// a derived tree that writes its own: a few MB less to copy.
KeptTree copy_but_lengths(const KeptTree& k);

// Takes one sample of `p` (the kept tree's profile, walked with `sf`; `len`
// its path length) away from the tree: from every node on its path in the
// tree, and from the rest of the node where the path leaves it.
void drop_sample(const Profile& p, const SourceFrames& sf, bool inverted, size_t s, int32_t len, KeptTree& k);

// The tree of `type` read off a kept tree that covers it (KeptTree::covers).
void emit_kept(const KeptTree& kept, size_t type, double min_fraction, CallTree& out);

// The two builds; build_call_tree checks the sources and picks one. Both fill
// every column of `out` (base columns included; the caller clears them).
void build_trie(const StackSource& cur, const StackSource* base, const CallTreeOptions& opt, CallTree& out);
void build_pruned(const StackSource& cur, const StackSource* base, const CallTreeOptions& opt, CallTree& out);

}  // namespace pprofcore::stacks
