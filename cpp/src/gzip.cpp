// gzip: inflate/deflate backends. libdeflate inflates whole buffers fast but needs
// the output size up front (we use the ISIZE trailer and grow on demand); zlib
// streams. All join concatenated members and hold the size limit over their total.
#include "pprofcore/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "deflate_pieces.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/fork_join.hpp"
#include "pprofcore/memory.hpp"
#include "pprofcore/pool.hpp"

#ifdef PPROFCORE_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef PPROFCORE_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

namespace pprofcore::gzip {

size_t grown(size_t cap, size_t limit) {
  return std::min(limit, cap > limit / 2 ? limit : std::max<size_t>(cap * 2, 4096));
}

size_t past_limit(size_t max_size) { return max_size == SIZE_MAX ? max_size : max_size + 1; }

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    std::free(p_);
    p_ = o.p_, size_ = o.size_, cap_ = o.cap_;
    o.p_ = nullptr, o.size_ = o.cap_ = 0;
  }
  return *this;
}

Buffer::~Buffer() { std::free(p_); }

void Buffer::reserve(size_t n) {
  if (n <= cap_) return;
  // realloc moves large (mmap'd) blocks by remapping pages, not by copying.
  void* q = std::realloc(p_, n);
  if (!q) throw std::bad_alloc();
  p_ = static_cast<uint8_t*>(q);
  cap_ = n;
  // Inflated bytes are written front to back, all of them: huge pages make
  // that a fault per 2 MiB instead of per 4 KiB (a one-thread loads of a
  // 27 MB profile faulted 6,100 times less; decode round twelve).
  advise_huge_pages(p_, cap_);
}

