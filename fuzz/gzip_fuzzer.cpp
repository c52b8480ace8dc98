// gzip_fuzzer: libFuzzer target for gzip inflate. All backends (zlib, and
// libdeflate / ISA-L when built with them) must agree: same bytes or all
// GzipError; ISA-L's progressive inflate (used to overlap decompression with
// decoding) must agree whenever it accepts the stream. Successful output must
// re-deflate and inflate back to itself.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pprofcore/errors.hpp"
#include "pprofcore/gzip.hpp"

using namespace pprofcore;

namespace {

constexpr size_t kMax = size_t(16) << 20;

// Returns true and sets *out on success; false on GzipError.
bool try_inflate(const uint8_t* data, size_t size, gzip::Backend b, std::string* out) {
  try {
    *out = gzip::inflate(data, size, kMax, b).str();
    return true;
  } catch (const GzipError&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string a;
  bool ok_a = try_inflate(data, size, gzip::Backend::Zlib, &a);
  if (gzip::have_libdeflate()) {
    std::string b;
    bool ok_b = try_inflate(data, size, gzip::Backend::Libdeflate, &b);
    if (ok_a != ok_b || (ok_a && a != b)) {
      std::fprintf(stderr, "gzip_fuzzer: zlib %s, libdeflate %s\n", ok_a ? "ok" : "error", ok_b ? "ok" : "error");
      std::abort();
    }
  }
#ifdef PPROFCORE_HAVE_ISAL
  if (gzip::have_isal()) {
    std::string c;
    bool ok_c = try_inflate(data, size, gzip::Backend::Isal, &c);
    if (ok_a != ok_c || (ok_a && a != c)) {
      std::fprintf(stderr, "gzip_fuzzer: zlib %s, isal %s\n", ok_a ? "ok" : "error", ok_c ? "ok" : "error");
      std::abort();
    }
    uint32_t isize = gzip::is_gzip(data, size) ? gzip::trailer_size(data, size) : 0;
    // Only plausible sizes (deflate expands at most ~1032:1), or every input with
    // a random trailer would zero-fill megabytes and the fuzzer would crawl.
    if (isize > 0 && isize <= kMax && isize <= size * 1032 + 1024) {
      std::string out(isize, '\0');
      std::atomic<size_t> produced{0};
      bool whole = false, threw = false;
      try {
        whole = gzip::inflate_progressive(data, size, reinterpret_cast<uint8_t*>(&out[0]), isize, produced);
      } catch (const GzipError&) {
        threw = true;
      }
      if ((whole && (!ok_a || out != a)) || (threw && ok_a) || produced.load() > isize) {
        std::fprintf(stderr, "gzip_fuzzer: progressive inflate disagrees with zlib (zlib %s, whole %d, threw %d)\n",
                     ok_a ? "ok" : "error", whole, threw);
        std::abort();
      }
    }
  }
#endif
  // Compress the raw input and read it back: must be the identity.
  std::string z = gzip::deflate(data, size, 1, gzip::Backend::Zlib);
  std::string back = gzip::inflate(reinterpret_cast<const uint8_t*>(z.data()), z.size(), size + 1,
                                   gzip::Backend::Auto).str();
  if (back.size() != size || (size && std::memcmp(back.data(), data, size) != 0)) {
    std::fprintf(stderr, "gzip_fuzzer: deflate -> inflate is not the identity\n");
    std::abort();
  }
  return 0;
}
