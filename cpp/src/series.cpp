// series: per-profile node sums for fleet series, on worker threads. Owns the
// per-profile reduction (a file read by scan.hpp's lean pass where it can, else
// decoded) and the in-order interning of node names; the node identities and
// names are aggregate.cpp's. With label keys, sums are per (label values, node)
// and the label values (numbers bucketed) are interned beside the names.
#include "pprofcore/series.hpp"

#include "pprofcore/arith.hpp"
#include "pprofcore/fork_join.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/hashing.hpp"
#include "pprofcore/pool.hpp"
#include "pprofcore/proto_fields.hpp"
#include "pprofcore/scan.hpp"
#include "pprofcore/scan_labels.hpp"
#include "pprofcore/zstd.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>

namespace pprofcore {

namespace {
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}
}  // namespace

UnknownSampleType::UnknownSampleType(std::string w, std::vector<std::string> h)
    : ProfileError("no sample_type '" + w + "'; have " + join(h)), wanted(std::move(w)), have(std::move(h)) {}

namespace {

// A string table by code: a profile's own, or a scan's views into its file
// (Scan::strings), which the lean passes fill without copying a string.
using Strings = std::vector<std::string_view>;

Strings views_of(const StringTable& t) {
  Strings v(t.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = t[i];
  return v;
}

// choose_sample_type with the names read from `str(code)`.
template <class Str>
size_t choose_type(const Profile& p, Str&& str, const SampleTypeChoice& choice) {
  const int64_t n = static_cast<int64_t>(p.num_types());
  auto by_name = [&](std::string_view name) -> size_t {
    for (size_t t = 0; t < p.num_types(); ++t)
      if (str(p.sample_type_type[t]) == name) return t;
    std::vector<std::string> have;
    for (size_t t = 0; t < p.num_types(); ++t) have.emplace_back(str(p.sample_type_type[t]));
    throw UnknownSampleType(std::string(name), std::move(have));
  };
  auto by_index = [&](int64_t i) -> size_t {
    if (i < -n || i >= n)
      throw ProfileError("sample_type index " + std::to_string(i) + " out of range for " + std::to_string(n) +
                         " types");
    return static_cast<size_t>((i % n + n) % n);
  };
  switch (choice.kind) {
    case SampleTypeChoice::Kind::Index:
      return by_index(choice.index);
    case SampleTypeChoice::Kind::Name:
      return by_name(choice.name);
    case SampleTypeChoice::Kind::Default:
      break;
  }
  std::string_view def = str(p.default_sample_type);
  return def.empty() ? by_index(n - 1) : by_name(def);
}

size_t choose_sample_type(const Profile& p, const Strings& strings, const SampleTypeChoice& choice) {
  return choose_type(
      p, [&](int32_t c) { return strings[static_cast<size_t>(c)]; }, choice);
}

}  // namespace

size_t choose_sample_type(const Profile& p, const SampleTypeChoice& choice) {
  return choose_type(
      p, [&](int32_t c) { return p.str(c); }, choice);
}

namespace {

// How often the collecting thread calls `poll` while it waits for a worker.
constexpr auto kPollWait = std::chrono::milliseconds(50);
// How many items ahead of the one it needs the collecting thread sleeps to.
constexpr size_t kWakeLag = 32;

// Each location's nodes, innermost first, as CSR: a NodeTable's, or
// NameNodes' one per line.
struct LocationNodes {
  const int64_t* offsets;
  const int32_t* nodes;
  size_t n_nodes;
  static LocationNodes of(const NodeTable& t) { return {t.loc_node_offsets.data(), t.loc_nodes.data(), t.size()}; }
};

// The chosen type's sum per node, sample by sample, as aggregate() sums
// it: flat to the leaf location's innermost frame, cum once per node and
// sample (wrapping int64 additions); and pprof's total, the sum of |value|
// (wrapping like NumPy's abs and int64 sum).
class NodeSums {
 public:
  NodeSums(LocationNodes t, size_t ti, bool cum) : sums(t.n_nodes, 0), t_(t), ti_(ti), cum_(cum) {
    if (cum) seen_.assign(t.n_nodes, 0);
  }

  // One sample: its values (one per type) and location rows, leaf first.
  void add(const int64_t* values, const int32_t* rows, size_t n_rows) {
    const int64_t v = values[ti_];
    if (!cum_) return add_flat(v, n_rows ? rows[0] : -1);
    total += v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    ++stamp_;
    if (v == 0 || n_rows == 0) return;
    const int64_t* offsets = t_.offsets;
    const int32_t* nodes = t_.nodes;
    for (size_t i = 0; i < n_rows; ++i) {
      for (int64_t j = offsets[rows[i]]; j < offsets[rows[i] + 1]; ++j) {
        const size_t n = static_cast<size_t>(nodes[j]);
        if (seen_[n] == stamp_) continue;
        seen_[n] = stamp_;
        sums[n] = wrapping_add(sums[n], v);
      }
    }
  }

