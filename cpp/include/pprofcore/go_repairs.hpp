// go_repairs: opt-in fixes for two known defects of Go profiles.
//  - Truncated stacks: Go's runtime keeps at most a fixed number of frames per
//    stack (32 or 64 before Go 1.23, 128 by default since), dropping the frames
//    nearest the root. A truncated stack is completed with the root part of
//    another stack that shares its root-most frames.
//  - Generic type parameters: `pkg.Map[go.shape.int]` and `pkg.Map[...]` are one
//    function to a reader; the bracketed part is dropped from function names and
//    functions that become equal are merged.
// Both build a new profile; nothing else changes.
#pragma once
#include <cstdint>
#include <string>

#include "pprofcore/profile.hpp"

namespace pprofcore {

struct TruncatedStacksReport {
  int64_t depth = 0;      // the truncation depth used (0: none found, nothing done)
  int64_t truncated = 0;  // samples whose stack had exactly `depth` frames
  int64_t repaired = 0;   // of those, samples given a root part
  int64_t ambiguous = 0;  // repaired from one of several different root parts (the heaviest)
  int64_t frames_added = 0;
};

// `depth` 0 picks the longest stack's length when it is one of Go's limits
// (32, 64, 128); `window` is how many root-most frames must match (at least 1).
Profile repair_truncated_stacks(const Profile& p, int64_t depth, int64_t window, TruncatedStacksReport& report);

struct TypeParamsReport {
  int64_t functions_renamed = 0;  // function rows whose name or system name lost brackets
  int64_t functions_merged = 0;   // function rows folded into an equal earlier one
};

// `name` with every Go type-parameter list (a balanced, non-empty `[...]` right
// after an identifier character or `)`) removed; other names come back unchanged.
std::string drop_go_type_params(std::string_view name);

Profile drop_type_params(const Profile& p, TypeParamsReport& report);

}  // namespace pprofcore
