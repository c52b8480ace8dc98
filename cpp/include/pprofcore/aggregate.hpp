// aggregate: flat/cum per report node at pprof's granularities (functions,
// filefunctions, files, lines, addresses) and ours (packages, binaries), with or
// without inline frames, for all
// sample types at once, and pprof's node order. Nodes are identified and named the
// way google/pprof's internal/graph does (NodeInfo, PrintableName). Does not trim
// nodes by fraction, filter samples, or format values (Python does units).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Packages and Binaries are ours, not pprof's: a node per package of the
// function (packages.hpp; functions without one fall back to their binary)
// or per mapping file (basename).
enum class Granularity { Functions, FileFunctions, Files, Lines, Addresses, Packages, Binaries };

// Parses "functions" | "filefunctions" | "files" | "lines" | "addresses" |
// "packages" | "binaries"; throws ProfileError.
Granularity parse_granularity(std::string_view s);

struct AggregateOptions {
  Granularity granularity = Granularity::Functions;
  bool inline_frames = true;  // false = pprof's -noinlines (keep each location's outermost line)
  // Sample type whose non-zero samples define call edges for the (inline) labels;
  // -1 = a sample counts when any of its values is non-zero.
  int label_type = -1;
  // With pprof's -mean, a sample also counts when this type (the count) is non-zero.
  int label_div_type = -1;
  // false: only identify and name the nodes (loc_node_offsets/loc_nodes, names);
  // flat, cum and inline labels stay zero. The call tree needs no more.
  bool sums = true;
  // false: `printable` stays empty; printable_name() names the nodes a caller
  // needs (a fleet series names only its non-zero nodes).
  bool names = true;
  // Profiles with at least twice this many samples are summed in parts on
  // threads (the same sums: they wrap alike in any order).
  size_t min_samples_per_thread = 50000;
};

// The most sample types whose inline labels one aggregation gives for every label type.
inline constexpr size_t kMaxInlineLabelTypes = 62;

// One row per node. Keys follow pprof's NodeInfo: name, file, start_line, lineno,
// address, objfile. Values are sums over samples (no mean division).
struct NodeTable {
  size_t n_types = 0;
  std::vector<int64_t> flat;      // n_nodes x n_types, row-major
  std::vector<int64_t> cum;       // n_nodes x n_types; a node counts once per sample
  std::vector<int32_t> function;  // a representative function row (-1 = none)
  std::vector<int32_t> name;      // function name code in the profile's strings (0 = none)
  std::vector<int64_t> start_line, lineno;
  std::vector<uint64_t> address;
  std::vector<int32_t> objfile;       // mapping filename code (0 = none)
  std::vector<uint8_t> inline_label;  // 0 none, 1 "(inline)", 2 "(partial-inline)"
  // The labels of every label type, from the same pass: n_nodes x (2 * n_types + 1),
  // row-major; column 0 is label_type -1, 1 + k label_type k, 1 + n_types + k
  // label_type k with label_div_type 0 (pprof's -mean). Empty without sums or
  // with more than kMaxInlineLabelTypes sample types.
  std::vector<uint8_t> inline_labels_by_type;
  StringTable file;       // cleaned file name per node ("" = none); the package or binary name at those granularities
  StringTable printable;  // pprof's printable name per node
  // Nodes of each location, innermost (leaf-most inline frame) first, as CSR.
  std::vector<int64_t> loc_node_offsets{0};
  std::vector<int32_t> loc_nodes;
  // Per sample type: 1 when the sum of |value| leaves int64, so some sums above
  // wrapped; node_order refuses that type (other types stay usable).
  std::vector<uint8_t> sums_overflow;
  size_t size() const { return name.size(); }
};

NodeTable aggregate(const Profile& p, const AggregateOptions& opt);

// Whether every total of sample type `type` fits int64: true when the sum of
// its values' magnitudes does, since each flat, cum, edge weight, call tree
// node and folded stack sums a subset of them (in any order, any signs).
bool sums_fit(const Profile& p, size_t type);

// ProfileError naming the sample type whose totals would pass int64: reports,
// flame graphs, call graphs and folded text raise it instead of wrapping.
[[noreturn]] void throw_sums_overflow(const Profile& p, size_t type);

inline void check_sums_fit(const Profile& p, size_t type) {
  if (!sums_fit(p, type)) throw_sums_overflow(p, type);
}

// pprof's printable name of node `n` (graph.NodeInfo.PrintableName): what
// `printable` holds when the table was built with names.
std::string printable_name(const Profile& p, const NodeTable& t, size_t n);

// printable_name(p, t, n) where it is one of the profile's strings (a named
// function's node without address, file or line: the name alone), read in
// place; empty otherwise (then printable_name builds it).
std::string_view printable_name_in_place(const Profile& p, const NodeTable& t, size_t n);

// Call edges (caller -> callee) touching nodes selected by `node_mask` (one
// byte per node), as graph.newGraph builds them: weights summed over samples,
// each edge counted once per sample; `is_inline` when every occurrence was
// within one location. Only samples with a non-zero value of `label_type`
// (any value when -1) or of `label_div_type` (when >= 0) create edges.
// `node_keep` (empty = all nodes) is the node set of a trimmed graph: frames of
// other nodes are skipped, so an edge may jump over them (pprof's residual
// edges), as when pprof rebuilds its graph from the nodes it kept.
// `sample_keep` (empty = all samples) walks only the samples it marks: the
// edges of a filter's output that kept some of p's samples unchanged
// (filter.hpp's NameFilterResult::kept), without a copy of them; `hidden`
// (empty = none, else one byte per location) the locations a hide or show
// took out of those stacks, passed over as if absent. `t` is then the
// output's table (same location rows as p).
struct EdgeTable {
  size_t n_types = 0;
  std::vector<int32_t> src, dst;
  std::vector<int64_t> weight;  // n_edges x n_types
  std::vector<uint8_t> is_inline;
  size_t size() const { return src.size(); }
};
EdgeTable aggregate_edges(const Profile& p, const NodeTable& t, const std::vector<uint8_t>& node_mask, int label_type,
                          int label_div_type = -1, const std::vector<uint8_t>& node_keep = {},
                          const std::vector<uint8_t>& sample_keep = {}, const std::vector<uint8_t>& hidden = {});

// Row order of pprof's reports for one sample type: by |flat| desc, printable
// name, |cum| desc (or by |cum| desc, name, |flat| desc when `by_cum`), then
// pprof's last-resort key. Nodes whose flat and cum are both 0 are left out.
// Throws throw_sums_overflow's error when `type`'s sums wrapped (sums_overflow).
std::vector<int32_t> node_order(const Profile& p, const NodeTable& t, size_t type, bool by_cum);

// Go's path/filepath.Clean for slash-separated paths.
std::string clean_path(std::string_view path);

}  // namespace pprofcore
