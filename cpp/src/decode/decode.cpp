// decode: one pass over profile.proto into the columnar Profile, then fixup
// (validate.cpp) resolves ids to rows and applies pprof's validity rules. This
// file owns the wire walk: the main loop, the per-message decoders (samples in
// decode_samples.hpp), and the public entry points with their choice between the
// plain and the overlapped path (decode_overlap.cpp). References are stored
// provisionally as int32 ids (ids above INT32_MAX go to a side list), so the
// common case needs no temporary arrays.
#include "pprofcore/decode.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "decode_internal.hpp"
#include "pprofcore/legacy.hpp"
#include "pprofcore/memory.hpp"
#include "pprofcore/otlp.hpp"
#include "pprofcore/io.hpp"
#include "pprofcore/sniff.hpp"
#include "pprofcore/zstd.hpp"

namespace pprofcore {
namespace decoding {

using wire::kLen;
using wire::kVarint;
using wire::Reader;

namespace {

void expect(Reader& r, uint32_t wt, uint32_t expected, const char* field, const uint8_t* tag_at) {
  if (wt != expected) r.wrong_type(wt, expected, field, tag_at);
}

inline void push_ref(std::vector<int32_t>& column, std::vector<BigRef>& big, uint64_t id) {
  if (id <= kMaxSmallId) {
    column.push_back(static_cast<int32_t>(id));
  } else {
    big.push_back({column.size(), id});
    column.push_back(-1);
  }
}

}  // namespace

Profile Decoder::run() {
  if (window_)
    reserve_for_stream();
  else
    prescan();
  // Large profiles: a helper thread decodes the samples from split_.at on
  // while this thread does the first ones and every other field.
  std::thread helper;
  std::exception_ptr helper_error;
  SampleColumns tail;
  SampleDecoder tail_samples(data_, tail);
  main_samples_.record_value_counts = tail_samples.record_value_counts = repair_.has_value();
  if (split_.at) {
    reserve_tail(tail);
    tail_samples.label_room = split_.tail_bytes / 4;  // as in prescan
    helper = std::thread([&] {
      try {
        decode_tail(tail_samples, tail);
      } catch (...) {
        helper_error = std::current_exception();
      }
    });
  }
  try {
    main_loop();
    main_samples_.finish();
  } catch (...) {
    if (helper.joinable()) helper.join();
    throw;
  }
  if (helper.joinable()) {
    helper.join();
    if (helper_error) std::rethrow_exception(helper_error);
    append_tail(tail, tail_samples);
  }
  max_string_code_.merge(main_samples_.codes);
  fixup();
  if (scratch_) scratch_->copy_out(p_);
  return std::move(p_);
}

void Decoder::main_loop() {
  if (window_) {
    while (const uint8_t* end = window_->next_field()) {
      Reader r(data_, window_->pos(), end);
      field(r);
      window_->consumed(r.pos());
      if (copy_before_strings_) copy_columns_before_strings();
      if (window_->offset() >= next_growth_check_) advise_growth(window_->offset(), window_->total());
    }
    return;
  }
  Reader r(data_, data_, data_ + n_);
  while (!r.done()) {
    field(r);
    if (sample_bytes_done_ >= next_growth_check_) advise_growth(sample_bytes_done_, main_sample_bytes_);
  }
}

// The copies made at the first string (StreamScratch::copy_out_before_strings),
// with nothing read from the window meanwhile: it may move its bytes to make
// room for the inflater, which would otherwise wait for the copies to end.
void Decoder::copy_columns_before_strings() {
  copy_before_strings_ = false;
  main_samples_.finish();
  scratch_->copy_out_before_strings(p_, [this] { window_->make_room(); });
}

// One top-level field at r's position.
PPROFCORE_INLINE void Decoder::field(Reader& r) {
  const uint8_t* tag_at = r.pos();
  uint32_t tag = r.tag(kProfilePath);
  uint32_t wt = tag & 7;
  const ProfileField field = field_of<ProfileField>(tag);
  switch (field) {
    case ProfileField::kSampleType: {
      expect(r, wt, kLen, path(field), tag_at);
      // Producers write sample types first and strings last: a sample_type
      // after the string table hints at concatenated profiles (used in errors).
      if (p_.strings.size() > 0 && concat_at_ < 0) concat_at_ = r.offset_of(tag_at);
      int32_t t = 0, u = 0;
      value_type(r, &t, &u, path(field));
      p_.sample_type_type.push_back(t);
      p_.sample_type_unit.push_back(u);
      break;
    }
    case ProfileField::kSample: {
      expect(r, wt, kLen, path(field), tag_at);
      const uint8_t* e = r.length_delimited(path(field));
      // Samples from the split point on belong to the helper thread.
      if (samples_seen_++ < split_.index) {
        main_samples_.sample(r.pos(), e);
        sample_bytes_done_ += static_cast<size_t>(e - r.pos());
      }
      r.seek(e);
      break;
    }
    case ProfileField::kMapping:
      expect(r, wt, kLen, path(field), tag_at);
      mapping(r);
      break;
    case ProfileField::kLocation:
      expect(r, wt, kLen, path(field), tag_at);
      location(r);
      break;
    case ProfileField::kFunction:
      expect(r, wt, kLen, path(field), tag_at);
      function(r);
      break;
    case ProfileField::kStringTable:
      expect(r, wt, kLen, path(field), tag_at);
      // Streaming: the columns before the strings are usually whole by now, so
      // their copies are made while the inflater works on the strings, once
      // this field is consumed (main_loop).
      if (scratch_ && p_.strings.size() == 0 && samples_seen_ > 0) copy_before_strings_ = true;
      string_table_entry(r, tag_at);
      // The rest of the run, as far as it is here: streaming, the bytes the
      // inflater has delivered past this field.
      if (p_.strings.size() > 0) r.seek(string_run(r.pos(), window_ ? window_->filled() : r.end()));
      break;
    case ProfileField::kDropFrames:
      p_.drop_frames = string_code_field(r, wt, path(field), tag_at);
      break;
    case ProfileField::kKeepFrames:
      p_.keep_frames = string_code_field(r, wt, path(field), tag_at);
      break;
    case ProfileField::kTimeNanos: {
      expect(r, wt, kVarint, path(field), tag_at);
      int64_t v = static_cast<int64_t>(r.varint(path(field)));
      // pprof: a second time_nanos means two profiles were concatenated.
      if (p_.time_nanos != 0)
        throw DecodeError("concatenated profiles detected (second time_nanos)", path(field), r.offset_of(tag_at));
      p_.time_nanos = v;
      break;
    }
    case ProfileField::kDurationNanos:
      expect(r, wt, kVarint, path(field), tag_at);
      p_.duration_nanos = static_cast<int64_t>(r.varint(path(field)));
      break;
    case ProfileField::kPeriodType:
      expect(r, wt, kLen, path(field), tag_at);
      p_.has_period_type = true;
      value_type(r, &p_.period_type_type, &p_.period_type_unit, path(field));
      break;
    case ProfileField::kPeriod:
      expect(r, wt, kVarint, path(field), tag_at);
      p_.period = static_cast<int64_t>(r.varint(path(field)));
      break;
    case ProfileField::kComment:
      if (wt == kLen) {
        const uint8_t* e = r.length_delimited(path(field));
        while (r.pos() < e) p_.comments.push_back(string_code(r, r.varint(path(field)), path(field)));
        if (r.pos() != e) throw DecodeError("packed field overruns its length", path(field), r.offset());
      } else {
        expect(r, wt, kVarint, path(field), tag_at);
        p_.comments.push_back(string_code(r, r.varint(path(field)), path(field)));
      }
      break;
    case ProfileField::kDefaultSampleType:
      p_.default_sample_type = string_code_field(r, wt, path(field), tag_at);
      break;
    case ProfileField::kDocUrl:
      p_.doc_url = string_code_field(r, wt, path(field), tag_at);
      break;
    default:
      r.skip(wt, kProfileUnknown);
  }
}

// Counts top-level messages so every column can be reserved once. Reserving
// virtual memory generously is cheap: untouched pages are never resident.
void Decoder::prescan() {
  constexpr size_t kFields = 16;
  size_t counts[kFields] = {0}, bytes[kFields] = {0};
  const size_t kSample = static_cast<size_t>(ProfileField::kSample);
  // Every 1024th sample's tag position and the sample bytes before it, to pick
  // a split point for the helper thread.
  std::vector<std::pair<const uint8_t*, size_t>> marks;
  Reader r(data_, data_, data_ + n_);
  try {
    while (!r.done()) {
      const uint8_t* tag_at = r.pos();
      uint32_t tag = r.tag(kProfilePath);
      uint32_t field = tag >> 3, wt = tag & 7;
      if (field == kSample && (counts[kSample] & 1023) == 0) marks.emplace_back(tag_at, bytes[kSample]);
      const uint8_t* before = r.pos();
      // Nearly every top-level field is a message: its length inline, the
      // rest out of line (the same checks and errors either way).
      if (wt == kLen)
        r.seek(r.length_delimited(kProfilePath));
      else
        r.skip(wt, kProfilePath);
      if (field < kFields) {
        counts[field]++;
        bytes[field] += static_cast<size_t>(r.pos() - before);
      }
    }
  } catch (const DecodeError&) {
    marks.clear();  // malformed: decode single-threaded; the real pass reports the error
  }
  plan_split(marks, counts, bytes);
  size_t ns = counts[kSample];
  // With a helper thread this one writes the first main_ns samples, the
  // helper's are appended at the end (append_tail).
  const size_t main_ns = split_.at ? split_.index : ns;
  reserve_huge_split(p_.stack_offsets, ns + 1, main_ns + 1);
  reserve_huge_split(p_.label_offsets, ns + 1, main_ns + 1);
  size_t types = counts[static_cast<size_t>(ProfileField::kSampleType)];
  if (types == 0) types = 1;
  // Every value takes at least one byte of a sample: cap the reservation by
  // that, or (many samples) x (many sample types) would reserve terabytes.
  size_t max_values = bytes[kSample];
  reserve_huge_split(p_.values, ns && types > max_values / ns ? max_values : ns * types, main_ns * types);
  // Each location id takes at least one byte: an upper bound, and untouched
  // reserved pages are never resident. Huge pages follow the writes
  // (advise_growth), as the real size is not known.
  p_.stack_locations.reserve(bytes[kSample] + 16);
  main_sample_bytes_ = bytes[kSample] - split_.tail_bytes;
  // A label takes at least four bytes of its sample (tag, length, key).
  main_samples_.label_room = bytes[kSample] / 4;  // the helper's are appended to these
  size_t nl = counts[static_cast<size_t>(ProfileField::kLocation)];
  p_.locations.for_each_column([&](const char*, auto& c) { c.reserve(nl + 1); });
  p_.lines.for_each_column([&](const char*, auto& c) { c.reserve(nl); });
  size_t nf = counts[static_cast<size_t>(ProfileField::kFunction)];
  p_.functions.for_each_column([&](const char*, auto& c) { c.reserve(nf); });
  const size_t kStrings = static_cast<size_t>(ProfileField::kStringTable);
  p_.strings.offsets.reserve(counts[kStrings] + 1);
  p_.strings.data.reserve(bytes[kStrings]);
}

void Decoder::string_table_entry(Reader& r, const uint8_t* tag_at) {
  const char* field = path(ProfileField::kStringTable);
  const uint8_t* e = r.length_delimited(field);
  const uint8_t* s = r.pos();
  if (p_.strings.size() == 0 && e != s && repair_) {
    repair_->first_string(p_);  // the text is dropped: code 0 means "unset"
    r.seek(e);
    return;
  }
  if (p_.strings.size() == 0 && e != s) {
    // pprof: the first string must be empty so that code 0 means "unset".
    throw DecodeError("string_table[0] must be \"\" but is " + std::to_string(e - s) + " bytes long", field,
                      r.offset_of(tag_at));
  }
  p_.strings.data.append(reinterpret_cast<const char*>(s), static_cast<size_t>(e - s));
  p_.strings.offsets.push_back(static_cast<int64_t>(p_.strings.data.size()));
  r.seek(e);
}

// Producers write the string table as one run of entries at the end (23,066
// of large.cpu's 2.45 MB), so after the first entry the rest of the run is
// read here, one append each, instead of a trip per string through the main
// loop and, streaming, the window's field check: about twice as fast, and
// streaming those strings are what the decoder still has to read after the
// inflater's last byte (docs/performance-log.md, decode round fifteen).
// Stops at anything else (another field, a length of three bytes or more, an
// entry not whole in [p, end)), which the ordinary path then reads.
const uint8_t* Decoder::string_run(const uint8_t* p, const uint8_t* end) {
  constexpr uint8_t kTag = tag_byte(ProfileField::kStringTable, kLen);
  StringTable& strings = p_.strings;
  while (end - p >= 2 && p[0] == kTag) {
    size_t len;
    const uint8_t* s;
    if (p[1] < 0x80) {
      len = p[1];
      s = p + 2;
    } else if (end - p >= 3 && p[2] < 0x80) {
      len = (p[1] & 0x7fu) | (size_t(p[2]) << 7);
      s = p + 3;
    } else {
      break;
    }
    if (len > static_cast<size_t>(end - s)) break;
    strings.data.append(reinterpret_cast<const char*>(s), len);
    strings.offsets.push_back(static_cast<int64_t>(strings.data.size()));
    p = s + len;
  }
  return p;
}

int32_t Decoder::string_code_field(Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at) {
  expect(r, wt, kVarint, field, tag_at);
  return string_code(r, r.varint(field), field);
}

void Decoder::value_type(Reader& r, int32_t* type, int32_t* unit, const char* field) {
  const uint8_t* e = r.length_delimited(field);
  Reader m(data_, r.pos(), e);
  while (!m.done()) {
    const uint8_t* tag_at = m.pos();
    uint32_t tag = m.tag(field);
    uint32_t wt = tag & 7;
    switch (field_of<ValueTypeField>(tag)) {
      case ValueTypeField::kType:
        expect(m, wt, kVarint, field, tag_at);
        *type = string_code(m, m.varint(field), field);
        break;
      case ValueTypeField::kUnit:
        expect(m, wt, kVarint, field, tag_at);
        *unit = string_code(m, m.varint(field), field);
        break;
      default:
        m.skip(wt, field);
    }
  }
  r.seek(e);
}

void Decoder::mapping(Reader& r) {
  const char* field = path(ProfileField::kMapping);
  const uint8_t* e = r.length_delimited(field);
  Reader m(data_, r.pos(), e);
  uint64_t number[4] = {0};  // id, memory_start, memory_limit, file_offset
  int32_t filename = 0, build_id = 0;
  uint8_t flags[4] = {0};  // has_functions, has_filenames, has_line_numbers, has_inline_frames
  while (!m.done()) {
    const uint8_t* tag_at = m.pos();
    uint32_t tag = m.tag(field);
    uint32_t wt = tag & 7;
    const MappingField f = field_of<MappingField>(tag);
    if (f < MappingField::kId || f > MappingField::kHasInlineFrames) {
      m.skip(wt, kMappingUnknown);
      continue;
    }
    expect(m, wt, kVarint, field, tag_at);
    uint64_t x = m.varint(field);
    switch (f) {
      case MappingField::kFilename:
        filename = string_code(m, x, path(f));
        break;
      case MappingField::kBuildId:
        build_id = string_code(m, x, path(f));
        break;
      case MappingField::kId:
      case MappingField::kMemoryStart:
      case MappingField::kMemoryLimit:
      case MappingField::kFileOffset:
        number[static_cast<uint32_t>(f) - static_cast<uint32_t>(MappingField::kId)] = x;
        break;
      default:  // the four flags, in field order
        flags[static_cast<uint32_t>(f) - static_cast<uint32_t>(MappingField::kHasFunctions)] = x != 0;
    }
  }
  r.seek(e);
  auto& t = p_.mappings;
  t.id.push_back(number[0]);
  t.memory_start.push_back(number[1]);
  t.memory_limit.push_back(number[2]);
  t.file_offset.push_back(number[3]);
  t.filename.push_back(filename);
  t.build_id.push_back(build_id);
  t.has_functions.push_back(flags[0]);
  t.has_filenames.push_back(flags[1]);
  t.has_line_numbers.push_back(flags[2]);
  t.has_inline_frames.push_back(flags[3]);
}

// The table decoders are flattened: each line, reference and column append is
// inlined into them (GCC otherwise kept vector<int>::emplace_back and line()
// out of line, a call per append; 2% of large.cpu's instructions).
__attribute__((flatten)) void Decoder::location(Reader& r) {
  const uint8_t* e = r.length_delimited(kLocationPath);
  Reader m(data_, r.pos(), e);
  uint64_t id = 0, mapping_id = 0, address = 0;
  uint8_t folded = 0;
  while (!m.done()) {
    const uint8_t* tag_at = m.pos();
    // The one-byte tags producers write go straight to their field (the
    // tag byte alone says the field and a valid wire type); anything else
    // takes the checked way below.
    switch (*tag_at) {
      case tag_byte(LocationField::kId, kVarint):
        m.seek(tag_at + 1);
        id = long_varint(m, kLocationPath);
        continue;
      case tag_byte(LocationField::kMappingId, kVarint):
        m.seek(tag_at + 1);
        mapping_id = long_varint(m, kLocationPath);
        continue;
      case tag_byte(LocationField::kAddress, kVarint):
        m.seek(tag_at + 1);
        address = long_varint(m, kLocationPath);
        continue;
      case tag_byte(LocationField::kLine, kLen):
        m.seek(line(tag_at + 1, m.end()));
        continue;
      default:
        break;
    }
    uint32_t tag = m.tag(kLocationPath);
    uint32_t wt = tag & 7;
    const LocationField f = field_of<LocationField>(tag);
    switch (f) {
      case LocationField::kId:
        expect(m, wt, kVarint, path(f), tag_at);
        id = m.varint(kLocationPath);
        break;
      case LocationField::kMappingId:
        expect(m, wt, kVarint, path(f), tag_at);
        mapping_id = m.varint(kLocationPath);
        break;
      case LocationField::kAddress:
        expect(m, wt, kVarint, path(f), tag_at);
        address = m.varint(kLocationPath);
        break;
      case LocationField::kLine:
        expect(m, wt, kLen, path(f), tag_at);
        m.seek(line(m.pos(), m.end()));
        break;
      case LocationField::kIsFolded:
        expect(m, wt, kVarint, path(f), tag_at);
        folded = m.varint(kLocationPath) != 0;
        break;
      default:
        m.skip(wt, kLocationUnknown);
    }
  }
  r.seek(e);
  auto& t = p_.locations;
  t.id.push_back(id);
  push_ref(t.mapping, big_mapping_refs_, mapping_id);
  t.address.push_back(address);
  t.is_folded.push_back(folded);
  t.line_offsets.push_back(static_cast<int64_t>(p_.lines.size()));
}

// One line field from p (at its length prefix) in a location ending at end;
// returns where the line ends. Positions, not the location's reader, so that
// reader stays in registers (see wire::VarintAt).
__attribute__((flatten)) const uint8_t* Decoder::line(const uint8_t* p, const uint8_t* end) {
  const char* field = path(LocationField::kLine);
  Reader r(data_, p, end);
  const uint8_t* e = r.length_delimited(field);
  Reader m(data_, r.pos(), e);
  uint64_t function_id = 0;
  int64_t line_no = 0, column = 0;
  while (!m.done()) {
    const uint8_t* tag_at = m.pos();
    // The usual one-byte tags first, as in location().
    if (*tag_at == tag_byte(LineField::kFunctionId, kVarint)) {
      m.seek(tag_at + 1);
      function_id = long_varint(m, field);
      continue;
    }
    if (*tag_at == tag_byte(LineField::kLine, kVarint)) {
      m.seek(tag_at + 1);
      line_no = static_cast<int64_t>(m.varint(field));
      continue;
    }
    uint32_t tag = m.tag(field);
    uint32_t wt = tag & 7;
    const LineField f = field_of<LineField>(tag);
    switch (f) {
      case LineField::kFunctionId:
        expect(m, wt, kVarint, path(f), tag_at);
        function_id = m.varint(field);
        break;
      case LineField::kLine:
        expect(m, wt, kVarint, path(f), tag_at);
        line_no = static_cast<int64_t>(m.varint(field));
        break;
      case LineField::kColumn:
        expect(m, wt, kVarint, path(f), tag_at);
        column = static_cast<int64_t>(m.varint(field));
        break;
      default:
        m.skip(wt, kLineUnknown);
    }
  }
  push_ref(p_.lines.function, big_function_refs_, function_id);
  p_.lines.line.push_back(line_no);
  p_.lines.column.push_back(column);
  return e;
}

__attribute__((flatten)) void Decoder::function(Reader& r) {
  const uint8_t* e = r.length_delimited(kFunctionPath);
  Reader m(data_, r.pos(), e);
  uint64_t id = 0;
  int32_t name = 0, system_name = 0, filename = 0;
  int64_t start_line = 0;
  while (!m.done()) {
    const uint8_t* tag_at = m.pos();
    // The usual one-byte tags first, as in location().
    switch (*tag_at) {
      case tag_byte(FunctionField::kId, kVarint):
        m.seek(tag_at + 1);
        id = long_varint(m, kFunctionPath);
        continue;
      case tag_byte(FunctionField::kName, kVarint):
        m.seek(tag_at + 1);
        name = string_code(m, long_varint(m, kFunctionPath), path(FunctionField::kName));
        continue;
      case tag_byte(FunctionField::kSystemName, kVarint):
        m.seek(tag_at + 1);
        system_name = string_code(m, long_varint(m, kFunctionPath), path(FunctionField::kSystemName));
        continue;
      case tag_byte(FunctionField::kFilename, kVarint):
        m.seek(tag_at + 1);
        filename = string_code(m, long_varint(m, kFunctionPath), path(FunctionField::kFilename));
        continue;
      case tag_byte(FunctionField::kStartLine, kVarint):
        m.seek(tag_at + 1);
        start_line = static_cast<int64_t>(m.varint(kFunctionPath));
        continue;
      default:
        break;
    }
    uint32_t tag = m.tag(kFunctionPath);
    uint32_t wt = tag & 7;
    const FunctionField f = field_of<FunctionField>(tag);
    switch (f) {
      case FunctionField::kId:
        expect(m, wt, kVarint, path(f), tag_at);
        id = m.varint(kFunctionPath);
        break;
      case FunctionField::kName:
        expect(m, wt, kVarint, path(f), tag_at);
        name = string_code(m, m.varint(kFunctionPath), path(f));
        break;
      case FunctionField::kSystemName:
        expect(m, wt, kVarint, path(f), tag_at);
        system_name = string_code(m, m.varint(kFunctionPath), path(f));
        break;
      case FunctionField::kFilename:
        expect(m, wt, kVarint, path(f), tag_at);
        filename = string_code(m, m.varint(kFunctionPath), path(f));
        break;
      case FunctionField::kStartLine:
        expect(m, wt, kVarint, path(f), tag_at);
        start_line = static_cast<int64_t>(m.varint(kFunctionPath));
        break;
      default:
        m.skip(wt, kFunctionUnknown);
    }
  }
  r.seek(e);
  auto& t = p_.functions;
  t.id.push_back(id);
  t.name.push_back(name);
  t.system_name.push_back(system_name);
  t.filename.push_back(filename);
  t.start_line.push_back(start_line);
}

// Byte offset of the index-th top-level message with field number `field`,
// found by rescanning (only on the error path).
int64_t Decoder::locate(ProfileField field, size_t index) const {
  if (window_) throw StreamAborted();  // the window no longer holds the start
  Reader r(data_, data_, data_ + n_);
  size_t seen = 0;
  while (!r.done()) {
    const uint8_t* at = r.pos();
    uint32_t tag = r.tag(kProfilePath);
    if (field_of<ProfileField>(tag) == field && seen++ == index) return r.offset_of(at);
    r.skip(tag & 7, kProfilePath);
  }
  return -1;
}

namespace {

// Called inside a catch handler: rethrows `e` with a description of what the
// input looks like when it is not profile.proto at all (legacy text, OTLP, ...).
[[noreturn]] void rethrow_explained(const DecodeError& e, const uint8_t* data, size_t n) {
  std::string hint = describe_non_pprof(data, n);
  if (hint.empty() && e.reason().rfind("wrong wire type", 0) == 0)
    hint = describe_foreign_protobuf(data, n, e.offset());
  if (hint.empty()) throw;
  throw DecodeError(hint + "; decoding as profile.proto failed: " + e.reason(), e.field(), e.offset());
}

}  // namespace

// pprof decompresses once, and so does pprofcore: a second layer is named (both
// magics are invalid protobuf tags, so this refuses nothing decodable).
void refuse_nested_compression(const char* outer, const uint8_t* data, size_t n) {
  const char* inner = gzip::is_gzip(data, n) ? "gzip" : zstd::is_zstd(data, n) ? "zstd" : nullptr;
  if (!inner) return;
  throw GzipError(std::string(inner) + " inside " + outer +
                      ": the file was compressed twice (decompress it once, e.g. `" +
                      (outer[0] == 'g' ? "gunzip" : "zstd -d") + " < file > file.once`, and load that)",
                  outer, -1);
}

void judge_decompressed_prefix(const char* format, const uint8_t* data, size_t n, const DecodeOptions& options) {
  // Zero bytes are field 0, which pprof skips, so a raw input of zeros fails only
  // at its end; nothing writes a compressed profile that starts with a page of them.
  if (n > 0 && data[0] == 0 && std::all_of(data, data + n, [](uint8_t b) { return b == 0; }))
    throw GzipError(std::string(format) + " input decompresses to zero bytes (its first " + std::to_string(n) +
                        " bytes are all 0x00), which cannot start a profile: a decompression bomb or a damaged file",
                    format, 0);
  judge_prefix(data, n, options);
}

Profile decode_fallback(const DecodeError& e, const uint8_t* data, size_t n) {
  // OpenTelemetry profiles fail as profile.proto at their first field.
  if (otlp::looks_like_otlp(data, n)) return otlp::decode_single_raw(data, n);
  Profile legacy;
  if (decode_legacy(data, n, legacy)) return legacy;
  rethrow_explained(e, data, n);
}

}  // namespace decoding

namespace {

// decode_raw(), building the profile in `spent`'s columns when given.
Profile decode_raw_reusing(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report,
                           Profile* spent) {
  if (n == 0) throw DecodeError("empty input: no profile data", "", -1);
  if (report) *report = RepairReport{};
  Profile p;
  try {
    decoding::Decoder decoder(data, n, options.threads, report);
    if (spent) decoder.reuse(std::move(*spent));
    p = decoder.run();
  } catch (const DecodeError& e) {
    // Repairs counted before the protobuf reading failed describe nothing: a
    // legacy parser (or the error) is the answer now.
    if (report) *report = RepairReport{};
    return decoding::decode_fallback(e, data, n);
  }
  // Repair mode returns what plain decoding returns whenever that succeeds,
  // and plain decoding reads a legacy format when profile.proto would need repairs.
  if (report && decoding::plain_refuses(*report)) {
    Profile legacy;
    if (decode_legacy(data, n, legacy)) {
      *report = RepairReport{};
      return legacy;
    }
  }
  return p;
}

}  // namespace

Profile decode_raw(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report) {
  return decode_raw_reusing(data, n, options, report, nullptr);
}

size_t max_input_size(size_t max_decompressed_size, bool gzip) {
  if (!gzip) return max_decompressed_size;
  const size_t slack = size_t(1) << 20;
  return max_decompressed_size > (SIZE_MAX - slack) / 2 ? SIZE_MAX : 2 * max_decompressed_size + slack;
}

namespace {

// decode(), with a batch worker's buffers when `kept` is given.
Profile decode_with(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report,
                    DecodeBuffers* kept) {
  Profile* const spent = kept ? &kept->spent : nullptr;
  if (n == 0) throw DecodeError("empty input: no profile data", "", -1);
  // The limit is on the profile.proto bytes, however they arrive.
  const size_t max = options.max_decompressed_size;
  // Compressed input (gzip or zstd) may be a little larger than what it inflates to.
  if (n > max_input_size(max, gzip::is_gzip(data, n) || zstd::is_zstd(data, n))) {
    if (gzip::is_gzip(data, n))
      throw GzipError("gzip input of " + std::to_string(n) + " bytes is larger than twice the limit of " +
                          std::to_string(max) + " bytes (raise max_decompressed_size to allow it)",
                      "gzip", -1);
    throw DecodeError(
        "input is larger than the limit of " + std::to_string(max) + " bytes (raise max_decompressed_size to allow it)",
        "", -1);
  }
  if (gzip::is_gzip(data, n) && gzip::suspicious_ratio(data, n)) {
    // A bomb whose first bytes cannot start a profile stops here, not at the limit.
    gzip::Buffer head = gzip::peek(data, n, zstd::kPrefixBytes);
    if (head.size() == zstd::kPrefixBytes)
      decoding::judge_decompressed_prefix("gzip", head.data(), head.size(), options);
  }
  if (gzip::is_gzip(data, n) && decoding::worth_overlapping(n, options)) {
    Profile p;
    if (decoding::decode_overlapped(data, n, options, report, p)) return p;
  }
  if (zstd::is_zstd(data, n)) {
    // A bomb whose first bytes cannot start a profile stops there, not at the limit.
    gzip::Buffer raw = zstd::decompress(data, n, options.max_decompressed_size, [&](const uint8_t* p, size_t k) {
      decoding::judge_decompressed_prefix("zstd", p, k, options);
    });
    if (raw.empty()) throw DecodeError("empty input: zstd stream decompresses to 0 bytes", "", -1);
    decoding::refuse_nested_compression("zstd", raw.data(), raw.size());
    return decode_raw_reusing(raw.data(), raw.size(), options, report, spent);
  }
  if (gzip::is_gzip(data, n)) {
    gzip::Buffer own;
    gzip::Buffer& raw = kept ? kept->inflated : own;
    gzip::inflate(data, n, options.max_decompressed_size, raw, options.inflater);
    if (raw.empty()) throw DecodeError("empty input: gzip stream decompresses to 0 bytes", "", -1);
    decoding::refuse_nested_compression("gzip", raw.data(), raw.size());
    return decode_raw_reusing(raw.data(), raw.size(), options, report, spent);
  }
  return decode_raw_reusing(data, n, options, report, spent);
}

}  // namespace

Profile decode(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report) {
  return decode_with(data, n, options, report, nullptr);
}

Profile decode(const uint8_t* data, size_t n, const DecodeOptions& options, DecodeBuffers& kept) {
  return decode_with(data, n, options, nullptr, &kept);
}

}  // namespace pprofcore
