// aggregate: builds pprof's report nodes and their flat/cum sums. Mirrors
// google/pprof's driver aggregate() + profile.Aggregate (what each granularity
// keeps), report.newGraph (file path trimming) and graph.newGraph (cum once per
// sample, flat to the leaf, edges for inline labels). No trimming, no units.
#include "pprofcore/aggregate.hpp"
#include "pprofcore/arith.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>

#include "aggregate_internal.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/fork_join.hpp"
#include "pprofcore/hashing.hpp"
#include "pprofcore/key_index.hpp"
#include "pprofcore/packages.hpp"

namespace pprofcore {

Granularity parse_granularity(std::string_view s) {
  if (s == "functions") return Granularity::Functions;
  if (s == "filefunctions") return Granularity::FileFunctions;
  if (s == "files") return Granularity::Files;
  if (s == "lines") return Granularity::Lines;
  if (s == "addresses") return Granularity::Addresses;
  if (s == "packages") return Granularity::Packages;
  if (s == "binaries") return Granularity::Binaries;
  throw ProfileError("unknown granularity '" + std::string(s) +
                     "' (expected functions, filefunctions, files, lines, addresses, packages or binaries)");
}

std::string clean_path(std::string_view path) {
  if (path.empty()) return ".";
  const bool rooted = path[0] == '/';
  std::string out;
  out.reserve(path.size());
  if (rooted) out.push_back('/');
  size_t dotdot = out.size();  // out[:dotdot] cannot be backtracked over
  size_t r = rooted ? 1 : 0;
  const size_t n = path.size();
  while (r < n) {
    if (path[r] == '/') {
      ++r;
    } else if (path[r] == '.' && (r + 1 == n || path[r + 1] == '/')) {
      ++r;
    } else if (path[r] == '.' && path[r + 1] == '.' && (r + 2 == n || path[r + 2] == '/')) {
      r += 2;
      if (out.size() > dotdot) {
        size_t w = out.size() - 1;
        while (w > dotdot && out[w] != '/') --w;
        out.resize(w);
      } else if (!rooted) {
        if (!out.empty()) out.push_back('/');
        out += "..";
        dotdot = out.size();
      }
    } else {
      if ((rooted && out.size() != 1) || (!rooted && !out.empty())) out.push_back('/');
      while (r < n && path[r] != '/') out.push_back(path[r++]);
    }
  }
  if (out.empty()) return ".";
  return out;
}

namespace {

// pprof's report.trimPath with no -trim_path/-source_path: strips the
// "/proc/self/cwd/./" or "/proc/self/cwd/" prefix.
std::string_view trim_path(std::string_view s) {
  for (std::string_view pre : {std::string_view("/proc/self/cwd/./"), std::string_view("/proc/self/cwd/")})
    if (s.substr(0, pre.size()) == pre) return s.substr(pre.size());
  return s;
}

struct Key {
  int32_t name;  // profile string code
  int32_t file;  // index into cleaned-file table (0 = "")
  int64_t start_line, lineno;
  uint64_t address;
  int32_t objfile;  // objfile identity: profile string code of the mapping file
  bool operator==(const Key& o) const {
    return name == o.name && file == o.file && start_line == o.start_line && lineno == o.lineno &&
           address == o.address && objfile == o.objfile;
  }
};

std::string basename(std::string_view s) {
  // Go's filepath.Base
  if (s.empty()) return ".";
  while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
  if (s == "/") return "/";
  size_t i = s.rfind('/');
  if (i != std::string_view::npos) s = s.substr(i + 1);
  return std::string(s);
}

}  // namespace

bool sums_fit(const Profile& p, size_t type) {
  const size_t nt = p.num_types(), ns = p.num_samples();
  int64_t sum = 0;
  for (size_t s = 0; s < ns; ++s) {
    const int64_t v = p.values[s * nt + type];
    if (v == std::numeric_limits<int64_t>::min() || !checked_add(sum, v < 0 ? -v : v)) return false;
  }
  return true;
}

void throw_sums_overflow(const Profile& p, size_t type) {
  throw ProfileError("sample type '" + std::string(p.str(p.sample_type_type[type])) + "/" +
                     std::string(p.str(p.sample_type_unit[type])) +
                     "': its values add up past the int64 range, so totals would wrap; scale the "
                     "values down (Profile.scale) or filter samples first");
}

namespace aggregate_detail {

uint64_t sample_label_bits(const SumContext& c, const int64_t* v) {
  const size_t nt = c.nt;
  if (c.by_type) {
    uint64_t bits = kAnyTypeBit;
    for (size_t k = 0; k < nt; ++k)
      if (v[k] != 0) bits |= uint64_t{1} << k;
    return bits;
  }
  if (c.label_type < 0) return 1;
  if (static_cast<size_t>(c.label_type) >= nt) return 0;
  const bool div = c.label_div_type >= 0 && static_cast<size_t>(c.label_div_type) < nt;
  return (v[c.label_type] != 0 || (div && v[c.label_div_type] != 0)) ? 1 : 0;
}

InlinePlaces inline_places(const NodeTable& t, size_t nn) {
  const size_t nloc = t.loc_node_offsets.size() - 1;
  InlinePlaces out{std::vector<uint8_t>(nn, 0), std::vector<uint8_t>(nloc, 0)};
  for (size_t l = 0; l < nloc; ++l)
    for (int64_t j = t.loc_node_offsets[l]; j + 1 < t.loc_node_offsets[l + 1]; ++j)
      out.inline_capable[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(j)])] = 1;
  for (size_t l = 0; l < nloc; ++l)
    for (int64_t j = t.loc_node_offsets[l]; j < t.loc_node_offsets[l + 1] && !out.holds_inline[l]; ++j)
      out.holds_inline[l] = out.inline_capable[static_cast<size_t>(t.loc_nodes[static_cast<size_t>(j)])];
  return out;
}

