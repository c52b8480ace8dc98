// legacy_threadz: the C++ threadz text profile ("--- threadz N ---", then one
// "--- Thread <id> (name: <name>/<tid>) stack: ---" block of addresses per
// thread, "[same as previous thread]" markers, a "--- Memory map: ---" section),
// read as pprof does: one sample of value 1 per distinct stack, a repeated stack
// bumping the previous sample. Does not read symbol text on the lines (only the
// 0x addresses in them) or Go goroutine dumps.
#pragma once
#include <cstddef>

#include "pprofcore/profile.hpp"

namespace pprofcore::legacy {

// False when the first non-blank line is neither a threadz nor a Thread header.
bool parse_threadz(const char* data, size_t n, Profile& out);

}  // namespace pprofcore::legacy
