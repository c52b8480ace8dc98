// callgraph: one pass over the samples, root first, as graph.newGraph walks them.
#include "pprofcore/callgraph.hpp"
#include "pprofcore/key_index.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>

#include "pprofcore/arith.hpp"
#include "pprofcore/errors.hpp"

namespace pprofcore {

namespace {

constexpr size_t kDenseEdges = size_t{1} << 20;  // (caller, callee) cells of an edge matrix, at most

inline int64_t abs64(int64_t v) { return v < 0 ? wrapping_sub(0, v) : v; }

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
    ids[s] = index.emplace(key, static_cast<int32_t>(index.size() + 1)).first->second;
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
    const auto [it, fresh] = index.emplace(key, static_cast<int32_t>(out.set.size()));
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

// The walk of sample_paths, with the number of sample types fixed when it is
// small (the sums of every type are added per node: a loop the compiler unrolls).
template <size_t kTypes>
void walk_paths(const Profile& p, const NodeTable& t, SamplePaths& out) {
  const size_t nt = kTypes ? kTypes : p.num_types();
  // Every type's sums in the same walk: a sample of value 0 adds 0, as the
  // graph's walk, which skips it, leaves the sums.
  auto add_values = [nt](int64_t* to, const int64_t* w) {
    for (size_t k = 0; k < nt; ++k) to[k] = wrapping_add(to[k], w[k]);
  };
  int64_t* cum = out.cum.data();
  int32_t* nodes = out.nodes.data();
  size_t at = 0;
  std::vector<uint32_t> seen(out.num_nodes, 0);
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int64_t* w = p.values.data() + s * nt;
    const auto stamp = static_cast<uint32_t>(s + 1);  // marks the nodes this sample has summed
    int32_t leaf = -1;
    // Root first: the stack backwards, each location's nodes outermost first.
    const int32_t* root_end = p.stack_locations.data() + p.stack_offsets[s];
    for (const int32_t* loc = p.stack_locations.data() + p.stack_offsets[s + 1]; loc-- != root_end;) {
      const int64_t* span = t.loc_node_offsets.data() + *loc;
      for (int64_t j = span[1] - 1; j >= span[0]; --j) {
        const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
        nodes[at++] = j != span[1] - 1 ? ~n : n;
        const size_t nr = static_cast<size_t>(n);
        if (seen[nr] != stamp) {
          seen[nr] = stamp;
          add_values(cum + nr * nt, w);
        }
        leaf = n;
      }
    }
    if (leaf >= 0) add_values(out.flat.data() + static_cast<size_t>(leaf) * nt, w);
    out.offsets[s + 1] = static_cast<int64_t>(at);
  }
}

}  // namespace

SamplePaths sample_paths(const Profile& p, const NodeTable& t) {
  if (t.loc_node_offsets.size() != p.locations.size() + 1)
    throw InternalError("node table was built from another profile");
  const size_t ns = p.num_samples(), nt = p.num_types();
  SamplePaths out;
  out.num_nodes = t.size();
  out.num_types = nt;
  out.flat.assign(out.num_nodes * nt, 0);
  out.cum.assign(out.num_nodes * nt, 0);
  out.offsets.assign(ns + 1, 0);
  // The exact size first: growing past a guess copies the array and keeps up
  // to twice its memory (inlined frames make it longer than the stacks).
  size_t total = 0;
  for (const auto loc : p.stack_locations) {
    const size_t l = static_cast<size_t>(loc);
    total += static_cast<size_t>(t.loc_node_offsets[l + 1] - t.loc_node_offsets[l]);
  }
  out.nodes.resize(total);
  switch (nt) {
    case 1:
      walk_paths<1>(p, t, out);
      break;
    case 2:
      walk_paths<2>(p, t, out);
      break;
    case 4:
      walk_paths<4>(p, t, out);
      break;
    default:
      walk_paths<0>(p, t, out);
  }
  return out;
}

