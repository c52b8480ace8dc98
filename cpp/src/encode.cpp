// encode: Profile -> profile.proto. Fields are written in field-number order with
// repeated scalars packed and proto3 zero scalars omitted, so equal profiles give
// identical bytes. Ids come from the id columns, so a decoded profile re-encodes
// with its original ids.
#include "pprofcore/encode.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "pprofcore/gzip.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore {
namespace {

using wire::kLen;
using wire::kVarint;

size_t varint_size(uint64_t v) { return wire::Writer::varint_size(v); }

// An output buffer written through a raw cursor: capacity is grown in bulk and
// each varint is stored without std::string::append's per-call checks (half of
// encode's time went there). Same bytes as wire::Writer.
class Out {
 public:
  // Writes into `buf` (its contents replaced, its storage reused).
  Out(std::string& buf, size_t expect) : buf_(buf) { buf_.resize(std::max<size_t>(expect, 64)); }
  char* room(size_t need) {
    if (n_ + need > buf_.size()) buf_.resize(std::max(n_ + need, buf_.size() * 2));
    return &buf_[n_];
  }
  void varint(uint64_t v) {
    char* d = room(10);
    size_t k = 0;
    while (v >= 0x80) {
      d[k++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    d[k++] = static_cast<char>(v);
    n_ += k;
  }
  // Marks k bytes written through the pointer room() returned.
  void advance(size_t k) { n_ += k; }
  void tag(uint32_t field, uint32_t wire_type) { varint((uint64_t(field) << 3) | wire_type); }
  // proto3 scalars: zero values are omitted.
  void uint_field(uint32_t field, uint64_t v) {
    if (v == 0) return;
    tag(field, kVarint);
    varint(v);
  }
  void int_field(uint32_t field, int64_t v) { uint_field(field, static_cast<uint64_t>(v)); }
  void bool_field(uint32_t field, bool v) { uint_field(field, v ? 1 : 0); }
  void bytes_field(uint32_t field, const char* data, size_t n) {
    tag(field, kLen);
    varint(n);
    std::memcpy(room(n), data, n);
    n_ += n;
  }
  // Nested message of unknown size: a one-byte length slot, widened in
  // end_message when the payload is 128 bytes or more (rare: small messages).
  size_t begin_message(uint32_t field) {
    tag(field, kLen);
    room(1);
    return n_++;
  }
  void end_message(size_t at) {
    const size_t payload = n_ - at - 1;
    const size_t width = varint_size(payload);
    if (width > 1) {
      room(width - 1);
      std::memmove(&buf_[at + width], &buf_[at + 1], payload);
      n_ += width - 1;
    }
    uint64_t v = payload;
    size_t k = at;
    while (v >= 0x80) {
      buf_[k++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    buf_[k] = static_cast<char>(v);
  }
  void finish() { buf_.resize(n_); }

 private:
  std::string& buf_;
  size_t n_ = 0;
};

// Packed varints whose payload size the caller has computed: one room check
// for the run instead of one per value.
void packed_varints_sized(Out& w, uint32_t field, const uint64_t* v, size_t n, size_t bytes) {
  if (n == 0) return;
  w.tag(field, kLen);
  w.varint(bytes);
  char* d = w.room(bytes);
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = v[i];
    while (x >= 0x80) {
      *d++ = static_cast<char>(x | 0x80);
      x >>= 7;
    }
    *d++ = static_cast<char>(x);
  }
  w.advance(bytes);
}

void packed_varints_u(Out& w, uint32_t field, const uint64_t* v, size_t n) {
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += varint_size(v[i]);
  packed_varints_sized(w, field, v, n, bytes);
}

void value_type(Out& w, uint32_t field, int32_t type, int32_t unit) {
  size_t at = w.begin_message(field);
  w.int_field(1, type);
  w.int_field(2, unit);
  w.end_message(at);
}

size_t field_size(uint32_t field, uint64_t v) {
  return v == 0 ? 0 : varint_size(uint64_t(field) << 3) + varint_size(v);
}

size_t packed_size(uint32_t field, size_t payload, size_t n) {
  return n == 0 ? 0 : varint_size(uint64_t(field) << 3) + varint_size(payload) + payload;
}

}  // namespace

std::string encode_raw(const Profile& p) {
  std::string out;
  encode_raw_into(p, out);
  return out;
}

void encode_raw_into(const Profile& p, std::string& out) {
  Out w(out, p.values.size() * 3 + p.stack_locations.size() * 2 + p.strings.data.size() + p.locations.size() * 16 +
                 p.functions.size() * 12 + p.labels.size() * 8 + 1024);
  const size_t nt = p.num_types();
  for (size_t i = 0; i < nt; ++i) value_type(w, 1, p.sample_type_type[i], p.sample_type_unit[i]);

  // Samples are most of the output and often over 127 bytes: their sizes are
  // computed first, so each is written once, never moved to widen its length.
  std::vector<uint64_t> ids;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int64_t b = p.stack_offsets[s], e = p.stack_offsets[s + 1];
    ids.clear();
    size_t loc_bytes = 0;
    for (int64_t k = b; k < e; ++k) {
      const uint64_t id = p.locations.id[static_cast<size_t>(p.stack_locations[k])];
      ids.push_back(id);
      loc_bytes += varint_size(id);
    }
    const uint64_t* vals = reinterpret_cast<const uint64_t*>(p.values.data() + s * nt);
    size_t val_bytes = 0;
    for (size_t t = 0; t < nt; ++t) val_bytes += varint_size(vals[t]);
    size_t payload = packed_size(1, loc_bytes, ids.size()) + packed_size(2, val_bytes, nt);
    const int64_t lb = p.label_offsets[s], le = p.label_offsets[s + 1];
    for (int64_t l = lb; l < le; ++l) {
      const size_t lp = field_size(1, uint64_t(int64_t(p.labels.key[l]))) +
                        field_size(2, uint64_t(int64_t(p.labels.str[l] < 0 ? 0 : p.labels.str[l]))) +
                        field_size(3, uint64_t(p.labels.num[l])) +
                        field_size(4, uint64_t(int64_t(p.labels.num_unit[l])));
      payload += 1 + varint_size(lp) + lp;
    }
    w.tag(2, kLen);
    w.varint(payload);
    w.room(payload);
    packed_varints_sized(w, 1, ids.data(), ids.size(), loc_bytes);
    packed_varints_sized(w, 2, vals, nt, val_bytes);
    for (int64_t l = lb; l < le; ++l) {
      size_t lat = w.begin_message(3);
      w.int_field(1, p.labels.key[l]);
      w.int_field(2, p.labels.str[l] < 0 ? 0 : p.labels.str[l]);
      w.int_field(3, p.labels.num[l]);
      w.int_field(4, p.labels.num_unit[l]);
      w.end_message(lat);
    }
  }

  const Mappings& m = p.mappings;
  for (size_t i = 0; i < m.size(); ++i) {
    size_t at = w.begin_message(3);
    w.uint_field(1, m.id[i]);
    w.uint_field(2, m.memory_start[i]);
    w.uint_field(3, m.memory_limit[i]);
    w.uint_field(4, m.file_offset[i]);
    w.int_field(5, m.filename[i]);
    w.int_field(6, m.build_id[i]);
    w.bool_field(7, m.has_functions[i]);
    w.bool_field(8, m.has_filenames[i]);
    w.bool_field(9, m.has_line_numbers[i]);
    w.bool_field(10, m.has_inline_frames[i]);
    w.end_message(at);
  }

  const Locations& loc = p.locations;
  for (size_t i = 0; i < loc.size(); ++i) {
    size_t at = w.begin_message(4);
    w.uint_field(1, loc.id[i]);
    if (loc.mapping[i] >= 0) w.uint_field(2, m.id[static_cast<size_t>(loc.mapping[i])]);
    w.uint_field(3, loc.address[i]);
    for (int64_t k = loc.line_offsets[i]; k < loc.line_offsets[i + 1]; ++k) {
      size_t lat = w.begin_message(4);
      w.uint_field(1, p.functions.id[static_cast<size_t>(p.lines.function[k])]);
      w.int_field(2, p.lines.line[k]);
      w.int_field(3, p.lines.column[k]);
      w.end_message(lat);
    }
    w.bool_field(5, loc.is_folded[i]);
    w.end_message(at);
  }

  const Functions& f = p.functions;
  for (size_t i = 0; i < f.size(); ++i) {
    size_t at = w.begin_message(5);
    w.uint_field(1, f.id[i]);
    w.int_field(2, f.name[i]);
    w.int_field(3, f.system_name[i]);
    w.int_field(4, f.filename[i]);
    w.int_field(5, f.start_line[i]);
    w.end_message(at);
  }

  for (size_t i = 0; i < p.strings.size(); ++i) {
    std::string_view s = p.strings[i];
    w.bytes_field(6, s.data(), s.size());
  }
  w.int_field(7, p.drop_frames);
  w.int_field(8, p.keep_frames);
  w.int_field(9, p.time_nanos);
  w.int_field(10, p.duration_nanos);
  if (p.has_period_type) value_type(w, 11, p.period_type_type, p.period_type_unit);
  w.int_field(12, p.period);
  if (!p.comments.empty()) {
    std::vector<uint64_t> c(p.comments.begin(), p.comments.end());
    packed_varints_u(w, 13, c.data(), c.size());
  }
  w.int_field(14, p.default_sample_type);
  w.int_field(15, p.doc_url);
  w.finish();
}

std::string encode(const Profile& p, bool compress, int level) {
  std::string raw = encode_raw(p);
  if (!compress) return raw;
  return gzip::deflate(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), level);
}

}  // namespace pprofcore