namespace {

// Adds the sums of a later part of the samples to `to`.
void add_sums(SampleSums& to, const SampleSums& from) {
  for (size_t i = 0; i < to.flat.size(); ++i) to.flat[i] = wrapping_add(to.flat[i], from.flat[i]);
  for (size_t i = 0; i < to.cum.size(); ++i) to.cum[i] = wrapping_add(to.cum[i], from.cum[i]);
  for (size_t n = 0; n < to.noinline_in.size(); ++n) to.noinline_in[n] |= from.noinline_in[n];
  for (size_t e = 0; e < from.edge_callee.size(); ++e) {
    const size_t row = to.edge_row(from.edge_caller[e], from.edge_callee[e]);
    to.edge_inline[row] |= from.edge_inline[e];
    to.edge_plain[row] |= from.edge_plain[e];
  }
}

}  // namespace

void sum_into(NodeTable& t, size_t nn, size_t ns, const AggregateOptions& opt, const SamplePass& pass) {
  const InlinePlaces places = inline_places(t, nn);
  const bool by_type = t.n_types <= kMaxInlineLabelTypes;
  const SumContext ctx{
      t.n_types,         nn, places.inline_capable.data(), places.holds_inline.data(), by_type, opt.label_type,
      opt.label_div_type};
  const size_t parts = sample_parts(ns, opt);
  std::vector<SampleSums> done(parts);
  fork_join(parts, [&](size_t k) { pass(ctx, ns * k / parts, ns * (k + 1) / parts, done[k]); });
  for (size_t k = 1; k < parts; ++k) add_sums(done[0], done[k]);
  t.flat = std::move(done[0].flat);
  if (!done[0].cum.empty()) t.cum = std::move(done[0].cum);
  set_inline_labels(t, nn, done[0], opt, by_type, ns != 0);
}

