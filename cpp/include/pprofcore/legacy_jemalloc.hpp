// legacy_jemalloc: jemalloc's heap profile (MALLOC_CONF=prof:true, the
// jeprof.<pid>.<seq>.<kind>.heap files), which jeprof reads and Go's pprof does
// not. The text: a "heap_v2/<sample period>" header, per-thread totals, then per
// stack an "@ 0x..." line, its "t*: objs: bytes [objs: bytes]" totals and one
// such line per thread, then "MAPPED_LIBRARIES:" and /proc/<pid>/maps. Values
// are unsampled per stack as jeprof does; the per-thread lines are checked and
// ignored, as jeprof's reports ignore them (unsampling depends on each line's
// average size, so per-thread samples would not add up to the totals). Does not
// read jemalloc 3's "heap profile: ..." text (legacy_go reads that grammar).
#pragma once
#include <cstddef>

#include "pprofcore/profile.hpp"

namespace pprofcore::legacy {

// False when the first line does not start with "heap_v2/"; fills `out` and
// returns true otherwise; throws DecodeError (with the line) on bad input.
bool parse_jemalloc_heap(const char* data, size_t n, Profile& out);

}  // namespace pprofcore::legacy