  // One sample of a flat sum: its value of the chosen type and its leaf
  // location's row (-1: no location).
  void add_flat(int64_t v, int32_t leaf) {
    total += v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    if (v == 0 || leaf < 0) return;
    int64_t& sum = sums[static_cast<size_t>(t_.nodes[t_.offsets[leaf]])];
    sum = wrapping_add(sum, v);
  }

  std::vector<int64_t> sums;
  uint64_t total = 0;

 private:
  LocationNodes t_;
  size_t ti_;
  bool cum_;
  std::vector<uint32_t> seen_;  // stamp = sample number, as aggregate() counts
  uint32_t stamp_ = 0;
};

// What one profile reduces to; built on a worker, interned on the caller's thread.
struct Reduced {
  StringTable names{{}, {0}};  // in node order (names are interned in this order)
  std::vector<int64_t> values;
  std::vector<uint32_t> order;  // rows by value descending, then name: the series' row order
  int64_t total = 0, time_nanos = 0, duration_nanos = 0;
  std::string type_name;
  std::exception_ptr error;
  // With labels: each row's label combination, and per combination and key
  // the value's name (present 0: the samples lack the key).
  std::vector<int32_t> combo;
  std::vector<std::string> combo_values;
  std::vector<uint8_t> combo_present;
};

// The functions granularity's nodes keyed by string code: a line's node is its
// function's name code, so nothing is hashed per string or per frame, and a
// name is read only for a node that got a value. That is aggregate()'s table
// where every function has a non-empty name held once in the string table (a
// code is then a name); build() answers false otherwise, and the caller takes
// aggregate()'s table. The buffers serve file after file.
class NameNodes {
 public:
  // From a scan_function_tables pass's tables and strings.
  bool build(const Profile& p, const Strings& strings) {
    const std::vector<int64_t>& offsets = p.locations.line_offsets;
    for (size_t l = 1; l < offsets.size(); ++l)
      if (offsets[l] == offsets[l - 1]) return false;  // no lines: a node per binary
    mark_.assign(strings.size(), 0);
    codes_.clear();
    names_.clear();
    names_.reserve(p.functions.name.size());
    for (const int32_t c : p.functions.name) {
      if (c <= 0) return false;  // nameless: named from its binary
      if (mark_[static_cast<size_t>(c)]) continue;
      mark_[static_cast<size_t>(c)] = kFunctionName;
      const std::string_view name = strings[static_cast<size_t>(c)];
      if (name.empty()) return false;
      // Two codes of one name would be two nodes here but one in aggregate().
      const uint64_t h = quick_hash(name);
      if (names_.find(
              h, [&](int32_t r) { return strings[static_cast<size_t>(codes_[static_cast<size_t>(r)])] == name; }) >= 0)
        return false;
      names_.insert(h, static_cast<int32_t>(codes_.size()));
      codes_.push_back(c);
    }
    line_nodes_.resize(p.lines.function.size());
    for (size_t i = 0; i < line_nodes_.size(); ++i)
      line_nodes_[i] = p.functions.name[static_cast<size_t>(p.lines.function[i])];
    return true;
  }

  LocationNodes nodes(const Profile& p, const Strings& strings) const {
    return {p.locations.line_offsets.data(), line_nodes_.data(), strings.size()};
  }

  // Appends the non-zero nodes' names and sums to r in aggregate()'s node
  // order (first appearance among the lines).
  void rows(const Strings& strings, const std::vector<int64_t>& sums, Reduced& r) {
    for (const int32_t c : line_nodes_) {
      uint8_t& mark = mark_[static_cast<size_t>(c)];
      if (mark == kVisited) continue;
      mark = kVisited;
      if (sums[static_cast<size_t>(c)] == 0) continue;
      r.names.push_back(strings[static_cast<size_t>(c)]);
      r.values.push_back(sums[static_cast<size_t>(c)]);
    }
  }