namespace {

[[noreturn]] void too_large(size_t max_size) {
  throw GzipError("decompressed size exceeds the limit of " + std::to_string(max_size) +
                      " bytes (raise max_decompressed_size to allow it)",
                  "gzip", -1);
}

// After a member ends, the rest must be another member or (tolerated) zero padding.
bool only_zero_padding(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

// ISIZE of a truncated or corrupt stream is arbitrary bytes: never believe more
// than deflate's maximum ratio (~1032:1), or 20 garbage bytes could make us
// allocate and zero gigabytes before the stream is found to be bad.
[[maybe_unused]] size_t plausible_size(size_t compressed) { return compressed * 1032 + 1024; }

// Real profiles inflate by a few times to a few tens of times. Even untouched,
// a reservation counts against the address-space limit (RLIMIT_AS), so a lying
// ISIZE of gigabytes must not be reserved on its word: the first buffer holds
// ISIZE only up to this ratio, and grows as the output proves itself.
constexpr size_t kTrustedRatio = 64;

[[maybe_unused]] size_t first_capacity(uint32_t isize, size_t n, size_t limit) {
  const size_t trusted = n > (SIZE_MAX >> 8) ? SIZE_MAX : n * kTrustedRatio + (size_t(64) << 10);
  const size_t guess =
      isize ? std::min<size_t>(isize, trusted) : std::min(n > SIZE_MAX / 4 ? SIZE_MAX : n * 4, trusted);
  return std::min(std::max<size_t>(guess, 64), limit);
}

// After `cap` bytes proved too few: ISIZE when it is within 16x of what really
// inflated (one more pass for an honest trailer; some real profiles inflate
// 100-400x), else double.
[[maybe_unused]] size_t next_capacity(size_t cap, uint32_t isize, size_t limit) {
  const size_t next = grown(cap, limit);
  return isize > next && isize / 16 <= cap ? std::min<size_t>(isize, limit) : next;
}

Buffer inflate_zlib(const uint8_t* data, size_t n, size_t max_size) {
  Buffer out;
  size_t guess = n > SIZE_MAX / 4 ? SIZE_MAX : n * 4;
  const size_t hard = past_limit(max_size);
  out.reserve(std::min(std::max<size_t>(guess, 4096), hard));
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw GzipError("zlib inflateInit failed", "gzip", 0);
  size_t in_pos = 0, out_pos = 0;
  size_t member_start = 0;
  while (true) {
    zs.next_in = const_cast<Bytef*>(data + in_pos);
    zs.avail_in = static_cast<uInt>(std::min<size_t>(n - in_pos, 1u << 30));
    if (out_pos == out.capacity()) {
      if (out.capacity() >= hard) {
        inflateEnd(&zs);
        too_large(max_size);
      }
      try {
        out.reserve(grown(out.capacity(), hard));
      } catch (...) {
        inflateEnd(&zs);
        throw;
      }
    }
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    zs.avail_out = static_cast<uInt>(std::min<size_t>(out.capacity() - out_pos, 1u << 30));
    size_t avail_in_before = zs.avail_in, avail_out_before = zs.avail_out;
    int rc = ::inflate(&zs, Z_NO_FLUSH);
    in_pos += avail_in_before - zs.avail_in;
    out_pos += avail_out_before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      if (in_pos < n && is_gzip(data + in_pos, n - in_pos)) {
        member_start = in_pos;
        inflateReset(&zs);
        continue;
      }
      if (in_pos < n && !only_zero_padding(data + in_pos, n - in_pos)) {
        inflateEnd(&zs);
        throw GzipError("trailing garbage after gzip stream", "gzip", static_cast<int64_t>(in_pos));
      }
      break;
    }
    if (rc == Z_OK || (rc == Z_BUF_ERROR && zs.avail_out == 0)) {
      if (in_pos >= n && zs.avail_out != 0) {
        inflateEnd(&zs);
        throw GzipError("truncated gzip stream", "gzip", static_cast<int64_t>(n));
      }
      continue;
    }
    std::string msg = zs.msg ? zs.msg : "error " + std::to_string(rc);
    // Name the trailer checks plainly; zlib's wording is terse.
    if (msg == "incorrect data check") msg = "CRC-32 mismatch (incorrect data check)";
    if (msg == "incorrect length check") msg = "ISIZE mismatch (incorrect length check)";
    inflateEnd(&zs);
    if (rc == Z_BUF_ERROR) throw GzipError("truncated gzip stream", "gzip", static_cast<int64_t>(n));
    throw GzipError("corrupt gzip data: " + msg, "gzip", static_cast<int64_t>(member_start));
  }
  inflateEnd(&zs);
  if (out_pos > max_size) too_large(max_size);
  out.set_size(out_pos);
  return out;
}

#ifdef PPROFCORE_HAVE_LIBDEFLATE
struct Decompressor {
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  Decompressor() = default;
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  ~Decompressor() {
    if (d) libdeflate_free_decompressor(d);
  }
};

// Inflates into `out`, whose capacity is kept (a worker's buffer serves file
// after file).
void inflate_libdeflate(const uint8_t* data, size_t n, size_t max_size, Buffer& out) {
  // ISIZE (last 4 bytes) is the size mod 2^32 of the last member: exact for the
  // usual single-member file, so that one inflates in one pass. Otherwise the
  // member is retried with twice the room. The buffer is never zero-filled, so
  // trusting a garbage ISIZE costs address space, not memory.
  const uint32_t isize = trailer_size(data, n);
  const size_t hint = first_capacity(isize, n, max_size);
  // Decompressors are kept for reuse: allocating one zeroes tens of KiB, which
  // for a small profile costs as much as a tenth of its inflate. One keeps no
  // state between calls.
  static Pool<Decompressor> decompressors;
  auto lease = decompressors.take();
  libdeflate_decompressor* const d = lease->d;
  if (!d) throw GzipError("libdeflate: out of memory", "gzip", -1);
  out.set_size(0);
  size_t in_pos = 0, out_pos = 0;
  while (in_pos < n) {
    if (!is_gzip(data + in_pos, n - in_pos)) {
      if (in_pos > 0 && only_zero_padding(data + in_pos, n - in_pos)) break;
      throw GzipError(in_pos == 0 ? "not a gzip stream" : "trailing garbage after gzip stream", "gzip",
                      static_cast<int64_t>(in_pos));
    }
    // libdeflate skips a member's header CRC (FHCRC) where zlib checks it: a
    // member that has one goes to zlib, so every backend takes the same input.
    if (n - in_pos > 3 && (data[in_pos + 3] & 0x02)) {
      out = inflate_zlib(data, n, max_size);
      return;
    }
    const size_t room = max_size - out_pos;  // the limit is on all members together
    size_t cap = std::min(hint, room);
    while (true) {
      out.reserve(out_pos + std::max<size_t>(cap, 1));
      size_t in_used = 0, out_got = 0;
      libdeflate_result rc =
          libdeflate_gzip_decompress_ex(d, data + in_pos, n - in_pos, out.data() + out_pos, cap, &in_used, &out_got);
      if (rc == LIBDEFLATE_SUCCESS) {
        in_pos += in_used;
        out_pos += out_got;
        break;
      }
      if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
        if (cap >= room) too_large(max_size);
        cap = next_capacity(cap, isize, room);
        continue;
      }
      // BAD_DATA covers truncation, corruption and CRC/ISIZE mismatch; zlib
      // tells them apart, so let it produce the precise message.
      out = inflate_zlib(data, n, max_size);
      return;
    }
  }
  out.set_size(out_pos);
}
#endif

