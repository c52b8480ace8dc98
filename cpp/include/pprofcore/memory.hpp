// memory: hints to the OS about large column buffers. Decoding writes tens of
// megabytes of fresh memory; transparent huge pages cut the page-fault count
// by up to 512x. A no-op where unsupported.
#pragma once
#include <cstddef>
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

}  // namespace pprofcore
