// legacy_gperftools: gperftools' binary CPU profile (CPUPROFILE=...): a header
// of five words {0, 3, 0, period_us, 0}, records {count, depth, pc...}, an
// end marker {0, 1, 0}, then the process's /proc/self/maps text. Words are 32 or
// 64 bits in either byte order, recognised from the header as pprof does. Owns
// pprof's clean-ups of these stacks (signal-handler frames shared by almost all
// samples, a leaf duplicated by the unwinder). Java CPU profiles (header word
// 3 = 1) share the records; their frame names are read by legacy_java. Does not
// read gperftools heap profiles (text: legacy_go).
#pragma once
#include <cstddef>
#include <cstdint>

#include "pprofcore/profile.hpp"

namespace pprofcore::legacy {

// False when the header is not a gperftools C++ CPU header; throws DecodeError
// (with the byte offset) when the records are truncated.
bool parse_gperftools_cpu(const uint8_t* data, size_t n, Profile& out);

}  // namespace pprofcore::legacy
