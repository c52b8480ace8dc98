// gzip: detection, inflate (libdeflate when built with it, else zlib; multi-member
// aware, size-limited) and deflate for encoding. No protobuf knowledge.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pprofcore::gzip {

enum class Backend { Auto, Zlib, Libdeflate, Isal };

inline bool is_gzip(const uint8_t* data, size_t n) { return n >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

bool have_libdeflate();
bool have_isal();

// Inflates every gzip member of `data` (concatenated members are joined, as gunzip
// does). Throws GzipError on corruption, bad CRC/length, trailing garbage, or when the
// output would exceed `max_size` bytes.
std::string inflate(const uint8_t* data, size_t n, size_t max_size, Backend backend = Backend::Auto);

// Progressive inflate for overlapping decompression with decoding: inflates a
// gzip stream into `out` (sized from the ISIZE trailer), publishing the number of
// bytes written so far in `produced` (release order) after every chunk. Returns
// true when the stream was exactly one member of exactly `out_size` bytes; false
// when the caller must fall back to inflate() (several members, ISIZE wrapped past
// 4 GiB). Throws GzipError on corrupt input. Needs ISA-L (have_isal()).
bool inflate_progressive(const uint8_t* data, size_t n, uint8_t* out, size_t out_size,
                         std::atomic<size_t>& produced);

// The ISIZE trailer: decompressed size mod 2^32 of the last member.
uint32_t trailer_size(const uint8_t* data, size_t n);

// gzip-compresses with a fixed header (mtime 0), so output is deterministic.
// level: 1 (fastest) .. 9 (zlib) or 12 (libdeflate); -1 = backend default.
std::string deflate(const uint8_t* data, size_t n, int level = -1, Backend backend = Backend::Auto);

}  // namespace pprofcore::gzip
