// memory: hints to the OS about large column buffers. Decoding writes tens of
// megabytes of fresh memory; transparent huge pages cut the page-fault count
// by up to 512x. A no-op where unsupported.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace pprofcore {

// Asks for huge pages on the page-aligned part of [p, p + bytes) when it spans
// at least one huge page.
void advise_huge_pages(void* p, size_t bytes);

template <class T>
void reserve_huge(std::vector<T>& v, size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

// reserve_huge for a column written in two runs, up to `at` elements and then
// the rest (the decoder's helper thread appends its half at the end): the
// huge page holding element `at` is left out, as it would be resident whole
// while only the first run is written.
template <class T>
void reserve_huge_split(std::vector<T>& v, size_t n, size_t at) {
  v.reserve(n);
  at = std::min(at, v.capacity());
  advise_huge_pages(v.data(), at * sizeof(T));
  advise_huge_pages(v.data() + at, (v.capacity() - at) * sizeof(T));
}

// Gives the whole pages inside [p, p + bytes) back to the OS. The memory stays
// allocated and reads as zeros afterwards: for buffers about to be freed.
void release_pages(const void* p, size_t bytes);

// The first huge page boundary after address a.
uintptr_t huge_page_after(uintptr_t a);

// Appends f(x) for each x of `src` to `dst` and empties `src`, giving src's
// pages back as they are copied so that the two copies are never resident at
// once (peak memory: the decoder's helper thread hands over half the samples
// this way). Copies run up to huge page boundaries of src, so the pages given
// back are whole huge pages where src has them.
template <class T, class Copy>
void append_releasing_with(std::vector<T>& dst, std::vector<T>& src, Copy copy) {
  static_assert(std::is_trivially_copyable_v<T>);
  dst.reserve(dst.size() + src.size());
  const uintptr_t base = reinterpret_cast<uintptr_t>(src.data());
  size_t done = 0;
  while (done < src.size()) {
    const uintptr_t stop = huge_page_after(base + done * sizeof(T) + (size_t(1) << 20));
    const size_t upto = std::min(src.size(), static_cast<size_t>(stop - base) / sizeof(T));
    copy(src.data() + done, src.data() + upto);
    release_pages(src.data() + done, (upto - done) * sizeof(T));
    done = upto;
  }
  std::vector<T>().swap(src);
}

template <class T, class F>
void append_releasing(std::vector<T>& dst, std::vector<T>& src, F f) {
  append_releasing_with(dst, src, [&](const T* b, const T* e) {
    for (; b != e; ++b) dst.push_back(f(*b));
  });
}

template <class T>
void append_releasing(std::vector<T>& dst, std::vector<T>& src) {
  append_releasing_with(dst, src, [&](const T* b, const T* e) { dst.insert(dst.end(), b, e); });
}

// Huge pages for a column whose final size is only estimated (the streaming
// decoder reserves generously, not knowing the sample count). A huge page is
// resident whole from its first write, so advising the one a column ends in
// costs up to 2 MiB of peak memory per column. Instead the advised range
// follows a projection of where the column ends, and regions the projection
// stops reaching are un-advised while nothing has been written to them.
class HugePageGrowth {
 public:
  // The column at `base` (room for `capacity` bytes) holds `used` bytes and is
  // expected to end at `projected` bytes.
  void update(const void* base, size_t used, size_t projected, size_t capacity);

  template <class T>
  void update(const std::vector<T>& v, size_t projected_size) {
    update(v.data(), v.size() * sizeof(T), projected_size * sizeof(T), v.capacity() * sizeof(T));
  }

  // Where a column of `size` elements is projected to end once `done` of the
  // `total` input bytes that fill it are read: its rate so far, kept 10% short
  // of the rest, so that the region it ends in stays in small pages.
  static size_t project(size_t size, size_t done, size_t total);

  // The end of the advised range (an address; tests read it).
  uintptr_t advised_end() const { return advised_end_; }

 private:
  uintptr_t base_ = 0, advised_end_ = 0;  // [base_ rounded up, advised_end_) is advised
};

}  // namespace pprofcore
