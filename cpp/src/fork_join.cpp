// fork_join: runs the parts of one job on threads started for it.
#include "pprofcore/fork_join.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace pprofcore {

// Read once: glibc answers hardware_concurrency() by reading /sys each time,
// several system calls, which a small profile's encode would pay on every call.
unsigned hardware_threads() {
  static const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

void fork_join(size_t n, const std::function<void(size_t)>& fn) {
  std::mutex mu;
  std::exception_ptr failure;
  auto run = [&](size_t i) {
    try {
      fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(n > 0 ? n - 1 : 0);
  for (size_t i = 1; i < n; ++i) {
    try {
      threads.emplace_back(run, i);
    } catch (const std::system_error&) {
      run(i);  // no thread to be had (a process limit): this part runs here
    }
  }
  if (n > 0) run(0);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace pprofcore
