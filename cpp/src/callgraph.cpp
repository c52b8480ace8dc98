// callgraph: one pass over the samples, root first, as graph.newGraph walks them.
#include "pprofcore/callgraph.hpp"
#include "pprofcore/key_index.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>

#include "pprofcore/arith.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/filter.hpp"
#include "pprofcore/fork_join.hpp"
#include "pprofcore/idle_cpu.hpp"

namespace pprofcore {

namespace {

inline int64_t abs64(int64_t v) { return v < 0 ? wrapping_sub(0, v) : v; }

// The rows a filter's kept mask marks (one byte per sample), in order.
std::vector<size_t> marked_rows(const std::vector<uint8_t>& mask, size_t expected) {
  std::vector<size_t> rows;
  rows.reserve(expected);
  for (size_t s = 0; s < mask.size(); ++s)
    if (mask[s]) rows.push_back(s);
  return rows;
}

// Per sample, an id of its set of string labels ("key:value" sorted, as pprof's
// joinLabels); 0 = no string labels.
std::vector<int32_t> label_set_ids(const Profile& p) {
  const size_t ns = p.num_samples();
  std::vector<int32_t> ids(ns, 0);
  std::unordered_map<std::string, int32_t> index;
  std::vector<std::string> parts;
  std::string key;
  for (size_t s = 0; s < ns; ++s) {
    parts.clear();
    for (int64_t i = p.label_offsets[s]; i < p.label_offsets[s + 1]; ++i) {
      const size_t r = static_cast<size_t>(i);
      if (p.labels.str[r] < 0) continue;
      std::string part(p.str(p.labels.key[r]));
      part.push_back(':');
      part.append(p.str(p.labels.str[r]));
      parts.push_back(std::move(part));
    }
    if (parts.empty()) continue;
    std::sort(parts.begin(), parts.end());
    key.clear();
    for (const auto& x : parts) {
      key += x;
      key.push_back('\n');
    }
    // try_emplace: a set seen before allocates nothing (emplace built a node per sample)
    ids[s] = index.try_emplace(key, static_cast<int32_t>(index.size() + 1)).first->second;
  }
  return ids;
}

struct NumKey {
  uint64_t node_set;
  int64_t value;
  bool operator==(const NumKey& o) const { return node_set == o.node_set && value == o.value; }
};
struct NumHash {
  size_t operator()(const NumKey& k) const {
    return std::hash<uint64_t>()(k.node_set * 0x9e3779b97f4a7c15ULL ^ static_cast<uint64_t>(k.value));
  }
};

}  // namespace

TagSignatures tag_signatures(const Profile& p) {
  TagSignatures out;
  const std::vector<int32_t> label_set = label_set_ids(p);
  int32_t bytes_key = -1;
  for (size_t i = 0; i < p.strings.size(); ++i)
    if (p.strings[i] == "bytes") {
      bytes_key = static_cast<int32_t>(i);
      break;
    }
  const size_t ns = p.num_samples();
  out.of_sample.assign(ns, 0);
  std::unordered_map<std::string, int32_t> index;
  std::string key;
  std::vector<int64_t> values;
  for (size_t s = 0; s < ns; ++s) {
    values.clear();
    if (bytes_key >= 0)
      for (int64_t i = p.label_offsets[s]; i < p.label_offsets[s + 1]; ++i) {
        const size_t r = static_cast<size_t>(i);
        if (p.labels.str[r] < 0 && p.labels.key[r] == bytes_key) values.push_back(p.labels.num[r]);
      }
    if (label_set[s] == 0 && values.empty()) continue;
    key.assign(reinterpret_cast<const char*>(&label_set[s]), sizeof(int32_t));
    key.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int64_t));
    const auto [it, fresh] = index.try_emplace(key, static_cast<int32_t>(out.set.size()));
    if (fresh) {
      out.set.push_back(label_set[s]);
      out.bytes.insert(out.bytes.end(), values.begin(), values.end());
      out.bytes_offsets.push_back(static_cast<int64_t>(out.bytes.size()));
    }
    out.of_sample[s] = it->second;
  }
  return out;
}

