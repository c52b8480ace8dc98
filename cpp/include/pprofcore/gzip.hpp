// gzip: detection, inflate (libdeflate when built with it, else zlib; multi-member
// aware, size-limited) and deflate for encoding. No protobuf knowledge.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pprofcore::gzip {

enum class Backend { Auto, Zlib, Libdeflate };

inline bool is_gzip(const uint8_t* data, size_t n) { return n >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

bool have_libdeflate();

// Inflates every gzip member of `data` (concatenated members are joined, as gunzip
// does). Throws GzipError on corruption, bad CRC/length, trailing garbage, or when the
// output would exceed `max_size` bytes.
std::string inflate(const uint8_t* data, size_t n, size_t max_size, Backend backend = Backend::Auto);

// gzip-compresses with a fixed header (mtime 0), so output is deterministic.
// level: 1 (fastest) .. 9 (zlib) or 12 (libdeflate); -1 = backend default.
std::string deflate(const uint8_t* data, size_t n, int level = -1, Backend backend = Backend::Auto);

}  // namespace pprofcore::gzip
