// series: per-profile node sums for fleet series, on worker threads. Owns the
// per-profile reduction (a file read by scan.hpp's lean pass where it can, else
// decoded) and the in-order interning of node names; the node identities and
// names are aggregate.cpp's.
#include "pprofcore/series.hpp"

#include "pprofcore/arith.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/pool.hpp"
#include "pprofcore/scan.hpp"
#include "pprofcore/zstd.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <iterator>
#include <string_view>
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

size_t choose_sample_type(const Profile& p, const SampleTypeChoice& choice) {
  const int64_t n = static_cast<int64_t>(p.num_types());
  auto by_name = [&](std::string_view name) -> size_t {
    for (size_t t = 0; t < p.num_types(); ++t)
      if (p.str(p.sample_type_type[t]) == name) return t;
    std::vector<std::string> have;
    for (size_t t = 0; t < p.num_types(); ++t) have.emplace_back(p.str(p.sample_type_type[t]));
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
  std::string_view def = p.str(p.default_sample_type);
  return def.empty() ? by_index(n - 1) : by_name(def);
}

namespace {

// The chosen type's sum per node of `t`, sample by sample, as aggregate() sums
// it: flat to the leaf location's innermost frame, cum once per node and
// sample (wrapping int64 additions); and pprof's total, the sum of |value|
// (wrapping like NumPy's abs and int64 sum).
class NodeSums {
 public:
  NodeSums(const NodeTable& t, size_t ti, bool cum) : sums(t.size(), 0), t_(t), ti_(ti), cum_(cum) {
    if (cum) seen_.assign(t.size(), 0);
  }

  // One sample: its values (one per type) and location rows, leaf first.
  void add(const int64_t* values, const int32_t* rows, size_t n_rows) {
    const int64_t v = values[ti_];
    total += v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    ++stamp_;
    if (v == 0 || n_rows == 0) return;
    const int64_t* offsets = t_.loc_node_offsets.data();
    const int32_t* nodes = t_.loc_nodes.data();
    if (!cum_) {
      int64_t& sum = sums[static_cast<size_t>(nodes[offsets[rows[0]]])];
      sum = wrapping_add(sum, v);
      return;
    }
    for (size_t i = 0; i < n_rows; ++i) {
      for (int64_t j = offsets[rows[i]]; j < offsets[rows[i] + 1]; ++j) {
        const size_t n = static_cast<size_t>(nodes[j]);
        if (seen_[n] == stamp_) continue;
        seen_[n] = stamp_;
        sums[n] = wrapping_add(sums[n], v);
      }
    }
  }

  std::vector<int64_t> sums;
  uint64_t total = 0;

 private:
  const NodeTable& t_;
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
};

// The node table of Profile.top without its sums and names: only the chosen
// type is summed, and only non-zero nodes are named.
NodeTable lean_nodes(const Profile& p, const SeriesOptions& o) {
  AggregateOptions ao;
  ao.granularity = o.granularity;
  ao.sums = false;
  ao.names = false;
  return aggregate(p, ao);
}

// Fills `r` from a profile's header (p), its node table and the node sums.
void finish(const Profile& p, size_t ti, const NodeTable& t, const NodeSums& sums, Reduced& r) {
  for (size_t k = 0; k < t.size(); ++k) {
    if (sums.sums[k] == 0) continue;
    r.names.push_back(printable_name(p, t, k));
    r.values.push_back(sums.sums[k]);
  }
  r.order.resize(r.values.size());
  for (uint32_t j = 0; j < r.order.size(); ++j) r.order[j] = j;
  std::stable_sort(r.order.begin(), r.order.end(), [&](uint32_t a, uint32_t b) {
    return r.values[a] != r.values[b] ? r.values[a] > r.values[b] : r.names[a] < r.names[b];
  });
  r.total = static_cast<int64_t>(sums.total);
  r.time_nanos = p.time_nanos;
  r.duration_nanos = p.duration_nanos;
  r.type_name = std::string(p.str(p.sample_type_type[ti]));
}

// The fast way (scan.hpp): no Profile is built, only the tables a node table
// needs, and the samples are summed straight from the file's `bytes`. false:
// the file must go the ordinary way (which then reports any error), `r`
// untouched. `inflated_size`: what gzip input inflated to.
bool reduce_scanned(const std::string& bytes, const SeriesOptions& o, Scan& scan, Reduced& r, size_t& inflated_size) {
  const DecodeOptions& d = o.decode;
  gzip::Buffer inflated;
  try {
    const uint8_t* data = reinterpret_cast<const uint8_t*>(bytes.data());
    const size_t n = bytes.size();
    if (zstd::is_zstd(data, n)) return false;
    if (gzip::is_gzip(data, n)) {
      if (n > max_input_size(d.max_decompressed_size, true)) return false;
      inflated = gzip::inflate(data, n, d.max_decompressed_size, d.inflater);
      inflated_size = inflated.size();
      if (!scan_tables(inflated.data(), inflated.size(), scan)) return false;
    } else if (n > d.max_decompressed_size || !scan_tables(data, n, scan)) {
      return false;
    }
  } catch (const std::exception&) {
    return false;  // the ordinary way says what is wrong
  }
  const Profile& p = scan.tables;
  size_t ti;
  try {
    ti = choose_sample_type(p, o.sample_type);
  } catch (const ProfileError&) {
    return false;  // decode() may refuse the samples first: let it decide
  }
  const NodeTable t = lean_nodes(p, o);
  NodeSums sums(t, ti, o.cum);
  if (!for_each_sample(scan, [&](const int64_t* v, const int32_t* rows, size_t n) { sums.add(v, rows, n); }))
    return false;
  finish(p, ti, t, sums, r);
  return true;
}

Reduced reduce(const std::string& path, const SeriesOptions& o) {
  Reduced r;
  Profile p;
  try {
    // Read once, as load_file() reads; the ordinary way decodes the same bytes.
    const DecodeOptions& d = o.decode;
    const std::string bytes =
        read_file(path, d.max_decompressed_size, [&](const uint8_t* b, size_t n) { judge_prefix(b, n, d); });
    if (o.scan) {
      static Pool<Scan> scans;  // their buffers serve file after file
      auto scan = scans.take();
      size_t inflated_size = 0;
      const bool done = reduce_scanned(bytes, o, *scan, r, inflated_size);
      // The buffers grow to the largest file read: past 1 MiB they are given
      // back rather than kept in the pool, which outlives the call.
      if (bytes.size() + inflated_size > (size_t(1) << 20)) scan.drop();
      if (done) return r;
    }
    p = decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), d);
  } catch (...) {
    rethrow_with_path(path);
  }
  const size_t ti = choose_sample_type(p, o.sample_type);
  const NodeTable t = lean_nodes(p, o);
  NodeSums sums(t, ti, o.cum);
  const size_t nt = p.num_types();
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int64_t b = p.stack_offsets[s];
    sums.add(p.values.data() + s * nt, p.stack_locations.data() + b, static_cast<size_t>(p.stack_offsets[s + 1] - b));
  }
  finish(p, ti, t, sums, r);
  return r;
}

}  // namespace