namespace {

// Adds (or, with kSubtract, takes away) one sample's values `w` to the sums of
// the nodes on its path [path, end): each node's cum once, the leaf's flat.
// True when a node occurs twice on the path (recursion): only such samples
// need the builds' once-per-sample checks. `seen` marks the nodes summed under
// `stamp`. kTypes fixes the number of sample types when it is small (a loop
// the compiler unrolls); 0 reads `nt`.
template <size_t kTypes, bool kSubtract>
bool add_sample_sums(const int32_t* path, const int32_t* end, const int64_t* w, size_t nt, uint32_t stamp,
                     uint32_t* seen, int64_t* flat, int64_t* cum) {
  const size_t n_types = kTypes ? kTypes : nt;
  auto add = [&](int64_t* to) {
    for (size_t k = 0; k < n_types; ++k) to[k] = kSubtract ? wrapping_sub(to[k], w[k]) : wrapping_add(to[k], w[k]);
  };
  bool repeats = false;
  int32_t leaf = -1;
  for (; path != end; ++path) {
    const int32_t n = *path < 0 ? ~*path : *path;
    const size_t nr = static_cast<size_t>(n);
    if (seen[nr] != stamp) {
      seen[nr] = stamp;
      add(cum + nr * n_types);
    } else {
      repeats = true;
    }
    leaf = n;
  }
  if (leaf >= 0) add(flat + static_cast<size_t>(leaf) * n_types);
  return repeats;
}

// Samples a part of a walk over the samples takes at least (fewer run on one
// thread): the paths' walk and each build's.
constexpr size_t kSamplesPerPart = 50000;

// Parts a walk over `ns` samples is split into when the caller leaves it
// open: one per core, each of kSamplesPerPart samples or more, but one
// while every CPU is busy and not crowded (idle_cpu.hpp), where a second
// thread only takes turns with another process's.
size_t automatic_parts(size_t ns) {
  const size_t most = std::min<size_t>(hardware_threads(), ns / kSamplesPerPart);
  return most >= 2 && second_thread_pays_now() ? most : 1;
}

// The walk of sample_paths over samples [s0, s1), their offsets already in
// `out`: each path written, its repeat mark, and every sample type's sums
// added to `flat` and `cum` (a sample of value 0 adds 0, as the graph's
// walk, which skips it, leaves the sums). kTypes fixes the number of sample
// types when it is small; 0 reads the profile's.
template <size_t kTypes>
void walk_paths(const Profile& p, const NodeTable& t, size_t s0, size_t s1, SamplePaths& out, int64_t* flat,
                int64_t* cum) {
  const size_t nt = kTypes ? kTypes : p.num_types();
  int32_t* nodes = out.node_store->data();
  std::vector<uint32_t> seen(out.num_nodes, 0);
  for (size_t s = s0; s < s1; ++s) {
    const size_t begin = static_cast<size_t>(out.offsets[s]);
    size_t at = begin;
    // Root first: the stack backwards, each location's nodes outermost first.
    const int32_t* root_end = p.stack_locations.data() + p.stack_offsets[s];
    for (const int32_t* loc = p.stack_locations.data() + p.stack_offsets[s + 1]; loc-- != root_end;) {
      const int64_t* span = t.loc_node_offsets.data() + *loc;
      for (int64_t j = span[1] - 1; j >= span[0]; --j) {
        const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
        nodes[at++] = j != span[1] - 1 ? ~n : n;
      }
    }
    // stamp = s + 1 marks the nodes this sample has summed
    out.repeats[s] = add_sample_sums<kTypes, false>(nodes + begin, nodes + at, p.values.data() + s * nt, nt,
                                                    static_cast<uint32_t>(s + 1), seen.data(), flat, cum);
  }
}

void walk_paths_part(const Profile& p, const NodeTable& t, size_t s0, size_t s1, SamplePaths& out, int64_t* flat,
                     int64_t* cum) {
  switch (p.num_types()) {
    case 1:
      return walk_paths<1>(p, t, s0, s1, out, flat, cum);
    case 2:
      return walk_paths<2>(p, t, s0, s1, out, flat, cum);
    case 4:
      return walk_paths<4>(p, t, s0, s1, out, flat, cum);
    default:
      return walk_paths<0>(p, t, s0, s1, out, flat, cum);
  }
}

// Runs walk(s0, s1, flat, cum) over the samples of `out` in parts on threads
// (`parts` as sample_paths takes it); parts after the first sum into sums of
// their own, added at the end (wrapping sums are exact in any order).
template <class Walk>
void walk_in_parts(size_t ns, size_t parts, SamplePaths& out, const Walk& walk) {
  const size_t np = parts ? std::min(parts, std::max<size_t>(ns, 1)) : automatic_parts(ns);
  std::vector<std::vector<int64_t>> part_sums(2 * (np - 1), std::vector<int64_t>(out.flat.size(), 0));
  fork_join(np, [&](size_t k) {
    int64_t* flat = k ? part_sums[2 * k - 2].data() : out.flat.data();
    int64_t* cum = k ? part_sums[2 * k - 1].data() : out.cum.data();
    walk(ns * k / np, ns * (k + 1) / np, flat, cum);
  });
  for (size_t k = 1; k < np; ++k)
    for (size_t i = 0; i < out.flat.size(); ++i) {
      out.flat[i] = wrapping_add(out.flat[i], part_sums[2 * k - 2][i]);
      out.cum[i] = wrapping_add(out.cum[i], part_sums[2 * k - 1][i]);
    }
}

// mapped_sample_paths' walk over samples [s0, s1): each node of `from`'s
// paths replaced by its row in `to` (the inline marks kept), the sums added.
template <size_t kTypes>
void map_paths(const Profile& p, const SamplePaths& from, const std::vector<int32_t>& to, size_t s0, size_t s1,
               SamplePaths& out, int64_t* flat, int64_t* cum) {
  const size_t nt = kTypes ? kTypes : p.num_types();
  std::vector<uint32_t> seen(out.num_nodes, 0);
  int32_t* nodes = out.node_store->data();
  const int32_t* row = to.data();
  for (size_t s = s0; s < s1; ++s) {
    const size_t begin = static_cast<size_t>(out.offsets[s]), end = static_cast<size_t>(out.offsets[s + 1]);
    const int32_t* in = from.path_begin(s) - begin;  // from's path may lie elsewhere in a shared store
    for (size_t i = begin; i < end; ++i) nodes[i] = in[i] < 0 ? ~row[~in[i]] : row[in[i]];
    out.repeats[s] =
        add_sample_sums<kTypes, false>(nodes + begin, nodes + end, p.values.data() + from.sample_row(s) * nt, nt,
                                       static_cast<uint32_t>(s + 1), seen.data(), flat, cum);
  }
}

void map_paths_part(const Profile& p, const SamplePaths& from, const std::vector<int32_t>& to, size_t s0, size_t s1,
                    SamplePaths& out, int64_t* flat, int64_t* cum) {
  switch (p.num_types()) {
    case 1:
      return map_paths<1>(p, from, to, s0, s1, out, flat, cum);
    case 2:
      return map_paths<2>(p, from, to, s0, s1, out, flat, cum);
    case 4:
      return map_paths<4>(p, from, to, s0, s1, out, flat, cum);
    default:
      return map_paths<0>(p, from, to, s0, s1, out, flat, cum);
  }
}

// Whether `child`'s samples are `parent`'s samples `rows`, in order, with the
// same labels over an equal string table: then each has the same tag
// signature. The stacks and values are not read (signatures ignore them).
bool same_labels(const Profile* child_p, const Profile& parent, const std::vector<size_t>& rows) {
  if (!child_p) return true;  // the parent's own samples (derived_sample_paths with no child)
  const Profile& child = *child_p;
  if (child.num_samples() != rows.size() || child.strings.size() != parent.strings.size() ||
      !(child.strings == parent.strings))
    return false;
  const Labels &a = child.labels, &b = parent.labels;
  for (size_t j = 0; j < rows.size(); ++j) {
    const auto cb = static_cast<size_t>(child.label_offsets[j]), ce = static_cast<size_t>(child.label_offsets[j + 1]);
    const auto pb = static_cast<size_t>(parent.label_offsets[rows[j]]);
    if (ce - cb != static_cast<size_t>(parent.label_offsets[rows[j] + 1]) - pb) return false;
    for (size_t i = 0; i < ce - cb; ++i)
      if (a.key[cb + i] != b.key[pb + i] || a.str[cb + i] != b.str[pb + i] || a.num[cb + i] != b.num[pb + i])
        return false;
  }
  return true;
}

// Gives `to` (paths of child) the signatures of `from` (paths of parent) at
// `rows`, when the parent's were found and the labels agree.
bool share_rows_tag_signatures(const Profile* child, const SamplePaths& to, const Profile& parent,
                               const SamplePaths& from, const std::vector<size_t>& rows) {
  const std::shared_ptr<const TagSignatures> sigs = from.tag_signatures_found();
  if (!sigs || !same_labels(child, parent, rows)) return false;
  auto out = std::make_shared<TagSignatures>();
  out->set = sigs->set;  // signatures no kept sample has cost nothing: no build meets them
  out->bytes_offsets = sigs->bytes_offsets;
  out->bytes = sigs->bytes;
  out->of_sample.resize(rows.size());
  for (size_t j = 0; j < rows.size(); ++j) out->of_sample[j] = sigs->of_sample[rows[j]];
  to.give_tag_signatures(std::move(out));
  return true;
}

}  // namespace

