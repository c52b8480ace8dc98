// scale: value transforms that keep the profile's tables as they are — pprof's
// ScaleN/Scale (math.Round, pprof's keep rule), sample-type selection
// (CompatibilizeSampleTypes), unit renaming for harmonization, SetLabel and
// sample selection by mask. No compaction here (see merge.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// pprof's ScaleN: each value of type i becomes round(v * ratios[i]) (half away
// from zero) where ratios[i] != 1; a sample is kept only if one of its *scaled*
// values is non-zero (pprof's rule: unscaled types do not keep a sample). All
// ratios 1 returns the profile unchanged.
Profile scale_n(const Profile& p, const std::vector<double>& ratios);

// Renames the unit of each sample type (and of the period type, if not empty).
Profile rename_units(const Profile& p, const std::vector<std::string>& units, const std::string& period_unit,
                     int64_t period);

}  // namespace pprofcore
