// stacks: the call tree behind flame graphs. Samples' stacks become a tree, root
// first (or leaf first when inverted), one tree node per frame on the path: inline
// frames are frames, recursion gives new nodes. Frames are aggregate's report nodes
// (so `by` granularity works as in top) keyed across profiles by printable name,
// which lets a base profile share the tree for diff flame graphs. Small subtrees
// are merged into one "..." node per parent, without building them first when
// min_fraction > 0 (stacks_pruned.cpp). Does not lay out, colour or format.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/profile.hpp"
#include "pprofcore/strings.hpp"

namespace pprofcore {

// One profile's side of a tree: its report nodes and the sample type to sum.
struct StackSource {
  const Profile* profile = nullptr;
  const NodeTable* nodes = nullptr;  // aggregate(profile, ...) at the wanted granularity
  size_t type = 0;
};

struct PathSums;
struct KeptTree;

struct CallTreeOptions {
  bool inverted = false;  // leaf functions under the root (callers below them)
  // Children whose |total| (and |base_total|) is below min_fraction of the root's
  // are merged into one "..." child per parent; 0 keeps every node.
  double min_fraction = 0.0;
  // Profiles with at least twice this many samples are split across threads
  // (the whole-trie build).
  size_t min_samples_per_thread = 50000;
  // Trie: every node of the untrimmed tree is built, then trimmed (the
  // reference). Pruned: nodes below min_fraction are never built; the same
  // tree, much sooner on deep profiles with many distinct stacks. Auto: Pruned
  // when min_fraction > 0.
  enum class Method { Auto, Trie, Pruned };
  Method method = Method::Auto;
  // The frame sums of every sample type of `cur` (path_sums), kept by a caller
  // that builds several sample types of one profile: the pruned build then
  // reads no frame outside the kept tree. Ignored with a base or the trie.
  const PathSums* sums = nullptr;
  // Every sample type's trimmed tree of `cur` (kept_tree): a tree it covers is
  // emitted from it without reading a frame; otherwise its sums serve as
  // `sums`. Ignored with a base or the trie.
  const KeptTree* kept = nullptr;
};

// What the pruned build reads every frame for: each sample's path length and
// pprof's flat and cum per frame, for sample types [first_type, first_type +
// num_types). Frame ids are those a build without a base gives.
struct PathSums {
  const Profile* profile = nullptr;  // what it was computed from (checked on use)
  const NodeTable* nodes = nullptr;
  bool inverted = false;
  // `profile` holds only the tables of a deferred filter output (filter.hpp),
  // whose samples are in its input: nothing may read its frames.
  bool tables_only = false;
  size_t first_type = 0, num_types = 0, num_frames = 0;
  std::vector<int32_t> len;            // per sample, in frames
  std::vector<int64_t> fself, ftotal;  // [frame * num_types + type - first_type]
  size_t bytes() const { return len.size() * sizeof(int32_t) + (fself.size() + ftotal.size()) * sizeof(int64_t); }
};

// The path sums of every sample type of `profile` (one pass over every frame).
PathSums path_sums(const Profile& profile, const NodeTable& nodes, bool inverted);

// The trimmed call trees of every sample type of one profile at once: the
// nodes whose total reaches `bound[t]` in some type t, with each type's self,
// total and count (samples with a non-zero value) per node, and per node the
// same sums over its children left out. Every node left out has |total| below
// bound[t] in each type t, so a tree trimmed at a threshold of at least
// bound[t] keeps only nodes of this one and is read off it (emit order,
// "..." nodes and sums as the pruned build gives). A filtered profile that
// keeps some samples unchanged derives its own by taking the dropped
// samples away (derive_kept_tree). Built without a base only.
struct KeptTree {
  PathSums sums;                                                      // the profile, node table and direction are sums'
  std::vector<double> bound;                                          // per type; +inf: this type is not covered
  std::vector<uint8_t> nonneg;                                        // per type: no sample has a negative value
  std::vector<int32_t> parent, frame, depth, child_begin, child_end;  // children: ids [begin, end)
  std::vector<int64_t> self, total, count, rest_total, rest_count;    // [node * num_types + type]
  StringTable frame_name, frame_file;                                 // the frame table of a build without a base
  std::vector<int64_t> frame_line;
  size_t size() const { return parent.size(); }
  size_t bytes() const;
  // Whether the tree of `type` trimmed at min_fraction is read off this one.
  bool covers(size_t type, double min_fraction) const;
};

// Builds the kept tree of `profile` for trimming at min_fraction and above:
// nodes reaching slack * min_fraction of a type's root total are kept, so a
// filtered profile keeping at least `slack` of each total can derive its own.
KeptTree kept_tree(const Profile& profile, const NodeTable& nodes, bool inverted, double min_fraction, double slack);

// The kept tree of `child`, a profile whose samples are some of `parent`'s
// (kept.sums.profile) unchanged, in order, over an equal node table (focus,
// ignore, label filters): the parent's sums less the dropped samples'. Empty
// (nullopt) when child is not such a profile or building anew is cheaper.
// Types with negative values are not covered by the result. `kept`, when
// given, says which parent samples child holds (filter_by_name's
// NameFilterResult::kept of a filter that hid no location): the samples are
// then not matched by stack and values, a read of both profiles' frames.
// `deferred` (with `kept`): child holds only the tables of the filter's
// deferred output, whose samples are parent's kept ones; the result's sums
// are then tables_only, and a tree it does not cover cannot be built from it.
std::optional<KeptTree> derive_kept_tree(const Profile& child, const NodeTable& child_nodes, const KeptTree& parent,
                                         const std::vector<uint8_t>* kept = nullptr, bool deferred = false);

// The kept tree of `child`, made from parent's profile by hide or show
// (filter_by_name): `kept` (per parent sample) says which samples it holds,
// `hidden` (per location) which locations left every stack. The parent's
// tree with the hidden frames spliced out (stacks_spliced.cpp), the samples
// leaving it at a hidden frame walked again by their new paths. nullopt when
// that would not be exact: a location lost only some of its frames, a frame
// is hidden in one location and not in another, or a node the parent's tree
// trimmed could merge with one it kept. Types with negative values are not
// covered. `used` (per location, filter.hpp's used_locations of the parent),
// when given, spares the locations in no stack those checks. InternalError
// when the masks do not fit the profiles. `deferred`: as derive_kept_tree's,
// child's stacks being parent's kept ones without the hidden locations.
std::optional<KeptTree> derive_spliced_tree(const Profile& child, const NodeTable& child_nodes, const KeptTree& parent,
                                            const std::vector<uint8_t>& kept, const std::vector<uint8_t>& hidden,
                                            const std::vector<uint8_t>* used = nullptr, bool deferred = false);

// Frame 0 is "root"; a "..." frame exists only when something was merged.
// Tree nodes are in depth-first pre-order (a subtree is a contiguous id range),
// children ordered by |total| descending, then |base_total| descending, then name.
struct CallTree {
  // frames (distinct names)
  StringTable frame_name;
  StringTable frame_file;           // file of a representative function ("" = unknown)
  std::vector<int64_t> frame_line;  // its line (line granularity) or start line; 0 = unknown
  // pprof's flat and cum per frame over the whole, untrimmed tree
  std::vector<int64_t> frame_self, frame_total, frame_base_self, frame_base_total;
  int32_t ellipsis_frame = -1;
  // tree nodes; node 0 is the root (parent -1, depth 0)
  std::vector<int32_t> parent, frame, depth;
  std::vector<int64_t> self, total;            // summed values of the main profile
  std::vector<int64_t> base_self, base_total;  // of the base profile; empty without one
  bool with_base = false;
  size_t size() const { return parent.size(); }
};

// Builds the tree of `cur` (and of `base` when given: its values go to the base_*
// columns of the same nodes, so nodes that exist only in the base are kept too).
// Samples whose value is 0 in the chosen type add nothing. Throws ProfileError when
// a type index is out of range or a node table does not belong to its profile;
// InternalError when `opt.kept` is tables_only and does not cover the tree.
CallTree build_call_tree(const StackSource& cur, const StackSource* base, const CallTreeOptions& opt);

}  // namespace pprofcore
