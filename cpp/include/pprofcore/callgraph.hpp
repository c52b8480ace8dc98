// callgraph: pprof's call graph over report nodes (graph.New with KeptNodes):
// nodes outside `kept` are left out, edges jump over them (marked residual),
// each node and edge counts once per sample, flat goes to a kept leaf only.
// Also counts each node's label tags (pprof's "nodelets"), which pprof weighs
// when it picks the top nodes. Ordering and redundant edges: graph_trim.hpp.
#pragma once
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

struct CallGraph {
  std::vector<int64_t> flat, cum;  // per NodeTable row (0 for rows not in the graph)
  std::vector<int32_t> src, dst;   // edges, NodeTable rows, caller -> callee
  std::vector<int64_t> weight;
  std::vector<uint8_t> residual;   // the edge goes over nodes that were left out
  std::vector<uint8_t> is_inline;  // every occurrence was within one location
  // Per node: label tags (distinct sets of string labels of the samples ending
  // there) whose flat is non-zero and whose |flat| or |cum| >= tag_cutoff.
  std::vector<int32_t> tag_count;
};

// What a build computes beyond flat and cum: the trimming steps need the edges
// or the tag counts only in some of their builds, and each costs a hash lookup
// per frame.
struct CallGraphParts {
  bool edges = true;
  bool tags = true;
  // Parts the walk over the samples is split into, each on a thread of its
  // own; 0: one per core, each of at least 50,000 samples.
  size_t walk_parts = 0;
};

// Each sample's report nodes, root first, as the graph's walk meets them (one
// per inlined frame): built once per profile and node table, so every build
// (each sample type, each kept mask) reads one array in order instead of
// looking up each location's nodes.
// What each sample adds to the label tags: its label set and its "bytes"
// values. Samples with the same set and values share a signature id.
struct TagSignatures {
  std::vector<int32_t> of_sample;            // per sample; 0 = no tags
  std::vector<int32_t> set{0};               // per signature: its label set id
  std::vector<int64_t> bytes_offsets{0, 0};  // per signature: its "bytes" values
  std::vector<int64_t> bytes;
};
TagSignatures tag_signatures(const Profile& p);

struct SamplePaths {
  // Per sample, where its path starts in the node store (num_samples + 1
  // entries: back to back, path s ends where s + 1 starts, unless `ends`).
  std::vector<int64_t> offsets{0};
  // Per sample, where its path ends, when the paths are some of another's and
  // share its store (derived_sample_paths: a filter's kept samples, whose
  // nodes are the parent's, are not copied); empty when back to back.
  std::vector<int64_t> ends;
  // A node row, or ~row when the node is an inlined frame of the location
  // before it (one array: the walk reads a single stream). Written while the
  // paths are built, read only after; shared by the paths derived from them.
  std::shared_ptr<std::vector<int32_t>> node_store = std::make_shared<std::vector<int32_t>>();
  size_t num_nodes = 0;  // rows of the node table they were built over
  // Per node row and sample type (row * num_types + type): the flat and cum of
  // the graph of every node, found while the paths are built: every build
  // reads its kept nodes' flat and cum here and walks only for edges and tags.
  size_t num_types = 0;
  std::vector<int64_t> flat, cum;
  // Per sample: 1 when a node occurs twice on its path (recursion). The
  // builds count each node and edge once per sample; on the other paths every
  // occurrence is the first, so they skip that check.
  std::vector<uint8_t> repeats;
  // Per sample, its row in the profile whose values and labels the builds
  // read, when the paths stand for some of that profile's samples (a filter
  // output whose samples were left in its input: derived_sample_paths with no
  // child), held in `rows_of`; without rows_of, path s is the sample s of the
  // profile the paths were built from (builds take either: sample_profile).
  std::vector<int32_t> rows;
  std::shared_ptr<const Profile> rows_of;
  // Per node row of the store, its row in these paths' node table, or -1
  // when its entries are not on these paths (frames hide or show took out):
  // paths derived that way share the parent's store and are read through
  // this map (node_at); empty when the store holds these paths' rows.
  std::vector<int32_t> node_map;

  size_t num_samples() const { return offsets.size() - 1; }
  size_t sample_row(size_t s) const { return rows_of ? static_cast<size_t>(rows[s]) : s; }
  // The profile whose samples the paths' values and labels are: rows_of, or
  // `p` (the profile the paths were built from) when they are its own.
  const Profile& sample_profile(const Profile& p) const { return rows_of ? *rows_of : p; }

  // Sample s's path, root first: [path_begin(s), path_end(s)), each entry
  // read through node_at when node_map is set.
  const int32_t* path_begin(size_t s) const { return node_store->data() + offsets[s]; }
  const int32_t* path_end(size_t s) const { return node_store->data() + (ends.empty() ? offsets[s + 1] : ends[s]); }
  // An entry of the store as a node row of these paths, with its inline
  // mark (~row) as the store holds it; kNotOnPath when node_map leaves it out
  // (not -1: that is ~0, node 0 inlined).
  static constexpr int32_t kNotOnPath = INT32_MIN;
  int32_t node_at(int32_t entry) const {
    if (node_map.empty()) return entry;
    const int32_t n = node_map[static_cast<size_t>(entry < 0 ? ~entry : entry)];
    return n < 0 ? kNotOnPath : (entry < 0 ? ~n : n);
  }
  size_t path_nodes() const;  // nodes on all the paths
  size_t nbytes() const;      // bytes held, the shared store and the tag signatures included