namespace {

// Parent rows of child's samples, matched in order by stack and values; empty
// (with ok false) when some child sample has no such parent sample left.
std::vector<size_t> matching_samples(const Profile& child, const Profile& parent, bool& ok) {
  const size_t nt = parent.num_types(), np = parent.num_samples();
  std::vector<size_t> rows;
  rows.reserve(child.num_samples());
  size_t i = 0;
  ok = false;
  for (size_t j = 0; j < child.num_samples(); ++j) {
    const int64_t cb = child.stack_offsets[j], len = child.stack_offsets[j + 1] - cb;
    const int32_t* cs = child.stack_locations.data() + cb;
    const int64_t* cv = child.values.data() + j * nt;
    for (;; ++i) {
      if (i == np) return {};
      const int64_t pb = parent.stack_offsets[i];
      if (parent.stack_offsets[i + 1] - pb != len) continue;
      if (std::memcmp(parent.stack_locations.data() + pb, cs, static_cast<size_t>(len) * sizeof(int32_t)) != 0)
        continue;
      if (std::memcmp(parent.values.data() + i * nt, cv, nt * sizeof(int64_t)) != 0) continue;
      break;
    }
    rows.push_back(i++);
  }
  ok = true;
  return rows;
}

// Adds (or, with `sign` -1, takes away) one sample's values to the sums of the
// nodes on its path, as walk_paths does.
void add_path_sums(const SamplePaths& paths, size_t s, const int64_t* w, int64_t sign, uint32_t stamp,
                   std::vector<uint32_t>& seen, SamplePaths& out) {
  const size_t nt = out.num_types;
  auto add = [&](int64_t* to) {
    for (size_t k = 0; k < nt; ++k) to[k] = sign > 0 ? wrapping_add(to[k], w[k]) : wrapping_sub(to[k], w[k]);
  };
  int32_t leaf = -1;
  for (int64_t k = paths.offsets[s]; k < paths.offsets[s + 1]; ++k) {
    const int32_t raw = paths.nodes[static_cast<size_t>(k)];
    const int32_t n = raw < 0 ? ~raw : raw;
    if (seen[static_cast<size_t>(n)] != stamp) {
      seen[static_cast<size_t>(n)] = stamp;
      add(out.cum.data() + static_cast<size_t>(n) * nt);
    }
    leaf = n;
  }
  if (leaf >= 0) add(out.flat.data() + static_cast<size_t>(leaf) * nt);
}

}  // namespace

std::optional<SamplePaths> derived_sample_paths(const Profile& child, const NodeTable& t, const Profile& parent,
                                                const NodeTable& parent_t, const SamplePaths& parent_paths) {
  const size_t nt = parent.num_types(), np = parent.num_samples();
  if (child.num_types() != nt || t.size() != parent_t.size() || t.loc_node_offsets != parent_t.loc_node_offsets ||
      t.loc_nodes != parent_t.loc_nodes)
    return std::nullopt;  // the same location maps to other rows: the paths would differ
  if (parent_paths.offsets.size() != np + 1 || parent_paths.num_nodes != parent_t.size() ||
      parent_paths.num_types != nt)
    throw InternalError("sample paths were built from another profile or node table");
  // The match reads every parent sample: for a child of few frames, building
  // its paths anew is cheaper.
  if (child.stack_locations.size() * 2 < parent.stack_locations.size()) return std::nullopt;
  bool ok = false;
  const std::vector<size_t> rows = matching_samples(child, parent, ok);
  if (!ok) return std::nullopt;
  SamplePaths out;
  out.num_nodes = parent_paths.num_nodes;
  out.num_types = nt;
  out.offsets.assign(rows.size() + 1, 0);
  size_t total = 0;
  for (size_t j = 0; j < rows.size(); ++j) {
    total += static_cast<size_t>(parent_paths.offsets[rows[j] + 1] - parent_paths.offsets[rows[j]]);
    out.offsets[j + 1] = static_cast<int64_t>(total);
  }
  out.nodes.resize(total);
  for (size_t j = 0; j < rows.size(); ++j) {
    const int64_t b = parent_paths.offsets[rows[j]], e = parent_paths.offsets[rows[j] + 1];
    std::copy(parent_paths.nodes.begin() + b, parent_paths.nodes.begin() + e, out.nodes.begin() + out.offsets[j]);
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
      add_path_sums(parent_paths, s, parent.values.data() + s * nt, -1, ++stamp, seen, out);
    }
  } else {
    out.flat.assign(out.num_nodes * nt, 0);
    out.cum.assign(out.num_nodes * nt, 0);
    for (size_t j = 0; j < rows.size(); ++j) add_path_sums(out, j, child.values.data() + j * nt, 1, ++stamp, seen, out);
  }
  return out;
}

