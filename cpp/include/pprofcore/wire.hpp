// wire: protobuf wire-format primitives (varints, tags, length-delimited fields).
// Reading is bounds-checked and throws DecodeError with the byte offset; writing
// appends to a std::string. Knows nothing of profile.proto.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "pprofcore/errors.hpp"

namespace pprofcore::wire {

#if defined(__GNUC__)
#define PPROFCORE_INLINE inline __attribute__((always_inline))
#else
#define PPROFCORE_INLINE inline
#endif

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

// A varint read at some position: its value and the byte after it. Returned
// by value (two registers), so that a Reader's position can live in a
// register: a reader whose address reaches an out-of-line call is kept in
// memory, and every byte it reads is then reloaded after each move.
struct VarintAt {
  uint64_t value;
  const uint8_t* next;
};

// A varint of up to eight bytes at p, which must have eight readable bytes,
// from one 8-byte load: the first byte below 0x80 ends it, the bytes after it
// are masked off, and the 7-bit groups are packed in three steps (pairs,
// quads, the two halves). next == nullptr when the varint is longer.
// Little-endian builds only.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PPROFCORE_VARINT_IN_WORD 1
PPROFCORE_INLINE VarintAt varint_in_word(const uint8_t* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  const uint64_t stops = ~x & 0x8080808080808080ull;  // bytes without a continuation bit
  if (stops == 0) return {0, nullptr};
  x &= stops ^ (stops - 1);  // this varint's bytes only
  x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
  x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
  x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
  return {x, p + (__builtin_ctzll(stops) >> 3) + 1};
}
#endif

// The out-of-line halves of Reader. They take positions by value and never a
// Reader, for the reason above; base is where offsets in errors count from.
VarintAt varint_at(const uint8_t* base, const uint8_t* p, const uint8_t* end, const char* field);
const uint8_t* skip_at(const uint8_t* base, const uint8_t* p, const uint8_t* end, uint32_t wire_type,
                       const char* field);
// The tag at tag_at is read again here (the error path only) for its field number.
[[noreturn]] void throw_wrong_type(const uint8_t* base, const uint8_t* tag_at, const uint8_t* end, uint32_t wire_type,
                                   uint32_t expected, const char* field);
[[noreturn]] void throw_invalid_wire_type(int64_t offset, uint32_t wire_type, const char* context);
[[noreturn]] void throw_length_past_end(int64_t offset, uint64_t length, int64_t left, const char* field);

class Reader {
 public:
  Reader(const uint8_t* base, const uint8_t* begin, const uint8_t* end) : base_(base), p_(begin), end_(end) {}

  bool done() const { return p_ >= end_; }
  const uint8_t* pos() const { return p_; }
  const uint8_t* end() const { return end_; }
  int64_t offset() const { return static_cast<int64_t>(p_ - base_); }
  int64_t offset_of(const uint8_t* q) const { return static_cast<int64_t>(q - base_); }
  const uint8_t* base() const { return base_; }

  // Hot path: one- and two-byte varints are by far the most common.
  PPROFCORE_INLINE uint64_t varint(const char* field) {
    if (p_ < end_ && *p_ < 0x80) return *p_++;
    if (end_ - p_ >= 2 && p_[1] < 0x80) {
      uint64_t v = (p_[0] & 0x7fu) | (uint64_t(p_[1]) << 7);
      p_ += 2;
      return v;
    }
    VarintAt v = varint_at(base_, p_, end_, field);
    p_ = v.next;
    return v.value;
  }

  // Returns (field number << 3 | wire type); validates the wire type. Field number
  // 0 and numbers past 2^29-1 belong to no message: as google/pprof does, they are
  // skipped like any unknown field (numbers past 2^29-1 come back as field 0).
  PPROFCORE_INLINE uint32_t tag(const char* context) {
    const uint8_t* at = p_;
    uint64_t t = varint(context);
    uint32_t wt = static_cast<uint32_t>(t & 7);
    if (wt > 5) throw_invalid_wire_type(offset_of(at), wt, context);
    return t > 0xffffffffull ? wt : static_cast<uint32_t>(t);
  }

  // Reads a length prefix and returns the end of the payload, checking bounds.
  PPROFCORE_INLINE const uint8_t* length_delimited(const char* field) {
    const uint8_t* at = p_;
    uint64_t n = varint(field);
    if (n > static_cast<uint64_t>(end_ - p_)) throw_length_past_end(offset_of(at), n, end_ - p_, field);
    return p_ + n;
  }

  void skip(uint32_t wire_type, const char* field) { p_ = skip_at(base_, p_, end_, wire_type, field); }
  void seek(const uint8_t* q) { p_ = q; }

  // Throws the standard wrong-wire-type error for a known field.
  [[noreturn]] void wrong_type(uint32_t wire_type, uint32_t expected, const char* field, const uint8_t* tag_at) const {
    throw_wrong_type(base_, tag_at, end_, wire_type, expected, field);
  }

 private:
  const uint8_t* base_;
  const uint8_t* p_;
  const uint8_t* end_;
};

// Append-only protobuf writer.
class Writer {
 public:
  std::string& buffer() { return buf_; }

  inline void varint(uint64_t v) {
    char tmp[10];
    int n = 0;
    while (v >= 0x80) {
      tmp[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    tmp[n++] = static_cast<char>(v);
    buf_.append(tmp, n);
  }
  inline void tag(uint32_t field, uint32_t wire_type) { varint((uint64_t(field) << 3) | wire_type); }
  // proto3 scalars: zero values are omitted.
  inline void uint_field(uint32_t field, uint64_t v) {
    if (v == 0) return;
    tag(field, kVarint);
    varint(v);
  }
  inline void int_field(uint32_t field, int64_t v) { uint_field(field, static_cast<uint64_t>(v)); }
  inline void bool_field(uint32_t field, bool v) { uint_field(field, v ? 1 : 0); }
  inline void bytes_field(uint32_t field, const char* data, size_t n) {
    tag(field, kLen);
    varint(n);
    buf_.append(data, n);
  }
  // Nested message: reserve a length slot, write, patch. Lengths < 2^28 take <=4 bytes;
  // we reserve the exact size after the fact by moving the payload (rare for big messages).
  size_t begin_message(uint32_t field) {
    tag(field, kLen);
    size_t at = buf_.size();
    buf_.push_back(0);  // one-byte placeholder, widened in end_message if needed
    return at;
  }
  void end_message(size_t at) {
    size_t payload = buf_.size() - at - 1;
    if (payload < 0x80) {
      buf_[at] = static_cast<char>(payload);
      return;
    }
    char tmp[10];
    int n = 0;
    uint64_t v = payload;
    while (v >= 0x80) {
      tmp[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    tmp[n++] = static_cast<char>(v);
    buf_.insert(at, tmp, n - 1);
    std::memcpy(&buf_[at], tmp, n);
  }
  // Bytes of v as a varint, ceil(bits / 7), without a division or a loop.
  static size_t varint_size(uint64_t v) { return (9 * static_cast<unsigned>(63 ^ __builtin_clzll(v | 1)) + 73) / 64; }

 private:
  std::string buf_;
};

}  // namespace pprofcore::wire
