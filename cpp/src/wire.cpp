// wire: slow paths of the protobuf reader (long varints, skipping unknown fields,
// the errors).
#include "pprofcore/wire.hpp"

namespace pprofcore::wire {

namespace {

// Any varint, a byte at a time with every bound checked; names the errors.
// Apart from varint_at so that the fast cases save no registers.
__attribute__((noinline)) VarintAt varint_checked(const uint8_t* base, const uint8_t* p, const uint8_t* end,
                                                  const char* field) {
  const uint8_t* at = p;
  if (end - p >= 10) {
    // Room for the longest varint: no bounds check per byte. A 10th byte with
    // its high bit set goes on to the checked loop below, which names the error.
    uint64_t v = 0;
    for (int i = 0; i < 10; ++i) {
      const uint8_t b = p[i];
      v |= uint64_t(b & 0x7f) << (7 * i);
      if (b < 0x80) return {v, p + i + 1};
    }
  }
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= end) throw DecodeError("truncated varint", field, at - base);
    uint8_t b = *p++;
    if (shift == 63 && b >= 0x80) throw DecodeError("varint longer than 10 bytes", field, at - base);
    // Bits past 64 in a 10th byte are dropped, as google/pprof and protobuf do.
    v |= uint64_t(b & 0x7f) << shift;
    if (b < 0x80) return {v, p};
  }
  return {v, p};  // unreachable: the 10th byte either ends the varint or throws above
}

}  // namespace

VarintAt varint_at(const uint8_t* base, const uint8_t* p, const uint8_t* end, const char* field) {
  // Three bytes (ids and string codes from 16384 up) even at the end of a
  // short message, where the eight-byte read below has no room.
  if (end - p >= 3 && (p[0] & p[1] & 0x80) && p[2] < 0x80)
    return {(p[0] & 0x7fu) | ((p[1] & 0x7fu) << 7) | (uint64_t(p[2]) << 14), p + 3};
#if defined(PPROFCORE_VARINT_IN_WORD)
  if (end - p >= 8) {
    const VarintAt v = varint_in_word(p);
    if (v.next) return v;
  }
#endif
  return varint_checked(base, p, end, field);
}

const uint8_t* skip_at(const uint8_t* base, const uint8_t* p, const uint8_t* end, uint32_t wire_type,
                       const char* field) {
  Reader r(base, p, end);
  switch (wire_type) {
    case kVarint:
      r.varint(field);
      return r.pos();
    case kFixed64:
      if (end - p < 8) throw DecodeError("truncated fixed64 field", field, p - base);
      return p + 8;
    case kFixed32:
      if (end - p < 4) throw DecodeError("truncated fixed32 field", field, p - base);
      return p + 4;
    case kLen:
      return r.length_delimited(field);
    default:
      // Groups are deprecated and never appear in profile.proto producers.
      throw DecodeError("unsupported wire type " + std::to_string(wire_type) + " (group) in unknown field", field,
                        p - base);
  }
}

void throw_wrong_type(const uint8_t* base, const uint8_t* tag_at, const uint8_t* end, uint32_t wire_type,
                      uint32_t expected, const char* field) {
  static const char* names[] = {"varint", "fixed64", "length-delimited", "start-group", "end-group", "fixed32"};
  auto name = [&](uint32_t wt) { return std::string(names[wt]) + " (" + std::to_string(wt) + ")"; };
  // The message says which field number expected which wire type: one corrupt
  // byte is then findable against profile.proto without a protobuf dump.
  const uint64_t number = varint_at(base, tag_at, end, field).value >> 3;
  throw DecodeError("wrong wire type for field number " + std::to_string(number) + ": expected " + name(expected) +
                        ", found " + name(wire_type),
                    field, tag_at - base);
}

void throw_invalid_wire_type(int64_t offset, uint32_t wire_type, const char* context) {
  throw DecodeError("invalid wire type " + std::to_string(wire_type), context, offset);
}

void throw_length_past_end(int64_t offset, uint64_t length, int64_t left, const char* field) {
  throw DecodeError("length " + std::to_string(length) + " runs past the end of the enclosing message (" +
                        std::to_string(left) + " bytes left)",
                    field, offset);
}

}  // namespace pprofcore::wire
