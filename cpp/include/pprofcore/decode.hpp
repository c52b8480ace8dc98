// decode: profile.proto bytes (raw or gzip) -> columnar Profile, with pprof's
// validation rules (CheckValid, string_table[0] == "", concatenated profiles).
// Does not read files (see io.hpp) and does not repair broken input.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pprofcore/gzip.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

struct DecodeOptions {
  size_t max_decompressed_size = size_t(4) << 30;  // 4 GiB: gzip-bomb guard
  gzip::Backend inflater = gzip::Backend::Auto;
  // Threads for one large profile (0 = up to 2 when it pays off, 1 = serial).
  // Batch loaders set 1 and parallelise across files instead.
  unsigned threads = 0;
};

// Decodes an uncompressed serialized Profile message.
Profile decode_raw(const uint8_t* data, size_t n, const DecodeOptions& options = {});

// Sniffs gzip, inflates if needed, then decodes. Legacy text formats and other
// non-pprof inputs are rejected with a DecodeError that says what they look like.
Profile decode(const uint8_t* data, size_t n, const DecodeOptions& options = {});

}  // namespace pprofcore