bool share_tag_signatures(const Profile& p, const SamplePaths& to, const Profile& from_p, const SamplePaths& from,
                          const std::vector<uint8_t>* kept) {
  if (to.rows_of || from.rows_of) return false;  // paths over another profile's rows: found by their builds
  if (to.num_samples() != p.num_samples() || from.num_samples() != from_p.num_samples())
    throw InternalError("share_tag_signatures: sample paths were built from another profile");
  if (!kept) {
    if (&p != &from_p) return false;
    const std::shared_ptr<const TagSignatures> sigs = from.tag_signatures_found();
    if (sigs) to.give_tag_signatures(sigs);
    return sigs != nullptr;
  }
  if (kept->size() != from_p.num_samples() || !from.tag_signatures_found()) return false;
  const std::vector<size_t> rows = marked_rows(*kept, p.num_samples());
  return share_rows_tag_signatures(&p, to, from_p, from, rows);
}

SamplePaths sample_paths(const Profile& p, const NodeTable& t, size_t parts) {
  if (t.loc_node_offsets.size() != p.locations.size() + 1)
    throw InternalError("node table was built from another profile");
  const size_t ns = p.num_samples(), nt = p.num_types();
  SamplePaths out;
  out.num_nodes = t.size();
  out.num_types = nt;
  out.flat.assign(out.num_nodes * nt, 0);
  out.cum.assign(out.num_nodes * nt, 0);
  out.offsets.assign(ns + 1, 0);
  out.repeats.assign(ns, 0);
  // Each path's place first: the parts write their samples' paths at once, and
  // the array is allocated at its exact size (growing past a guess copies it
  // and keeps up to twice its memory; inlined frames make it longer than the
  // stacks).
  const int64_t* span = t.loc_node_offsets.data();
  for (size_t s = 0; s < ns; ++s) {
    int64_t len = 0;
    for (int64_t i = p.stack_offsets[s]; i < p.stack_offsets[s + 1]; ++i) {
      const size_t l = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      len += span[l + 1] - span[l];
    }
    out.offsets[s + 1] = out.offsets[s] + len;
  }
  out.node_store->resize(static_cast<size_t>(out.offsets[ns]));
  walk_in_parts(ns, parts, out, [&](size_t s0, size_t s1, int64_t* flat, int64_t* cum) {
    walk_paths_part(p, t, s0, s1, out, flat, cum);
  });
  return out;
}

namespace {
bool add_mapped_sample_sums(const SamplePaths& paths, const int32_t* path, const int32_t* end, const int64_t* w,
                            size_t nt, uint32_t stamp, uint32_t* seen, int64_t* flat, int64_t* cum);
}  // namespace

std::optional<SamplePaths> mapped_sample_paths(const Profile& p, const NodeTable& t, const NodeTable& from_t,
                                               const SamplePaths& from, size_t parts) {
  // Paths over some of p's samples (`rows`) are renamed to paths over the same.
  const size_t ns = from.rows_of ? from.rows.size() : p.num_samples(), nt = p.num_types();
  if (t.loc_node_offsets.size() != p.locations.size() + 1)
    throw InternalError("node table was built from another profile");
  if (from.num_samples() != ns || from.num_nodes != from_t.size() || from.num_types != nt)
    throw InternalError("sample paths were built from another profile or node table");
  // Each location's nodes one for one (the same count, so the same places in
  // every path), and each of from_t's rows always the same row of t: found
  // over the locations, not the samples.
  if (t.loc_node_offsets != from_t.loc_node_offsets) return std::nullopt;
  std::vector<int32_t> to(from_t.size(), -1);
  for (size_t j = 0; j < from_t.loc_nodes.size(); ++j) {
    int32_t& row = to[static_cast<size_t>(from_t.loc_nodes[j])];
    if (row < 0)
      row = t.loc_nodes[j];
    else if (row != t.loc_nodes[j])
      return std::nullopt;  // one node of from_t stands for several of t (lines to functions)
  }
  SamplePaths out;
  out.num_nodes = t.size();
  out.num_types = nt;
  out.rows = from.rows;
  out.rows_of = from.rows_of;
  out.flat.assign(out.num_nodes * nt, 0);
  out.cum.assign(out.num_nodes * nt, 0);
  if (!from.node_map.empty()) {
    // from reads a shared store through a map (hide, show): the same store
    // read through the map composed with `to`, only the sums walked.
    out.node_store = from.node_store;
    out.offsets = from.offsets;
    out.ends = from.ends;
    out.node_map.resize(from.node_map.size());
    for (size_t r = 0; r < from.node_map.size(); ++r)
      out.node_map[r] = from.node_map[r] < 0 ? -1 : to[static_cast<size_t>(from.node_map[r])];
    out.repeats.assign(ns, 0);
    walk_in_parts(ns, parts, out, [&](size_t s0, size_t s1, int64_t* flat, int64_t* cum) {
      std::vector<uint32_t> seen(out.num_nodes, 0);
      for (size_t s = s0; s < s1; ++s)
        out.repeats[s] =
            add_mapped_sample_sums(out, out.path_begin(s), out.path_end(s), p.values.data() + out.sample_row(s) * nt,
                                   nt, static_cast<uint32_t>(s + 1), seen.data(), flat, cum);
    });
    if (auto sigs = from.tag_signatures_found()) out.give_tag_signatures(std::move(sigs));  // the same samples
    return out;
  }
  if (from.ends.empty()) {
    out.offsets = from.offsets;
  } else {  // from shares another's store: its paths are written back to back here
    out.offsets.assign(ns + 1, 0);
    for (size_t s = 0; s < ns; ++s) out.offsets[s + 1] = out.offsets[s] + (from.path_end(s) - from.path_begin(s));
  }
  out.repeats.assign(ns, 0);
  out.node_store->resize(static_cast<size_t>(out.offsets[ns]));
  walk_in_parts(ns, parts, out, [&](size_t s0, size_t s1, int64_t* flat, int64_t* cum) {
    map_paths_part(p, from, to, s0, s1, out, flat, cum);
  });
  if (auto sigs = from.tag_signatures_found()) out.give_tag_signatures(std::move(sigs));  // the same samples
  return out;
}