 private:
  static constexpr uint8_t kFunctionName = 1, kVisited = 2;
  // Length and the first and last eight bytes: enough to tell function names
  // apart (equal hashes are compared whole).
  static uint64_t quick_hash(std::string_view s) {
    const size_t n = s.size();
    uint64_t head = 0, tail = 0;
    if (n >= 8) {  // most names: two loads of a fixed size, no memcpy call
      std::memcpy(&head, s.data(), 8);
      std::memcpy(&tail, s.data() + n - 8, 8);
    } else {
      std::memcpy(&head, s.data(), n);
      tail = head;
    }
    return hash_mix(hash_mix(n, head), tail);
  }
  std::vector<uint8_t> mark_;  // per string code
  std::vector<int32_t> codes_, line_nodes_;
  IdTable names_;  // rows of codes_, by name
};

// A worker's buffers, kept from file to file.
struct SeriesScratch {
  Scan scan;
  NameNodes names;
  // The file's bytes and what they inflate to: kept, so a file costs no
  // allocation, zero-filling or fresh pages for either.
  gzip::Buffer file, inflated;
};

// One label of a sample: string codes of key and value (str -1: numeric).
struct SampleLabel {
  int64_t key, str, num;
};

// The bucket of a numeric label value, and its name.
int64_t bucket_of(const SeriesLabel& l, int64_t v) {
  switch (l.numbers) {
    case SeriesLabel::Numbers::Exact:
      return v;
    case SeriesLabel::Numbers::Edges:
      return std::upper_bound(l.edges.begin(), l.edges.end(), v) - l.edges.begin();
    case SeriesLabel::Numbers::Pow2:
      break;
  }
  if (v == 0) return 0;
  const uint64_t mag = v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const int64_t k = 64 - __builtin_clzll(mag);  // 1 + floor(log2 |v|); mag > 0
  return v < 0 ? -k : k;
}

std::string bucket_name(const SeriesLabel& l, int64_t b) {
  switch (l.numbers) {
    case SeriesLabel::Numbers::Exact:
      return std::to_string(b);
    case SeriesLabel::Numbers::Edges: {
      const size_t i = static_cast<size_t>(b);
      if (i == 0) return "< " + std::to_string(l.edges.front());
      if (i == l.edges.size()) return ">= " + std::to_string(l.edges.back());
      return "[" + std::to_string(l.edges[i - 1]) + ", " + std::to_string(l.edges[i]) + ")";
    }
    case SeriesLabel::Numbers::Pow2:
      break;
  }
  if (b == 0) return "0";
  const int k = static_cast<int>((b < 0 ? -b : b) - 1);
  const std::string lo = std::to_string(uint64_t(1) << k);
  const std::string hi = k == 63 ? "9223372036854775808" : std::to_string(uint64_t(1) << (k + 1));
  return b > 0 ? "[" + lo + ", " + hi + ")" : "(-" + hi + ", -" + lo + "]";
}

// Gives each sample the number of its combination of the wanted keys' values
// (in order of first appearance in the profile).
class LabelSplit {
 public:
  LabelSplit(const Strings& strings, const std::vector<SeriesLabel>& wanted)
      : strings_(strings),
        wanted_(wanted),
        key_of_code_(strings.size(), -1),
        firsts_(wanted.size()),
        tokens_(2 * wanted.size()) {
    // Key by key over the strings, lengths first: a pass of a few
    // instructions a string (the first wanted key a string equals wins).
    for (size_t k = 0; k < wanted.size(); ++k) {
      const std::string_view key = wanted[k].key;
      for (size_t s = 0; s < strings.size(); ++s)
        if (strings[s].size() == key.size() && key_of_code_[s] < 0 && strings[s] == key)
          key_of_code_[s] = static_cast<int32_t>(k);
    }
  }

  // string code -> wanted key (-1: not wanted), and a buffer of one FirstLabel
  // per wanted key, as for_each_sample_labels takes them.
  const std::vector<int32_t>& key_of_code() const { return key_of_code_; }
  std::vector<FirstLabel>& firsts() { return firsts_; }

  int32_t combo(const SampleLabel* labels, size_t n) {
    std::fill(firsts_.begin(), firsts_.end(), FirstLabel{});
    for (size_t i = 0; i < n; ++i) {
      const SampleLabel& l = labels[i];
      if (l.key < 0 || static_cast<size_t>(l.key) >= key_of_code_.size()) continue;
      const int32_t k = key_of_code_[static_cast<size_t>(l.key)];
      if (k < 0 || firsts_[static_cast<size_t>(k)].kind != FirstLabel::kNone) continue;  // the first label counts
      firsts_[static_cast<size_t>(k)] =
          l.str >= 0 ? FirstLabel{FirstLabel::kString, l.str} : FirstLabel{FirstLabel::kNumber, l.num};
    }
    return combo(firsts_.data());
  }

  // The number of the combination of `firsts` (one per wanted key), numbers
  // bucketed; numbered in order of first appearance through an id table.
  int32_t combo(const FirstLabel* firsts) {
    // Runs of samples with the same values are common: one compare each.
    bool same = last_ >= 0;
    for (size_t k = 0; k < wanted_.size() && same; ++k)
      same = firsts[k].kind == last_firsts_[k].kind && firsts[k].value == last_firsts_[k].value;
    if (same) return last_;
    last_firsts_.assign(firsts, firsts + wanted_.size());
    return last_ = numbered(firsts);
  }

