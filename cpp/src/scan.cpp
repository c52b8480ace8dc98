// scan: the tables pass (see scan.hpp). One walk over the top-level fields;
// every rule decode() enforces on them is checked here too, and input that
// decode() reads but the scan does not (fields profile.proto does not
// define) is refused, so a true answer always means decode() agrees.
#include "pprofcore/scan.hpp"

#include "pprofcore/proto_fields.hpp"

namespace pprofcore {

bool ScanIds::index(const std::vector<uint64_t>& ids) {
  ids_ = &ids;
  n_ = ids.size();
  table_.clear();
  dense_ = true;
  for (size_t i = 0; i < ids.size() && dense_; ++i) dense_ = ids[i] == i + 1;
  if (dense_) return true;
  // decode() refuses id 0 and a repeated id; so does the scan (false).
  table_.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == 0 || row(ids[i]) >= 0) return false;
    table_.insert(hash_mix(0x5ca9, ids[i]), static_cast<int32_t>(i));
  }
  return true;
}

namespace scanning {

bool varint_long(const uint8_t*& p, const uint8_t* e, uint64_t& v) {
  v = 0;
  for (int i = 0; i < 10; ++i) {
    if (p >= e) return false;
    const uint8_t b = *p++;
    if (i == 9 && b >= 0x80) return false;
    v |= uint64_t(b & 0x7f) << (7 * i);  // bits past 64 in a 10th byte are dropped, as decode() does
    if (b < 0x80) return true;
  }
  return false;
}

namespace {

using proto::FunctionField;
using proto::LineField;
using proto::LocationField;
using proto::MappingField;
using proto::ProfileField;
using proto::ValueTypeField;

constexpr uint64_t kMaxCode = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());

// The walk over one message's fields: each field is a varint unless `len`
// names the one length-delimited field it may hold.
class Fields {
 public:
  Fields(const uint8_t* p, const uint8_t* e) : p_(p), e_(e) {}
  // Next field: false at the end or on a malformed tag (then ok() is false).
  PPROFCORE_INLINE bool next() {
    if (p_ >= e_) return false;
    uint64_t tag;
    if (!varint(p_, e_, tag)) return fail();
    field_ = tag >> 3;
    if (field_ > 0xffff) field_ = 0;  // no message here has such a field: refused like field 0
    wt_ = static_cast<uint32_t>(tag & 7);
    return true;
  }
  uint64_t field() const { return field_; }
  uint32_t wire_type() const { return wt_; }
  // The field's varint value (false if the field is not a varint).
  PPROFCORE_INLINE bool value(uint64_t& v) { return (wt_ == wire::kVarint && varint(p_, e_, v)) || fail(); }
  // A string code: a varint within int32 (the table's size is checked at the end).
  bool code(int32_t& c, uint64_t& max_code) {
    uint64_t v;
    if (!value(v) || v > kMaxCode) return fail();
    if (v > max_code) max_code = v;
    c = static_cast<int32_t>(v);
    return true;
  }
  // The field's payload [b, e) (false if the field is not length-delimited).
  PPROFCORE_INLINE bool payload(const uint8_t*& b, const uint8_t*& e) {
    uint64_t n;
    if (wt_ != wire::kLen || !varint(p_, e_, n) || n > static_cast<uint64_t>(e_ - p_)) return fail();
    b = p_;
    e = p_ += n;
    return true;
  }
  bool fail() {
    ok_ = false;
    return false;
  }
  bool ok() const { return ok_; }

 private:
  const uint8_t* p_;
  const uint8_t* e_;
  uint64_t field_ = 0;
  uint32_t wt_ = 0;
  bool ok_ = true;
};

class TablesScan {
 public:
  explicit TablesScan(Scan& out)
      : s_(out), p_(out.tables), mapping_ids_(out.mapping_ids), function_ids_(out.function_ids) {}

  bool run(const uint8_t* data, size_t n) {
    Fields f(data, data + n);
    while (f.next())
      if (!field(f)) return false;
    return f.ok() && finish();
  }

