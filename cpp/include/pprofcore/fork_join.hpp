// fork_join: a few parts of one job run at once, the calling thread taking the
// first (encode, deflate). For work split into a handful of large parts, not
// for queues of small items (io.hpp's parallel_for).
#pragma once
#include <cstddef>
#include <functional>

namespace pprofcore {

// The cores this process may use (at least 1).
unsigned hardware_threads();

// Runs fn(0) .. fn(n - 1): part 0 on the calling thread, the others on threads
// of their own, and returns when all are done. The first exception thrown by a
// part is rethrown after every thread is joined. Where a thread cannot be
// started, its part runs on the calling thread instead.
void fork_join(size_t n, const std::function<void(size_t)>& fn);

}  // namespace pprofcore
