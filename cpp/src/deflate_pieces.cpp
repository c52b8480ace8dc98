// deflate_pieces: pieces deflated on several threads and joined into one gzip
// member (see deflate_pieces.hpp), and libdeflate's pieces made joinable.
#include "deflate_pieces.hpp"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "pprofcore/deflate_blocks.hpp"
#include "pprofcore/fork_join.hpp"

#ifdef PPROFCORE_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef PPROFCORE_HAVE_ISAL
#include <isa-l/crc.h>
#endif

namespace pprofcore::gzip::detail {
namespace {

uint32_t crc32_of(const uint8_t* data, size_t n) {
#if defined(PPROFCORE_HAVE_LIBDEFLATE)
  return libdeflate_crc32(0, data, n);  // several times zlib's speed
#elif defined(PPROFCORE_HAVE_ISAL)
  return crc32_gzip_refl(0, data, n);  // as fast, in builds with ISA-L alone
#else
  uLong crc = 0;
  for (size_t done = 0; done < n;) {  // zlib counts in 32-bit integers
    const size_t take = std::min<size_t>(n - done, size_t(1) << 30);
    crc = crc32(crc, data + done, static_cast<uInt>(take));
    done += take;
  }
  return static_cast<uint32_t>(crc);
#endif
}

#ifdef PPROFCORE_HAVE_LIBDEFLATE
class LibdeflatePieces final : public PieceDeflater {
 public:
  explicit LibdeflatePieces(int level) : c_(libdeflate_alloc_compressor(level)) {}
  ~LibdeflatePieces() override { libdeflate_free_compressor(c_); }
  LibdeflatePieces(const LibdeflatePieces&) = delete;
  LibdeflatePieces& operator=(const LibdeflatePieces&) = delete;

  bool deflate(const uint8_t* data, size_t n, bool last, std::string& out) override {
    if (!c_) return false;
    const size_t at = out.size();
    out.resize(at + libdeflate_deflate_compress_bound(c_, n) + 8);
    const size_t got = libdeflate_deflate_compress(c_, data, n, &out[at], out.size() - at);
    if (got == 0) return false;
    out.resize(at + got);
    if (last) return true;
    auto* bytes = reinterpret_cast<uint8_t*>(&out[at]);
    deflate::FinalBlock fin;
    if (!deflate::find_final_block(bytes, got, fin) || (fin.end_bit + 7) / 8 != got) return false;
    // The final block becomes an ordinary one; after it an empty stored
    // block (three zero header bits, zero padding to the byte, LEN 0 and its
    // complement) ends the piece byte-aligned, as zlib's sync flush does.
    bytes[fin.header_bit / 8] &= static_cast<uint8_t>(~(1u << (fin.header_bit % 8)));
    const size_t aligned = (fin.end_bit + 3 + 7) / 8;
    out.resize(at + aligned, '\0');  // a new last byte, when the three bits cross into one
    bytes = reinterpret_cast<uint8_t*>(&out[at]);
    bytes[fin.end_bit / 8] &= static_cast<uint8_t>((1u << (fin.end_bit % 8)) - 1);
    for (size_t i = fin.end_bit / 8 + 1; i < aligned; ++i) bytes[i] = 0;
    out.append("\x00\x00\xff\xff", 4);
    return true;
  }

 private:
  libdeflate_compressor* c_;
};
#endif

}  // namespace

std::string deflate_in_pieces(const uint8_t* data, size_t n, unsigned max_threads, const PieceDeflaterFactory& make) {
  const size_t pieces = (n + kParallelPiece - 1) / kParallelPiece;  // the last may be shorter
  std::vector<std::string> body(pieces);
  std::vector<uint32_t> crc(pieces);
  const unsigned threads = static_cast<unsigned>(
      std::min<size_t>({pieces, max_threads ? max_threads : std::min(hardware_threads(), kMaxDeflateThreads)}));
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  // Pieces are taken in turn, so a thread slowed by other work takes fewer.
  fork_join(threads, [&](size_t) {
    std::unique_ptr<PieceDeflater> d = make();
    for (size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < pieces;) {
      const size_t b = i * kParallelPiece, e = std::min(n, b + kParallelPiece);
      if (!d || !d->deflate(data + b, e - b, i + 1 == pieces, body[i])) failed = true;
      crc[i] = crc32_of(data + b, e - b);
    }
  });
  if (failed) return {};
  size_t total = sizeof kGzipHeader + 8;
  for (const std::string& b : body) total += b.size();
  std::string out;
  out.reserve(total);
  out.append(reinterpret_cast<const char*>(kGzipHeader), sizeof kGzipHeader);
  uLong whole = 0;
  for (size_t i = 0; i < pieces; ++i) {
    out += body[i];
    const size_t len = std::min(kParallelPiece, n - i * kParallelPiece);
    whole = i == 0 ? crc[0] : crc32_combine(whole, crc[i], static_cast<z_off_t>(len));
    std::string().swap(body[i]);
  }
  const uint32_t trailer[2] = {static_cast<uint32_t>(whole), static_cast<uint32_t>(n)};  // CRC-32, ISIZE: little-endian
  for (uint32_t v : trailer)
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  return out;
}

PieceDeflaterFactory libdeflate_pieces(int level) {
#ifdef PPROFCORE_HAVE_LIBDEFLATE
  return [level] { return std::unique_ptr<PieceDeflater>(new LibdeflatePieces(level)); };
#else
  (void)level;
  return [] { return std::unique_ptr<PieceDeflater>(); };
#endif
}

}  // namespace pprofcore::gzip::detail
