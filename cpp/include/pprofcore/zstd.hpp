// zstd: detection and size-limited decompression of zstd-compressed profiles
// (Datadog's ddtrace writes pprof files compressed with zstd). Uses libzstd when
// the build found it (optional, like libdeflate); without it, zstd input is
// recognised and refused with a message saying so. No protobuf knowledge.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "pprofcore/gzip.hpp"

namespace pprofcore::zstd {

// The zstd frame magic 28 B5 2F FD.
inline bool is_zstd(const uint8_t* data, size_t n) {
  return n >= 4 && data[0] == 0x28 && data[1] == 0xb5 && data[2] == 0x2f && data[3] == 0xfd;
}

bool available();

// How many decompressed bytes decompress() hands to `on_prefix`.
constexpr size_t kPrefixBytes = size_t(64) << 10;

// Decompresses every frame of `data` (concatenated frames are joined, as zstd -d
// does). Throws GzipError (the decompression error type) on corrupt or truncated
// input, or when the output would exceed `max_size` bytes. Memory grows with the
// bytes really decompressed (the frame's declared size is not trusted), in a
// gzip::Buffer. Once kPrefixBytes have arrived, `on_prefix` (may be empty) sees
// them and may throw to stop: a bomb that cannot be a profile ends there.
gzip::Buffer decompress(const uint8_t* data, size_t n, size_t max_size,
                        const std::function<void(const uint8_t*, size_t)>& on_prefix = {});

}  // namespace pprofcore::zstd
