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

// Keeps the value columns `types` (indices, in that order); samples whose kept
// values are all zero are dropped.
Profile select_types(const Profile& p, const std::vector<size_t>& types);

// Renames the unit of each sample type (and of the period type, if not empty).
Profile rename_units(const Profile& p, const std::vector<std::string>& units, const std::string& period_unit,
                     int64_t period);

// pprof's SetLabel: every sample gets string label key=value, replacing the
// string values it had for that key (numeric labels are untouched).
Profile set_label(const Profile& p, const std::string& key, const std::string& value);

// Keeps samples where keep[i] != 0 (tables untouched; compact() drops orphans).
Profile keep_samples(const Profile& p, const std::vector<uint8_t>& keep);

}  // namespace pprofcore
