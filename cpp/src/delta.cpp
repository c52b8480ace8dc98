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

void DeltaComputer::reserve_state(const Profile& cur) {
  canon_.reserve_for(cur);
  const size_t n = cur.num_samples() + 1, nt = cur.num_types();
  cur_gen_.resize(n, 0);
  prev_gen_.resize(n, 0);
  first_row_.resize(n, -1);
  cur_.resize(n * nt, 0);
  prev_.resize(n * nt, 0);
}

void DeltaComputer::reset_state() {
  canon_ = Merger(Merger::Keep::KeysOnly);
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

bool DeltaComputer::delta_into(const Profile& cur, Profile& out) { return step(cur, out, nullptr); }

bool DeltaComputer::delta_into(Profile&& cur, Profile& out) { return step(cur, out, &cur); }

// One call: `owned` is cur when the caller gave it up (delta_into(Profile&&)).
bool DeltaComputer::step(const Profile& cur, Profile& out, Profile* owned) {
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
  // A new state is sized to the profile (growth by doubling would leave up
  // to half of it unused for good).
  if (canon_.num_samples() == 0) reserve_state(cur);
  aggregate(cur);
  // Bound the state by the distinct samples of the series: when the interned
  // content is mostly stale, it is rebuilt from the current profile below,
  // which needs cur's samples as they came.
  const bool stale = canon_.num_samples() > 2 * touched_.size() + 4096;
  if (passthrough) {
    if (owned && !stale) {
      out = std::move(*owned);
    } else {
      out = cur;
    }
  } else if (owned && !stale) {
    emit_in_place(*owned, out);
  } else {
    emit_copy(cur, out);
  }
  prev_time_ = out.time_nanos;
  // Remember the current values as the next call's previous ones.
  for (int32_t s : touched_) {
    const size_t sid = size_t(s);
    std::copy(cur_.data() + sid * nt, cur_.data() + (sid + 1) * nt, prev_.data() + sid * nt);
    prev_gen_[sid] = gen_;
  }
  if (stale) rebuild(cur);
  return !passthrough;
}

// Sums the current profile's values by sample key (duplicates aggregate);
// touched_ lists the keys in order of their first row.
void DeltaComputer::aggregate(const Profile& cur) {
  const size_t nt = cur.num_types();
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
}

// Header from the current profile (samples and tables are the callers').
void DeltaComputer::copy_header(const Profile& cur, Profile& out) const {
  Profile::visit_scalars([](const char*, auto& to, const auto& from) { to = from; }, out, cur);
  out.sample_type_type = cur.sample_type_type;
  out.sample_type_unit = cur.sample_type_unit;
  out.comments = cur.comments;
  // fastdelta: a delta covers the time since the previous profile.
  out.duration_nanos =
      prev_time_ != 0 && cur.time_nanos != 0 ? wrapping_sub(cur.time_nanos, prev_time_) : cur.duration_nanos;
}

bool DeltaComputer::delta_values(size_t sid, int64_t* x) const {
  const size_t nt = nt_;
  const int64_t* c = cur_.data() + sid * nt;
  const int64_t* pv = prev_.data() + sid * nt;
  const bool had_prev = prev_gen_[sid] == gen_ - 1;
  bool zero = true;
  for (size_t t = 0; t < nt; ++t) {
    x[t] = is_delta_[t] && had_prev ? wrapping_sub(c[t], pv[t]) : c[t];
    zero = zero && x[t] == 0;
  }
  return !zero;
}

// The delta's samples copied from cur into out's own columns (cur untouched).
void DeltaComputer::emit_copy(const Profile& cur, Profile& out) {
  const size_t nt = nt_;
  copy_header(cur, out);
  out.values.clear();
  out.stack_offsets.assign(1, 0);
  out.stack_locations.clear();
  out.label_offsets.assign(1, 0);
  out.labels.key.clear();
  out.labels.str.clear();
  out.labels.num.clear();
  out.labels.num_unit.clear();
  values_.resize(nt);
  for (int32_t s : touched_) {
    if (!delta_values(size_t(s), values_.data())) continue;
    out.values.insert(out.values.end(), values_.begin(), values_.end());
    const size_t i = size_t(first_row_[size_t(s)]);
    out.stack_locations.insert(out.stack_locations.end(), cur.stack_locations.begin() + cur.stack_offsets[i],
                               cur.stack_locations.begin() + cur.stack_offsets[i + 1]);
    out.stack_offsets.push_back(static_cast<int64_t>(out.stack_locations.size()));
    for (int64_t j = cur.label_offsets[i]; j < cur.label_offsets[i + 1]; ++j) {
      size_t q = size_t(j);
      out.labels.push_back(cur.labels.key[q], cur.labels.str[q], cur.labels.num[q], cur.labels.num_unit[q]);
    }
    out.label_offsets.push_back(static_cast<int64_t>(out.labels.size()));
  }
  copy_referenced(cur, out);
}

// The delta's samples compacted within cur's own columns, which then move to
// out. The kept samples are a subsequence of cur's rows in order (touched_
// follows first rows), so every write lands at or before what is still to be
// read; cur's values were all summed into cur_ already.
void DeltaComputer::emit_in_place(Profile& cur, Profile& out) {
  const size_t nt = nt_;
  copy_header(cur, out);
  size_t kept = 0, locs = 0, labels = 0;
  for (int32_t s : touched_) {
    int64_t* x = cur.values.data() + kept * nt;  // row `kept` <= this sample's first row
    if (!delta_values(size_t(s), x)) continue;
    const size_t i = size_t(first_row_[size_t(s)]);
    const int64_t sb = cur.stack_offsets[i], se = cur.stack_offsets[i + 1];
    const int64_t lb = cur.label_offsets[i], le = cur.label_offsets[i + 1];
    std::copy(cur.stack_locations.begin() + sb, cur.stack_locations.begin() + se,
              cur.stack_locations.begin() + long(locs));
    locs += size_t(se - sb);
    cur.labels.for_each_column(
        [&](const char*, auto& c) { std::copy(c.begin() + lb, c.begin() + le, c.begin() + long(labels)); });
    labels += size_t(le - lb);
    ++kept;
    cur.stack_offsets[kept] = static_cast<int64_t>(locs);
    cur.label_offsets[kept] = static_cast<int64_t>(labels);
  }
  cur.values.resize(kept * nt);
  cur.stack_offsets.resize(kept + 1);
  cur.stack_locations.resize(locs);
  cur.label_offsets.resize(kept + 1);
  cur.labels.for_each_column([&](const char*, auto& c) { c.resize(labels); });
  out.values = std::move(cur.values);
  out.stack_offsets = std::move(cur.stack_offsets);
  out.stack_locations = std::move(cur.stack_locations);
  out.label_offsets = std::move(cur.label_offsets);
  out.labels = std::move(cur.labels);
  copy_referenced(cur, out);
}

namespace {
// Gives the marked entries of `map` new indices 0..n-1 in row order (-1 stays).
int32_t number_marked(std::vector<int32_t>& map) {
  int32_t n = 0;
  for (auto& m : map)
    if (m >= 0) m = n++;
  return n;
}
}  // namespace

void DeltaComputer::copy_referenced(const Profile& cur, Profile& out) {
  // Mark what out's samples reach: locations -> functions, mappings -> strings.
  loc_map_.assign(cur.locations.size(), -1);
  fn_map_.assign(cur.functions.size(), -1);
  map_map_.assign(cur.mappings.size(), -1);
  str_map_.assign(cur.strings.size(), -1);
  for (int32_t l : out.stack_locations) loc_map_[size_t(l)] = 0;
  for (size_t l = 0; l < loc_map_.size(); ++l) {
    if (loc_map_[l] < 0) continue;
    if (cur.locations.mapping[l] >= 0) map_map_[size_t(cur.locations.mapping[l])] = 0;
    for (int64_t j = cur.locations.line_offsets[l]; j < cur.locations.line_offsets[l + 1]; ++j)
      fn_map_[size_t(cur.lines.function[size_t(j)])] = 0;
  }
  auto use = [&](int32_t code) {
    if (code >= 0) str_map_[size_t(code)] = 0;
  };
  use(0);
  for (size_t t = 0; t < out.num_types(); ++t) use(out.sample_type_type[t]), use(out.sample_type_unit[t]);
  use(out.period_type_type), use(out.period_type_unit), use(out.drop_frames), use(out.keep_frames);
  use(out.default_sample_type), use(out.doc_url);
  for (int32_t c : out.comments) use(c);
  for (size_t i = 0; i < out.labels.size(); ++i)
    use(out.labels.key[i]), use(out.labels.str[i]), use(out.labels.num_unit[i]);
  for (size_t f = 0; f < fn_map_.size(); ++f)
    if (fn_map_[f] >= 0) use(cur.functions.name[f]), use(cur.functions.system_name[f]), use(cur.functions.filename[f]);
  for (size_t m = 0; m < map_map_.size(); ++m)
    if (map_map_[m] >= 0) use(cur.mappings.filename[m]), use(cur.mappings.build_id[m]);
  number_marked(loc_map_), number_marked(fn_map_), number_marked(map_map_), number_marked(str_map_);
  auto code = [&](int32_t c) { return c >= 0 ? str_map_[size_t(c)] : c; };
  // Copy the kept rows (ids unchanged) with remapped references.
  out.strings.clear();
  out.strings.push_back(std::string_view());  // code 0
  for (size_t c = 1; c < str_map_.size(); ++c)
    if (str_map_[c] >= 0) out.strings.push_back(cur.strings[c]);
  Functions& F = out.functions;
  F.id.clear(), F.name.clear(), F.system_name.clear(), F.filename.clear(), F.start_line.clear();
  for (size_t f = 0; f < fn_map_.size(); ++f) {
    if (fn_map_[f] < 0) continue;
    F.id.push_back(cur.functions.id[f]);
    F.name.push_back(code(cur.functions.name[f]));
    F.system_name.push_back(code(cur.functions.system_name[f]));
    F.filename.push_back(code(cur.functions.filename[f]));
    F.start_line.push_back(cur.functions.start_line[f]);
  }
  Mappings& M = out.mappings;
  M.id.clear(), M.memory_start.clear(), M.memory_limit.clear(), M.file_offset.clear(), M.filename.clear();
  M.build_id.clear(), M.has_functions.clear(), M.has_filenames.clear(), M.has_line_numbers.clear();
  M.has_inline_frames.clear();
  for (size_t m = 0; m < map_map_.size(); ++m) {
    if (map_map_[m] < 0) continue;
    const Mappings& C = cur.mappings;
    M.id.push_back(C.id[m]), M.memory_start.push_back(C.memory_start[m]), M.memory_limit.push_back(C.memory_limit[m]);
    M.file_offset.push_back(C.file_offset[m]), M.filename.push_back(code(C.filename[m]));
    M.build_id.push_back(code(C.build_id[m])), M.has_functions.push_back(C.has_functions[m]);
    M.has_filenames.push_back(C.has_filenames[m]), M.has_line_numbers.push_back(C.has_line_numbers[m]);
    M.has_inline_frames.push_back(C.has_inline_frames[m]);
  }
  Locations& L = out.locations;
  Lines& N = out.lines;
  L.id.clear(), L.mapping.clear(), L.address.clear(), L.is_folded.clear(), L.line_offsets.assign(1, 0);
  N.function.clear(), N.line.clear(), N.column.clear();
  for (size_t l = 0; l < loc_map_.size(); ++l) {
    if (loc_map_[l] < 0) continue;
    const int32_t m = cur.locations.mapping[l];
    L.id.push_back(cur.locations.id[l]), L.address.push_back(cur.locations.address[l]);
    L.mapping.push_back(m >= 0 ? map_map_[size_t(m)] : -1), L.is_folded.push_back(cur.locations.is_folded[l]);
    for (int64_t j = cur.locations.line_offsets[l]; j < cur.locations.line_offsets[l + 1]; ++j) {
      N.function.push_back(fn_map_[size_t(cur.lines.function[size_t(j)])]);
      N.line.push_back(cur.lines.line[size_t(j)]), N.column.push_back(cur.lines.column[size_t(j)]);
    }
    L.line_offsets.push_back(static_cast<int64_t>(N.size()));
  }
  for (auto& l : out.stack_locations) l = loc_map_[size_t(l)];
  for (size_t t = 0; t < out.num_types(); ++t)
    out.sample_type_type[t] = code(out.sample_type_type[t]), out.sample_type_unit[t] = code(out.sample_type_unit[t]);
  out.period_type_type = code(out.period_type_type), out.period_type_unit = code(out.period_type_unit);
  out.drop_frames = code(out.drop_frames), out.keep_frames = code(out.keep_frames);
  out.default_sample_type = code(out.default_sample_type), out.doc_url = code(out.doc_url);
  for (auto& c : out.comments) c = code(c);
  for (size_t i = 0; i < out.labels.size(); ++i) {
    out.labels.key[i] = code(out.labels.key[i]);
    out.labels.str[i] = code(out.labels.str[i]);
    out.labels.num_unit[i] = code(out.labels.num_unit[i]);
  }
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
  canon_.reserve_for(cur);
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