  // Appends every combination's value names to r.
  void name_combos(Reduced& r) const {
    for (size_t c = 0; c * tokens_.size() < combos_.size(); ++c) {
      for (size_t k = 0; k < wanted_.size(); ++k) {
        const int64_t kind = combos_[c * tokens_.size() + 2 * k], v = combos_[c * tokens_.size() + 2 * k + 1];
        r.combo_present.push_back(kind != FirstLabel::kNone);
        r.combo_values.push_back(kind == FirstLabel::kString   ? std::string(strings_[static_cast<size_t>(v)])
                                 : kind == FirstLabel::kNumber ? bucket_name(wanted_[k], v)
                                                               : std::string());
      }
    }
  }

 private:
  int32_t numbered(const FirstLabel* firsts) {
    uint64_t h = 0x1abe15;
    for (size_t k = 0; k < wanted_.size(); ++k) {
      const FirstLabel& f = firsts[k];
      tokens_[2 * k] = f.kind;
      tokens_[2 * k + 1] = f.kind == FirstLabel::kNumber ? bucket_of(wanted_[k], f.value) : f.value;
      h = hash_mix(hash_mix(h, static_cast<uint64_t>(tokens_[2 * k])), static_cast<uint64_t>(tokens_[2 * k + 1]));
    }
    const size_t width = tokens_.size();
    const int32_t found = index_.find(h, [&](int32_t c) {
      const int64_t* known = combos_.data() + static_cast<size_t>(c) * width;
      for (size_t i = 0; i < width; ++i)  // a few words: a loop, not a memcmp call
        if (known[i] != tokens_[i]) return false;
      return true;
    });
    if (found >= 0) return found;
    const auto c = static_cast<int32_t>(index_.size());
    index_.insert(h, c);
    combos_.insert(combos_.end(), tokens_.begin(), tokens_.end());
    return c;
  }

  const Strings& strings_;
  const std::vector<SeriesLabel>& wanted_;
  std::vector<int32_t> key_of_code_;     // string code -> wanted key (-1: not wanted)
  std::vector<FirstLabel> firsts_;       // of the sample at hand
  std::vector<int64_t> tokens_;          // (kind, value or bucket) per wanted key, of the sample at hand
  std::vector<int64_t> combos_;          // tokens of each combination
  IdTable index_;                        // combination tokens -> number
  std::vector<FirstLabel> last_firsts_;  // of the last sample numbered
  int32_t last_ = -1;                    // its combination
};

// NodeSums split by label combination: sums per (combination, node); without
// nodes each sample's whole value goes to its combination.
class KeyedSums {
 public:
  KeyedSums(const NodeTable* t, size_t ti, bool cum) : t_(t), ti_(ti), cum_(cum) {
    if (t && cum) seen_.assign(t->size(), 0);
  }

  void add(const int64_t* values, const int32_t* rows, size_t n_rows, int32_t combo) {
    const int64_t v = values[ti_];
    if (!t_) return add_value(v, combo);
    total += v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    ++stamp_;
    if (v == 0 || n_rows == 0) return;
    const uint64_t base = static_cast<uint64_t>(combo) << 32;
    const int64_t* offsets = t_->loc_node_offsets.data();
    const int32_t* nodes = t_->loc_nodes.data();
    if (!cum_) return bump(base | static_cast<uint32_t>(nodes[offsets[rows[0]]]), v);
    for (size_t i = 0; i < n_rows; ++i) {
      for (int64_t j = offsets[rows[i]]; j < offsets[rows[i] + 1]; ++j) {
        const size_t n = static_cast<size_t>(nodes[j]);
        if (seen_[n] == stamp_) continue;
        seen_[n] = stamp_;
        bump(base | static_cast<uint32_t>(n), v);
      }
    }
  }

  // Labels only (no node table): the sample's value of the chosen type goes
  // to its combination, one sum per combination (numbered densely by LabelSplit).
  void add_value(int64_t v, int32_t combo) {
    total += v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const auto c = static_cast<size_t>(combo);
    if (c >= by_combo_.size()) by_combo_.resize(c + 1, 0);
    by_combo_[c] = wrapping_add(by_combo_[c], v);
  }

  // The non-zero sums as ((combination << 32 | node), sum), node 0 without nodes.
  std::vector<std::pair<uint64_t, int64_t>> nonzero() const {
    std::vector<std::pair<uint64_t, int64_t>> out;
    for (size_t c = 0; c < by_combo_.size(); ++c)
      if (by_combo_[c] != 0) out.emplace_back(static_cast<uint64_t>(c) << 32, by_combo_[c]);
    for (const auto& kv : sums)
      if (kv.second != 0) out.push_back(kv);
    return out;
  }