std::optional<SamplePaths> derived_sample_paths(const Profile* child, const NodeTable& t,
                                                const std::shared_ptr<const Profile>& parent_p,
                                                const NodeTable& parent_t, const SamplePaths& parent_paths,
                                                const std::vector<uint8_t>* kept) {
  const Profile& parent = *parent_p;
  const size_t nt = parent.num_types(), np = parent.num_samples();
  if (!child && !kept) throw InternalError("derived_sample_paths: a child left in its parent needs the kept mask");
  // Paths that read another profile's samples themselves: not derived further.
  if (parent_paths.rows_of || !parent_paths.node_map.empty()) return std::nullopt;
  if ((child && child->num_types() != nt) || t.size() != parent_t.size() ||
      t.loc_node_offsets != parent_t.loc_node_offsets || t.loc_nodes != parent_t.loc_nodes)
    return std::nullopt;  // the same location maps to other rows: the paths would differ
  if (parent_paths.num_samples() != np || parent_paths.num_nodes != parent_t.size() || parent_paths.num_types != nt)
    throw InternalError("sample paths were built from another profile or node table");
  std::vector<size_t> rows;
  if (kept) {  // the filter's own record: no match needed, and a copy beats a walk at any size
    if (kept->size() != np) throw InternalError("derived_sample_paths: the kept mask does not fit the parent");
    rows = marked_rows(*kept, child ? child->num_samples() : np);
    if (child && rows.size() != child->num_samples())
      throw InternalError("derived_sample_paths: the kept mask does not fit the child");
  } else {
    // The match reads every parent sample: for a child of few frames, building
    // its paths anew is cheaper.
    if (child->stack_locations.size() * 2 < parent.stack_locations.size()) return std::nullopt;
    bool ok = false;
    rows = matching_samples(*child, parent, ok);
    if (!ok) return std::nullopt;
  }
  // The kept samples' paths are the parent's: their places in its store,
  // not a copy (tens of megabytes of fresh pages for a filter keeping most).
  SamplePaths out;
  out.num_nodes = parent_paths.num_nodes;
  out.num_types = nt;
  out.node_store = parent_paths.node_store;
  out.offsets.resize(rows.size() + 1);
  out.ends.resize(rows.size());
  out.repeats.resize(rows.size());
  const int32_t* store = parent_paths.node_store->data();
  for (size_t j = 0; j < rows.size(); ++j) {
    out.offsets[j] = parent_paths.path_begin(rows[j]) - store;
    out.ends[j] = parent_paths.path_end(rows[j]) - store;
    out.repeats[j] = parent_paths.repeats[rows[j]];
  }
  out.offsets[rows.size()] = rows.empty() ? 0 : out.ends.back();  // read by nothing: ends says where paths end
  if (!child) {                                                   // the builds read the parent's samples at these rows
    out.rows.assign(rows.begin(), rows.end());
    out.rows_of = parent_p;
  }
  // Sums: wrapping arithmetic is exact modulo 2^64, so the parent's minus the
  // left-out samples' equal the kept samples' own.
  std::vector<uint32_t> seen(out.num_nodes, 0);
  uint32_t stamp = 0;
  if (rows.size() * 2 >= np) {
    out.flat = parent_paths.flat;
    out.cum = parent_paths.cum;
    size_t next = 0;  // the next kept parent sample
    for (size_t s = 0; s < np; ++s) {
      if (next < rows.size() && rows[next] == s) {
        ++next;
        continue;
      }
      add_sample_sums<0, true>(parent_paths.path_begin(s), parent_paths.path_end(s), parent.values.data() + s * nt, nt,
                               ++stamp, seen.data(), out.flat.data(), out.cum.data());
    }
  } else {
    out.flat.assign(out.num_nodes * nt, 0);
    out.cum.assign(out.num_nodes * nt, 0);
    for (size_t j = 0; j < rows.size(); ++j)  // the child's values are the parent's at its rows
      add_sample_sums<0, false>(out.path_begin(j), out.path_end(j), parent.values.data() + rows[j] * nt, nt, ++stamp,
                                seen.data(), out.flat.data(), out.cum.data());
  }
  share_rows_tag_signatures(child, out, parent, parent_paths, rows);
  return out;
}

namespace {

// Per parent node row, its row in `t` after a filter took the `hidden`
// locations out of every stack, or -1 (its frames are gone); nullopt when a
// location kept its place with another number of nodes, a node is both in a
// hidden location and a kept one, or two parent nodes are one node of t.
std::optional<std::vector<int32_t>> hidden_node_map(const NodeTable& t, const NodeTable& parent_t,
                                                    const std::vector<uint8_t>& hidden) {
  constexpr int32_t kUnseen = -1, kDropped = -2;
  std::vector<int32_t> map(parent_t.size(), kUnseen);
  for (size_t l = 0; l < hidden.size(); ++l) {
    const int64_t pb = parent_t.loc_node_offsets[l], pe = parent_t.loc_node_offsets[l + 1];
    if (hidden[l]) {
      for (int64_t j = pb; j < pe; ++j) {
        int32_t& m = map[static_cast<size_t>(parent_t.loc_nodes[static_cast<size_t>(j)])];
        if (m >= 0) return std::nullopt;
        m = kDropped;
      }
      continue;
    }
    const int64_t cb = t.loc_node_offsets[l];
    if (t.loc_node_offsets[l + 1] - cb != pe - pb) return std::nullopt;  // some of its lines hidden
    for (int64_t j = 0; j < pe - pb; ++j) {
      int32_t& m = map[static_cast<size_t>(parent_t.loc_nodes[static_cast<size_t>(pb + j)])];
      const int32_t c = t.loc_nodes[static_cast<size_t>(cb + j)];
      if (m == kUnseen)
        m = c;
      else if (m != c)
        return std::nullopt;
    }
  }
  std::vector<uint8_t> taken(t.size(), 0);
  for (int32_t& m : map) {
    if (m < 0) {
      m = -1;
    } else {
      if (taken[static_cast<size_t>(m)]) return std::nullopt;  // cum would count the merged node twice
      taken[static_cast<size_t>(m)] = 1;
    }
  }
  return map;
}

// add_sample_sums over a path read through `paths.node_at`.
bool add_mapped_sample_sums(const SamplePaths& paths, const int32_t* path, const int32_t* end, const int64_t* w,
                            size_t nt, uint32_t stamp, uint32_t* seen, int64_t* flat, int64_t* cum) {
  bool repeats = false;
  int32_t leaf = -1;
  for (; path != end; ++path) {
    const int32_t e = paths.node_at(*path);
    if (e == SamplePaths::kNotOnPath) continue;
    const auto nr = static_cast<size_t>(e < 0 ? ~e : e);
    if (seen[nr] != stamp) {
      seen[nr] = stamp;
      for (size_t k = 0; k < nt; ++k) cum[nr * nt + k] = wrapping_add(cum[nr * nt + k], w[k]);
    } else {
      repeats = true;
    }
    leaf = static_cast<int32_t>(nr);
  }
  if (leaf >= 0)
    for (size_t k = 0; k < nt; ++k)
      flat[static_cast<size_t>(leaf) * nt + k] = wrapping_add(flat[static_cast<size_t>(leaf) * nt + k], w[k]);
  return repeats;
}

}  // namespace