void set_inline_labels(NodeTable& t, size_t nn, const SampleSums& sums, const AggregateOptions& opt, bool by_type,
                       bool summed) {
  const size_t nt = t.n_types;
  const std::vector<int32_t>& inline_callee = sums.edge_callee;
  const std::vector<uint64_t>&edge_inline = sums.edge_inline, &edge_plain = sums.edge_plain;
  const std::vector<uint64_t>& node_noinline_in = sums.noinline_in;
  constexpr uint64_t kAny = kAnyTypeBit;
  auto bit = [](size_t k) { return uint64_t{1} << k; };

  // Node labels as in report.TextItems: "(inline)" when every in-edge is
  // inline, "(partial-inline)" when some are; counting the samples with any of
  // `choice`'s bits.
  std::vector<uint8_t> inline_in(nn, 0);
  auto labels_of = [&](uint64_t choice, uint8_t* out, size_t stride) {
    std::fill(inline_in.begin(), inline_in.end(), 0);
    for (size_t e = 0; e < inline_callee.size(); ++e)
      if ((edge_inline[e] & choice) && !(edge_plain[e] & choice)) inline_in[static_cast<size_t>(inline_callee[e])] = 1;
    for (size_t n = 0; summed && n < nn; ++n)
      if (inline_in[n]) out[n * stride] = (node_noinline_in[n] & choice) ? 2 : 1;
  };

  t.inline_label.assign(nn, 0);
  uint64_t own = 1;  // opt's label type, in this pass's bits
  if (by_type) {
    own = 0;
    if (opt.label_type < 0)
      own = kAny;
    else if (static_cast<size_t>(opt.label_type) < nt) {
      own = bit(static_cast<size_t>(opt.label_type));
      if (opt.label_div_type >= 0 && static_cast<size_t>(opt.label_div_type) < nt)
        own |= bit(static_cast<size_t>(opt.label_div_type));
    }
  }
  labels_of(own, t.inline_label.data(), 1);
  if (by_type && summed) {
    const size_t nc = 2 * nt + 1;
    t.inline_labels_by_type.assign(nn * nc, 0);
    labels_of(kAny, t.inline_labels_by_type.data(), nc);
    for (size_t k = 0; k < nt; ++k) {
      labels_of(bit(k), t.inline_labels_by_type.data() + 1 + k, nc);
      labels_of(bit(k) | bit(0), t.inline_labels_by_type.data() + 1 + nt + k, nc);
    }
  }
}

}  // namespace aggregate_detail

namespace {

using namespace aggregate_detail;

void sum_samples(const Profile& p, const NodeTable& t, const SumContext& c, size_t first, size_t last,
                 SampleSums& out) {
  const size_t nt = c.nt;
  out.flat.assign(c.nn * nt, 0);
  out.cum.assign(c.nn * nt, 0);
  out.noinline_in.assign(c.nn, 0);
  std::vector<uint32_t> seen(c.nn, 0);  // stamp = sample index + 1
  // Inline labels: each sample has bits (sample_label_bits). Edges into nodes
  // that can be inline and the nodes' non-inline in-edges keep the bits of
  // their occurrences, so one pass gives the labels of every label type.
  for (size_t s = first; s < last; ++s) {
    const int64_t* v = p.values.data() + s * nt;
    bool nonzero = false;
    for (size_t k = 0; k < nt; ++k) nonzero |= v[k] != 0;
    if (!nonzero) continue;
    const uint64_t bits = sample_label_bits(c, v);
    const uint32_t stamp = static_cast<uint32_t>(s + 1);
    int32_t parent = -1;
    const int64_t sb = p.stack_offsets[s], se = p.stack_offsets[s + 1];
    auto add_cum = [&](size_t nr) {
      if (seen[nr] == stamp) return;
      seen[nr] = stamp;
      int64_t* cum = out.cum.data() + nr * nt;
      for (size_t k = 0; k < nt; ++k) cum[k] = wrapping_add(cum[k], v[k]);
    };
    for (int64_t i = se - 1; i >= sb; --i) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      const int64_t nb = t.loc_node_offsets[loc], ne = t.loc_node_offsets[loc + 1];
      if (!c.holds_inline[loc]) {  // none of its nodes is inline anywhere: their in-edges make no label
        for (int64_t j = ne - 1; j >= nb; --j) add_cum(static_cast<size_t>(t.loc_nodes[static_cast<size_t>(j)]));
        parent = t.loc_nodes[static_cast<size_t>(nb)];
        continue;
      }
      for (int64_t j = ne - 1; j >= nb; --j) {
        const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
        add_cum(static_cast<size_t>(n));
        note_in_edge(c, out, parent, n, j != ne - 1, bits);
        parent = n;
      }
    }
    if (parent >= 0) {
      int64_t* f = out.flat.data() + static_cast<size_t>(parent) * nt;
      for (size_t k = 0; k < nt; ++k) f[k] = wrapping_add(f[k], v[k]);
    }
  }
}

}  // namespace

