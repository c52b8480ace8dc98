// legacy_go: the text profiles Go's runtime/pprof writes with debug=1, and the
// older C++ text formats that share their grammar: heap ("heap profile: ..."
// with heap/, heap_v2/, heapz_v2/, heapprofile, growthz and fragmentationz
// headers, including gperftools' heap profiles), contention ("--- mutex:",
// "--- contention:", "--- contentionz"), and count profiles ("goroutine
// profile: total N", threadcreate, pprof.NewProfile). Sample values are
// unsampled as pprof does. Does not read symbol comments, goroutine debug=2
// dumps, threadz or Java profiles.
#pragma once
#include <cstddef>

#include "pprofcore/profile.hpp"

namespace pprofcore::legacy {

// Each returns false when the first line is not its header, fills `out` and
// returns true otherwise, and throws DecodeError (with the line) on bad input.
bool parse_heap_text(const char* data, size_t n, Profile& out);
bool parse_go_count(const char* data, size_t n, Profile& out);
bool parse_contention(const char* data, size_t n, Profile& out);

}  // namespace pprofcore::legacy