#ifdef PPROFCORE_HAVE_ISAL
const char* isal_error(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "invalid lookback distance";
    case ISAL_INVALID_WRAPPER:
      return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD:
      return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "CRC or length check failed";
    default:
      return "inflate error";
  }
}

// Inflates one member starting at data[in_pos] into out[out_pos..cap), calling
// publish(out_pos) after each chunk. Returns false on output overflow.
template <class Publish>
bool isal_member(inflate_state& st, const uint8_t* data, size_t n, size_t& in_pos, uint8_t* out, size_t cap,
                 size_t& out_pos, Publish publish) {
  const size_t kChunk = size_t(256) << 10;
  // RFC 1952: reserved FLG bits must be rejected; ISA-L ignores them.
  if (n - in_pos > 3 && (data[in_pos + 3] & 0xe0))
    throw GzipError("corrupt gzip data: unknown header flags set", "gzip", static_cast<int64_t>(in_pos));
  isal_inflate_reset(&st);
  st.crc_flag = ISAL_GZIP;
  st.next_in = const_cast<uint8_t*>(data + in_pos);
  st.avail_in = static_cast<uint32_t>(std::min<size_t>(n - in_pos, 0xffffffffu));
  while (true) {
    size_t room = cap - out_pos;
    if (room == 0) return false;
    st.next_out = out + out_pos;
    st.avail_out = static_cast<uint32_t>(std::min(room, kChunk));
    uint32_t before = st.avail_out;
    int rc = isal_inflate(&st);
    out_pos += before - st.avail_out;
    publish(out_pos);
    if (rc < 0)
      throw GzipError(std::string("corrupt gzip data: ") + isal_error(rc), "gzip", static_cast<int64_t>(in_pos));
    if (st.block_state == ISAL_BLOCK_FINISH) break;
    if (st.avail_in == 0 && st.avail_out != 0)
      throw GzipError("truncated gzip stream", "gzip", static_cast<int64_t>(n));
  }
  in_pos = static_cast<size_t>(st.next_in - data);
  return true;
}

// ISA-L's errors are coarse (one code for CRC and length); zlib tells the cases
// apart, so on failure it re-inflates to produce the precise message.
[[noreturn]] void rethrow_precisely(const uint8_t* data, size_t n, size_t max_size) {
  try {
    inflate_zlib(data, n, max_size);
  } catch (const GzipError&) {
    throw;
  } catch (...) {
  }
  throw;  // zlib accepted what ISA-L rejected: keep ISA-L's error
}

Buffer inflate_isal_unchecked(const uint8_t* data, size_t n, size_t max_size) {
  const uint32_t isize = trailer_size(data, n);
  const size_t hard = past_limit(max_size);
  Buffer out;
  out.reserve(first_capacity(isize, n, hard));  // not zero-filled: see Buffer
  inflate_state st;
  isal_inflate_init(&st);
  size_t in_pos = 0, out_pos = 0;
  while (in_pos < n) {
    if (!is_gzip(data + in_pos, n - in_pos)) {
      if (in_pos > 0 && only_zero_padding(data + in_pos, n - in_pos)) break;
      throw GzipError("trailing garbage after gzip stream", "gzip", static_cast<int64_t>(in_pos));
    }
    size_t member_in = in_pos, member_out = out_pos;
    // The capacity never passes the limit's next byte, so the limit holds over
    // all members together.
    while (!isal_member(st, data, n, in_pos, out.data(), out.capacity(), out_pos, [](size_t) {})) {
      if (out.capacity() >= hard) too_large(max_size);
      out.reserve(next_capacity(out.capacity(), isize, hard));
      in_pos = member_in;  // restart the member with more room
      out_pos = member_out;
    }
    if (out_pos > max_size) too_large(max_size);
  }
  out.set_size(out_pos);
  return out;
}
Buffer inflate_isal(const uint8_t* data, size_t n, size_t max_size) {
  try {
    return inflate_isal_unchecked(data, n, max_size);
  } catch (const GzipError& e) {
    if (std::string(e.reason()).find("exceeds the limit") != std::string::npos) throw;
    rethrow_precisely(data, n, max_size);
  }
}

