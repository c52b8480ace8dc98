// memory: madvise(MADV_HUGEPAGE) for big buffers (Linux only).
#include "pprofcore/memory.hpp"

#include <algorithm>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace pprofcore {

namespace {

constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

uintptr_t round_up(uintptr_t a) { return (a + kHugePage - 1) & ~(kHugePage - 1); }
uintptr_t round_down(uintptr_t a) { return a & ~(kHugePage - 1); }

void advise(uintptr_t begin, uintptr_t end, bool huge) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (end > begin)  // best effort: a refusal only costs page faults
    madvise(reinterpret_cast<void*>(begin), end - begin, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
  (void)begin, (void)end, (void)huge;
#endif
}

}  // namespace

void advise_huge_pages(void* p, size_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  advise(round_up(a), round_down(a + bytes), true);
}

void release_pages(const void* p, size_t bytes) {
#if defined(__linux__)
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t begin = (a + page - 1) & ~(page - 1), end = (a + bytes) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);  // best effort
#else
  (void)p, (void)bytes;
#endif
}

uintptr_t huge_page_after(uintptr_t a) { return round_down(a) + kHugePage; }

size_t HugePageGrowth::project(size_t size, size_t done, size_t total) {
  if (done == 0 || done >= total) return size;
  const double n = static_cast<double>(size);
  return static_cast<size_t>(n + 0.9 * n * static_cast<double>(total - done) / static_cast<double>(done));
}

void HugePageGrowth::update(const void* base, size_t used, size_t projected, size_t capacity) {
  const uintptr_t b = reinterpret_cast<uintptr_t>(base);
  if (b != base_) {  // a new buffer (the column outgrew its reservation): nothing advised in it
    base_ = b;
    advised_end_ = round_up(b);
  }
  // Regions from `untouched` on have never been written (columns grow at the end).
  const uintptr_t untouched = std::max(round_up(b + used), round_up(b));
  const uintptr_t want = std::max(round_down(b + std::min(projected, capacity)), untouched);
  if (want > advised_end_) {
    advise(std::max(advised_end_, untouched), want, true);
    advised_end_ = want;
  } else if (want < advised_end_) {
    advise(want, advised_end_, false);
    advised_end_ = want;
  }
}

}  // namespace pprofcore
