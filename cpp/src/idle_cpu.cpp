// idle_cpu: a snapshot of the machine's runnable threads against its CPUs,
// for choosing between one thread and two. It does not measure how long a
// CPU stays idle, and within a cpuset it counts the whole machine's threads.
#include "pprofcore/idle_cpu.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#if defined(__linux__)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace pprofcore {

unsigned runnable_threads() {
#if defined(__linux__)
  // "0.52 0.58 0.59 2/431 12345": the numerator of the fourth field is
  // nr_running, summed over the CPUs' run queues when the file is read.
  int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  double a, b, c;
  unsigned running = 0, total = 0;
  if (std::sscanf(buf, "%lf %lf %lf %u/%u", &a, &b, &c, &running, &total) != 5) return 0;
  return running;
#else
  return 0;
#endif
}

unsigned online_cpus() {
#if defined(__linux__)
  static const unsigned n = [] {
    long k = ::sysconf(_SC_NPROCESSORS_ONLN);
    return k > 0 ? static_cast<unsigned>(k) : 1u;
  }();
  return n;
#else
  static const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  return n;
#endif
}

bool two_threads_pay(unsigned runnable, unsigned cpus) {
  if (cpus < 2) return false;
  if (runnable == 0) return true;
  return runnable < cpus || 2 * runnable >= 3 * cpus;
}

bool second_thread_pays_now() { return two_threads_pay(runnable_threads(), online_cpus()); }

}  // namespace pprofcore