 private:
  bool field(Fields& f) {
    const uint8_t *b, *e;
    switch (static_cast<ProfileField>(f.field())) {
      case ProfileField::kSampleType: {
        int32_t t = 0, u = 0;
        if (!f.payload(b, e) || !value_type(b, e, t, u)) return false;
        p_.sample_type_type.push_back(t);
        p_.sample_type_unit.push_back(u);
        return true;
      }
      case ProfileField::kSample:
        if (!f.payload(b, e)) return false;
        s_.samples.push_back({b, e});
        return true;
      case ProfileField::kMapping:
        return f.payload(b, e) && mapping(b, e);
      case ProfileField::kLocation:
        return f.payload(b, e) && location(b, e);
      case ProfileField::kFunction:
        return f.payload(b, e) && function(b, e);
      case ProfileField::kStringTable:
        if (!f.payload(b, e)) return false;
        if (p_.strings.size() == 0 && e != b) return false;  // string_table[0] must be ""
        p_.strings.push_back(std::string_view(reinterpret_cast<const char*>(b), static_cast<size_t>(e - b)));
        s_.strings.push_back(std::string_view(reinterpret_cast<const char*>(b), static_cast<size_t>(e - b)));
        return true;
      case ProfileField::kDropFrames:
        return f.code(p_.drop_frames, max_code_);
      case ProfileField::kKeepFrames:
        return f.code(p_.keep_frames, max_code_);
      case ProfileField::kTimeNanos: {
        uint64_t v;
        if (p_.time_nanos != 0 || !f.value(v)) return false;  // a second one: concatenated profiles
        p_.time_nanos = static_cast<int64_t>(v);
        return true;
      }
      case ProfileField::kDurationNanos: {
        uint64_t v;
        if (!f.value(v)) return false;
        p_.duration_nanos = static_cast<int64_t>(v);
        return true;
      }
      case ProfileField::kPeriodType:
        p_.has_period_type = true;
        return f.payload(b, e) && value_type(b, e, p_.period_type_type, p_.period_type_unit);
      case ProfileField::kPeriod: {
        uint64_t v;
        if (!f.value(v)) return false;
        p_.period = static_cast<int64_t>(v);
        return true;
      }
      case ProfileField::kComment: {
        int32_t c;
        if (f.wire_type() == wire::kVarint) return f.code(c, max_code_);
        if (!f.payload(b, e)) return false;
        uint64_t v;  // the codes, as varints with no tags
        while (b < e) {
          if (!varint(b, e, v) || v > kMaxCode) return false;
          if (v > max_code_) max_code_ = v;
        }
        return true;
      }
      case ProfileField::kDefaultSampleType:
        return f.code(p_.default_sample_type, max_code_);
      case ProfileField::kDocUrl:
        return f.code(p_.doc_url, max_code_);
    }
    return false;  // a field profile.proto does not define: decode() skips it
  }

  bool value_type(const uint8_t* b, const uint8_t* e, int32_t& type, int32_t& unit) {
    Fields m(b, e);
    while (m.next()) {
      switch (static_cast<ValueTypeField>(m.field())) {
        case ValueTypeField::kType:
          if (!m.code(type, max_code_)) return false;
          break;
        case ValueTypeField::kUnit:
          if (!m.code(unit, max_code_)) return false;
          break;
        default:
          return false;
      }
    }
    return m.ok();
  }

  bool mapping(const uint8_t* b, const uint8_t* e) {
    Fields m(b, e);
    uint64_t id = 0;
    int32_t filename = 0, build_id = 0;
    while (m.next()) {
      uint64_t v;
      const auto f = static_cast<MappingField>(m.field());
      switch (f) {
        case MappingField::kFilename:
          if (!m.code(filename, max_code_)) return false;
          break;
        case MappingField::kBuildId:
          if (!m.code(build_id, max_code_)) return false;
          break;
        case MappingField::kId:
          if (!m.value(id)) return false;
          break;
        default:  // memory_start, memory_limit, file_offset and the four flags: varints
          if (f < MappingField::kMemoryStart || f > MappingField::kHasInlineFrames || !m.value(v)) return false;
      }
    }
    if (!m.ok()) return false;
    p_.mappings.id.push_back(id);
    p_.mappings.filename.push_back(filename);
    return true;
  }

  bool location(const uint8_t* b, const uint8_t* e) {
    Fields m(b, e);
    uint64_t id = 0, mapping_id = 0, address = 0, v;
    while (m.next()) {
      switch (static_cast<LocationField>(m.field())) {
        case LocationField::kId:
          if (!m.value(id)) return false;
          break;
        case LocationField::kMappingId:
          if (!m.value(mapping_id)) return false;
          break;
        case LocationField::kAddress:
          if (!m.value(address)) return false;
          break;
        case LocationField::kLine: {
          const uint8_t *lb, *le;
          if (!m.payload(lb, le) || !line(lb, le)) return false;
          break;
        }
        case LocationField::kIsFolded:
          if (!m.value(v)) return false;
          break;
        default:
          return false;
      }
    }
    if (!m.ok()) return false;
    p_.locations.id.push_back(id);
    mapping_ids_.push_back(mapping_id);
    p_.locations.address.push_back(address);
    p_.locations.line_offsets.push_back(static_cast<int64_t>(p_.lines.line.size()));  // functions come in finish()
    return true;
  }

