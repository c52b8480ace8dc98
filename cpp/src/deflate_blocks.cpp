// deflate_blocks: walks a deflate stream's blocks and symbols (RFC 1951,
// section 3.2) to find where its final block lies. Only code lengths and
// extra-bit counts matter here, never the bytes a symbol stands for, so no
// output and no window are kept. Huffman codes are decoded through a table
// of the next kFastBits bits and, for longer codes, by the canonical walk
// over code lengths.
#include "pprofcore/deflate_blocks.hpp"

#include <array>
#include <cstring>

namespace pprofcore::deflate {
namespace {

constexpr unsigned kMaxBits = 15;
constexpr unsigned kFastBits = 10;
constexpr unsigned kMaxSymbols = 288;

// Bits least significant first, as deflate packs them. Reads past the end
// of the input give zeros; ok() says whether what was consumed was really
// there, so callers consume first and check once per step.
class BitReader {
 public:
  BitReader(const uint8_t* p, size_t n) : p_(p), n_(n), limit_(n * 8) {}

  size_t pos() const { return pos_; }
  bool ok() const { return pos_ <= limit_; }
  void skip(size_t k) { pos_ += k; }
  void align() { pos_ = (pos_ + 7) & ~size_t(7); }

  // The next 57 bits at least (a symbol, its extra bits and a distance fit).
  uint64_t peek() const {
    const size_t byte = pos_ >> 3;
    uint64_t v = 0;
    if (byte >= n_) return 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n_ - byte >= 8) {
      std::memcpy(&v, p_ + byte, 8);
      return v >> (pos_ & 7);
    }
#endif
    const size_t end = n_ - byte >= 8 ? byte + 8 : n_;
    for (size_t i = byte; i < end; ++i) v |= uint64_t(p_[i]) << (8 * (i - byte));
    return v >> (pos_ & 7);
  }

 private:
  const uint8_t* p_;
  size_t n_, limit_, pos_ = 0;
};

class Huffman {
 public:
  // Canonical code from per-symbol code lengths (0: unused). Refuses an
  // over-subscribed code; an incomplete one is kept, and its missing codes
  // fail when met.
  bool build(const uint8_t* lengths, unsigned n) {
    count_.fill(0);
    for (unsigned s = 0; s < n; ++s) {
      if (lengths[s] > kMaxBits) return false;
      ++count_[lengths[s]];
    }
    count_[0] = 0;
    int left = 1;
    for (unsigned len = 1; len <= kMaxBits; ++len) {
      left = (left << 1) - count_[len];
      if (left < 0) return false;
    }
    std::array<uint16_t, kMaxBits + 2> offset{};
    for (unsigned len = 1; len <= kMaxBits; ++len) offset[len + 1] = static_cast<uint16_t>(offset[len] + count_[len]);
    for (unsigned s = 0; s < n; ++s)
      if (lengths[s]) sorted_[offset[lengths[s]]++] = static_cast<uint16_t>(s);
    // Codes of each length are consecutive, in symbol order (RFC 1951,
    // 3.2.2); the table is indexed by the bits as they arrive, the code's
    // first bit lowest, so each code is stored bit-reversed.
    fast_.fill(0);
    unsigned code = 0, next = 0;
    for (unsigned len = 1; len <= kFastBits; ++len, code <<= 1) {
      for (unsigned k = 0; k < count_[len]; ++k, ++code) {
        const auto entry = static_cast<uint16_t>(sorted_[next++] << 4 | len);
        for (unsigned i = reversed(code, len); i < (1u << kFastBits); i += 1u << len) fast_[i] = entry;
      }
    }
    return true;
  }

  // The symbol whose code starts `bits` (length in *len), or -1 when no
  // code does.
  int decode(uint64_t bits, unsigned* len) const {
    const unsigned e = fast_[bits & ((1u << kFastBits) - 1)];
    if (e) {
      *len = e & 15;
      return static_cast<int>(e >> 4);
    }
    // Longer codes: code - first indexes the codes of length l.
    int code = 0, first = 0, index = 0;
    for (unsigned l = 1; l <= kMaxBits; ++l) {
      code |= static_cast<int>((bits >> (l - 1)) & 1);
      const int c = count_[l];
      if (code - first < c) {
        *len = l;
        return sorted_[static_cast<size_t>(index + code - first)];
      }
      index += c;
      first = (first + c) << 1;
      code <<= 1;
    }
    return -1;
  }

 private:
  static unsigned reversed(unsigned code, unsigned len) {
    unsigned r = 0;
    for (unsigned i = 0; i < len; ++i, code >>= 1) r = (r << 1) | (code & 1);
    return r;
  }

