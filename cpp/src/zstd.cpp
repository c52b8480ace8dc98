// zstd: streaming, size-limited zstd decompression (see zstd.hpp).
#include "pprofcore/zstd.hpp"

#include "pprofcore/errors.hpp"

#ifdef PPROFCORE_HAVE_ZSTD
#include <zstd.h>

#include <algorithm>
#include <memory>
#endif

namespace pprofcore::zstd {

#ifdef PPROFCORE_HAVE_ZSTD

bool available() { return true; }

gzip::Buffer decompress(const uint8_t* data, size_t n, size_t max_size,
                        const std::function<void(const uint8_t*, size_t)>& on_prefix) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) throw GzipError("zstd: out of memory", "", -1);
  // Output goes straight into a buffer that grows by doubling (realloc remaps
  // large blocks, so growing copies nothing); one byte past the limit is room
  // enough to see the limit passed. The frame header's content size is a claim
  // of the input, so it does not size anything.
  const size_t hard = gzip::past_limit(max_size);
  gzip::Buffer out;
  out.reserve(std::min(hard, std::max<size_t>(n > hard / 4 ? hard : n * 4, 4096)));
  size_t out_pos = 0;
  bool judged = !on_prefix;
  ZSTD_inBuffer in{data, n, 0};
  size_t last = 1;  // what the decoder still wants (0: a frame just ended)
  while (true) {
    // Calling again after the last frame ended would ask for another frame.
    if (in.pos == in.size && last == 0) break;
    if (out_pos == out.capacity()) {
      if (out.capacity() >= hard) break;
      out.reserve(gzip::grown(out.capacity(), hard));
    }
    size_t room = out.capacity() - out_pos;
    if (!judged) room = std::min(room, std::max(kPrefixBytes - out_pos, size_t(1)));  // stop to judge the prefix
    ZSTD_outBuffer o{out.data() + out_pos, room, 0};
    const size_t in_before = in.pos;
    last = ZSTD_decompressStream(ctx.get(), &o, &in);
    if (ZSTD_isError(last))
      throw GzipError(std::string("corrupt zstd data: ") + ZSTD_getErrorName(last), "", static_cast<int64_t>(in.pos));
    out_pos += o.pos;
    if (!judged && out_pos >= kPrefixBytes) {
      judged = true;
      on_prefix(out.data(), kPrefixBytes);
    }
    // Done when all input is read and the decoder holds nothing back (it
    // filled less than the room it had); stuck when it makes no progress.
    if (in.pos == in.size && o.pos < o.size) break;
    if (o.pos == 0 && in.pos == in_before && out_pos < out.capacity()) break;
  }
  if (out_pos > max_size)
    throw GzipError("decompressed size exceeds the limit of " + std::to_string(max_size) +
                        " bytes (raise max_decompressed_size to allow it)",
                    "", -1);
  if (last != 0) throw GzipError("truncated zstd stream", "", static_cast<int64_t>(n));
  out.set_size(out_pos);
  return out;
}

#else

bool available() { return false; }

gzip::Buffer decompress(const uint8_t*, size_t, size_t, const std::function<void(const uint8_t*, size_t)>&) {
  throw GzipError(
      "input is zstd-compressed, but this pprofcore was built without libzstd "
      "(install libzstd-dev and rebuild, or decompress with `zstd -d`)",
      "", -1);
}

#endif

}  // namespace pprofcore::zstd