std::optional<SamplePaths> hidden_sample_paths(const Profile* child, const NodeTable& t,
                                               const std::shared_ptr<const Profile>& parent_p,
                                               const NodeTable& parent_t, const SamplePaths& parent_paths,
                                               const std::vector<uint8_t>& kept, const std::vector<uint8_t>& hidden) {
  const Profile& parent = *parent_p;
  const size_t nt = parent.num_types(), np = parent.num_samples(), nl = parent.locations.size();
  if (parent_paths.rows_of || !parent_paths.node_map.empty()) return std::nullopt;  // not derived twice
  if (parent_paths.num_samples() != np || parent_paths.num_nodes != parent_t.size() || parent_paths.num_types != nt ||
      parent_t.loc_node_offsets.size() != nl + 1)
    throw InternalError("sample paths were built from another profile or node table");
  if (kept.size() != np || hidden.size() != nl)
    throw InternalError("hidden_sample_paths: the filter's masks do not fit the parent");
  if (t.loc_node_offsets.size() != nl + 1 || (child && child->num_types() != nt)) return std::nullopt;
  std::optional<std::vector<int32_t>> map = hidden_node_map(t, parent_t, hidden);
  if (!map) return std::nullopt;
  const std::vector<size_t> rows = marked_rows(kept, child ? child->num_samples() : np);
  if (child && rows.size() != child->num_samples())
    throw InternalError("hidden_sample_paths: the kept mask does not fit the child");

  // The kept samples' paths where they lie in the parent's store, read
  // through the map: the hidden frames' nodes are skipped, not copied out.
  SamplePaths out;
  out.num_nodes = t.size();
  out.num_types = nt;
  out.node_store = parent_paths.node_store;
  out.node_map = std::move(*map);
  out.offsets.resize(rows.size() + 1);
  out.ends.resize(rows.size());
  out.repeats.assign(rows.size(), 0);
  const int32_t* store = parent_paths.node_store->data();
  for (size_t j = 0; j < rows.size(); ++j) {
    out.offsets[j] = parent_paths.path_begin(rows[j]) - store;
    out.ends[j] = parent_paths.path_end(rows[j]) - store;
  }
  out.offsets[rows.size()] = rows.empty() ? 0 : out.ends.back();  // read by nothing: ends says where paths end
  if (!child) {
    out.rows.assign(rows.begin(), rows.end());
    out.rows_of = parent_p;
  }
  const std::vector<int32_t>& node_map = out.node_map;
  out.flat.assign(out.num_nodes * nt, 0);
  out.cum.assign(out.num_nodes * nt, 0);
  std::vector<uint32_t> seen(std::max(parent_paths.num_nodes, out.num_nodes), 0);
  uint32_t stamp = 0;
  if (rows.size() * 2 >= np) {
    // The parent's sums less the dropped samples', renamed: hiding frames
    // changes no kept node's cum (the samples holding it are the same) and
    // moves flat only where the leaf was hidden.
    std::vector<int64_t> flat = parent_paths.flat, cum = parent_paths.cum;
    size_t next = 0;
    for (size_t s = 0; s < np; ++s) {
      if (next < rows.size() && rows[next] == s) {
        ++next;
        continue;
      }
      add_sample_sums<0, true>(parent_paths.path_begin(s), parent_paths.path_end(s), parent.values.data() + s * nt, nt,
                               ++stamp, seen.data(), flat.data(), cum.data());
    }
    for (size_t r = 0; r < node_map.size(); ++r) {
      if (node_map[r] < 0) continue;
      const size_t to = static_cast<size_t>(node_map[r]);
      std::copy_n(flat.data() + r * nt, nt, out.flat.data() + to * nt);
      std::copy_n(cum.data() + r * nt, nt, out.cum.data() + to * nt);
    }
    for (size_t j = 0; j < rows.size(); ++j) {
      const int32_t* begin = out.path_begin(j);
      const int32_t* end = out.path_end(j);
      if (begin == end) continue;
      const int64_t* v = parent.values.data() + rows[j] * nt;
      if (out.node_at(end[-1]) == SamplePaths::kNotOnPath) {  // the leaf was hidden: flat goes to the new leaf
        int32_t leaf = SamplePaths::kNotOnPath;
        for (const int32_t* k = end - 1; k != begin && leaf == SamplePaths::kNotOnPath;) leaf = out.node_at(*--k);
        if (leaf != SamplePaths::kNotOnPath) {
          int64_t* f = out.flat.data() + static_cast<size_t>(leaf < 0 ? ~leaf : leaf) * nt;
          for (size_t k = 0; k < nt; ++k) f[k] = wrapping_add(f[k], v[k]);
        }
      }
      if (parent_paths.repeats[rows[j]]) {  // a repeat may have been of a hidden node
        ++stamp;
        for (const int32_t* k = begin; k != end && !out.repeats[j]; ++k) {
          const int32_t e = out.node_at(*k);
          if (e == SamplePaths::kNotOnPath) continue;
          const auto nr = static_cast<size_t>(e < 0 ? ~e : e);
          if (seen[nr] == stamp) out.repeats[j] = 1;
          seen[nr] = stamp;
        }
      }
    }
  } else {
    for (size_t j = 0; j < rows.size(); ++j)
      out.repeats[j] =
          add_mapped_sample_sums(out, out.path_begin(j), out.path_end(j), parent.values.data() + rows[j] * nt, nt,
                                 ++stamp, seen.data(), out.flat.data(), out.cum.data());
  }
  share_rows_tag_signatures(child, out, parent, parent_paths, rows);  // hiding frames changes no label
  return out;
}