  std::array<uint16_t, 1u << kFastBits> fast_;  // symbol << 4 | length; 0: a longer code or none
  std::array<uint16_t, kMaxBits + 1> count_;    // codes of each length
  std::array<uint16_t, kMaxSymbols> sorted_;    // symbols by code length, then value
};

struct FixedCodes {
  Huffman litlen, dist;
  FixedCodes() {
    uint8_t l[kMaxSymbols];
    std::memset(l, 8, 144);
    std::memset(l + 144, 9, 112);
    std::memset(l + 256, 7, 24);
    std::memset(l + 280, 8, 8);
    litlen.build(l, kMaxSymbols);
    std::memset(l, 5, 30);  // distance codes 30 and 31 never occur
    dist.build(l, 30);
  }
};

// Extra bits after a length symbol (257..285) and after a distance symbol (0..29).
unsigned length_extra(int sym) { return sym < 265 || sym == 285 ? 0 : static_cast<unsigned>(sym - 261) / 4; }
unsigned distance_extra(int sym) { return sym < 4 ? 0 : static_cast<unsigned>(sym) / 2 - 1; }

// A dynamic block's header: the code-length code, then the literal/length
// and distance code lengths it encodes.
bool read_dynamic_codes(BitReader& br, Huffman& litlen, Huffman& dist) {
  static constexpr uint8_t kOrder[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
  uint64_t b = br.peek();
  const unsigned hlit = (b & 31) + 257, hdist = ((b >> 5) & 31) + 1, hclen = ((b >> 10) & 15) + 4;
  br.skip(14);
  if (hlit > 286 || hdist > 30) return false;
  uint8_t cl[19] = {0};
  b = br.peek();
  for (unsigned i = 0; i < hclen; ++i) cl[kOrder[i]] = static_cast<uint8_t>((b >> (3 * i)) & 7);
  br.skip(3 * hclen);
  Huffman lengths_code;
  if (!br.ok() || !lengths_code.build(cl, 19)) return false;
  uint8_t lengths[286 + 30];
  const unsigned total = hlit + hdist;
  for (unsigned i = 0; i < total;) {
    b = br.peek();
    unsigned used;
    const int sym = lengths_code.decode(b, &used);
    if (sym < 0) return false;
    if (sym < 16) {
      lengths[i++] = static_cast<uint8_t>(sym);
    } else {
      b >>= used;
      unsigned repeat;
      uint8_t value = 0;
      if (sym == 16) {  // the previous length, 3-6 times
        if (i == 0) return false;
        value = lengths[i - 1];
        repeat = 3 + (b & 3), used += 2;
      } else if (sym == 17) {  // zero, 3-10 times
        repeat = 3 + (b & 7), used += 3;
      } else {  // zero, 11-138 times
        repeat = 11 + (b & 127), used += 7;
      }
      if (repeat > total - i) return false;
      std::memset(lengths + i, value, repeat);
      i += repeat;
    }
    br.skip(used);
    if (!br.ok()) return false;
  }
  if (lengths[256] == 0) return false;  // no end-of-block code: the block could never end
  return litlen.build(lengths, hlit) && dist.build(lengths + hlit, hdist);
}

// A compressed block's symbols up to and including its end-of-block code.
bool walk_symbols(BitReader& br, const Huffman& litlen, const Huffman& dist) {
  for (;;) {
    uint64_t b = br.peek();
    unsigned used;
    const int sym = litlen.decode(b, &used);
    if (sym < 0 || sym > 285) return false;
    if (sym > 256) {
      used += length_extra(sym);
      unsigned dlen;
      const int d = dist.decode(b >> used, &dlen);
      if (d < 0 || d >= 30) return false;
      used += dlen + distance_extra(d);
    }
    br.skip(used);
    if (!br.ok()) return false;
    if (sym == 256) return true;
  }
}

}  // namespace

bool find_final_block(const uint8_t* data, size_t n, FinalBlock& out) {
  static const FixedCodes fixed;
  BitReader br(data, n);
  Huffman litlen, dist;
  for (;;) {
    const size_t header = br.pos();
    const uint64_t b = br.peek();
    const bool final = b & 1;
    const unsigned type = (b >> 1) & 3;
    br.skip(3);
    if (!br.ok()) return false;
    if (type == 0) {  // stored: byte-aligned LEN, its complement, LEN bytes
      br.align();
      const uint64_t w = br.peek();
      const auto len = static_cast<unsigned>(w & 0xffff), nlen = static_cast<unsigned>((w >> 16) & 0xffff);
      br.skip(32 + size_t(8) * len);
      if (!br.ok() || (len ^ 0xffffu) != nlen) return false;
    } else if (type == 1) {
      if (!walk_symbols(br, fixed.litlen, fixed.dist)) return false;
    } else if (type == 2) {
      if (!read_dynamic_codes(br, litlen, dist) || !walk_symbols(br, litlen, dist)) return false;
    } else {
      return false;
    }
    if (final) {
      out.header_bit = header;
      out.end_bit = br.pos();
      return true;
    }
  }
}

}  // namespace pprofcore::deflate
