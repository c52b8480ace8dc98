// series: per-profile node sums for fleet series, on worker threads. Owns the
// per-profile reduction and the in-order interning of node names; the node
// identities and names are aggregate.cpp's.
#include "pprofcore/series.hpp"

#include "pprofcore/arith.hpp"

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

// Flat (leaf frame) or cum (each node once per sample) of type `ti` per node of
// `t`, as aggregate() sums them (wrapping int64 additions).
std::vector<int64_t> node_sums(const Profile& p, const NodeTable& t, size_t ti, bool cum) {
  std::vector<int64_t> sums(t.size(), 0);
  const size_t nt = p.num_types(), ns = p.num_samples();
  const int64_t* loc_node_offsets = t.loc_node_offsets.data();
  const int32_t* loc_nodes = t.loc_nodes.data();
  if (!cum) {
    for (size_t s = 0; s < ns; ++s) {
      const int64_t v = p.values[s * nt + ti];
      const int64_t sb = p.stack_offsets[s];
      if (v == 0 || sb == p.stack_offsets[s + 1]) continue;
      // The leaf location's innermost frame.
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(sb)]);
      int64_t& sum = sums[static_cast<size_t>(loc_nodes[loc_node_offsets[loc]])];
      sum = wrapping_add(sum, v);
    }
    return sums;
  }
  std::vector<uint32_t> seen(t.size(), 0);  // stamp = sample index + 1
  for (size_t s = 0; s < ns; ++s) {
    const int64_t v = p.values[s * nt + ti];
    if (v == 0) continue;
    const uint32_t stamp = static_cast<uint32_t>(s + 1);
    for (int64_t i = p.stack_offsets[s]; i < p.stack_offsets[s + 1]; ++i) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      for (int64_t j = loc_node_offsets[loc]; j < loc_node_offsets[loc + 1]; ++j) {
        const size_t n = static_cast<size_t>(loc_nodes[j]);
        if (seen[n] == stamp) continue;
        seen[n] = stamp;
        sums[n] = wrapping_add(sums[n], v);
      }
    }
  }
  return sums;
}

// What one profile reduces to; built on a worker, interned on the caller's thread.
struct Reduced {
  StringTable names{{}, {0}};  // in node order (names are interned in this order)
  std::vector<int64_t> values;
  std::vector<uint32_t> order;  // rows by value descending, then name: the series' row order
  int64_t total = 0, time_nanos = 0, duration_nanos = 0;
  std::string type_name;
  std::exception_ptr error;
};

Reduced reduce(const std::string& path, const SeriesOptions& o) {
  Profile p;
  try {
    p = load_file(path, o.decode);
  } catch (...) {
    rethrow_with_path(path);
  }
  Reduced r;
  const size_t ti = choose_sample_type(p, o.sample_type);
  // The node table of Profile.top without its sums and names: only the
  // chosen type is summed, and only non-zero nodes are named.
  AggregateOptions ao;
  ao.granularity = o.granularity;
  ao.sums = false;
  ao.names = false;
  const NodeTable t = aggregate(p, ao);
  const std::vector<int64_t> sums = node_sums(p, t, ti, o.cum);
  for (size_t k = 0; k < t.size(); ++k) {
    if (sums[k] == 0) continue;
    r.names.push_back(printable_name(p, t, k));
    r.values.push_back(sums[k]);
  }
  r.order.resize(r.values.size());
  for (uint32_t j = 0; j < r.order.size(); ++j) r.order[j] = j;
  std::stable_sort(r.order.begin(), r.order.end(), [&](uint32_t a, uint32_t b) {
    return r.values[a] != r.values[b] ? r.values[a] > r.values[b] : r.names[a] < r.names[b];
  });
  // NumPy's abs and int64 sum: both wrap.
  uint64_t total = 0;
  const size_t nt = p.num_types();
  for (size_t i = 0; i < p.num_samples(); ++i) {
    const int64_t v = p.values[i * nt + ti];
    total += v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  }
  r.total = static_cast<int64_t>(total);
  r.time_nanos = p.time_nanos;
  r.duration_nanos = p.duration_nanos;
  r.type_name = std::string(p.str(p.sample_type_type[ti]));
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