NodeTable aggregate(const Profile& p, const AggregateOptions& opt) {
  const Granularity g = opt.granularity;
  // What pprof's driver keeps per granularity (profile.Aggregate flags).
  const bool addresses_raw = g == Granularity::Addresses && opt.inline_frames;  // no aggregation at all
  const bool by_package = g == Granularity::Packages, by_binary = g == Granularity::Binaries;
  const bool keep_function = addresses_raw || (g != Granularity::Files && !by_package && !by_binary);
  const bool keep_file = addresses_raw || g == Granularity::FileFunctions || g == Granularity::Files ||
                         g == Granularity::Lines || g == Granularity::Addresses;
  const bool keep_line = addresses_raw || g == Granularity::Lines || g == Granularity::Addresses;
  const bool keep_address = g == Granularity::Addresses;
  const bool keep_inline = opt.inline_frames;

  NodeTable t;
  const size_t nt = p.num_types();
  t.n_types = nt;

  // Producers may repeat a string in the table; pprof keys nodes by string
  // content, so map every code to the first code with the same bytes.
  // Open addressing (IdTable), not unordered_map: no allocation per string or
  // node, which was a quarter of this function's time on small profiles.
  std::vector<int32_t> canon(p.strings.size());
  {
    IdTable first;
    first.reserve(p.strings.size());
    for (size_t i = 0; i < p.strings.size(); ++i) {
      const std::string_view str = p.strings[i];
      const uint64_t h = hash_bytes(str);
      int32_t got = first.find(h, [&](int32_t r) { return p.strings[static_cast<size_t>(r)] == str; });
      if (got < 0) {
        got = static_cast<int32_t>(i);
        first.insert(h, got);
      }
      canon[i] = got;
    }
  }
  auto canon_of = [&](int32_t code) { return code >= 0 ? canon[static_cast<size_t>(code)] : code; };

  // Cleaned file name per profile string code, computed once per distinct code used.
  std::vector<int32_t> file_index(p.strings.size(), -1);
  std::vector<std::string> files{""};
  std::unordered_map<std::string, int32_t> file_ids{{"", 0}};
  auto intern_file = [&](std::string c) -> int32_t {
    auto it = file_ids.emplace(c, static_cast<int32_t>(files.size()));
    if (it.second) files.push_back(std::move(c));
    return it.first->second;
  };
  auto file_of = [&](int32_t code) -> int32_t {
    if (code <= 0) return 0;
    int32_t& slot = file_index[static_cast<size_t>(code)];
    if (slot < 0) {
      std::string_view raw = trim_path(p.str(code));
      slot = intern_file(raw.empty() ? std::string() : clean_path(raw));
    }
    return slot;
  };
  // The packages and binaries granularities keep their node's name in the
  // file table: a package per function row, read from its name once.
  std::vector<int32_t> function_package(by_package ? p.functions.size() : 0, -1);
  auto package_index = [&](size_t fr) -> int32_t {
    int32_t& slot = function_package[fr];
    if (slot < 0) slot = intern_file(package_of(p.str(p.functions.name[fr]), p.str(p.functions.filename[fr])));
    return slot;
  };

  IdTable node_ids;  // rows of `keys`
  std::vector<Key> keys;
  auto node_for = [&](const Key& k, int32_t function) -> int32_t {
    const uint64_t h = hash_mix(
        hash_mix(hash_mix(hash_mix(hash_mix(hash_mix(5, uint32_t(k.name)), uint32_t(k.file)), uint64_t(k.start_line)),
                          uint64_t(k.lineno)),
                 k.address),
        uint32_t(k.objfile));
    int32_t got = node_ids.find(h, [&](int32_t r) { return keys[static_cast<size_t>(r)] == k; });
    if (got < 0) {
      got = static_cast<int32_t>(keys.size());
      keys.push_back(k);
      t.function.push_back(function);
      node_ids.insert(h, got);
    }
    return got;
  };

  // Nodes of each location, innermost first (graph.CreateNodes + nodeInfo).
  const size_t nloc = p.locations.size();
  t.loc_node_offsets.reserve(nloc + 1);
  t.loc_nodes.reserve(p.lines.size() + nloc);
  // Without lines and addresses, a named function's frames are all one node:
  // found once per function row instead of hashed once per frame.
  const bool by_function = !keep_line && !keep_address && !addresses_raw;
  std::vector<int32_t> function_node(by_function ? p.functions.size() : 0, -1);
  // Then there are at most a node per function and one per binary (and
  // nameless function): room for them at once instead of rehashing as they come.
  if (by_function) node_ids.reserve(std::min(p.functions.size() + p.mappings.size() + 1, p.lines.size() + nloc));
  for (size_t l = 0; l < nloc; ++l) {
    const int32_t m = p.locations.mapping[l];
    const int32_t objfile = m >= 0 ? canon_of(p.mappings.filename[static_cast<size_t>(m)]) : 0;
    const uint64_t addr = keep_address || addresses_raw ? p.locations.address[l] : 0;
    int64_t b = p.locations.line_offsets[l], e = p.locations.line_offsets[l + 1];
    if (by_binary) {  // one node per location: its frames all run in one binary
      const std::string_view file = objfile != 0 ? p.str(objfile) : std::string_view();
      const int32_t f = b < e ? p.lines.function[static_cast<size_t>(e - 1)] : -1;
      t.loc_nodes.push_back(file.empty() ? node_for(Key{0, 0, 0, 0, 0, 0}, f)
                                         : node_for(Key{0, intern_file(basename(file)), 0, 0, 0, objfile}, f));
    } else if (b == e) {
      t.loc_nodes.push_back(node_for(Key{0, 0, 0, 0, addr, objfile}, -1));
    } else {
      if (!keep_inline && e - b > 1) b = e - 1;  // keep the outermost (caller) line
      for (int64_t i = b; i < e; ++i) {
        const int32_t f = p.lines.function[static_cast<size_t>(i)];
        const size_t fr = static_cast<size_t>(f);
        int32_t n = by_function ? function_node[fr] : -1;
        if (n < 0 && by_package) {
          const int32_t pkg = package_index(fr);
          n = node_for(pkg != 0 ? Key{0, pkg, 0, 0, 0, 0} : Key{0, 0, 0, 0, 0, objfile}, f);
          if (pkg != 0) function_node[fr] = n;
        } else if (n < 0) {
          Key k{keep_function ? canon_of(p.functions.name[fr]) : 0,
                keep_file ? file_of(p.functions.filename[fr]) : 0,
                0,
                keep_line ? p.lines.line[static_cast<size_t>(i)] : 0,
                addr,
                0};
          if (k.name == 0) {  // pprof shows the binary when the function has no name
            k.objfile = objfile;
            k.start_line = p.functions.start_line[fr];
          }
          n = node_for(k, f);
          if (by_function && k.name != 0) function_node[fr] = n;
        }
        t.loc_nodes.push_back(n);
      }
    }
    t.loc_node_offsets.push_back(static_cast<int64_t>(t.loc_nodes.size()));
  }
  const size_t nn = keys.size();
  // Without sums: no per-sample state (flat, cum and the labels stay zero).
  const size_t ns = opt.sums ? p.num_samples() : 0;
  t.sums_overflow.assign(nt, 0);
  for (size_t k = 0; ns && k < nt; ++k) t.sums_overflow[k] = sums_fit(p, k) ? 0 : 1;
  // Big profiles are summed in parts on threads.
  sum_into(t, nn, ns, opt, [&](const SumContext& c, size_t first, size_t last, SampleSums& out) {
    sum_samples(p, t, c, first, last, out);
  });

  // Columns and printable names.
  t.name.resize(nn);
  t.start_line.resize(nn);
  t.lineno.resize(nn);
  t.address.resize(nn);
  t.objfile.resize(nn);
  for (size_t n = 0; n < nn; ++n) {
    const Key& k = keys[n];
    t.name[n] = k.name;
    t.start_line[n] = k.start_line;
    t.lineno[n] = k.lineno;
    t.address[n] = k.address;
    t.objfile[n] = k.objfile;
    t.file.push_back(files[static_cast<size_t>(k.file)]);
  }
  if (opt.names)
    for (size_t n = 0; n < nn; ++n) t.printable.push_back(printable_name(p, t, n));
  return t;
}

