// zstd: streaming, size-limited zstd decompression (see zstd.hpp).
#include "pprofcore/zstd.hpp"

#include "pprofcore/errors.hpp"

#ifdef PPROFCORE_HAVE_ZSTD
#include <zstd.h>

#include <memory>
#endif

namespace pprofcore::zstd {

#ifdef PPROFCORE_HAVE_ZSTD

bool available() { return true; }

std::string decompress(const uint8_t* data, size_t n, size_t max_size) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!ctx) throw GzipError("zstd: out of memory", "", -1);
  std::string out;
  // Start from the declared size when the frame has one (and it is plausible).
  unsigned long long declared = ZSTD_getFrameContentSize(data, n);
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR && declared <= max_size)
    out.reserve(static_cast<size_t>(declared));
  ZSTD_inBuffer in{data, n, 0};
  std::string chunk(ZSTD_DStreamOutSize(), '\0');
  // One call of the streaming decoder: appends what it produced (under the
  // limit) and returns how much it produced.
  size_t last = 1;
  auto step = [&] {
    ZSTD_outBuffer o{&chunk[0], chunk.size(), 0};
    last = ZSTD_decompressStream(ctx.get(), &o, &in);
    if (ZSTD_isError(last))
      throw GzipError(std::string("corrupt zstd data: ") + ZSTD_getErrorName(last), "", static_cast<int64_t>(in.pos));
    if (out.size() + o.pos > max_size)
      throw GzipError("decompressed size exceeds the limit of " + std::to_string(max_size) +
                          " bytes (raise max_decompressed_size to allow it)",
                      "", -1);
    out.append(chunk.data(), o.pos);
    return o.pos;
  };
  while (in.pos < in.size) {
    size_t before = in.pos;
    if (step() == 0 && in.pos == before) break;  // no progress: needs more input than there is
  }
  // Drain what the decoder still holds once all input is consumed.
  while (last != 0)
    if (step() == 0) break;
  if (last != 0) throw GzipError("truncated zstd stream", "", static_cast<int64_t>(n));
  return out;
}

#else

bool available() { return false; }

std::string decompress(const uint8_t*, size_t, size_t) {
  throw GzipError(
      "input is zstd-compressed, but this pprofcore was built without libzstd "
      "(install libzstd-dev and rebuild, or decompress with `zstd -d`)",
      "", -1);
}

#endif

}  // namespace pprofcore::zstd
