// idle_cpu: whether a second thread of this process would speed up one
// decode right now. The decoder's two-thread paths (inflate overlapped with
// decoding, the split sample section) are sooner on an idle core, and also
// on a crowded machine, where the scheduler's fair share gives two threads
// about twice the CPU of one. Between the two, with every CPU busy, the
// helper takes turns with another thread while its partner waits for it,
// and one thread doing both is about as soon, for less CPU
// (docs/performance-log.md, round eight). Linux only; elsewhere, or when
// /proc cannot be read, it answers yes (the behaviour before the check).
#pragma once

namespace pprofcore {

// Threads runnable on the whole machine at this instant, the caller
// included (/proc/loadavg's fourth field); 0 when unknown.
unsigned runnable_threads();

// CPUs online (not the affinity mask: /proc/loadavg counts every CPU's queue).
unsigned online_cpus();

// The rule, for `runnable` threads (0: unknown) on `cpus` CPUs: two threads
// with a CPU idle (runnable < cpus) or with half as many more threads as
// CPUs runnable (runnable >= 1.5 cpus); one in between.
bool two_threads_pay(unsigned runnable, unsigned cpus);

// two_threads_pay for this instant: a snapshot read at every call (a few
// microseconds), so a load that comes and goes is seen as it is when the
// decode starts.
bool second_thread_pays_now();

}  // namespace pprofcore
