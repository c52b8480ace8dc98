// encode: Profile -> profile.proto. Fields are written in field-number order with
// repeated scalars packed and proto3 zero scalars omitted, so equal profiles give
// identical bytes. Ids come from the id columns, so a decoded profile re-encodes
// with its original ids.
#include "pprofcore/encode.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "pprofcore/errors.hpp"
#include "pprofcore/fork_join.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/proto_fields.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore {
namespace {

using proto::FunctionField;
using proto::LabelField;
using proto::LineField;
using proto::LocationField;
using proto::MappingField;
using proto::ProfileField;
using proto::SampleField;
using proto::tag_byte;
using proto::ValueTypeField;
using wire::kLen;
using wire::kVarint;

size_t varint_size(uint64_t v) { return wire::Writer::varint_size(v); }

// Writes v as a varint at d; returns the end.
inline char* put_varint(char* d, uint64_t v) {
  while (v >= 0x80) {
    *d++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *d++ = static_cast<char>(v);
  return d;
}

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
    n_ += static_cast<size_t>(put_varint(d, v) - d);
  }
  // Marks k bytes written through the pointer room() returned.
  void advance(size_t k) { n_ += k; }
  // Fields are named by the enums of proto_fields.hpp; every tag is one byte.
  template <class Field>
  void tag(Field field, wire::WireType wire_type) {
    varint(tag_byte(field, wire_type));
  }
  // proto3 scalars: zero values are omitted.
  template <class Field>
  void uint_field(Field field, uint64_t v) {
    if (v == 0) return;
    tag(field, kVarint);
    varint(v);
  }
  template <class Field>
  void int_field(Field field, int64_t v) {
    uint_field(field, static_cast<uint64_t>(v));
  }
  template <class Field>
  void bool_field(Field field, bool v) {
    uint_field(field, v ? 1 : 0);
  }
  template <class Field>
  void bytes_field(Field field, const char* data, size_t n) {
    tag(field, kLen);
    varint(n);
    std::memcpy(room(n), data, n);
    n_ += n;
  }
  // Nested message of unknown size: a one-byte length slot, widened in
  // end_message when the payload is 128 bytes or more (rare: small messages).
  template <class Field>
  size_t begin_message(Field field) {
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
void packed_varints_sized(Out& w, ProfileField field, const uint64_t* v, size_t n, size_t bytes) {
  if (n == 0) return;
  w.tag(field, kLen);
  w.varint(bytes);
  char* d = w.room(bytes);
  for (size_t i = 0; i < n; ++i) d = put_varint(d, v[i]);
  w.advance(bytes);
}

void packed_varints_u(Out& w, ProfileField field, const uint64_t* v, size_t n) {
  size_t bytes = 0;
  for (size_t i = 0; i < n; ++i) bytes += varint_size(v[i]);
  packed_varints_sized(w, field, v, n, bytes);
}

void value_type(Out& w, ProfileField field, int32_t type, int32_t unit) {
  size_t at = w.begin_message(field);
  w.int_field(ValueTypeField::kType, type);
  w.int_field(ValueTypeField::kUnit, unit);
  w.end_message(at);
}

// --- Samples: most of the output. Each is sized, then written once through a
// raw cursor (no room check per varint); large profiles are written by
// several threads, each into its own precomputed stretch of the buffer.

// A proto3 scalar field of a Label (a one-byte tag), omitted when zero: its
// size and its bytes.
inline size_t scalar_size(uint64_t v) { return v == 0 ? 0 : 1 + varint_size(v); }
inline char* put_scalar(char* d, LabelField field, uint64_t v) {
  if (v == 0) return d;
  *d++ = static_cast<char>(tag_byte(field, kVarint));
  return put_varint(d, v);
}

struct LabelFields {
  uint64_t key, str, num, unit;
};
inline LabelFields label_fields(const Labels& l, size_t i) {
  return {uint64_t(int64_t(l.key[i])), uint64_t(int64_t(l.str[i] < 0 ? 0 : l.str[i])), uint64_t(l.num[i]),
          uint64_t(int64_t(l.num_unit[i]))};
}
inline size_t label_payload(const LabelFields& f) {
  return scalar_size(f.key) + scalar_size(f.str) + scalar_size(f.num) + scalar_size(f.unit);
}

// Sizes of sample s as written: its location ids' and values' packed payloads,
// and its whole message (tag and length included).
struct SampleSize {
  size_t loc_bytes = 0, val_bytes = 0, payload = 0;
  size_t total() const { return 1 + varint_size(payload) + payload; }
};

inline size_t packed_run_size(size_t payload, size_t n) { return n == 0 ? 0 : 1 + varint_size(payload) + payload; }

SampleSize sample_size(const Profile& p, size_t s, size_t nt) {
  const uint64_t* ids = p.locations.id.data();
  const int32_t* stack = p.stack_locations.data();
  const int64_t b = p.stack_offsets[s], e = p.stack_offsets[s + 1];
  size_t loc_bytes = 0, val_bytes = 0, label_bytes = 0;  // locals: no store per step
  for (int64_t k = b; k < e; ++k) loc_bytes += varint_size(ids[stack[k]]);
  const uint64_t* vals = reinterpret_cast<const uint64_t*>(p.values.data() + s * nt);
  for (size_t t = 0; t < nt; ++t) val_bytes += varint_size(vals[t]);
  for (int64_t l = p.label_offsets[s]; l < p.label_offsets[s + 1]; ++l) {
    const size_t lp = label_payload(label_fields(p.labels, size_t(l)));
    label_bytes += 1 + varint_size(lp) + lp;
  }
  SampleSize z;
  z.loc_bytes = loc_bytes;
  z.val_bytes = val_bytes;
  z.payload = packed_run_size(loc_bytes, size_t(e - b)) + packed_run_size(val_bytes, nt) + label_bytes;
  return z;
}

char* write_sample(char* d, const Profile& p, size_t s, size_t nt, const SampleSize& z) {
  *d++ = static_cast<char>(tag_byte(ProfileField::kSample, kLen));
  d = put_varint(d, z.payload);
  const int64_t b = p.stack_offsets[s], e = p.stack_offsets[s + 1];
  if (e > b) {
    const uint64_t* ids = p.locations.id.data();
    const int32_t* stack = p.stack_locations.data();
    *d++ = static_cast<char>(tag_byte(SampleField::kLocationId, kLen));
    d = put_varint(d, z.loc_bytes);
    for (int64_t k = b; k < e; ++k) d = put_varint(d, ids[stack[k]]);
  }
  if (nt > 0) {
    const uint64_t* vals = reinterpret_cast<const uint64_t*>(p.values.data() + s * nt);
    *d++ = static_cast<char>(tag_byte(SampleField::kValue, kLen));
    d = put_varint(d, z.val_bytes);
    for (size_t t = 0; t < nt; ++t) d = put_varint(d, vals[t]);
  }
  for (int64_t l = p.label_offsets[s]; l < p.label_offsets[s + 1]; ++l) {
    const LabelFields f = label_fields(p.labels, size_t(l));
    *d++ = static_cast<char>(tag_byte(SampleField::kLabel, kLen));
    d = put_varint(d, label_payload(f));
    d = put_scalar(d, LabelField::kKey, f.key);
    d = put_scalar(d, LabelField::kStr, f.str);
    d = put_scalar(d, LabelField::kNum, f.num);
    d = put_scalar(d, LabelField::kNumUnit, f.unit);
  }
  return d;
}

// Output bytes per extra thread: below this a thread costs more than it saves.
constexpr size_t kBytesPerEncodeThread = size_t(1) << 20;
constexpr unsigned kMaxEncodeThreads = 8;

void encode_samples(Out& w, const Profile& p, unsigned max_threads) {
  const size_t n = p.num_samples(), nt = p.num_types();
  // A first estimate of the size picks the thread count: 2 bytes a location, 3 a value, 8 a label.
  const size_t estimate = p.stack_locations.size() * 2 + p.values.size() * 3 + p.labels.size() * 8;
  size_t wanted = max_threads ? max_threads : estimate / kBytesPerEncodeThread;
  if (wanted > 1 && !max_threads) wanted = std::min<size_t>({wanted, hardware_threads(), kMaxEncodeThreads});
  const unsigned threads = static_cast<unsigned>(std::min(wanted, n));
  if (threads <= 1) {
    for (size_t s = 0; s < n; ++s) {
      const SampleSize z = sample_size(p, s, nt);
      char* d = w.room(z.total());
      w.advance(static_cast<size_t>(write_sample(d, p, s, nt, z) - d));
    }
    return;
  }
  // Contiguous parts: each is sized, then written into its own stretch of the
  // buffer. The sizes are kept for the write in 12 bytes a sample; a sample
  // too large for them (over 4 GiB) sends the whole profile the serial way.
  struct Kept {
    uint32_t loc_bytes, val_bytes, payload;
  };
  std::vector<size_t> first(threads + 1), bytes(threads);
  for (unsigned t = 0; t <= threads; ++t) first[t] = n * t / threads;
  std::vector<Kept> kept(n);
  std::atomic<bool> too_large{false};
  fork_join(threads, [&](size_t t) {
    size_t sum = 0;
    for (size_t s = first[t]; s < first[t + 1]; ++s) {
      const SampleSize z = sample_size(p, s, nt);
      if (z.payload > UINT32_MAX) too_large = true;
      kept[s] = {static_cast<uint32_t>(z.loc_bytes), static_cast<uint32_t>(z.val_bytes),
                 static_cast<uint32_t>(z.payload)};
      sum += z.total();
    }
    bytes[t] = sum;
  });
  if (too_large) {
    std::vector<Kept>().swap(kept);
    return encode_samples(w, p, 1);
  }
  size_t all = 0;
  for (size_t b : bytes) all += b;
  char* base = w.room(all);
  fork_join(threads, [&](size_t t) {
    char* d = base;
    for (size_t u = 0; u < t; ++u) d += bytes[u];
    char* const stop = d + bytes[t];
    for (size_t s = first[t]; s < first[t + 1]; ++s) {
      SampleSize z;
      z.loc_bytes = kept[s].loc_bytes, z.val_bytes = kept[s].val_bytes, z.payload = kept[s].payload;
      d = write_sample(d, p, s, nt, z);
    }
    if (d != stop) throw InternalError("encode: a part of the samples was not written at its computed size");
  });
  w.advance(all);
}

}  // namespace

std::string encode_raw(const Profile& p) {
  std::string out;
  encode_raw_into(p, out);
  return out;
}

void encode_raw_into(const Profile& p, std::string& out, unsigned threads) {
  Out w(out, p.values.size() * 3 + p.stack_locations.size() * 2 + p.strings.data.size() + p.locations.size() * 16 +
                 p.functions.size() * 12 + p.labels.size() * 8 + 1024);
  const size_t nt = p.num_types();
  for (size_t i = 0; i < nt; ++i)
    value_type(w, ProfileField::kSampleType, p.sample_type_type[i], p.sample_type_unit[i]);

  encode_samples(w, p, threads);

  const Mappings& m = p.mappings;
  for (size_t i = 0; i < m.size(); ++i) {
    size_t at = w.begin_message(ProfileField::kMapping);
    w.uint_field(MappingField::kId, m.id[i]);
    w.uint_field(MappingField::kMemoryStart, m.memory_start[i]);
    w.uint_field(MappingField::kMemoryLimit, m.memory_limit[i]);
    w.uint_field(MappingField::kFileOffset, m.file_offset[i]);
    w.int_field(MappingField::kFilename, m.filename[i]);
    w.int_field(MappingField::kBuildId, m.build_id[i]);
    w.bool_field(MappingField::kHasFunctions, m.has_functions[i]);
    w.bool_field(MappingField::kHasFilenames, m.has_filenames[i]);
    w.bool_field(MappingField::kHasLineNumbers, m.has_line_numbers[i]);
    w.bool_field(MappingField::kHasInlineFrames, m.has_inline_frames[i]);
    w.end_message(at);
  }

  const Locations& loc = p.locations;
  for (size_t i = 0; i < loc.size(); ++i) {
    size_t at = w.begin_message(ProfileField::kLocation);
    w.uint_field(LocationField::kId, loc.id[i]);
    if (loc.mapping[i] >= 0) w.uint_field(LocationField::kMappingId, m.id[static_cast<size_t>(loc.mapping[i])]);
    w.uint_field(LocationField::kAddress, loc.address[i]);
    for (int64_t k = loc.line_offsets[i]; k < loc.line_offsets[i + 1]; ++k) {
      size_t lat = w.begin_message(LocationField::kLine);
      w.uint_field(LineField::kFunctionId, p.functions.id[static_cast<size_t>(p.lines.function[k])]);
      w.int_field(LineField::kLine, p.lines.line[k]);
      w.int_field(LineField::kColumn, p.lines.column[k]);
      w.end_message(lat);
    }
    w.bool_field(LocationField::kIsFolded, loc.is_folded[i]);
    w.end_message(at);
  }

  const Functions& f = p.functions;
  for (size_t i = 0; i < f.size(); ++i) {
    size_t at = w.begin_message(ProfileField::kFunction);
    w.uint_field(FunctionField::kId, f.id[i]);
    w.int_field(FunctionField::kName, f.name[i]);
    w.int_field(FunctionField::kSystemName, f.system_name[i]);
    w.int_field(FunctionField::kFilename, f.filename[i]);
    w.int_field(FunctionField::kStartLine, f.start_line[i]);
    w.end_message(at);
  }

  for (size_t i = 0; i < p.strings.size(); ++i) {
    std::string_view s = p.strings[i];
    w.bytes_field(ProfileField::kStringTable, s.data(), s.size());
  }
  w.int_field(ProfileField::kDropFrames, p.drop_frames);
  w.int_field(ProfileField::kKeepFrames, p.keep_frames);
  w.int_field(ProfileField::kTimeNanos, p.time_nanos);
  w.int_field(ProfileField::kDurationNanos, p.duration_nanos);
  if (p.has_period_type) value_type(w, ProfileField::kPeriodType, p.period_type_type, p.period_type_unit);
  w.int_field(ProfileField::kPeriod, p.period);
  if (!p.comments.empty()) {
    std::vector<uint64_t> c(p.comments.begin(), p.comments.end());
    packed_varints_u(w, ProfileField::kComment, c.data(), c.size());
  }
  w.int_field(ProfileField::kDefaultSampleType, p.default_sample_type);
  w.int_field(ProfileField::kDocUrl, p.doc_url);
  w.finish();
}

std::string encode(const Profile& p, bool compress, int level) {
  std::string raw = encode_raw(p);
  if (!compress) return raw;
  return gzip::deflate(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), level);
}

}  // namespace pprofcore