  uint64_t total = 0;

 private:
  std::unordered_map<uint64_t, int64_t> sums;  // (combination << 32 | node) -> sum
  std::vector<int64_t> by_combo_;              // without nodes
  void bump(uint64_t key, int64_t v) {
    int64_t& s = sums[key];
    s = wrapping_add(s, v);
  }
  const NodeTable* t_;
  size_t ti_;
  bool cum_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
};

// Reads one Label payload as decode() keeps it (a label with neither string,
// number nor unit is dropped); the scan has checked it.
void scanned_labels(const Scan& scan, std::vector<SampleLabel>& out) {
  out.clear();
  for (const Scan::Span& span : scan.labels) {
    const uint8_t* p = span.begin;
    uint64_t key = 0, str = 0, num = 0, unit = 0, tag = 0, v = 0;
    while (p < span.end && scanning::varint(p, span.end, tag) && scanning::varint(p, span.end, v)) {
      const auto field = static_cast<proto::LabelField>(tag >> 3);
      (field == proto::LabelField::kKey   ? key
       : field == proto::LabelField::kStr ? str
       : field == proto::LabelField::kNum ? num
                                          : unit) = v;
    }
    if (str != 0 || num != 0 || unit != 0)
      out.push_back({static_cast<int64_t>(key), str == 0 ? -1 : static_cast<int64_t>(str), static_cast<int64_t>(num)});
  }
}

void decoded_labels(const Profile& p, size_t s, std::vector<SampleLabel>& out) {
  out.clear();
  for (int64_t i = p.label_offsets[s]; i < p.label_offsets[s + 1]; ++i) {
    const size_t j = static_cast<size_t>(i);
    out.push_back({p.labels.key[j], p.labels.str[j], p.labels.num[j]});
  }
}

// The node table of Profile.top without its sums and names: only the chosen
// type is summed, and only non-zero nodes are named.
NodeTable lean_nodes(const Profile& p, const SeriesOptions& o) {
  AggregateOptions ao;
  ao.granularity = o.granularity;
  ao.sums = false;
  ao.names = false;
  return aggregate(p, ao);
}

// Appends the non-zero nodes' names and sums to r, in node order.
void node_rows(const Profile& p, const NodeTable& t, const NodeSums& sums, Reduced& r) {
  for (size_t k = 0; k < t.size(); ++k) {
    if (sums.sums[k] == 0) continue;
    const std::string_view name = printable_name_in_place(p, t, k);  // no std::string for the usual name
    if (!name.empty())
      r.names.push_back(name);
    else
      r.names.push_back(printable_name(p, t, k));
    r.values.push_back(sums.sums[k]);
  }
}

// Completes `r`, whose rows are in, from a profile's header (p) and the sums.
void finish(const Profile& p, const Strings& strings, size_t ti, const NodeSums& sums, Reduced& r) {
  r.order.resize(r.values.size());
  for (uint32_t j = 0; j < r.order.size(); ++j) r.order[j] = j;
  std::stable_sort(r.order.begin(), r.order.end(), [&](uint32_t a, uint32_t b) {
    return r.values[a] != r.values[b] ? r.values[a] > r.values[b] : r.names[a] < r.names[b];
  });
  r.total = static_cast<int64_t>(sums.total);
  r.time_nanos = p.time_nanos;
  r.duration_nanos = p.duration_nanos;
  r.type_name = std::string(strings[static_cast<size_t>(p.sample_type_type[ti])]);
}

// Fills `r` from the label-split sums: rows by value descending, then node
// name, then combination.
void finish_keyed(const Profile& p, const Strings& strings, size_t ti, const NodeTable* t, const KeyedSums& sums,
                  const LabelSplit& split, Reduced& r) {
  const std::vector<std::pair<uint64_t, int64_t>> rows = sums.nonzero();
  std::vector<std::string> node_names(rows.size());
  for (size_t j = 0; j < rows.size(); ++j)
    if (t) node_names[j] = printable_name(p, *t, static_cast<size_t>(rows[j].first & 0xffffffffu));
  std::vector<uint32_t> order(rows.size());
  for (uint32_t j = 0; j < order.size(); ++j) order[j] = j;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (rows[a].second != rows[b].second) return rows[a].second > rows[b].second;
    if (node_names[a] != node_names[b]) return node_names[a] < node_names[b];
    return rows[a].first < rows[b].first;
  });
  for (uint32_t j : order) {
    r.names.push_back(node_names[j]);
    r.values.push_back(rows[j].second);
    r.combo.push_back(static_cast<int32_t>(rows[j].first >> 32));
  }
  r.order.resize(r.values.size());
  for (uint32_t j = 0; j < r.order.size(); ++j) r.order[j] = j;
  split.name_combos(r);
  r.total = static_cast<int64_t>(sums.total);
  r.time_nanos = p.time_nanos;
  r.duration_nanos = p.duration_nanos;
  r.type_name = std::string(strings[static_cast<size_t>(p.sample_type_type[ti])]);
}

