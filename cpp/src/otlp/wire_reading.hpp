// wire_reading: what the protobuf readers of the layouts share (read_wire.cpp,
// read_v1_7.cpp): the small field readers (a field's payload as a Reader, its
// bytes, a varint, a fixed64, a repeated varint field, each checking the wire
// type and naming the field in its errors), ValueType, and the older-layout
// check.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "layout.hpp"
#include "message.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore::otlp::detail::wire_reading {

using wire::kFixed64;
using wire::kLen;
using wire::kVarint;
using wire::Reader;

PPROFCORE_INLINE void expect(const Reader& r, uint32_t wt, uint32_t expected, const char* field,
                             const uint8_t* tag_at) {
  if (wt != expected) r.wrong_type(wt, expected, field, tag_at);
}

// A Reader over the payload of the length-delimited field at r (r moves past it).
PPROFCORE_INLINE Reader sub(Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at) {
  expect(r, wt, kLen, field, tag_at);
  const uint8_t* e = r.length_delimited(field);
  Reader m(r.base(), r.pos(), e);
  r.seek(e);
  return m;
}

PPROFCORE_INLINE std::string bytes(Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at) {
  Reader m = sub(r, wt, field, tag_at);
  return std::string(reinterpret_cast<const char*>(m.pos()), static_cast<size_t>(m.end() - m.pos()));
}

PPROFCORE_INLINE int64_t scalar(Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at) {
  expect(r, wt, kVarint, field, tag_at);
  return static_cast<int64_t>(r.varint(field));
}

PPROFCORE_INLINE uint64_t fixed64(Reader& r, const char* field) {
  const uint8_t* p = r.pos();
  if (r.end() - p < 8) throw DecodeError("fixed64 runs past the end of its message", field, r.offset());
  uint64_t v;
  std::memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);  // the wire is little-endian
#endif
  r.seek(p + 8);
  return v;
}

// A repeated varint field, packed (one LEN record) or not.
PPROFCORE_INLINE void varints(Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at,
                              std::vector<int64_t>& out) {
  if (wt != kLen) {
    out.push_back(scalar(r, wt, field, tag_at));
    return;
  }
  Reader m = sub(r, wt, field, tag_at);
  // At most one varint per byte: one growth (geometric) instead of many.
  const size_t most = static_cast<size_t>(m.end() - m.pos());
  if (out.capacity() - out.size() < most) out.reserve(std::max(out.capacity() * 2, out.size() + most));
  while (!m.done()) out.push_back(static_cast<int64_t>(m.varint(field)));
}

}  // namespace pprofcore::otlp::detail::wire_reading

namespace pprofcore::otlp::detail {

// Throws OlderLayout when `found` is older than the layout being read: the
// field at tag_at (named `field`) is of that layout, `what` says how.
void older(const wire::Reader& r, const uint8_t* tag_at, const char* field, Layout reading, Layout found,
           const char* what);

ValueType value_type(wire::Reader r, const char* field, Layout layout);

// A v1.7.0 Profile: one ProfileMsg per sample type, appended to scope.profiles,
// its samples as columns and its stacks added to m's stack table (read_v1_7.cpp).
void profile_v1_7(wire::Reader r, ScopeMsg& scope, Message& m);

}  // namespace pprofcore::otlp::detail
