// C++ unit tests of idle_cpu (the decoder's choice between one thread and
// two): the rule on given counts, and the count of runnable threads, which
// spinning threads raise (they are always runnable; other processes on the
// machine can only add to the count).
#include <atomic>
#include <fstream>
#include <string>
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

// valgrind runs one thread at a time, so spinners cannot all be runnable
// together; its preload library is in the process's own map.
bool under_valgrind() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("vgpreload") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(counts_this_thread) {
#if defined(__linux__)
  EXPECT(runnable_threads() >= 1);
#endif
  EXPECT(online_cpus() >= 1);
}

TEST(rule_one_thread_only_when_busy_but_not_crowded) {
  EXPECT(!two_threads_pay(1, 1));  // one CPU: never two
  EXPECT(two_threads_pay(1, 2));   // a CPU idle
  EXPECT(!two_threads_pay(2, 2));  // both busy, the caller on one: a helper takes turns
  EXPECT(two_threads_pay(3, 2));   // crowded: two threads get a larger share
  EXPECT(two_threads_pay(15, 16));
  EXPECT(!two_threads_pay(16, 16));
  EXPECT(!two_threads_pay(23, 16));
  EXPECT(two_threads_pay(24, 16));
  EXPECT(two_threads_pay(0, 4));  // unknown: as before the check
}

TEST(spinning_threads_are_counted) {
#if defined(__linux__)
  if (!under_valgrind()) {
    Spinners busy(online_cpus());
    EXPECT(runnable_threads() > online_cpus());
  }
  DecodeOptions two;
  two.threads = 2;
  EXPECT(decoding::worth_overlapping(size_t(4) << 20, two) == gzip::have_isal());  // forced, whatever the load
#endif
}

int main() { return check::run_all(); }