// graph.NodeInfo.NameComponents joined by spaces.
std::string printable_name(const Profile& p, const NodeTable& t, size_t n) {
  std::string buf;
  if (t.address[n] != 0) {
    char a[24];
    std::snprintf(a, sizeof a, "%016" PRIx64, t.address[n]);
    buf += a;
  }
  std::string_view fun = p.str(t.name[n]);
  if (!fun.empty()) {
    if (!buf.empty()) buf.push_back(' ');
    buf.append(fun.data(), fun.size());
  }
  const std::string_view file = t.file[n];
  std::string tail;
  if (t.lineno[n] != 0)
    tail.append(file).append(":").append(std::to_string(t.lineno[n]));
  else if (!file.empty())
    tail = file;
  else if (fun.empty() && t.objfile[n] != 0 && !p.str(t.objfile[n]).empty())
    tail = "[" + basename(p.str(t.objfile[n])) + "]";
  else if (fun.empty())
    tail = "<unknown>";
  if (!tail.empty()) {
    if (!buf.empty()) buf.push_back(' ');
    buf += tail;
  }
  return buf;
}

std::string_view printable_name_in_place(const Profile& p, const NodeTable& t, size_t n) {
  if (t.address[n] != 0 || t.lineno[n] != 0 || !t.file[n].empty()) return {};
  return p.str(t.name[n]);  // empty: no name, named from its binary by printable_name
}

