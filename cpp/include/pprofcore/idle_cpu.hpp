// idle_cpu: whether a second thread of this process would find a CPU of its
// own right now. The decoder's two-thread paths (inflate overlapped with
// decoding, the split sample section) win only on an idle core: when every
// CPU is busy the helper thread waits for a time slice while its partner
// waits for it, and one thread doing both is sooner (docs/performance-log.md).
// Linux only; elsewhere, or when /proc cannot be read, it answers yes (the
// behaviour before the check existed).
#pragma once

namespace pprofcore {

// Threads runnable on the whole machine at this instant, the caller
// included (/proc/loadavg's fourth field); 0 when unknown.
unsigned runnable_threads();

// CPUs online (not the affinity mask: /proc/loadavg counts every CPU's queue).
unsigned online_cpus();

// True when fewer threads are runnable than there are CPUs, i.e. one CPU is
// idle. A snapshot, read at every call (a few microseconds): a load that
// comes and goes is seen as it is when the decode starts.
bool idle_cpu_now();

}  // namespace pprofcore