const TagSignatures& SamplePaths::tag_signatures_of(const Profile& p) const {
  std::lock_guard<std::mutex> hold(*tags_lock_);
  if (!tags_) {
    TagSignatures found = tag_signatures(p);
    if (rows_of) {  // p's samples at rows: theirs gathered
      std::vector<int32_t> of_rows(rows.size());
      for (size_t j = 0; j < rows.size(); ++j) of_rows[j] = found.of_sample[static_cast<size_t>(rows[j])];
      found.of_sample = std::move(of_rows);
    }
    tags_ = std::make_shared<const TagSignatures>(std::move(found));
  }
  return *tags_;
}

size_t SamplePaths::path_nodes() const {
  if (ends.empty()) return static_cast<size_t>(offsets.back());
  size_t n = 0;
  for (size_t s = 0; s < ends.size(); ++s) {
    if (node_map.empty()) {
      n += static_cast<size_t>(ends[s] - offsets[s]);
      continue;
    }
    for (const int32_t* k = path_begin(s); k != path_end(s); ++k) n += node_at(*k) != kNotOnPath;
  }
  return n;
}

size_t SamplePaths::nbytes() const {
  // The store counts in full though derived paths share it: the bound on a
  // cache of paths stays a bound when the paths it came from are dropped.
  return (offsets.capacity() + ends.capacity() + flat.capacity() + cum.capacity()) * sizeof(int64_t) +
         (node_store->capacity() + rows.capacity() + node_map.capacity()) * sizeof(int32_t) + repeats.capacity() +
         tag_signature_bytes();
}

bool SamplePaths::operator==(const SamplePaths& o) const {
  if (num_nodes != o.num_nodes || num_types != o.num_types || offsets.size() != o.offsets.size() || flat != o.flat ||
      cum != o.cum || repeats != o.repeats)
    return false;
  std::vector<int32_t> a, b;
  auto read = [](const SamplePaths& p, size_t s, std::vector<int32_t>& out) {
    out.clear();
    for (const int32_t* k = p.path_begin(s); k != p.path_end(s); ++k)
      if (p.node_at(*k) != kNotOnPath) out.push_back(p.node_at(*k));
  };
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    read(*this, s, a);
    read(o, s, b);
    if (a != b) return false;
  }
  return true;
}

std::shared_ptr<const TagSignatures> SamplePaths::tag_signatures_found() const {
  std::lock_guard<std::mutex> hold(*tags_lock_);
  return tags_;
}

void SamplePaths::give_tag_signatures(std::shared_ptr<const TagSignatures> sigs) const {
  std::lock_guard<std::mutex> hold(*tags_lock_);
  if (!tags_) tags_ = std::move(sigs);
}

size_t SamplePaths::tag_signature_bytes() const {
  std::lock_guard<std::mutex> hold(*tags_lock_);
  if (!tags_) return 0;
  const TagSignatures& t = *tags_;
  return (t.bytes_offsets.capacity() + t.bytes.capacity()) * sizeof(int64_t) +
         (t.of_sample.capacity() + t.set.capacity()) * sizeof(int32_t);
}

CallGraph build_call_graph(const Profile& p, const NodeTable& t, size_t type, const std::vector<uint8_t>& kept,
                           int64_t tag_cutoff, CallGraphParts parts) {
  if (type >= p.num_types()) throw ProfileError("sample type index out of range");
  return build_call_graph(p, sample_paths(p, t), t.size(), type, kept, tag_cutoff, parts);
}

namespace {

// Rows of (a, b) pairs of dense ids (an edge's caller and callee, a node and
// a tag signature): a matrix when it has at most kDenseCells cells (256 KB:
// it stays in the core's cache, where a bigger one missed on most calls),
// else a hash.
class PairRows {
 public:
  PairRows(size_t na, size_t nb) : nb_(nb), dense_(na * nb <= kDenseCells) {
    if (dense_) cells_.assign(na * nb, -1);
  }
  // The row of (a, b), or -1 after recording `fresh` as its row.
  int32_t find_or_insert(int32_t a, int32_t b, int32_t fresh) {
    if (!dense_) return index_.find_or_insert(KeyIndex::pair(a, b), fresh);
    int32_t& slot = cells_[static_cast<size_t>(a) * nb_ + static_cast<size_t>(b)];
    if (slot >= 0) return slot;
    slot = fresh;
    return -1;
  }

 private:
  static constexpr size_t kDenseCells = size_t{1} << 16;
  size_t nb_;
  bool dense_;
  std::vector<int32_t> cells_;
  KeyIndex index_;
};

// What one build reads: the kept mask (empty: every node) with each kept
// node's dense id, and which parts to find.
struct BuildInput {
  const Profile& p;
  const SamplePaths& paths;
  size_t type;
  const std::vector<uint8_t>& kept;
  const std::vector<int32_t>& kept_id;
  size_t num_kept;
  bool edges;
  const TagSignatures* sigs;  // nullptr: no label tags
  // Per node, a dense id when it ends a tagged sample (else -1): the tag
  // pairs are indexed by it, so their matrix stays small where nodes are
  // many (lines) and few of them end a tagged sample.
  const std::vector<int32_t>& tag_leaf_id;
  size_t num_tag_leaves;
};

// One range of samples' edges and label tag sums, in the order its samples
// first meet them: a build walks its samples in parts on threads and adds the
// parts in order, which keeps the order one walk would give.
struct GraphPart {
  std::vector<int32_t> src, dst;
  std::vector<int64_t> weight;
  std::vector<uint8_t> residual, is_inline;
  std::vector<int32_t> tag_node, tag_sig;
  std::vector<std::pair<int64_t, int64_t>> tag_sums;  // (flat, cum)

