// io: reading files and decoding many of them on a thread pool. Never writes input
// files. Per-file failures are captured, not thrown, so batches can continue.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"

namespace pprofcore {

std::string read_file(const std::string& path);

struct LoadResult {
  std::shared_ptr<Profile> profile;  // null on failure
  std::string error;                 // message when profile is null
  std::string error_field;
  int64_t error_offset = -1;
  bool is_decode_error = false;      // DecodeError vs. OS error
};

// Decodes `paths` on `threads` workers (0 = hardware concurrency); order preserved.
std::vector<LoadResult> load_many(const std::vector<std::string>& paths, unsigned threads,
                                  const DecodeOptions& options);

// Runs fn(i) for i in [0, n) on up to `threads` workers (0 = hardware concurrency).
void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& fn);

}  // namespace pprofcore