namespace {

// One location's kept nodes as the edge walk sees them: the first visited
// (outermost) and the last (innermost), whether the first is an inline frame,
// and whether any kept node is masked. A location with no masked node adds
// at most the edge into its first node, so its inner nodes need no visit.
struct LocationEdges {
  int32_t first = -1, last = -1;  // -1: no kept node
  uint8_t first_inline = 0, masked = 0;
};

std::vector<LocationEdges> location_edges(const Profile& p, const NodeTable& t, const std::vector<uint8_t>& node_mask,
                                          const std::vector<uint8_t>& node_keep, const std::vector<uint8_t>& hidden) {
  std::vector<LocationEdges> out(p.locations.size());
  for (size_t l = 0; l < out.size(); ++l) {
    if (!hidden.empty() && hidden[l]) continue;  // no node: the walk passes over it
    LocationEdges& le = out[l];
    const int64_t nb = t.loc_node_offsets[l], ne = t.loc_node_offsets[l + 1];
    for (int64_t j = ne - 1; j >= nb; --j) {
      const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
      if (!node_keep.empty() && !node_keep[static_cast<size_t>(n)]) continue;
      if (le.first < 0) {
        le.first = n;
        le.first_inline = j != ne - 1 ? 1 : 0;
      }
      le.last = n;
      le.masked |= node_mask[static_cast<size_t>(n)];
    }
  }
  return out;
}

}  // namespace

