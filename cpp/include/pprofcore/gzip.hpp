// gzip: detection, inflate (libdeflate when built with it, else zlib; multi-member
// aware, size-limited) and deflate for encoding. No protobuf knowledge.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pprofcore::gzip {

// Inflated bytes in a malloc'd block that grows by realloc and is never
// zero-filled: pages are committed as they are written, so a stream whose
// trailer claims gigabytes costs only what really inflates before it fails.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : p_(o.p_), size_(o.size_), cap_(o.cap_) { o.p_ = nullptr, o.size_ = o.cap_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer();

  const uint8_t* data() const { return p_; }
  uint8_t* data() { return p_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  // Capacity becomes at least n bytes (contents kept, new bytes uninitialized).
  // Throws std::bad_alloc.
  void reserve(size_t n);
  // Marks the first n (<= capacity) bytes as the contents.
  void set_size(size_t n) { size_ = n; }
  std::string str() const { return std::string(reinterpret_cast<const char*>(p_), size_); }

 private:
  uint8_t* p_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

enum class Backend { Auto, Zlib, Libdeflate, Isal };

inline bool is_gzip(const uint8_t* data, size_t n) { return n >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

bool have_libdeflate();
bool have_isal();

// Output buffers that grow as data arrives (gzip's streaming backends, zstd):
// sized up to one byte past the limit, so output reaching that byte is over the
// limit and an empty stream fits a limit of 0.
size_t past_limit(size_t max_size);
// The next capacity of a full output buffer: double (at least 4 KiB), never
// past `limit`.
size_t grown(size_t cap, size_t limit);

// Inflates every gzip member of `data` (concatenated members are joined, as gunzip
// does). Throws GzipError on corruption, bad CRC/length, trailing garbage, or when the
// output of all members together would exceed `max_size` bytes. Memory grows with
// the bytes really inflated, whatever the trailer claims.
Buffer inflate(const uint8_t* data, size_t n, size_t max_size, Backend backend = Backend::Auto);
// The same into `out` (its old contents dropped): libdeflate writes into its
// capacity, so a buffer kept by a batch worker costs no allocation per file
// once it has grown to the largest output; the other backends replace it.
void inflate(const uint8_t* data, size_t n, size_t max_size, Buffer& out, Backend backend = Backend::Auto);

// The first up to `want` inflated bytes of the first member (fewer when the
// stream is shorter or breaks before; inflate() then reports the error). Lets
// the caller judge a suspiciously compressed input from its start.
Buffer peek(const uint8_t* data, size_t n, size_t want);

// Whether the ISIZE trailer claims a ratio past what real profiles reach (or
// wraps): worth a peek() before inflating all of it.
bool suspicious_ratio(const uint8_t* data, size_t n);

// Progressive inflate for overlapping decompression with decoding: inflates a
// gzip stream into `out` (sized from the ISIZE trailer), publishing the number of
// bytes written so far in `produced` (release order) after every chunk. Returns
// true when the stream was exactly one member of exactly `out_size` bytes; false
// when the caller must fall back to inflate() (several members, ISIZE wrapped past
// 4 GiB). Throws GzipError on corrupt input. Needs ISA-L (have_isal()).
bool inflate_progressive(const uint8_t* data, size_t n, uint8_t* out, size_t out_size, std::atomic<size_t>& produced);

// Where chunked inflate writes: room() says where the next bytes go (and how
// many fit; nullptr stops the inflate), wrote(n) that n bytes landed there.
// Lets a reader consume the output through a small window while it inflates.
class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  virtual std::pair<uint8_t*, size_t> room() = 0;
  virtual void wrote(size_t n) = 0;
};

// Inflates one gzip member with ISA-L into the regions `sink` hands out, a
// chunk at a time. Returns true when the stream was exactly one member of
// exactly `expected` bytes (then zero padding at most); false when the caller
// must fall back to inflate() (several members, another size) or the sink
// stopped it. Throws GzipError on corrupt input. Needs ISA-L (have_isal()).
bool inflate_chunked(const uint8_t* data, size_t n, size_t expected, ChunkSink& sink);

// The ISIZE trailer: decompressed size mod 2^32 of the last member.
uint32_t trailer_size(const uint8_t* data, size_t n);

// The `level` that asks for the fastest deflate of the build: ISA-L's level 1
// (several times faster than zlib's or libdeflate's level 1, a few percent
// larger output), else libdeflate's level 1, else zlib's.
constexpr int kFastestLevel = -2;

// gzip-compresses with a fixed header (mtime 0), so output is deterministic.
// level: 1 (fastest) .. 9 (zlib) or 12 (libdeflate); -1 = backend default
// (libdeflate's or zlib's 6); kFastestLevel as above. Backend::Isal compresses
// with ISA-L at its level 1 whatever `level` is (throws GzipError without ISA-L).
// ISA-L and libdeflate deflate inputs of 2 MiB or more in 1 MiB pieces on
// several threads, joined into one member (deflate_pieces.hpp).
std::string deflate(const uint8_t* data, size_t n, int level = -1, Backend backend = Backend::Auto);

namespace detail {
// zlib's deflate fed `chunk` bytes in and out at a time: zlib counts in 32-bit
// integers, so inputs over 4 GiB must be streamed. Exposed to test small chunks.
std::string deflate_zlib(const uint8_t* data, size_t n, int level, size_t chunk);
// ISA-L's level 1 on up to `threads` threads (0 = the cores, at most 8): an
// input of two MiB or more is deflated in independent one-MiB pieces joined
// into one stream, so the bytes do not depend on `threads`. Needs ISA-L.
std::string deflate_isal(const uint8_t* data, size_t n, unsigned threads);
// libdeflate at `level` (as deflate()), inputs of two MiB or more in the
// same one-MiB pieces on up to `threads` threads (0 = the cores, at most 8).
// *in_pieces (when given) says whether they were. Needs libdeflate.
std::string deflate_libdeflate(const uint8_t* data, size_t n, int level, unsigned threads, bool* in_pieces = nullptr);
}  // namespace detail

}  // namespace pprofcore::gzip
