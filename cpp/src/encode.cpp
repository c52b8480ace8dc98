// encode: Profile -> profile.proto. Fields are written in field-number order with
// repeated scalars packed and proto3 zero scalars omitted, so equal profiles give
// identical bytes. Ids come from the id columns, so a decoded profile re-encodes
// with its original ids.
#include "pprofcore/encode.hpp"

#include "pprofcore/gzip.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore {
namespace {

using wire::kLen;
using wire::Writer;

void packed_varints_u(Writer& w, uint32_t field, const uint64_t* v, size_t n) {
  if (n == 0) return;
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += Writer::varint_size(v[i]);
  w.tag(field, kLen);
  w.varint(bytes);
  for (size_t i = 0; i < n; ++i) w.varint(v[i]);
}

void value_type(Writer& w, uint32_t field, int32_t type, int32_t unit) {
  size_t at = w.begin_message(field);
  w.int_field(1, type);
  w.int_field(2, unit);
  w.end_message(at);
}

}  // namespace

std::string encode_raw(const Profile& p) {
  Writer w;
  w.buffer().reserve(p.values.size() * 3 + p.stack_locations.size() * 2 + p.strings.data.size() +
                     p.locations.size() * 16 + p.functions.size() * 12 + 1024);
  const size_t nt = p.num_types();
  for (size_t i = 0; i < nt; ++i) value_type(w, 1, p.sample_type_type[i], p.sample_type_unit[i]);

  std::vector<uint64_t> scratch;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    size_t at = w.begin_message(2);
    int64_t b = p.stack_offsets[s], e = p.stack_offsets[s + 1];
    scratch.clear();
    for (int64_t k = b; k < e; ++k) scratch.push_back(p.locations.id[static_cast<size_t>(p.stack_locations[k])]);
    packed_varints_u(w, 1, scratch.data(), scratch.size());
    packed_varints_u(w, 2, reinterpret_cast<const uint64_t*>(p.values.data() + s * nt), nt);
    for (int64_t l = p.label_offsets[s]; l < p.label_offsets[s + 1]; ++l) {
      size_t lat = w.begin_message(3);
      w.int_field(1, p.labels.key[l]);
      w.int_field(2, p.labels.str[l] < 0 ? 0 : p.labels.str[l]);
      w.int_field(3, p.labels.num[l]);
      w.int_field(4, p.labels.num_unit[l]);
      w.end_message(lat);
    }
    w.end_message(at);
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
  return std::move(w.buffer());
}

std::string encode(const Profile& p, bool compress, int level) {
  std::string raw = encode_raw(p);
  if (!compress) return raw;
  return gzip::deflate(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), level);
}

}  // namespace pprofcore