#endif

}  // namespace

uint32_t trailer_size(const uint8_t* data, size_t n) {
  uint32_t isize = 0;
  if (n >= 18) std::memcpy(&isize, data + n - 4, 4);
  return isize;
}

Buffer peek(const uint8_t* data, size_t n, size_t want) {
  Buffer out;
  out.reserve(std::max<size_t>(want, 1));
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return out;
  zs.next_in = const_cast<Bytef*>(data);
  zs.avail_in = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(std::min<size_t>(want, 1u << 30));
  ::inflate(&zs, Z_SYNC_FLUSH);  // errors are inflate()'s to report
  out.set_size(static_cast<size_t>(zs.next_out - out.data()));
  inflateEnd(&zs);
  return out;
}

bool suspicious_ratio(const uint8_t* data, size_t n) {
  const uint32_t isize = trailer_size(data, n);
  return isize == 0 || isize / kTrustedRatio > n;
}

bool have_isal() {
#ifdef PPROFCORE_HAVE_ISAL
  return true;
#else
  return false;
#endif
}

bool inflate_progressive(const uint8_t* data, size_t n, uint8_t* out, size_t out_size, std::atomic<size_t>& produced) {
#ifdef PPROFCORE_HAVE_ISAL
  inflate_state st;
  isal_inflate_init(&st);
  size_t in_pos = 0, out_pos = 0;
  bool fits;
  try {
    fits = isal_member(st, data, n, in_pos, out, out_size, out_pos,
                       [&](size_t done) { produced.store(done, std::memory_order_release); });
  } catch (const GzipError&) {
    rethrow_precisely(data, n, plausible_size(n));
  }
  // Anything but one member of exactly out_size bytes goes the slow way.
  if (!fits || out_pos != out_size) return false;
  if (in_pos < n && !only_zero_padding(data + in_pos, n - in_pos)) return false;
  return true;
#else
  throw GzipError("this build has no ISA-L", "gzip", -1);
#endif
}

bool inflate_chunked(const uint8_t* data, size_t n, size_t expected, ChunkSink& sink) {
#ifdef PPROFCORE_HAVE_ISAL
  const size_t kChunk = size_t(128) << 10;
  // RFC 1952: reserved FLG bits must be rejected; ISA-L ignores them.
  if (n > 3 && (data[3] & 0xe0)) throw GzipError("corrupt gzip data: unknown header flags set", "gzip", 0);
  inflate_state st;
  isal_inflate_init(&st);
  st.crc_flag = ISAL_GZIP;
  st.next_in = const_cast<uint8_t*>(data);
  st.avail_in = static_cast<uint32_t>(std::min<size_t>(n, 0xffffffffu));
  size_t total = 0;
  try {
    while (true) {
      auto [out, room] = sink.room();
      if (!out) return false;
      // One byte past `expected` is offered, so a longer member shows itself.
      size_t want = std::min({room, kChunk, expected - total + 1});
      st.next_out = out;
      st.avail_out = static_cast<uint32_t>(want);
      int rc = isal_inflate(&st);
      size_t got = want - st.avail_out;
      total += got;
      sink.wrote(got);
      if (rc < 0) throw GzipError(std::string("corrupt gzip data: ") + isal_error(rc), "gzip", 0);
      if (total > expected) return false;
      if (st.block_state == ISAL_BLOCK_FINISH) break;
      if (st.avail_in == 0 && st.avail_out != 0)
        throw GzipError("truncated gzip stream", "gzip", static_cast<int64_t>(n));
    }
  } catch (const GzipError&) {
    rethrow_precisely(data, n, plausible_size(n));
  }
  size_t in_pos = static_cast<size_t>(st.next_in - data);
  if (total != expected) return false;
  return in_pos >= n || only_zero_padding(data + in_pos, n - in_pos);
#else
  throw GzipError("this build has no ISA-L", "gzip", -1);
#endif
}

bool have_libdeflate() {
#ifdef PPROFCORE_HAVE_LIBDEFLATE
  return true;
#else
  return false;
#endif
}

Buffer inflate(const uint8_t* data, size_t n, size_t max_size, Backend backend) {
  Buffer out;
  inflate(data, n, max_size, out, backend);
  return out;
}

