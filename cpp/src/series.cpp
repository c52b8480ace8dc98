// series: per-profile node sums for fleet series, on worker threads. Owns the
// per-profile reduction and the in-order interning of node names; the node
// identities and names are aggregate.cpp's.
#include "pprofcore/series.hpp"

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

// What one profile reduces to; built on a worker, interned on the caller's thread.
struct Reduced {
  StringTable names{{}, {0}};
  std::vector<int64_t> values;
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
  AggregateOptions ao;
  ao.granularity = o.granularity;
  ao.label_type = static_cast<int>(ti);  // as Profile.top's node table
  const NodeTable t = aggregate(p, ao);
  const std::vector<int64_t>& col = o.cum ? t.cum : t.flat;
  for (size_t k = 0; k < t.size(); ++k) {
    const int64_t v = col[k * t.n_types + ti];
    if (v == 0) continue;
    r.names.push_back(t.printable[k]);
    r.values.push_back(v);
  }
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
      for (size_t j = 0; j < r.values.size(); ++j) {
        std::string_view name = r.names[j];
        auto it = index.find(name);
        int32_t code;
        if (it == index.end()) {
          code = static_cast<int32_t>(stored.size());
          stored.emplace_back(name);
          index.emplace(stored.back(), code);
        } else {
          code = it->second;
        }
        out.profile.push_back(static_cast<int64_t>(i));
        out.name.push_back(code);
        out.value.push_back(r.values[j]);
      }
      r = Reduced();  // free as we go
    }
  }
  out.names.assign(std::make_move_iterator(stored.begin()), std::make_move_iterator(stored.end()));
  return out;
}

}  // namespace pprofcore
