// C++ unit tests of idle_cpu (the decoder's choice between one thread and
// two): with every CPU kept busy by spinning threads, no CPU is idle and the
// automatic decode stays on one thread, while an explicit thread count still
// gets two. Spinning threads are always runnable, so the count is exact.
#include <atomic>
#include <thread>
#include <vector>

#include "../src/decode/decode_internal.hpp"
#include "check.hpp"
#include "pprofcore/idle_cpu.hpp"

using namespace pprofcore;

namespace {

// Keeps `n` threads spinning while alive.
class Spinners {
 public:
  explicit Spinners(unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        started_.fetch_add(1);
        while (!stop_.load(std::memory_order_relaxed)) {
        }
      });
    while (started_.load() < n) std::this_thread::yield();
  }
  ~Spinners() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<unsigned> started_{0};
  std::vector<std::thread> threads_;
};

}  // namespace

TEST(counts_this_thread) {
#if defined(__linux__)
  EXPECT(runnable_threads() >= 1);
#endif
  EXPECT(online_cpus() >= 1);
}

TEST(busy_cpus_are_not_idle) {
#if defined(__linux__)
  Spinners busy(online_cpus());  // with this thread: one more runnable than CPUs
  EXPECT(runnable_threads() > online_cpus());
  EXPECT(!idle_cpu_now());
  DecodeOptions automatic, two;
  two.threads = 2;
  const size_t big = size_t(4) << 20;
  EXPECT(!decoding::worth_overlapping(big, automatic));
  EXPECT(decoding::worth_overlapping(big, two) == gzip::have_isal());
#endif
}

int main() { return check::run_all(); }
