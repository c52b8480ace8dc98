// deflate_pieces: pigz's layout for deflating on several threads. An input of
// two pieces or more is cut into pieces of kParallelPiece bytes (the last
// may be shorter), each deflated without the previous one's history and
// ending byte-aligned, and the pieces join into one gzip member: one stream,
// which every gunzip reads whole, not concatenated members, which some
// readers (zlib's inflate, Rust's GzDecoder) stop after the first of. The
// pieces, and so the bytes, do not depend on the thread count. Internal to
// the gzip room.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace pprofcore::gzip::detail {

constexpr size_t kParallelPiece = size_t(1) << 20;
constexpr unsigned kMaxDeflateThreads = 8;
// No name, mtime 0: equal input gives equal bytes.
inline constexpr unsigned char kGzipHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 0xff};

// One thread's deflater of pieces (it keeps its own state between them).
class PieceDeflater {
 public:
  virtual ~PieceDeflater() = default;
  // Appends data[0, n) to `out` as raw deflate ending byte-aligned, with no
  // final block unless `last`. False when the piece could not be made so.
  virtual bool deflate(const uint8_t* data, size_t n, bool last, std::string& out) = 0;
};
using PieceDeflaterFactory = std::function<std::unique_ptr<PieceDeflater>()>;

// The gzip member of data[0, n) (n of at least two pieces), its pieces
// deflated on up to `max_threads` threads (0: the cores, at most
// kMaxDeflateThreads), one deflater made per thread. Empty when a piece
// failed: the caller then deflates the input as one stream.
std::string deflate_in_pieces(const uint8_t* data, size_t n, unsigned max_threads, const PieceDeflaterFactory& make);

// libdeflate's pieces at `level`: it writes only whole streams, so each
// piece's final block is found (deflate_blocks), made non-final and followed
// by an empty stored block, which ends the piece byte-aligned. Needs
// libdeflate.
PieceDeflaterFactory libdeflate_pieces(int level);

}  // namespace pprofcore::gzip::detail