  // The samples' tag signatures, found by the first build that counts tags and
  // kept for the next ones (they depend on the profile only). Thread-safe.
  const TagSignatures& tag_signatures_of(const Profile& p) const;
  size_t tag_signature_bytes() const;  // 0 until a build found them
  // The signatures found so far (null: none yet), and a way to hand them
  // over from other paths of the same samples (share_tag_signatures).
  std::shared_ptr<const TagSignatures> tag_signatures_found() const;
  void give_tag_signatures(std::shared_ptr<const TagSignatures> sigs) const;
  // Same paths, repeat marks and sums over the same node rows (however stored).
  bool operator==(const SamplePaths& o) const;

 private:
  mutable std::shared_ptr<std::mutex> tags_lock_ = std::make_shared<std::mutex>();
  mutable std::shared_ptr<const TagSignatures> tags_;
};
// `parts`: the samples are walked in that many parts, each on a thread of its
// own (0: one per core, each of at least 50,000 samples, while a core is idle
// or the machine crowded; idle_cpu.hpp). The paths are the same for any.
SamplePaths sample_paths(const Profile& p, const NodeTable& t, size_t parts = 0);

// The sample paths of p over t from `from`, its paths over another node table
// `from_t` of p, when each location has as many nodes in both tables and each
// row of from_t always stands for the same row of t (files or functions from
// lines; functions to files when every function has one file): each path's
// nodes renamed, no walk of the stacks. Equal to sample_paths(p, t, parts);
// nullopt when the tables do not map so.
std::optional<SamplePaths> mapped_sample_paths(const Profile& p, const NodeTable& t, const NodeTable& from_t,
                                               const SamplePaths& from, size_t parts = 0);

// The sample paths of `child`, a profile whose samples are some of `parent`'s
// (same stacks and values, in order; what focus, ignore and tag filters keep),
// from `parent_paths` (sample_paths of parent and parent_t): each kept sample's
// path copied, and the sums found from the parent's minus those of the samples
// left out (or from the kept ones, when fewer). Equal to sample_paths(child, t).
// nullopt when child is not such a profile, t maps locations otherwise, or
// child holds under half the parent's frames (building anew costs less).
// `kept` (one byte per parent sample, what filter_by_name records) names the
// kept samples instead of matching them again; the child must hold exactly
// those (InternalError otherwise).
// A null `child` with `kept` stands for a filter output whose samples are the
// parent's kept ones, never copied (the tables are the parent's): the paths
// then read the parent's samples through `rows`, and `rows_of` is `parent`.
std::optional<SamplePaths> derived_sample_paths(const Profile* child, const NodeTable& t,
                                                const std::shared_ptr<const Profile>& parent, const NodeTable& parent_t,
                                                const SamplePaths& parent_paths,
                                                const std::vector<uint8_t>* kept = nullptr);

// The sample paths of `child`, the output of a name filter that took whole
// locations out of the stacks (hide, show: `hidden`, one byte per location,
// and `kept`, one byte per parent sample, as filter_by_name records them),
// from `parent_paths`: each kept sample's path is the parent's with the
// hidden locations' nodes dropped, read in place through node_map (no copy
// of the store), and the sums are the parent's less the dropped samples',
// with flat moved to the new leaf where the leaf was hidden. Equal to
// sample_paths(child, t). nullopt when the tables do not allow it: a
// location kept with another number of nodes (some of its lines hidden), a
// parent node both in a hidden location and a kept one, or two parent nodes
// that are one node of t. A null `child` reads the parent's samples through
// `rows`, as derived_sample_paths does.
std::optional<SamplePaths> hidden_sample_paths(const Profile* child, const NodeTable& t,
                                               const std::shared_ptr<const Profile>& parent, const NodeTable& parent_t,
                                               const SamplePaths& parent_paths, const std::vector<uint8_t>& kept,
                                               const std::vector<uint8_t>& hidden);

// Gives `to` (paths of p) the tag signatures that `from` (paths of from_p)
// found, so that no build of p's graph finds them again: when p is from_p
// itself (kept null), or p holds the samples of from_p that `kept` marks (one
// byte per from_p sample), in order, with the same labels and string table
// (what the name filter keeps): each kept sample's signature. Signatures
// depend on the labels only, not on stacks or node tables. False, and
// nothing given, when `from` has found none yet or p does not fit.
bool share_tag_signatures(const Profile& p, const SamplePaths& to, const Profile& from_p, const SamplePaths& from,
                          const std::vector<uint8_t>* kept = nullptr);

// `kept` is empty (all nodes) or one byte per NodeTable row. Samples whose value
// of `type` is 0 add nothing. Parts left out of `parts` stay empty (edges) or
// zero (tag_count). Throws ProfileError on a bad type or mask size.
CallGraph build_call_graph(const Profile& p, const NodeTable& t, size_t type, const std::vector<uint8_t>& kept,
                           int64_t tag_cutoff, CallGraphParts parts = {});
// The same over `paths` (sample_paths of p and t; for paths with rows_of, p
// is that profile).
CallGraph build_call_graph(const Profile& p, const SamplePaths& paths, size_t num_nodes, size_t type,
                           const std::vector<uint8_t>& kept, int64_t tag_cutoff, CallGraphParts parts = {});

}  // namespace pprofcore