void inflate(const uint8_t* data, size_t n, size_t max_size, Buffer& out, Backend backend) {
  if (!is_gzip(data, n)) throw GzipError("not a gzip stream (bad magic)", "gzip", 0);
#ifdef PPROFCORE_HAVE_ISAL
  if (backend == Backend::Isal) {
    out = inflate_isal(data, n, max_size);
    return;
  }
#else
  if (backend == Backend::Isal) throw GzipError("this build has no ISA-L", "gzip", -1);
#endif
#ifdef PPROFCORE_HAVE_LIBDEFLATE
  if (backend == Backend::Auto || backend == Backend::Libdeflate) return inflate_libdeflate(data, n, max_size, out);
#else
  if (backend == Backend::Libdeflate) throw GzipError("this build has no libdeflate", "gzip", -1);
#endif
  out = inflate_zlib(data, n, max_size);
}

#ifdef PPROFCORE_HAVE_ISAL
namespace {
// ISA-L's stream (80 KB) and level-1 buffer (276 KB), kept for reuse: fresh
// ones cost page faults and zeroing on every call, several times the deflate
// of a small profile. ISA-L resets the buffer's hash table at each stream start.
struct IsalState {
  isal_zstream stream;
  std::vector<uint8_t> level_buf = std::vector<uint8_t>(ISAL_DEF_LVL1_DEFAULT);
};
Pool<IsalState>& isal_states() {
  static Pool<IsalState> states;
  return states;
}

// Deflates data[0, n) at ISA-L's level 1 onto the end of `out`: as a gzip
// member body (ISA-L writes the trailer) when `gzip`, else as raw deflate that
// ends byte-aligned (sync flush) or, when `last`, with the final block. Fed
// in pieces because ISA-L counts in 32-bit integers.
void isal_deflate_onto(std::string& out, const uint8_t* data, size_t n, bool gzip, bool last) {
  auto state = isal_states().take();
  isal_zstream& zs = state->stream;
  // Zeroed first: isal_deflate_init leaves some fields (read at level 1) unset.
  std::memset(&zs, 0, sizeof zs);
  isal_deflate_init(&zs);
  zs.level = 1;
  zs.level_buf = state->level_buf.data();
  zs.level_buf_size = static_cast<uint32_t>(state->level_buf.size());
  zs.gzip_flag = gzip ? IGZIP_GZIP_NO_HDR : IGZIP_DEFLATE;
  zs.flush = last ? NO_FLUSH : SYNC_FLUSH;
  constexpr size_t kPiece = size_t(1) << 30;
  size_t in_pos = 0;
  // Output grows in steps; deflate never expands by more than a few bytes per 64 KiB.
  size_t out_pos = out.size();
  out.resize(out_pos + n + n / 16 + 1024);
  for (;;) {
    if (zs.avail_in == 0 && in_pos < n) {
      size_t take = std::min(kPiece, n - in_pos);
      zs.next_in = const_cast<uint8_t*>(data + in_pos);
      zs.avail_in = static_cast<uint32_t>(take);
      in_pos += take;
    }
    zs.end_of_stream = last && in_pos == n ? 1 : 0;
    if (out.size() - out_pos < 1024) out.resize(out.size() + std::max<size_t>(out.size() / 2, 64 * 1024));
    zs.next_out = reinterpret_cast<uint8_t*>(&out[out_pos]);
    zs.avail_out = static_cast<uint32_t>(std::min(kPiece, out.size() - out_pos));
    const uint32_t before = zs.avail_out;
    if (isal_deflate(&zs) != COMP_OK) throw GzipError("ISA-L deflate failed", "gzip", -1);
    out_pos += before - zs.avail_out;
    if (last ? zs.internal_state.state == ZSTATE_END : in_pos == n && zs.avail_in == 0 && zs.avail_out > 0) break;
  }
  out.resize(out_pos);
}

class IsalPieces final : public detail::PieceDeflater {
 public:
  bool deflate(const uint8_t* data, size_t n, bool last, std::string& out) override {
    isal_deflate_onto(out, data, n, false, last);
    return true;
  }
};

}  // namespace

namespace detail {
std::string deflate_isal(const uint8_t* data, size_t n, unsigned max_threads) {
  if (n < 2 * kParallelPiece) {
    std::string out(reinterpret_cast<const char*>(kGzipHeader), sizeof kGzipHeader);
    isal_deflate_onto(out, data, n, true, true);
    return out;
  }
  return deflate_in_pieces(data, n, max_threads, [] { return std::unique_ptr<PieceDeflater>(new IsalPieces); });
}
}  // namespace detail
#else
namespace detail {
std::string deflate_isal(const uint8_t*, size_t, unsigned) { throw GzipError("this build has no ISA-L", "gzip", -1); }
}  // namespace detail
#endif