// A decoded profile's rows.
void reduce_decoded(const Profile& p, const SeriesOptions& o, Reduced& r) {
  const Strings strings = views_of(p.strings);
  const size_t ti = choose_sample_type(p, strings, o.sample_type);
  const size_t nt = p.num_types();
  if (o.labels.empty()) {
    const NodeTable t = lean_nodes(p, o);
    NodeSums sums(LocationNodes::of(t), ti, o.cum);
    for (size_t s = 0; s < p.num_samples(); ++s) {
      const int64_t b = p.stack_offsets[s];
      sums.add(p.values.data() + s * nt, p.stack_locations.data() + b, static_cast<size_t>(p.stack_offsets[s + 1] - b));
    }
    node_rows(p, t, sums, r);
    finish(p, strings, ti, sums, r);
    return;
  }
  NodeTable t;
  if (o.nodes) t = lean_nodes(p, o);
  KeyedSums sums(o.nodes ? &t : nullptr, ti, o.cum);
  LabelSplit split(strings, o.labels);
  std::vector<SampleLabel> labels;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int64_t b = p.stack_offsets[s];
    decoded_labels(p, s, labels);
    sums.add(p.values.data() + s * nt, p.stack_locations.data() + b, static_cast<size_t>(p.stack_offsets[s + 1] - b),
             split.combo(labels.data(), labels.size()));
  }
  finish_keyed(p, strings, ti, o.nodes ? &t : nullptr, sums, split, r);
}

// The fast way (scan.hpp): no Profile is built, only the tables a node table
// needs, and the samples are summed straight from the file's `bytes`. false:
// the file must go the ordinary way (which then reports any error), `r`
// untouched. The bytes are the file's (scratch.file); gzip input inflates
// into scratch.inflated.
// Inlined into reduce(), its one caller, as it was while reduce() held the
// file's bytes itself: left out of line, GCC also left the flat walk out of
// line, 1.3% more instructions by function (callgrind, 200 files).
[[gnu::always_inline]] inline bool reduce_scanned(const SeriesOptions& o, SeriesScratch& scratch, Reduced& r) {
  const DecodeOptions& d = o.decode;
  Scan& scan = scratch.scan;
  const bool labels_only = !o.labels.empty() && !o.nodes;
  const bool by_name = o.labels.empty() && o.granularity == Granularity::Functions;
  bool named = false;  // the nodes are NameNodes'
  // Labels only: the lean pass keeps no tables; by function: it keeps what
  // NameNodes need. Input off their common shape goes to the full pass.
  auto tables = [&](const uint8_t* data, size_t n) {
    if (labels_only && scan_label_tables(data, n, scan)) return true;
    if (by_name && scan_function_tables(data, n, scan) && scratch.names.build(scan.tables, scan.strings))
      return named = true;
    return scan_tables(data, n, scan);
  };
  gzip::Buffer& inflated = scratch.inflated;
  try {
    const uint8_t* data = scratch.file.data();
    const size_t n = scratch.file.size();
    if (zstd::is_zstd(data, n)) return false;
    if (gzip::is_gzip(data, n)) {
      if (n > max_input_size(d.max_decompressed_size, true)) return false;
      gzip::inflate(data, n, d.max_decompressed_size, inflated, d.inflater);
      if (!tables(inflated.data(), inflated.size())) return false;
    } else if (n > d.max_decompressed_size || !tables(data, n)) {
      return false;
    }
  } catch (const std::exception&) {
    return false;  // the ordinary way says what is wrong
  }
  const Profile& p = scan.tables;
  const Strings& strings = scan.strings;
  size_t ti;
  try {
    ti = choose_sample_type(p, strings, o.sample_type);
  } catch (const ProfileError&) {
    return false;  // decode() may refuse the samples first: let it decide
  }
  if (o.labels.empty()) {
    NodeTable t;
    if (!named) t = lean_nodes(p, o);
    NodeSums sums(named ? scratch.names.nodes(p, strings) : LocationNodes::of(t), ti, o.cum);
    // A flat sum needs only each sample's value and leaf: the labels walk
    // with no key wanted reads just those.
    std::vector<FirstLabel> no_keys;
    const bool walked =
        !o.cum ? for_each_sample_labels(scan, ti, {}, no_keys,
                                        [&](int64_t v, const FirstLabel*, uint64_t leaf) {
                                          sums.add_flat(v, leaf ? scan.locations.row(leaf) : -1);
                                        })
               : for_each_sample(scan, [&](const int64_t* v, const int32_t* rows, size_t n) { sums.add(v, rows, n); });
    if (!walked) return false;
    if (named)
      scratch.names.rows(strings, sums.sums, r);
    else
      node_rows(p, t, sums, r);
    finish(p, strings, ti, sums, r);
    return true;
  }
  LabelSplit split(strings, o.labels);
  if (labels_only) {  // the lean walk, no location rows, each label read once
    KeyedSums sums(nullptr, ti, o.cum);
    if (!for_each_sample_labels(
            scan, ti, split.key_of_code(), split.firsts(),
            [&](int64_t v, const FirstLabel* firsts, uint64_t) { sums.add_value(v, split.combo(firsts)); }))
      return false;
    finish_keyed(p, strings, ti, nullptr, sums, split, r);
    return true;
  }
  NodeTable t = lean_nodes(p, o);
  KeyedSums sums(&t, ti, o.cum);
  std::vector<SampleLabel> labels;
  if (!for_each_sample(scan, [&](const int64_t* v, const int32_t* rows, size_t n) {
        scanned_labels(scan, labels);
        sums.add(v, rows, n, split.combo(labels.data(), labels.size()));
      }))
    return false;
  finish_keyed(p, strings, ti, &t, sums, split, r);
  return true;
}

