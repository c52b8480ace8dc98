// prune: pprof's drop_frames/keep_frames pruning (profile/prune.go Prune) on a
// precomputed per-function mask. Regex evaluation on simplified names happens
// in the caller; prune_from (PruneFrom) lives in filter.hpp.
#pragma once
#include <cstdint>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// `drop` per function row: the simplified name fully matches drop_frames and
// does not fully match keep_frames (and the name is not empty). Removes, from
// each sample, the root-most dropped frame and everything beneath it — except
// that frames before the first non-dropped frame from the root are never
// pruned (so stacks never become empty because of their root).
Profile prune(const Profile& p, const std::vector<uint8_t>& drop);

}  // namespace pprofcore
