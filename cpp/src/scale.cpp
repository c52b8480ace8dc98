// scale: ScaleN, sample-type selection, unit renaming, SetLabel, sample masks.
// Each builds a new Profile sharing nothing with its input.
#include "pprofcore/scale.hpp"
#include "pprofcore/arith.hpp"

#include "pprofcore/rebuild.hpp"

#include <cmath>

#include "pprofcore/errors.hpp"

namespace pprofcore {

Profile scale_n(const Profile& p, const std::vector<double>& ratios) {
  const size_t nt = p.num_types();
  if (ratios.size() != nt)
    throw ProfileError("mismatched scale ratios, got " + std::to_string(ratios.size()) + ", want " +
                       std::to_string(nt));
  bool all_ones = true;
  for (double r : ratios) all_ones = all_ones && r == 1;
  if (all_ones) return p;
  Profile o = copy_without_samples(p);
  SampleAppender app(p, o);
  std::vector<int64_t> v(nt);
  for (size_t i = 0; i < p.num_samples(); ++i) {
    bool keep = false;
    for (size_t t = 0; t < nt; ++t) {
      int64_t x = p.values[i * nt + t];
      if (ratios[t] != 1) {
        x = round_to_int64(static_cast<double>(x) * ratios[t]);
        keep = keep || x != 0;
      }
      v[t] = x;
    }
    if (keep) app.add_with_values(i, v.data(), nt);
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

}  // namespace pprofcore