  // Row of a new tag pair (node, signature) with zero sums.
  size_t add_tag_row(int32_t n, int32_t sig) {
    tag_node.push_back(n);
    tag_sig.push_back(sig);
    tag_sums.emplace_back(0, 0);
    return tag_sums.size() - 1;
  }
  // Row of a new edge, its flags as one occurrence sets them.
  size_t add_edge(int32_t a, int32_t b, bool inline_call) {
    src.push_back(a);
    dst.push_back(b);
    weight.push_back(0);
    residual.push_back(0);
    is_inline.push_back(inline_call ? 1 : 0);
    return src.size() - 1;
  }
};

// check_sums_fit over the samples the paths stand for: p's, or p's at rows
// (whose magnitudes p's bound, so only p's overflow needs the rows' own sum).
void check_paths_sums_fit(const Profile& p, const SamplePaths& paths, size_t type) {
  if (sums_fit(p, type)) return;
  if (!paths.rows_of) throw_sums_overflow(p, type);
  const size_t nt = p.num_types();
  int64_t sum = 0;
  for (const int32_t r : paths.rows) {
    const int64_t v = p.values[static_cast<size_t>(r) * nt + type];
    if (v == std::numeric_limits<int64_t>::min() || !checked_add(sum, v < 0 ? -v : v)) throw_sums_overflow(p, type);
  }
}

size_t num_signatures(const BuildInput& in) { return in.sigs ? in.sigs->set.size() : 0; }

// The walk over samples [s0, s1): each kept node's edge from the kept node
// before it (residual when nodes were left out between them) and, for the
// nodes that end a tagged sample, the tag sums. Each node and edge counts once
// per sample; only samples whose path repeats a node need the check.
void walk_part(const BuildInput& in, size_t s0, size_t s1, GraphPart& out) {
  const size_t nn = in.paths.num_nodes, nt = in.p.num_types();
  const bool all = in.kept.empty();
  std::vector<uint32_t> seen(in.sigs ? nn : 0, 0);  // stamp = sample index + 1
  std::vector<uint32_t> edge_seen;
  // Per caller, a few slots (by the callee's low bits) holding the edges last
  // seen from it: a caller has a handful of callees, so most calls find their
  // row here, in the cache, without a lookup. One slot each past 16,384
  // nodes (addresses), where 16 would make the slots megabytes per part.
  struct LastCall {
    int32_t callee = -1, row = -1;
  };
  const size_t call_slots = nn <= (size_t{1} << 14) ? 16 : 1;
  std::vector<LastCall> last_call(in.edges ? nn * call_slots : 0);
  PairRows edge_rows(in.edges ? in.num_kept : 0, in.num_kept);
  const size_t nsig = num_signatures(in);
  PairRows tag_rows(nsig ? in.num_tag_leaves : 0, nsig);
  auto add_tags = [&](int32_t n, int32_t sig, int64_t w, bool flat) {
    int32_t row =
        tag_rows.find_or_insert(in.tag_leaf_id[static_cast<size_t>(n)], sig, static_cast<int32_t>(out.tag_sums.size()));
    if (row < 0) row = static_cast<int32_t>(out.add_tag_row(n, sig));
    auto& tg = out.tag_sums[static_cast<size_t>(row)];
    (flat ? tg.first : tg.second) = wrapping_add(flat ? tg.first : tg.second, w);
  };
  const bool mapped = !in.paths.node_map.empty();
  for (size_t s = s0; s < s1; ++s) {
    const int64_t w = in.p.values[in.paths.sample_row(s) * nt + in.type];
    if (w == 0) continue;
    const int32_t sig = in.sigs ? in.sigs->of_sample[s] : 0;
    if (!in.edges && sig == 0) continue;
    const bool once = in.paths.repeats[s] != 0;
    const auto stamp = static_cast<uint32_t>(s + 1);
    int32_t parent = -1;
    bool residual = false;
    const int32_t* end = in.paths.path_end(s);
    for (const int32_t* k = in.paths.path_begin(s); k != end; ++k) {
      const int32_t entry = mapped ? in.paths.node_at(*k) : *k;
      if (entry == SamplePaths::kNotOnPath) continue;  // a hidden frame: not on this path at all
      const bool is_inline = entry < 0;
      const int32_t n = is_inline ? ~entry : entry;
      const size_t nr = static_cast<size_t>(n);
      if (!all && !in.kept[nr]) {
        residual = true;
        continue;
      }
      if (sig && in.tag_leaf_id[nr] >= 0 && (!once || seen[nr] != stamp)) {
        if (once) seen[nr] = stamp;
        add_tags(n, sig, w, false);
      }
      if (in.edges && parent >= 0 && parent != n) {
        LastCall& last = last_call[static_cast<size_t>(parent) * call_slots + (nr & (call_slots - 1))];
        if (last.callee != n) {
          const int32_t found = edge_rows.find_or_insert(in.kept_id[static_cast<size_t>(parent)], in.kept_id[nr],
                                                         static_cast<int32_t>(out.src.size()));
          if (found < 0) edge_seen.push_back(0);
          last = LastCall{n, found >= 0 ? found : static_cast<int32_t>(out.add_edge(parent, n, is_inline))};
        }
        const auto e = static_cast<size_t>(last.row);
        if (!once || edge_seen[e] != stamp) {  // later repeats in a sample change no flags either
          if (once) edge_seen[e] = stamp;
          out.weight[e] = wrapping_add(out.weight[e], w);
          if (residual) out.residual[e] = 1;
          if (!is_inline) out.is_inline[e] = 0;
        }
      }
      parent = n;
      residual = false;
    }
    if (sig && parent >= 0 && !residual && in.tag_leaf_id[static_cast<size_t>(parent)] >= 0)
      add_tags(parent, sig, w, true);
  }
}

// Adds `more`, the part after `into`'s samples, to `into`: its new edges and
// tag pairs after `into`'s, in their order.
void add_part(const BuildInput& in, GraphPart& into, const GraphPart& more) {
  PairRows edge_rows(in.num_kept, in.num_kept);
  for (size_t e = 0; e < into.src.size(); ++e)
    edge_rows.find_or_insert(in.kept_id[static_cast<size_t>(into.src[e])], in.kept_id[static_cast<size_t>(into.dst[e])],
                             static_cast<int32_t>(e));
  for (size_t e = 0; e < more.src.size(); ++e) {
    const int32_t found =
        edge_rows.find_or_insert(in.kept_id[static_cast<size_t>(more.src[e])],
                                 in.kept_id[static_cast<size_t>(more.dst[e])], static_cast<int32_t>(into.src.size()));
    const size_t row = found >= 0 ? static_cast<size_t>(found) : into.add_edge(more.src[e], more.dst[e], true);
    into.weight[row] = wrapping_add(into.weight[row], more.weight[e]);
    into.residual[row] |= more.residual[e];
    into.is_inline[row] &= more.is_inline[e];
  }
  const size_t nsig = num_signatures(in);
  PairRows tag_rows(nsig ? in.num_tag_leaves : 0, nsig);
  auto leaf_id = [&](int32_t n) { return in.tag_leaf_id[static_cast<size_t>(n)]; };
  for (size_t r = 0; r < into.tag_sums.size(); ++r)
    tag_rows.find_or_insert(leaf_id(into.tag_node[r]), into.tag_sig[r], static_cast<int32_t>(r));
  for (size_t r = 0; r < more.tag_sums.size(); ++r) {
    const int32_t found =
        tag_rows.find_or_insert(leaf_id(more.tag_node[r]), more.tag_sig[r], static_cast<int32_t>(into.tag_sums.size()));
    auto& to =
        into.tag_sums[found >= 0 ? static_cast<size_t>(found) : into.add_tag_row(more.tag_node[r], more.tag_sig[r])];
    to.first = wrapping_add(to.first, more.tag_sums[r].first);
    to.second = wrapping_add(to.second, more.tag_sums[r].second);
  }
}

}  // namespace