EdgeTable aggregate_edges(const Profile& p, const NodeTable& t, const std::vector<uint8_t>& node_mask, int label_type,
                          int label_div_type, const std::vector<uint8_t>& node_keep,
                          const std::vector<uint8_t>& sample_keep, const std::vector<uint8_t>& hidden) {
  const size_t nt = p.num_types(), ns = p.num_samples();
  if (node_mask.size() != t.size()) throw InternalError("node mask must have one entry per node");
  if (!sample_keep.empty() && sample_keep.size() != ns)
    throw InternalError("sample keep mask must have one entry per sample");
  if (!hidden.empty() && hidden.size() != p.locations.size())
    throw InternalError("hidden mask must have one entry per location");
  if (!node_keep.empty() && node_keep.size() != t.size())
    throw InternalError("node keep mask must have one entry per node");
  EdgeTable e;
  e.n_types = nt;
  KeyIndex index;
  std::vector<uint32_t> stamp;
  const std::vector<LocationEdges> locs = location_edges(p, t, node_mask, node_keep, hidden);
  const int32_t* stack = p.stack_locations.data();
  // Inlined at both calls: a call per edge was a fifth of a walk that adds an edge per frame.
  auto add_edge = [&](int32_t parent, int32_t n, bool is_inline, const int64_t* v, uint32_t st)
      __attribute__((always_inline)) {
    const int32_t found = index.find_or_insert(KeyIndex::pair(parent, n), static_cast<int32_t>(e.src.size()));
    const size_t row = found >= 0 ? static_cast<size_t>(found) : e.src.size();
    if (found < 0) {
      e.src.push_back(parent);
      e.dst.push_back(n);
      e.weight.resize(e.weight.size() + nt, 0);
      e.is_inline.push_back(is_inline ? 1 : 0);
      stamp.push_back(0);
    } else if (!is_inline) {
      e.is_inline[row] = 0;
    }
    if (stamp[row] != st) {  // once per sample
      stamp[row] = st;
      int64_t* w = e.weight.data() + row * nt;
      for (size_t k = 0; k < nt; ++k) w[k] = wrapping_add(w[k], v[k]);
    }
  };
  for (size_t s = 0; s < ns; ++s) {
    if (!sample_keep.empty() && !sample_keep[s]) continue;
    const int64_t* v = p.values.data() + s * nt;
    const int32_t* b = stack + p.stack_offsets[s];
    // Every edge wanted touches a masked node, so a sample none of whose
    // locations holds one adds nothing: one byte per frame tells, before any hashing.
    const int32_t* end = stack + p.stack_offsets[s + 1];
    if (std::none_of(b, end, [&](int32_t l) { return locs[static_cast<size_t>(l)].masked != 0; })) continue;
    bool use = false;
    if (label_type >= 0 && static_cast<size_t>(label_type) < nt) {
      use = v[label_type] != 0 ||
            (label_div_type >= 0 && static_cast<size_t>(label_div_type) < nt && v[label_div_type] != 0);
    } else {
      for (size_t k = 0; k < nt; ++k) use |= v[k] != 0;
    }
    if (!use) continue;
    const uint32_t st = static_cast<uint32_t>(s + 1);
    int32_t parent = -1;
    for (const int32_t* it = end; it-- != b;) {
      const size_t loc = static_cast<size_t>(*it);
      const LocationEdges& le = locs[loc];
      if (le.first < 0) continue;  // every node trimmed away
      if (!le.masked) {
        if (parent >= 0 && parent != le.first && node_mask[static_cast<size_t>(parent)])
          add_edge(parent, le.first, le.first_inline != 0, v, st);
        parent = le.last;
        continue;
      }
      const int64_t nb = t.loc_node_offsets[loc], ne = t.loc_node_offsets[loc + 1];
      for (int64_t j = ne - 1; j >= nb; --j) {
        const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
        if (!node_keep.empty() && !node_keep[static_cast<size_t>(n)]) continue;  // trimmed away
        if (parent >= 0 && parent != n && (node_mask[static_cast<size_t>(parent)] || node_mask[static_cast<size_t>(n)]))
          add_edge(parent, n, j != ne - 1, v, st);
        parent = n;
      }
    }
  }
  return e;
}