  bool line(const uint8_t* b, const uint8_t* e) {
    Fields m(b, e);
    uint64_t function_id = 0, line_no = 0, column;
    while (m.next()) {
      switch (static_cast<LineField>(m.field())) {
        case LineField::kFunctionId:
          if (!m.value(function_id)) return false;
          break;
        case LineField::kLine:
          if (!m.value(line_no)) return false;
          break;
        case LineField::kColumn:
          if (!m.value(column)) return false;
          break;
        default:
          return false;
      }
    }
    if (!m.ok()) return false;
    function_ids_.push_back(function_id);
    p_.lines.line.push_back(static_cast<int64_t>(line_no));
    return true;
  }

  bool function(const uint8_t* b, const uint8_t* e) {
    Fields m(b, e);
    uint64_t id = 0, start_line = 0;
    int32_t name = 0, system_name = 0, filename = 0;
    while (m.next()) {
      switch (static_cast<FunctionField>(m.field())) {
        case FunctionField::kId:
          if (!m.value(id)) return false;
          break;
        case FunctionField::kName:
          if (!m.code(name, max_code_)) return false;
          break;
        case FunctionField::kSystemName:
          if (!m.code(system_name, max_code_)) return false;
          break;
        case FunctionField::kFilename:
          if (!m.code(filename, max_code_)) return false;
          break;
        case FunctionField::kStartLine:
          if (!m.value(start_line)) return false;
          break;
        default:
          return false;
      }
    }
    if (!m.ok()) return false;
    p_.functions.id.push_back(id);
    p_.functions.name.push_back(name);
    p_.functions.filename.push_back(filename);
    p_.functions.start_line.push_back(static_cast<int64_t>(start_line));
    return true;
  }

  // The rules decode()'s fixup applies once everything is read.
  bool finish() {
    if (p_.strings.size() == 0 || max_code_ >= p_.strings.size()) return false;
    if (!s_.samples.empty() && p_.sample_type_type.empty()) return false;
    const ScanIds &mappings = s_.mapping_rows, &functions = s_.function_rows;
    if (!s_.mapping_rows.index(p_.mappings.id) || !s_.function_rows.index(p_.functions.id) ||
        !s_.locations.index(p_.locations.id))
      return false;
    p_.locations.mapping.resize(mapping_ids_.size());
    for (size_t i = 0; i < mapping_ids_.size(); ++i)  // a dangling mapping id means no mapping, as in decode()
      p_.locations.mapping[i] = mapping_ids_[i] == 0 ? -1 : mappings.row(mapping_ids_[i]);
    p_.lines.function.resize(function_ids_.size());
    for (size_t i = 0; i < function_ids_.size(); ++i) {
      const int32_t row = function_ids_[i] == 0 ? -1 : functions.row(function_ids_[i]);
      if (row < 0) return false;
      p_.lines.function[i] = row;
    }
    return true;
  }

  Scan& s_;
  Profile& p_;
  uint64_t max_code_ = 0;
  std::vector<uint64_t>& mapping_ids_;   // per location, resolved in finish()
  std::vector<uint64_t>& function_ids_;  // per line, resolved in finish()
};

}  // namespace
}  // namespace scanning

bool scan_tables(const uint8_t* data, size_t n, Scan& out) {
  // Keep the buffers: a Scan is reused for file after file.
  Profile& p = out.tables;
  p.sample_type_type.clear();
  p.sample_type_unit.clear();
  p.has_period_type = false;
  p.period_type_type = p.period_type_unit = 0;
  p.period = p.time_nanos = p.duration_nanos = 0;
  p.drop_frames = p.keep_frames = p.default_sample_type = p.doc_url = 0;
  p.locations.for_each_column([](const char*, auto& c) { c.clear(); });
  p.locations.line_offsets.assign(1, 0);
  p.lines.for_each_column([](const char*, auto& c) { c.clear(); });
  p.functions.for_each_column([](const char*, auto& c) { c.clear(); });
  p.mappings.for_each_column([](const char*, auto& c) { c.clear(); });
  p.strings.clear();
  out.strings.clear();
  out.samples.clear();
  out.mapping_ids.clear();
  out.function_ids.clear();
  if (n == 0) return false;
  return scanning::TablesScan(out).run(data, n);
}

}  // namespace pprofcore