CallGraph build_call_graph(const Profile& p, const SamplePaths& paths, size_t nn, size_t type,
                           const std::vector<uint8_t>& kept, int64_t tag_cutoff, CallGraphParts parts) {
  const size_t nt = p.num_types(), ns = paths.num_samples();
  if (type >= nt) throw ProfileError("sample type index out of range");
  if (!kept.empty() && kept.size() != nn) throw InternalError("kept mask must have one entry per node");
  if ((paths.rows_of ? paths.rows_of.get() != &p : ns != p.num_samples()) || paths.num_nodes != nn ||
      paths.num_types != nt || paths.repeats.size() != ns)
    throw InternalError("sample paths were built from another profile or node table");
  check_paths_sums_fit(p, paths, type);  // then no flat, cum or edge weight below can wrap
  auto is_kept = [&](size_t n) { return kept.empty() || kept[n] != 0; };

  // A kept node's flat and cum are those of the whole graph (each sample that
  // holds it counts once; flat where it is the leaf), which the paths' walk
  // summed: only the edges and the tags need a walk.
  CallGraph g;
  g.flat.assign(nn, 0);
  g.cum.assign(nn, 0);
  std::vector<int32_t> kept_id(nn, -1);
  size_t nk = 0;
  for (size_t n = 0; n < nn; ++n) {
    if (!is_kept(n)) continue;
    g.flat[n] = paths.flat[n * nt + type];
    g.cum[n] = paths.cum[n * nt + type];
    kept_id[n] = static_cast<int32_t>(nk++);
  }
  // Label tags are summed per (node, sample signature) while walking the frames,
  // then spread over the signature's tags at the end. Only tags with a flat
  // count, so only nodes that end a tagged sample need their cum summed.
  const TagSignatures* sigs = parts.tags ? &paths.tag_signatures_of(p) : nullptr;
  std::vector<int32_t> tag_leaf_id(sigs ? nn : 0, -1);
  size_t num_tag_leaves = 0;
  for (size_t s = 0; sigs && s < ns; ++s) {
    if (p.values[paths.sample_row(s) * nt + type] == 0 || sigs->of_sample[s] == 0) continue;
    // The walk ends on the first node of the innermost location that has one.
    int32_t last = SamplePaths::kNotOnPath;
    for (const int32_t* k = paths.path_end(s); k != paths.path_begin(s) && last == SamplePaths::kNotOnPath;)
      last = paths.node_at(*--k);
    if (last == SamplePaths::kNotOnPath) continue;
    const size_t leaf = static_cast<size_t>(last < 0 ? ~last : last);
    if (is_kept(leaf) && tag_leaf_id[leaf] < 0) tag_leaf_id[leaf] = static_cast<int32_t>(num_tag_leaves++);
  }
  const BuildInput in{p, paths, type, kept, kept_id, nk, parts.edges, sigs, tag_leaf_id, num_tag_leaves};
  size_t num_parts = 0;
  if (parts.edges || parts.tags)
    num_parts = parts.walk_parts ? std::min(parts.walk_parts, std::max<size_t>(ns, 1)) : automatic_parts(ns);
  std::vector<GraphPart> done(num_parts);
  fork_join(num_parts, [&](size_t k) { walk_part(in, ns * k / num_parts, ns * (k + 1) / num_parts, done[k]); });
  for (size_t k = 1; k < num_parts; ++k) add_part(in, done[0], done[k]);
  GraphPart walked = num_parts ? std::move(done[0]) : GraphPart{};
  g.src = std::move(walked.src);
  g.dst = std::move(walked.dst);
  g.weight = std::move(walked.weight);
  g.residual = std::move(walked.residual);
  g.is_inline = std::move(walked.is_inline);
  const std::vector<int32_t>&tag_node = walked.tag_node, &tag_sig = walked.tag_sig;
  const std::vector<std::pair<int64_t, int64_t>>& tag_sums = walked.tag_sums;
  // Label tags: (node, label set) -> (flat, cum). pprof keeps one numeric label
  // for the graph, "bytes": its tags are (node, label set, value).
  std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> tags;
  std::unordered_map<NumKey, std::pair<int64_t, int64_t>, NumHash> num_tags;
  auto add_to = [](std::pair<int64_t, int64_t>& to, const std::pair<int64_t, int64_t>& v) {
    to.first = wrapping_add(to.first, v.first);
    to.second = wrapping_add(to.second, v.second);
  };
  for (size_t r = 0; r < tag_sums.size(); ++r) {
    const size_t sig = static_cast<size_t>(tag_sig[r]);
    const int32_t set = sigs->set[sig];
    const uint64_t key = KeyIndex::pair(tag_node[r], set);
    if (set) add_to(tags[key], tag_sums[r]);
    for (int64_t i = sigs->bytes_offsets[sig]; i < sigs->bytes_offsets[sig + 1]; ++i)
      add_to(num_tags[NumKey{key, sigs->bytes[static_cast<size_t>(i)]}], tag_sums[r]);
  }
  g.tag_count.assign(nn, 0);
  for (const auto& [key, fc] : tags) {
    if (fc.first != 0 && (abs64(fc.first) >= tag_cutoff || abs64(fc.second) >= tag_cutoff))
      ++g.tag_count[static_cast<size_t>(key >> 32)];
  }
  for (const auto& [key, fc] : num_tags) {
    if (fc.first != 0 && (abs64(fc.first) >= tag_cutoff || abs64(fc.second) >= tag_cutoff))
      ++g.tag_count[static_cast<size_t>(key.node_set >> 32)];
  }
  return g;
}

}  // namespace pprofcore
