// delta: the stateful DeltaComputer (fastdelta semantics). Sample identity is
// the merge key (merge.hpp), interned in a Merger that lives across calls; the
// per-sample previous values sit in flat arrays indexed by that id.
#include "pprofcore/delta.hpp"
#include "pprofcore/arith.hpp"

#include <algorithm>

namespace pprofcore {

DeltaComputer::DeltaComputer(std::vector<std::string> sample_types) : names_(std::move(sample_types)) {}

size_t DeltaComputer::memory_bytes() const {
  return canon_.memory_bytes() + (prev_.capacity() + cur_.capacity()) * 8 +
         (prev_gen_.capacity() + cur_gen_.capacity() + first_row_.capacity() + touched_.capacity()) * 4;
}

void DeltaComputer::reset_state() {
  canon_ = Merger();
  prev_.clear();
  cur_.clear();
  prev_gen_.clear();
  cur_gen_.clear();
  first_row_.clear();
  gen_ = 0;
}

namespace {
bool same_types(const std::vector<std::string>& types, const Profile& p) {
  if (types.size() != p.num_types()) return false;
  for (size_t t = 0; t < types.size(); ++t) {
    std::string_view a = types[t], ty = p.str(p.sample_type_type[t]), un = p.str(p.sample_type_unit[t]);
    if (a.size() != ty.size() + 1 + un.size() || a.substr(0, ty.size()) != ty || a[ty.size()] != '/' ||
        a.substr(ty.size() + 1) != un)
      return false;
  }
  return true;
}
}  // namespace

bool DeltaComputer::delta_into(const Profile& cur, Profile& out) {
  ++calls_;
  const size_t nt = cur.num_types();
  bool passthrough = gen_ == 0 || !same_types(types_, cur);
  if (passthrough) {
    reset_state();
    types_.clear();
    is_delta_.assign(nt, 0);
    for (size_t t = 0; t < nt; ++t) {
      std::string_view ty = cur.str(cur.sample_type_type[t]);
      types_.push_back(std::string(ty) + "/" + std::string(cur.str(cur.sample_type_unit[t])));
      is_delta_[t] = names_.empty() || std::find(names_.begin(), names_.end(), ty) != names_.end();
    }
    nt_ = nt;
  }
  ++gen_;
  // Aggregate the current profile by sample key.
  canon_.begin_source(cur);
  touched_.clear();
  for (size_t i = 0; i < cur.num_samples(); ++i) {
    const size_t sid = size_t(canon_.map_sample(i));
    if (sid >= cur_gen_.size()) {
      size_t n = std::max(sid + 1, cur_gen_.size() * 2);
      cur_gen_.resize(n, 0);
      prev_gen_.resize(n, 0);
      first_row_.resize(n, -1);
      cur_.resize(n * nt, 0);
      prev_.resize(n * nt, 0);
    }
    const int64_t* v = cur.values.data() + i * nt;
    int64_t* c = cur_.data() + sid * nt;
    if (cur_gen_[sid] != gen_) {
      cur_gen_[sid] = gen_;
      first_row_[sid] = static_cast<int32_t>(i);
      touched_.push_back(static_cast<int32_t>(sid));
      std::copy(v, v + nt, c);
    } else {
      for (size_t t = 0; t < nt; ++t) c[t] = wrapping_add(c[t], v[t]);
    }
  }
  if (passthrough) {
    out = cur;
  } else {
    // Header and tables from the current profile; samples rebuilt.
    out.sample_type_type = cur.sample_type_type;
    out.sample_type_unit = cur.sample_type_unit;
    out.has_period_type = cur.has_period_type;
    out.period_type_type = cur.period_type_type;
    out.period_type_unit = cur.period_type_unit;
    out.period = cur.period;
    out.time_nanos = cur.time_nanos;
    out.duration_nanos = cur.duration_nanos;
    out.comments = cur.comments;
    out.drop_frames = cur.drop_frames;
    out.keep_frames = cur.keep_frames;
    out.default_sample_type = cur.default_sample_type;
    out.doc_url = cur.doc_url;
    out.locations = cur.locations;
    out.lines = cur.lines;
    out.functions = cur.functions;
    out.mappings = cur.mappings;
    out.strings = cur.strings;
    out.values.clear();
    out.stack_offsets.assign(1, 0);
    out.stack_locations.clear();
    out.label_offsets.assign(1, 0);
    out.labels.key.clear();
    out.labels.str.clear();
    out.labels.num.clear();
    out.labels.num_unit.clear();
    for (int32_t s : touched_) {
      const size_t sid = size_t(s);
      const int64_t* c = cur_.data() + sid * nt;
      const int64_t* pv = prev_.data() + sid * nt;
      const bool had_prev = prev_gen_[sid] == gen_ - 1;
      bool zero = true;
      const size_t at = out.values.size();
      for (size_t t = 0; t < nt; ++t) {
        int64_t x = c[t];
        if (is_delta_[t] && had_prev) x = wrapping_sub(x, pv[t]);
        out.values.push_back(x);
        zero = zero && x == 0;
      }
      if (zero) {
        out.values.resize(at);
        continue;
      }
      const size_t i = size_t(first_row_[sid]);
      out.stack_locations.insert(out.stack_locations.end(), cur.stack_locations.begin() + cur.stack_offsets[i],
                                 cur.stack_locations.begin() + cur.stack_offsets[i + 1]);
      out.stack_offsets.push_back(static_cast<int64_t>(out.stack_locations.size()));
      for (int64_t j = cur.label_offsets[i]; j < cur.label_offsets[i + 1]; ++j) {
        size_t q = size_t(j);
        out.labels.key.push_back(cur.labels.key[q]);
        out.labels.str.push_back(cur.labels.str[q]);
        out.labels.num.push_back(cur.labels.num[q]);
        out.labels.num_unit.push_back(cur.labels.num_unit[q]);
      }
      out.label_offsets.push_back(static_cast<int64_t>(out.labels.size()));
    }
  }
  // Remember the current values as the next call's previous ones.
  for (int32_t s : touched_) {
    const size_t sid = size_t(s);
    std::copy(cur_.data() + sid * nt, cur_.data() + (sid + 1) * nt, prev_.data() + sid * nt);
    prev_gen_[sid] = gen_;
  }
  // Bound the state by the distinct samples of the series: when the interned
  // content is mostly stale, rebuild it from the current profile.
  if (canon_.num_samples() > 2 * touched_.size() + 4096) rebuild(cur);
  return !passthrough;
}

void DeltaComputer::rebuild(const Profile& cur) {
  const size_t nt = nt_;
  std::vector<int64_t> keep;
  std::vector<int32_t> rows;
  for (int32_t s : touched_) {
    rows.push_back(first_row_[size_t(s)]);
    keep.insert(keep.end(), prev_.begin() + s * long(nt), prev_.begin() + (s + 1) * long(nt));
  }
  const uint32_t gen = gen_;
  reset_state();
  gen_ = gen;
  canon_.begin_source(cur);
  size_t n = rows.size() + 1;
  cur_gen_.assign(n, 0);
  prev_gen_.assign(n, 0);
  first_row_.assign(n, -1);
  cur_.assign(n * nt, 0);
  prev_.assign(n * nt, 0);
  for (size_t k = 0; k < rows.size(); ++k) {
    size_t sid = size_t(canon_.map_sample(size_t(rows[k])));
    std::copy(keep.begin() + long(k * nt), keep.begin() + long((k + 1) * nt), prev_.begin() + long(sid * nt));
    prev_gen_[sid] = gen_;
  }
}

}  // namespace pprofcore
