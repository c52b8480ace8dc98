// tables: per-sample helper columns for tabular exports (pandas/Arrow): dense ids
// of distinct stacks. Does not build frames or label columns (NumPy does those).
#pragma once
#include <cstdint>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Per sample, the id of its stack (equal location sequences get equal ids),
// numbered 0.. in order of first appearance. `n_stacks` receives the count.
std::vector<int32_t> stack_ids(const Profile& p, size_t* n_stacks = nullptr);

}  // namespace pprofcore