namespace {

// fmt.Sprint of pprof's NodeInfo struct: "{Name OrigName Address File StartLine Lineno Objfile}",
// the last-resort tie breaker of graph.Nodes.Sort (compareNodes).
std::string go_sprint_key(const Profile& p, const NodeTable& t, size_t n) {
  std::string s = "{";
  s += p.str(t.name[n]);
  s += "  ";  // empty OrigName between two separators
  s += std::to_string(t.address[n]);
  s += ' ';
  s += t.file[n];
  s += ' ';
  s += std::to_string(t.start_line[n]);
  s += ' ';
  s += std::to_string(t.lineno[n]);
  s += ' ';
  s += p.str(t.objfile[n]);
  s += '}';
  return s;
}

inline int64_t abs64(int64_t v) { return v < 0 ? wrapping_sub(0, v) : v; }  // INT64_MIN stays, as in Go

}  // namespace

std::vector<int32_t> node_order(const Profile& p, const NodeTable& t, size_t type, bool by_cum) {
  const size_t nt = t.n_types, nn = t.size();
  if (type >= nt) throw ProfileError("sample type index out of range");
  if (type < t.sums_overflow.size() && t.sums_overflow[type]) throw_sums_overflow(p, type);
  std::vector<int32_t> rows;
  rows.reserve(nn);
  for (size_t n = 0; n < nn; ++n)
    if (t.flat[n * nt + type] != 0 || t.cum[n * nt + type] != 0) rows.push_back(static_cast<int32_t>(n));
  auto flat = [&](int32_t n) { return abs64(t.flat[static_cast<size_t>(n) * nt + type]); };
  auto cum = [&](int32_t n) { return abs64(t.cum[static_cast<size_t>(n) * nt + type]); };
  auto name = [&](int32_t n) { return t.printable[static_cast<size_t>(n)]; };
  // Printable names can collide (e.g. -files granularity with unnamed functions of
  // different start lines); only then pprof's NodeInfo dump decides, so build it lazily.
  std::vector<std::string> tie;
  {
    std::vector<std::string_view> sorted;
    sorted.reserve(rows.size());
    for (int32_t n : rows) sorted.push_back(name(n));
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      tie.resize(nn);
      for (int32_t n : rows) tie[static_cast<size_t>(n)] = go_sprint_key(p, t, static_cast<size_t>(n));
    }
  }
  auto less = [&](int32_t a, int32_t b) {
    const int64_t p1 = by_cum ? cum(a) : flat(a), p2 = by_cum ? cum(b) : flat(b);
    if (p1 != p2) return p1 > p2;
    const auto na = name(a), nb = name(b);
    if (na != nb) return na < nb;
    const int64_t s1 = by_cum ? flat(a) : cum(a), s2 = by_cum ? flat(b) : cum(b);
    if (s1 != s2) return s1 > s2;
    if (!tie.empty()) return tie[static_cast<size_t>(a)] < tie[static_cast<size_t>(b)];
    return a < b;
  };
  std::sort(rows.begin(), rows.end(), less);
  return rows;
}

}  // namespace pprofcore