Reduced reduce(const std::string& path, const SeriesOptions& o) {
  Reduced r;
  Profile p;
  bool scanned = false;
  {
    static Pool<SeriesScratch> scratches;  // their buffers serve file after file
    auto scratch = scratches.take();
    // The buffers grow to the largest file read: past 1 MiB they are given
    // back rather than kept in the pool, which outlives the call.
    auto drop_if_large = [&] {
      if (scratch->file.capacity() + scratch->inflated.capacity() > (size_t(1) << 20)) scratch.drop();
    };
    try {
      // Read once, as load_file() reads; the ordinary way decodes the same bytes.
      const DecodeOptions& d = o.decode;
      read_file(path, scratch->file, d.max_decompressed_size,
                [&](const uint8_t* b, size_t n) { judge_prefix(b, n, d); });
      scanned = o.scan && reduce_scanned(o, *scratch, r);
      if (!scanned) p = decode(scratch->file.data(), scratch->file.size(), d);
    } catch (...) {
      drop_if_large();
      rethrow_with_path(path);
    }
    drop_if_large();
  }
  if (!scanned) reduce_decoded(p, o, r);
  return r;
}

// Interns the profiles' rows in input order into one SeriesResult.
class Collector {
 public:
  Collector(size_t n, size_t n_labels) : n_labels_(n_labels) {
    out.total.assign(n, 0);
    out.time_nanos.assign(n, 0);
    out.duration_nanos.assign(n, 0);
  }

  void add(size_t i, const Reduced& r) {
    out.total[i] = r.total, out.time_nanos[i] = r.time_nanos, out.duration_nanos[i] = r.duration_nanos;
    if (std::find(out.type_names.begin(), out.type_names.end(), r.type_name) == out.type_names.end())
      out.type_names.push_back(r.type_name);
    codes_.resize(r.values.size());
    for (size_t j = 0; j < r.values.size(); ++j) codes_[j] = names_.intern(r.names[j]);
    if (n_labels_) {
      // Each combination's value codes, then each row's (node, values) key.
      const size_t n_combos = r.combo_present.size() / n_labels_;
      value_codes_.resize(r.combo_present.size());
      for (size_t c = 0; c < n_combos * n_labels_; ++c)
        value_codes_[c] = r.combo_present[c] ? values_.intern(r.combo_values[c]) : -1;
      for (size_t j = 0; j < r.values.size(); ++j) {
        const int32_t* vc = value_codes_.data() + static_cast<size_t>(r.combo[j]) * n_labels_;
        key_bytes_.assign(reinterpret_cast<const char*>(&codes_[j]), sizeof(int32_t));
        key_bytes_.append(reinterpret_cast<const char*>(vc), n_labels_ * sizeof(int32_t));
        auto [it, fresh] = keys_.try_emplace(key_bytes_, static_cast<int32_t>(keys_.size()));
        if (fresh) {
          out.key_node.push_back(codes_[j]);
          out.key_labels.insert(out.key_labels.end(), vc, vc + n_labels_);
        }
        codes_[j] = it->second;
      }
    }
    for (uint32_t j : r.order) {
      out.profile.push_back(static_cast<int64_t>(i));
      out.name.push_back(codes_[j]);
      out.value.push_back(r.values[j]);
    }
  }

  SeriesResult finish(bool nodes) {
    out.names = names_.take();
    out.label_values = values_.take();
    if (n_labels_ && !nodes) {
      out.names.clear();
      std::fill(out.key_node.begin(), out.key_node.end(), -1);
    }
    return std::move(out);
  }