SeriesResult series_files(const std::vector<std::string>& paths, const SeriesOptions& options, const Poll& poll) {
  SeriesResult out;
  const size_t n = paths.size();
  out.total.assign(n, 0);
  out.time_nanos.assign(n, 0);
  out.duration_nanos.assign(n, 0);
  // Names live in a deque (stable addresses) so the index can key on views.
  std::deque<std::string> stored;
  std::unordered_map<std::string_view, int32_t> index;
  const size_t batch = std::max<size_t>(1, options.batch);
  std::vector<Reduced> slots;
  std::vector<int32_t> codes;  // of one profile's names
  for (size_t begin = 0; begin < n; begin += batch) {
    const size_t end = std::min(n, begin + batch);
    slots.assign(end - begin, Reduced());
    // Each worker writes only its own slot; errors are kept per slot so the
    // first failing file in input order is the one reported.
    parallel_for(
        end - begin, options.threads,
        [&](size_t k) {
          try {
            slots[k] = reduce(paths[begin + k], options);
          } catch (...) {
            slots[k].error = std::current_exception();
          }
        },
        poll);
    for (size_t k = 0; k < slots.size(); ++k) {
      Reduced& r = slots[k];
      if (r.error) std::rethrow_exception(r.error);
      const size_t i = begin + k;
      out.total[i] = r.total, out.time_nanos[i] = r.time_nanos, out.duration_nanos[i] = r.duration_nanos;
      if (std::find(out.type_names.begin(), out.type_names.end(), r.type_name) == out.type_names.end())
        out.type_names.push_back(r.type_name);
      codes.resize(r.values.size());
      for (size_t j = 0; j < r.values.size(); ++j) {
        std::string_view name = r.names[j];
        auto it = index.find(name);
        if (it == index.end()) {
          codes[j] = static_cast<int32_t>(stored.size());
          stored.emplace_back(name);
          index.emplace(stored.back(), codes[j]);
        } else {
          codes[j] = it->second;
        }
      }
      for (uint32_t j : r.order) {
        out.profile.push_back(static_cast<int64_t>(i));
        out.name.push_back(codes[j]);
        out.value.push_back(r.values[j]);
      }
      r = Reduced();  // free as we go
    }
  }
  out.names.assign(std::make_move_iterator(stored.begin()), std::make_move_iterator(stored.end()));
  return out;
}

}  // namespace pprofcore
