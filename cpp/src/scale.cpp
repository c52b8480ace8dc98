// scale: ScaleN, sample-type selection, unit renaming, SetLabel, sample masks.
// Each builds a new Profile sharing nothing with its input.
#include "pprofcore/scale.hpp"

#include <cmath>

#include "pprofcore/errors.hpp"

namespace pprofcore {

namespace {

// Copies everything but the sample columns.
Profile copy_tables(const Profile& p) {
  Profile o;
  o.sample_type_type = p.sample_type_type;
  o.sample_type_unit = p.sample_type_unit;
  o.has_period_type = p.has_period_type;
  o.period_type_type = p.period_type_type;
  o.period_type_unit = p.period_type_unit;
  o.period = p.period;
  o.time_nanos = p.time_nanos;
  o.duration_nanos = p.duration_nanos;
  o.comments = p.comments;
  o.drop_frames = p.drop_frames;
  o.keep_frames = p.keep_frames;
  o.default_sample_type = p.default_sample_type;
  o.doc_url = p.doc_url;
  o.locations = p.locations;
  o.lines = p.lines;
  o.functions = p.functions;
  o.mappings = p.mappings;
  o.strings = p.strings;
  return o;
}

void append_sample(Profile& o, const Profile& p, size_t i, const int64_t* values, size_t nt) {
  o.values.insert(o.values.end(), values, values + nt);
  o.stack_locations.insert(o.stack_locations.end(), p.stack_locations.begin() + p.stack_offsets[i],
                           p.stack_locations.begin() + p.stack_offsets[i + 1]);
  o.stack_offsets.push_back(static_cast<int64_t>(o.stack_locations.size()));
  for (int64_t j = p.label_offsets[i]; j < p.label_offsets[i + 1]; ++j) {
    size_t q = size_t(j);
    o.labels.key.push_back(p.labels.key[q]);
    o.labels.str.push_back(p.labels.str[q]);
    o.labels.num.push_back(p.labels.num[q]);
    o.labels.num_unit.push_back(p.labels.num_unit[q]);
  }
  o.label_offsets.push_back(static_cast<int64_t>(o.labels.size()));
}

int32_t find_or_add_string(Profile& o, const std::string& s) {
  for (size_t i = 0; i < o.strings.size(); ++i)
    if (o.strings[i] == s) return static_cast<int32_t>(i);
  o.strings.push_back(s);
  return static_cast<int32_t>(o.strings.size() - 1);
}

}  // namespace

Profile scale_n(const Profile& p, const std::vector<double>& ratios) {
  const size_t nt = p.num_types();
  if (ratios.size() != nt)
    throw ProfileError("mismatched scale ratios, got " + std::to_string(ratios.size()) + ", want " +
                       std::to_string(nt));
  bool all_ones = true;
  for (double r : ratios) all_ones = all_ones && r == 1;
  if (all_ones) return p;
  Profile o = copy_tables(p);
  std::vector<int64_t> v(nt);
  for (size_t i = 0; i < p.num_samples(); ++i) {
    bool keep = false;
    for (size_t t = 0; t < nt; ++t) {
      int64_t x = p.values[i * nt + t];
      if (ratios[t] != 1) {
        x = static_cast<int64_t>(std::round(static_cast<double>(x) * ratios[t]));
        keep = keep || x != 0;
      }
      v[t] = x;
    }
    if (keep) append_sample(o, p, i, v.data(), nt);
  }
  return o;
}

Profile select_types(const Profile& p, const std::vector<size_t>& types) {
  const size_t nt = p.num_types();
  Profile o = copy_tables(p);
  o.sample_type_type.clear();
  o.sample_type_unit.clear();
  for (size_t t : types) {
    if (t >= nt) throw ProfileError("sample type index out of range");
    o.sample_type_type.push_back(p.sample_type_type[t]);
    o.sample_type_unit.push_back(p.sample_type_unit[t]);
  }
  std::vector<int64_t> v(types.size());
  for (size_t i = 0; i < p.num_samples(); ++i) {
    bool keep = false;
    for (size_t k = 0; k < types.size(); ++k) {
      v[k] = p.values[i * nt + types[k]];
      keep = keep || v[k] != 0;
    }
    if (keep) append_sample(o, p, i, v.data(), types.size());
  }
  return o;
}

Profile rename_units(const Profile& p, const std::vector<std::string>& units, const std::string& period_unit,
                     int64_t period) {
  if (units.size() != p.num_types()) throw ProfileError("one unit per sample type expected");
  Profile o = p;
  for (size_t t = 0; t < units.size(); ++t) o.sample_type_unit[t] = find_or_add_string(o, units[t]);
  if (!period_unit.empty()) o.period_type_unit = find_or_add_string(o, period_unit);
  o.period = period;
  return o;
}

Profile set_label(const Profile& p, const std::string& key, const std::string& value) {
  Profile o = copy_tables(p);
  const int32_t k = find_or_add_string(o, key), v = find_or_add_string(o, value);
  o.values = p.values;
  o.stack_offsets = p.stack_offsets;
  o.stack_locations = p.stack_locations;
  for (size_t i = 0; i < p.num_samples(); ++i) {
    for (int64_t j = p.label_offsets[i]; j < p.label_offsets[i + 1]; ++j) {
      size_t q = size_t(j);
      if (p.labels.str[q] >= 0 && p.strings[size_t(p.labels.key[q])] == key) continue;
      o.labels.key.push_back(p.labels.key[q]);
      o.labels.str.push_back(p.labels.str[q]);
      o.labels.num.push_back(p.labels.num[q]);
      o.labels.num_unit.push_back(p.labels.num_unit[q]);
    }
    o.labels.key.push_back(k);
    o.labels.str.push_back(v);
    o.labels.num.push_back(0);
    o.labels.num_unit.push_back(0);
    o.label_offsets.push_back(static_cast<int64_t>(o.labels.size()));
  }
  return o;
}

Profile keep_samples(const Profile& p, const std::vector<uint8_t>& keep) {
  if (keep.size() != p.num_samples()) throw ProfileError("mask length differs from the number of samples");
  Profile o = copy_tables(p);
  const size_t nt = p.num_types();
  for (size_t i = 0; i < p.num_samples(); ++i)
    if (keep[i]) append_sample(o, p, i, p.values.data() + i * nt, nt);
  return o;
}

}  // namespace pprofcore
