// gzip_fuzzer: libFuzzer target for gzip inflate. All backends (zlib, and
// libdeflate / ISA-L when built with them) must agree: same bytes or all
// GzipError; ISA-L's progressive inflate (used to overlap decompression with
// decoding) must agree whenever it accepts the stream. Successful output must
// re-deflate and inflate back to itself, and the size limit must hold over all
// members together: the output re-split into several members (cut where the
// input's bytes say) inflates whole at a limit of its size and fails with the
// limit error, in every backend, one byte below it.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

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

// The same into a buffer kept from input to input, as a series worker keeps
// one: whatever it held (the last input's output, bytes past its size) must
// not show through.
bool try_inflate_kept(const uint8_t* data, size_t size, gzip::Backend b, std::string* out) {
  static gzip::Buffer kept;
  try {
    gzip::inflate(data, size, kMax, kept, b);
    *out = kept.str();
    return true;
  } catch (const GzipError&) {
    return false;
  }
}

// Backend b (named `name`) must give zlib's answer (ok_zlib, zlib): the same
// bytes, or an error in both; into a fresh buffer and into a kept one.
void require_same_as_zlib(const uint8_t* data, size_t size, gzip::Backend b, const char* name, bool ok_zlib,
                          const std::string& zlib) {
  std::string out;
  bool ok = try_inflate(data, size, b, &out);
  if (ok != ok_zlib || (ok && out != zlib)) {
    std::fprintf(stderr, "gzip_fuzzer: zlib %s, %s %s\n", ok_zlib ? "ok" : "error", name, ok ? "ok" : "error");
    std::abort();
  }
  ok = try_inflate_kept(data, size, b, &out);
  if (ok != ok_zlib || (ok && out != zlib)) {
    std::fprintf(stderr, "gzip_fuzzer: zlib %s, %s into a kept buffer %s\n", ok_zlib ? "ok" : "error", name,
                 ok ? "ok" : "error");
    std::abort();
  }
}

std::vector<gzip::Backend> backends() {
  std::vector<gzip::Backend> out{gzip::Backend::Zlib, gzip::Backend::Auto};
  if (gzip::have_libdeflate()) out.push_back(gzip::Backend::Libdeflate);
  if (gzip::have_isal()) out.push_back(gzip::Backend::Isal);
  return out;
}

bool is_limit_error(const GzipError& e) { return std::strstr(e.what(), "exceeds the limit") != nullptr; }

// `out`, the inflated input, re-deflated as up to 8 members cut at offsets taken
// from the input, must inflate to `out` at limit out.size() and hit the limit
// one byte below, in every backend; so must the input itself.
void check_limit_over_members(const uint8_t* data, size_t size, const std::string& out) {
  if (out.empty()) return;
  std::string members;
  size_t at = 0;
  for (size_t k = 0; k < 8 && at < out.size(); ++k) {
    size_t piece = k == 7 || k >= size ? out.size() - at : 1 + data[k] * (out.size() / 256 + 1);
    piece = std::min(piece, out.size() - at);
    members += gzip::deflate(reinterpret_cast<const uint8_t*>(out.data()) + at, piece, 1, gzip::Backend::Zlib);
    at += piece;
  }
  if (at < out.size())
    members +=
        gzip::deflate(reinterpret_cast<const uint8_t*>(out.data()) + at, out.size() - at, 1, gzip::Backend::Zlib);
  const auto* m = reinterpret_cast<const uint8_t*>(members.data());
  for (gzip::Backend b : backends()) {
    if (gzip::inflate(m, members.size(), out.size(), b).str() != out) {
      std::fprintf(stderr, "gzip_fuzzer: members re-split from the output do not inflate back to it\n");
      std::abort();
    }
    for (auto [p, n] : {std::pair<const uint8_t*, size_t>{m, members.size()}, {data, size}}) {
      bool limited = false;
      try {
        gzip::inflate(p, n, out.size() - 1, b);
      } catch (const GzipError& e) {
        limited = is_limit_error(e);
      }
      if (!limited) {
        std::fprintf(stderr, "gzip_fuzzer: backend %d let %zu bytes through a limit of %zu\n", static_cast<int>(b),
                     out.size(), out.size() - 1);
        std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string a;
  bool ok_a = try_inflate(data, size, gzip::Backend::Zlib, &a);
  if (gzip::have_libdeflate()) require_same_as_zlib(data, size, gzip::Backend::Libdeflate, "libdeflate", ok_a, a);
#ifdef PPROFCORE_HAVE_ISAL
  if (gzip::have_isal()) {
    require_same_as_zlib(data, size, gzip::Backend::Isal, "isal", ok_a, a);
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
  if (ok_a && a.size() <= (size_t(1) << 20)) check_limit_over_members(data, size, a);
  // Compress the raw input and read it back: must be the identity.
  std::string z = gzip::deflate(data, size, 1, gzip::Backend::Zlib);
  std::string back =
      gzip::inflate(reinterpret_cast<const uint8_t*>(z.data()), z.size(), size + 1, gzip::Backend::Auto).str();
  if (back.size() != size || (size && std::memcmp(back.data(), data, size) != 0)) {
    std::fprintf(stderr, "gzip_fuzzer: deflate -> inflate is not the identity\n");
    std::abort();
  }
  return 0;
}