 private:
  // Strings numbered in order of first appearance. An open-addressing table
  // of codes (hashing.hpp): every row of every profile is looked up here, on
  // the thread that also collects, and std::unordered_map's node per string
  // and its hash cost several times more.
  class Interner {
   public:
    int32_t intern(std::string_view s) {
      const uint64_t h = hash_bytes(s);
      const int32_t found = index_.find(h, [&](int32_t c) { return stored_[static_cast<size_t>(c)] == s; });
      if (found >= 0) return found;
      const auto code = static_cast<int32_t>(stored_.size());
      stored_.emplace_back(s);
      index_.insert(h, code);
      return code;
    }
    std::vector<std::string> take() {
      index_.clear();
      return std::move(stored_);
    }

   private:
    std::vector<std::string> stored_;
    IdTable index_;  // codes, by content
  };

  SeriesResult out;
  size_t n_labels_;
  Interner names_, values_;
  std::unordered_map<std::string, int32_t> keys_;
  std::vector<int32_t> codes_, value_codes_;
  std::string key_bytes_;
};

// Reduces items [0, n) on workers with `reduce_one(i)` while this thread
// collects them in input order as they come: one set of workers for the whole
// call, and the interning overlaps their work instead of waiting between
// rounds. At most options.batch results wait at once (the memory bound): a
// worker takes item i only once item i - batch has been collected. The first
// failing item in input order is rethrown, after the workers stop.
template <class ReduceOne>
SeriesResult reduce_all(size_t n, const SeriesOptions& options, const Poll& poll, ReduceOne&& reduce_one) {
  Collector collector(n, options.labels.size());
  unsigned threads = options.threads ? options.threads : hardware_threads();
  if (threads > n) threads = static_cast<unsigned>(n);
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) {
      if (poll) poll();
      collector.add(i, reduce_one(i));
    }
    return collector.finish(options.nodes);
  }
  const size_t window = std::max<size_t>(1, options.batch);
  // This thread sleeps until item wake_at is done, a few items ahead of the
  // one it needs: woken once per run of items rather than once per item.
  const size_t lag = std::min<size_t>(kWakeLag, window - 1);
  std::vector<Reduced> slots(window);
  std::vector<uint8_t> ready(window, 0);
  std::mutex mu;
  std::condition_variable room, arrived;  // workers wait for room, this thread for item wake_at
  size_t next = 0, collected = 0, wake_at = 0;
  bool stop = false;
  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      room.wait(lock, [&] { return stop || next >= n || next < collected + window; });
      if (stop || next >= n) return;
      const size_t i = next++;
      lock.unlock();
      Reduced r;
      try {
        r = reduce_one(i);
      } catch (...) {
        r.error = std::current_exception();
      }
      lock.lock();
      slots[i % window] = std::move(r);
      ready[i % window] = 1;
      if (i == wake_at) arrived.notify_one();
    }
  };
  std::vector<std::thread> pool;
  auto join = [&] {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    room.notify_all();
    for (auto& t : pool) t.join();
  };
  try {
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    Reduced r;
    auto polled = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i) {
      // Polled every kPollWait whether or not results keep coming.
      if (poll && std::chrono::steady_clock::now() - polled >= kPollWait) {
        poll();
        polled = std::chrono::steady_clock::now();
      }
      {
        std::unique_lock<std::mutex> lock(mu);
        if (!ready[i % window]) wake_at = std::min(n - 1, i + lag);
        while (!ready[i % window]) {
          if (ready[wake_at % window]) wake_at = i;  // a later item came first: wait for this one alone
          if (arrived.wait_for(lock, kPollWait, [&] { return ready[wake_at % window] != 0; }) || !poll) continue;
          lock.unlock();
          poll();
          polled = std::chrono::steady_clock::now();
          lock.lock();
        }
        r = std::move(slots[i % window]);
        slots[i % window] = Reduced();
        ready[i % window] = 0;
        collected = i + 1;
      }
      room.notify_one();
      if (r.error) std::rethrow_exception(r.error);
      collector.add(i, r);
    }
  } catch (...) {
    join();
    throw;
  }
  join();
  return collector.finish(options.nodes);
}

}  // namespace

SeriesResult series_files(const std::vector<std::string>& paths, const SeriesOptions& options, const Poll& poll) {
  return reduce_all(paths.size(), options, poll, [&](size_t i) { return reduce(paths[i], options); });
}

SeriesResult series_profiles(const std::vector<const Profile*>& profiles, const SeriesOptions& options,
                             const Poll& poll) {
  return reduce_all(profiles.size(), options, poll, [&](size_t i) {
    Reduced r;
    reduce_decoded(*profiles[i], options, r);
    return r;
  });
}

}  // namespace pprofcore
