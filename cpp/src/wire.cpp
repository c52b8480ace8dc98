// wire: slow paths of the protobuf reader (long varints, skipping unknown fields).
#include "pprofcore/wire.hpp"

namespace pprofcore::wire {

uint64_t Reader::varint_slow(const char* field) {
  const uint8_t* at = p_;
  if (end_ - p_ >= 10) {
    // Room for the longest varint: no bounds check per byte. A 10th byte with
    // its high bit set goes on to the checked loop below, which names the error.
    uint64_t v = 0;
    for (int i = 0; i < 10; ++i) {
      const uint8_t b = p_[i];
      v |= uint64_t(b & 0x7f) << (7 * i);
      if (b < 0x80) {
        p_ += i + 1;
        return v;
      }
    }
  }
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p_ >= end_) throw DecodeError("truncated varint", field, offset_of(at));
    uint8_t b = *p_++;
    if (shift == 63 && b >= 0x80) throw DecodeError("varint longer than 10 bytes", field, offset_of(at));
    // Bits past 64 in a 10th byte are dropped, as google/pprof and protobuf do.
    v |= uint64_t(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
  return v;  // unreachable: the 10th byte either ends the varint or throws above
}

void Reader::skip(uint32_t wire_type, const char* field) {
  const uint8_t* at = p_;
  switch (wire_type) {
    case kVarint:
      varint(field);
      return;
    case kFixed64:
      if (end_ - p_ < 8) throw DecodeError("truncated fixed64 field", field, offset_of(at));
      p_ += 8;
      return;
    case kFixed32:
      if (end_ - p_ < 4) throw DecodeError("truncated fixed32 field", field, offset_of(at));
      p_ += 4;
      return;
    case kLen:
      p_ = length_delimited(field);
      return;
    default:
      // Groups are deprecated and never appear in profile.proto producers.
      throw DecodeError("unsupported wire type " + std::to_string(wire_type) + " (group) in unknown field", field,
                        offset_of(at));
  }
}

void Reader::wrong_type(uint32_t wire_type, uint32_t expected, const char* field, const uint8_t* tag_at) const {
  static const char* names[] = {"varint", "fixed64", "length-delimited", "start-group", "end-group", "fixed32"};
  throw DecodeError(std::string("wrong wire type ") + names[wire_type] + ", expected " + names[expected], field,
                    offset_of(tag_at));
}

}  // namespace pprofcore::wire
