// tables: per-sample helper columns for tabular exports (pandas/Arrow): dense ids
// of distinct stacks and of distinct (stack, labels) samples, and the frames table. Does not build frames or label
// columns (NumPy does those).
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

// One row per sample x frame (inline frames expanded, leaf first): the columns of
// to_pandas(kind="frames"). Locations without lines give one row with function -1.
struct FrameColumns {
  std::vector<int64_t> sample;
  std::vector<int32_t> depth;     // 0 = leaf frame
  std::vector<int32_t> location;  // location row
  std::vector<uint64_t> address;
  std::vector<int32_t> function;  // function row, -1 = none
  std::vector<int32_t> name;      // function name code, -1 = none
  std::vector<int32_t> file;      // function filename code, -1 = none
  std::vector<int64_t> line;
  std::vector<uint8_t> is_inline;  // not the outermost line of its location
};
FrameColumns frame_columns(const Profile& p);

}  // namespace pprofcore
