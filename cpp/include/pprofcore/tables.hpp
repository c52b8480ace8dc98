// tables: per-sample helper columns for tabular exports (pandas/Arrow): dense ids
// of distinct stacks and of distinct (stack, labels) samples. Does not build frames or label columns (NumPy does those).
#pragma once
#include <cstdint>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Per sample, the id of its stack (equal location sequences get equal ids),
// numbered 0.. in order of first appearance. `n_stacks` receives the count.
std::vector<int32_t> stack_ids(const Profile& p, size_t* n_stacks = nullptr);

// Like stack_ids, but samples are equal only when their labels are equal too (as
// a set of (key, str, num, unit) rows): pprof's sample merge key.
std::vector<int32_t> sample_group_ids(const Profile& p, size_t* n_groups = nullptr);

}  // namespace pprofcore