namespace detail {
#ifdef PPROFCORE_HAVE_LIBDEFLATE
std::string deflate_libdeflate(const uint8_t* data, size_t n, int level, unsigned max_threads, bool* in_pieces) {
  const int lv = level < 0 ? 6 : (level > 12 ? 12 : level);
  if (in_pieces) *in_pieces = false;
  if (n >= 2 * kParallelPiece) {  // a bad level fails every piece, then throws below
    std::string out = deflate_in_pieces(data, n, max_threads, libdeflate_pieces(lv));
    if (in_pieces) *in_pieces = !out.empty();
    if (!out.empty()) return out;  // else (never seen) one stream, as below
  }
  libdeflate_compressor* c = libdeflate_alloc_compressor(lv);
  if (!c) throw GzipError("libdeflate: bad compression level " + std::to_string(level), "gzip", -1);
  std::string out(libdeflate_gzip_compress_bound(c, n), '\0');
  size_t got = libdeflate_gzip_compress(c, data, n, &out[0], out.size());
  libdeflate_free_compressor(c);
  if (got == 0) throw GzipError("libdeflate: compression failed", "gzip", -1);
  out.resize(got);
  return out;
}
#else
std::string deflate_libdeflate(const uint8_t*, size_t, int, unsigned, bool*) {
  throw GzipError("this build has no libdeflate", "gzip", -1);
}
#endif
}  // namespace detail

std::string deflate(const uint8_t* data, size_t n, int level, Backend backend) {
#ifdef PPROFCORE_HAVE_ISAL
  if (backend == Backend::Isal || (backend == Backend::Auto && level == kFastestLevel))
    return detail::deflate_isal(data, n, 0);
#else
  if (backend == Backend::Isal) throw GzipError("this build has no ISA-L", "gzip", -1);
#endif
  if (level == kFastestLevel) level = 1;
#ifdef PPROFCORE_HAVE_LIBDEFLATE
  if (backend != Backend::Zlib) return detail::deflate_libdeflate(data, n, level, 0);
#else
  if (backend == Backend::Libdeflate) throw GzipError("this build has no libdeflate", "gzip", -1);
#endif
  return detail::deflate_zlib(data, n, level, size_t(1) << 30);
}

namespace detail {

std::string deflate_zlib(const uint8_t* data, size_t n, int level, size_t chunk) {
  int lv = level < 0 ? Z_DEFAULT_COMPRESSION : (level > 9 ? 9 : level);
  if (chunk == 0 || chunk > (size_t(1) << 30)) chunk = size_t(1) << 30;
  z_stream zs;
  std::memset(&zs, 0, sizeof(zs));
  if (deflateInit2(&zs, lv, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw GzipError("zlib deflateInit failed", "gzip", -1);
  std::string out;
  size_t in_pos = 0, out_pos = 0;
  int rc = Z_OK;
  try {
    // deflateBound is exact enough for one allocation when uLong holds n.
    size_t bound = n <= (std::numeric_limits<uLong>::max)() / 2 ? deflateBound(&zs, static_cast<uLong>(n)) + 32
                                                                : n + n / 1000 + 4096;
    out.resize(bound);
    do {
      // avail_in and avail_out are 32-bit: refill both at most `chunk` bytes at a time.
      if (zs.avail_in == 0 && in_pos < n) {
        size_t take = std::min(n - in_pos, chunk);
        zs.next_in = const_cast<Bytef*>(data + in_pos);
        zs.avail_in = static_cast<uInt>(take);
        in_pos += take;
      }
      if (out_pos == out.size()) out.resize(out.size() + std::max<size_t>(out.size() / 2, 4096));
      size_t room = std::min(out.size() - out_pos, chunk);
      zs.next_out = reinterpret_cast<Bytef*>(&out[out_pos]);
      zs.avail_out = static_cast<uInt>(room);
      rc = ::deflate(&zs, in_pos == n ? Z_FINISH : Z_NO_FLUSH);
      out_pos += room - zs.avail_out;
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) break;
    } while (rc != Z_STREAM_END);
  } catch (...) {
    deflateEnd(&zs);
    throw;
  }
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw GzipError("zlib deflate failed", "gzip", -1);
  out.resize(out_pos);
  return out;
}

}  // namespace detail

}  // namespace pprofcore::gzip