const TagSignatures& SamplePaths::tag_signatures_of(const Profile& p) const {
  std::lock_guard<std::mutex> hold(*tags_lock_);
  if (!tags_) tags_ = std::make_shared<const TagSignatures>(tag_signatures(p));
  return *tags_;
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

CallGraph build_call_graph(const Profile& p, const SamplePaths& paths, size_t nn, size_t type,
                           const std::vector<uint8_t>& kept, int64_t tag_cutoff, CallGraphParts parts) {
  const size_t nt = p.num_types(), ns = p.num_samples();
  if (type >= nt) throw ProfileError("sample type index out of range");
  if (!kept.empty() && kept.size() != nn) throw InternalError("kept mask must have one entry per node");
  if (paths.offsets.size() != ns + 1 || paths.num_nodes != nn)
    throw InternalError("sample paths were built from another profile or node table");
  check_sums_fit(p, type);  // then no flat, cum or edge weight below can wrap
  if (kept.empty() && !parts.edges && !parts.tags && paths.num_types == nt) {
    CallGraph sums;  // every node, no edges: what the paths' walk summed
    sums.flat.resize(nn);
    sums.cum.resize(nn);
    for (size_t n = 0; n < nn; ++n) {
      sums.flat[n] = paths.flat[n * nt + type];
      sums.cum[n] = paths.cum[n * nt + type];
    }
    sums.tag_count.assign(nn, 0);
    return sums;
  }
  auto is_kept = [&](int32_t n) { return kept.empty() || kept[static_cast<size_t>(n)] != 0; };

  CallGraph g;
  g.flat.assign(nn, 0);
  g.cum.assign(nn, 0);
  std::vector<uint32_t> seen(nn, 0);  // stamp = sample index + 1
  std::vector<uint32_t> edge_seen;
  // An edge's row: a dense (caller, callee) matrix over the kept nodes when it
  // is small (a few MB; a trimmed graph's fits the cache), else a hash; -1
  // after recording the next row for a new edge.
  // Per caller, the edge to the callee it was last seen with: most calls
  // repeat the caller's last one, and this row is in the cache where the
  // matrix's cell may not be.
  struct LastCall {
    int32_t callee = -1, row = -1;
  };
  std::vector<LastCall> last_call(parts.edges ? nn : 0);
  std::vector<int32_t> kept_id(nn);
  size_t nk = 0;
  for (size_t n = 0; n < nn; ++n) kept_id[n] = is_kept(static_cast<int32_t>(n)) ? static_cast<int32_t>(nk++) : -1;
  const bool dense = parts.edges && nk * nk <= kDenseEdges;
  std::vector<int32_t> edge_matrix(dense ? nk * nk : 0, -1);
  KeyIndex edge_index;
  auto edge_row = [&](int32_t a, int32_t b) -> int32_t {
    const auto fresh = static_cast<int32_t>(g.src.size());
    if (!dense) return edge_index.find_or_insert(KeyIndex::pair(a, b), fresh);
    const size_t cell = static_cast<size_t>(kept_id[static_cast<size_t>(a)]) * nk + kept_id[static_cast<size_t>(b)];
    int32_t& slot = edge_matrix[cell];
    if (slot >= 0) return slot;
    slot = fresh;
    return -1;
  };
  // Label tags are summed per (node, sample signature) while walking the frames,
  // then spread over the signature's tags at the end. Only tags with a flat
  // count, so only nodes that end a tagged sample need their cum summed.
  static const TagSignatures kNoTags;
  const TagSignatures& sigs = parts.tags ? paths.tag_signatures_of(p) : kNoTags;
  std::vector<uint8_t> tag_leaf(parts.tags ? nn : 0, 0);
  for (size_t s = 0; parts.tags && s < ns; ++s) {
    if (p.values[s * nt + type] == 0 || sigs.of_sample[s] == 0) continue;
    // The walk below ends on the first node of the innermost location that has one.
    if (paths.offsets[s + 1] == paths.offsets[s]) continue;
    const int32_t last = paths.nodes[static_cast<size_t>(paths.offsets[s + 1] - 1)];
    const int32_t leaf = last < 0 ? ~last : last;
    if (is_kept(leaf)) tag_leaf[static_cast<size_t>(leaf)] = 1;
  }
  std::vector<int32_t> tag_node, tag_sig;
  std::vector<std::pair<int64_t, int64_t>> tag_sums;  // (flat, cum)
  // A (node, signature) pair's row: a dense matrix when there are few
  // signatures (a heap profile's "bytes" values), else a hash; -1 for a new one.
  const size_t nsig = parts.tags ? sigs.set.size() : 0;
  const bool dense_tags = nsig * nn <= kDenseEdges;
  std::vector<int32_t> tag_matrix(dense_tags ? nsig * nn : 0, -1);
  KeyIndex tag_index;
  auto tag_row = [&](int32_t n, int32_t sig) -> int32_t {
    const auto fresh = static_cast<int32_t>(tag_sums.size());
    if (!dense_tags) return tag_index.find_or_insert(KeyIndex::pair(n, sig), fresh);
    int32_t& slot = tag_matrix[static_cast<size_t>(n) * nsig + static_cast<size_t>(sig)];
    if (slot >= 0) return slot;
    slot = fresh;
    return -1;
  };
  auto add_tags = [&](int32_t n, int32_t sig, int64_t w, bool flat) {
    if (sig == 0 || !tag_leaf[static_cast<size_t>(n)]) return;
    int32_t row = tag_row(n, sig);
    if (row < 0) {
      row = static_cast<int32_t>(tag_sums.size());
      tag_node.push_back(n);
      tag_sig.push_back(sig);
      tag_sums.emplace_back(0, 0);
    }
    auto& tg = tag_sums[static_cast<size_t>(row)];
    (flat ? tg.first : tg.second) = wrapping_add(flat ? tg.first : tg.second, w);
  };

  for (size_t s = 0; s < ns; ++s) {
    const int64_t w = p.values[s * nt + type];
    if (w == 0) continue;
    const uint32_t stamp = static_cast<uint32_t>(s + 1);
    const int32_t sig = parts.tags ? sigs.of_sample[s] : 0;
    int32_t parent = -1;
    bool residual = false;
    for (int64_t k = paths.offsets[s]; k < paths.offsets[s + 1]; ++k) {
      const int32_t raw = paths.nodes[static_cast<size_t>(k)];
      const bool is_inline = raw < 0;
      const int32_t n = is_inline ? ~raw : raw;
      if (!is_kept(n)) {
        residual = true;
        continue;
      }
      const size_t nr = static_cast<size_t>(n);
      if (seen[nr] != stamp) {
        seen[nr] = stamp;
        g.cum[nr] = wrapping_add(g.cum[nr], w);
        if (sig) add_tags(n, sig, w, false);
      }
      if (parts.edges && parent >= 0 && parent != n) {
        LastCall& last = last_call[static_cast<size_t>(parent)];
        size_t e = static_cast<size_t>(last.row);
        if (last.callee != n) {
          const int32_t found = edge_row(parent, n);
          e = found >= 0 ? static_cast<size_t>(found) : g.src.size();
          if (found < 0) {
            g.src.push_back(parent);
            g.dst.push_back(n);
            g.weight.push_back(0);
            g.residual.push_back(0);
            g.is_inline.push_back(is_inline ? 1 : 0);
            edge_seen.push_back(0);
          }
          last = LastCall{n, static_cast<int32_t>(e)};
        }
        if (edge_seen[e] != stamp) {  // once per sample; later repeats change no flags either
          edge_seen[e] = stamp;
          g.weight[e] = wrapping_add(g.weight[e], w);
          if (residual) g.residual[e] = 1;
          if (!is_inline) g.is_inline[e] = 0;
        }
      }
      parent = n;
      residual = false;
    }
    if (parent >= 0 && !residual) {
      const size_t pr = static_cast<size_t>(parent);
      g.flat[pr] = wrapping_add(g.flat[pr], w);
      add_tags(parent, sig, w, true);
    }
  }
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
    const int32_t set = sigs.set[sig];
    const uint64_t key = KeyIndex::pair(tag_node[r], set);
    if (set) add_to(tags[key], tag_sums[r]);
    for (int64_t i = sigs.bytes_offsets[sig]; i < sigs.bytes_offsets[sig + 1]; ++i)
      add_to(num_tags[NumKey{key, sigs.bytes[static_cast<size_t>(i)]}], tag_sums[r]);
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
