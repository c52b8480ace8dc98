// scan_labels: the lean tables pass of the labels-only walk (scan_labels.hpp).
// A sum per label value reads the header, the strings and the samples; the
// mapping, location and function messages are only checked, each by a loop
// over its tag bytes that looks up what the byte allows in a table. Anything
// off the common shape (ids other than 1..n in file order, a tag of two bytes)
// answers false, and the caller takes scan_tables, which knows every rule.
// The same pass also serves sums per function name: it then keeps each line's
// function row and each function's name code as well.
#include "pprofcore/scan_labels.hpp"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <utility>

namespace pprofcore {

namespace {

using scanning::varint;

// What a tag byte may carry in one kind of message: a varint (a string code,
// and/or the value the caller keeps: the id), or the nested Line message.
// Bytes not in the table (0) are refused, which covers wrong wire types.
enum : uint8_t { kVarint = 1, kCode = 2, kKeep = 4, kLine = 8, kName = 16 };

struct Acts {
  uint8_t at[256] = {};  // tags of two bytes (from 0x80) are not ours: 0
};

template <class Field>
constexpr Acts acts(std::initializer_list<std::pair<Field, uint8_t>> fields) {
  Acts a;
  for (const auto& f : fields) a.at[tag_byte(f.first, f.second == kLine ? wire::kLen : wire::kVarint)] = f.second;
  return a;
}

using proto::FunctionField;
using proto::LineField;
using proto::LocationField;
using proto::MappingField;
using proto::ValueTypeField;

constexpr Acts kValueTypeActs =
    acts<ValueTypeField>({{ValueTypeField::kType, kVarint | kCode | kKeep}, {ValueTypeField::kUnit, kVarint | kCode}});
constexpr Acts kMappingActs = acts<MappingField>({{MappingField::kId, kVarint | kKeep},
                                                  {MappingField::kMemoryStart, kVarint},
                                                  {MappingField::kMemoryLimit, kVarint},
                                                  {MappingField::kFileOffset, kVarint},
                                                  {MappingField::kFilename, kVarint | kCode},
                                                  {MappingField::kBuildId, kVarint | kCode},
                                                  {MappingField::kHasFunctions, kVarint},
                                                  {MappingField::kHasFilenames, kVarint},
                                                  {MappingField::kHasLineNumbers, kVarint},
                                                  {MappingField::kHasInlineFrames, kVarint}});
constexpr Acts kLocationActs = acts<LocationField>({{LocationField::kId, kVarint | kKeep},
                                                    {LocationField::kMappingId, kVarint},
                                                    {LocationField::kAddress, kVarint},
                                                    {LocationField::kLine, kLine},
                                                    {LocationField::kIsFolded, kVarint}});
constexpr Acts kLineActs = acts<LineField>(
    {{LineField::kFunctionId, kVarint | kKeep}, {LineField::kLine, kVarint}, {LineField::kColumn, kVarint}});
constexpr Acts kFunctionActs = acts<FunctionField>({{FunctionField::kId, kVarint | kKeep},
                                                    {FunctionField::kName, kVarint | kCode},
                                                    {FunctionField::kSystemName, kVarint | kCode},
                                                    {FunctionField::kFilename, kVarint | kCode},
                                                    {FunctionField::kStartLine, kVarint}});
// The same, with the name code kept beside the id.
constexpr Acts kNamedFunctionActs = acts<FunctionField>({{FunctionField::kId, kVarint | kKeep},
                                                         {FunctionField::kName, kVarint | kCode | kName},
                                                         {FunctionField::kSystemName, kVarint | kCode},
                                                         {FunctionField::kFilename, kVarint | kCode},
                                                         {FunctionField::kStartLine, kVarint}});

// Past a varint we do not keep: at most ten bytes, the last under 0x80.
PPROFCORE_INLINE bool skip_varint(const uint8_t*& p, const uint8_t* e) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (e - p >= 8) {  // the end among the next eight bytes, found at once (addresses take five or six)
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t ends = ~w & 0x8080808080808080ull;
    if (ends) {
      p += (__builtin_ctzll(ends) >> 3) + 1;
      return true;
    }
  }
#endif
  const uint8_t* const stop = e - p > 10 ? p + 10 : e;
  while (p < stop)
    if (*p++ < 0x80) return true;
  return false;
}

constexpr uint64_t kMaxCode = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());

// kKeepFunctions: also keep tables.functions.name, tables.lines.function
// (rows: ids are 1..n) and tables.locations.line_offsets.
template <bool kKeepFunctions>
class LeanTables {
 public:
  explicit LeanTables(Scan& out) : s_(out), p_(out.tables) {}

  bool run(const uint8_t* p, const uint8_t* e) {
    while (p < e) {
      const uint8_t tag = *p++;
      if (tag >= 0x80 || !field(tag, p, e)) return false;
    }
    return finish();
  }

 private:
  // One field of Profile whose tag byte is `tag`, its value at p.
  bool field(uint8_t tag, const uint8_t*& p, const uint8_t* e) {
    using proto::ProfileField;
    constexpr auto len = [](ProfileField f) { return tag_byte(f, wire::kLen); };
    constexpr auto var = [](ProfileField f) { return tag_byte(f, wire::kVarint); };
    uint64_t v;
    if ((tag & 7) == wire::kVarint) {
      if (!varint(p, e, v)) return false;
      switch (tag) {
        case var(ProfileField::kTimeNanos):
          if (p_.time_nanos != 0) return false;  // a second one: concatenated profiles
          p_.time_nanos = static_cast<int64_t>(v);
          return true;
        case var(ProfileField::kDurationNanos):
          p_.duration_nanos = static_cast<int64_t>(v);
          return true;
        case var(ProfileField::kPeriod):
          return true;
        case var(ProfileField::kDefaultSampleType):
          p_.default_sample_type = static_cast<int32_t>(v);
          return code(v);
        case var(ProfileField::kDropFrames):
        case var(ProfileField::kKeepFrames):
        case var(ProfileField::kComment):
        case var(ProfileField::kDocUrl):
          return code(v);
        default:
          return false;
      }
    }
    if ((tag & 7) != wire::kLen || !varint(p, e, v) || v > static_cast<uint64_t>(e - p)) return false;
    const uint8_t* const b = p;
    p += v;
    switch (tag) {
      case len(ProfileField::kSample):
        s_.samples.push_back({b, p});
        return true;
      case len(ProfileField::kLocation):
        if (!usual_location(b, p) && !numbered(b, p, kLocationActs, n_locations_)) return false;
        if constexpr (kKeepFunctions)
          p_.locations.line_offsets.push_back(static_cast<int64_t>(p_.lines.function.size()));
        return true;
      case len(ProfileField::kFunction): {
        if (usual_function(b, p)) return true;
        if constexpr (!kKeepFunctions) return numbered(b, p, kFunctionActs, n_functions_);
        uint64_t id = 0, name = 0;
        if (!fields(b, p, kNamedFunctionActs, id, name, no_line) || id != ++n_functions_) return false;
        p_.functions.name.push_back(static_cast<int32_t>(name));  // within the table: checked in finish()
        return true;
      }
      case len(ProfileField::kMapping):
        return numbered(b, p, kMappingActs, n_mappings_);
      case len(ProfileField::kStringTable):
        if (s_.strings.empty() && p != b) return false;  // string_table[0] must be ""
        s_.strings.push_back(std::string_view(reinterpret_cast<const char*>(b), static_cast<size_t>(p - b)));
        return true;
      case len(ProfileField::kSampleType): {
        uint64_t type = 0;
        if (!walk(b, p, kValueTypeActs, type)) return false;
        p_.sample_type_type.push_back(static_cast<int32_t>(type));
        return true;
      }
      case len(ProfileField::kPeriodType): {
        uint64_t type = 0;
        return walk(b, p, kValueTypeActs, type);
      }
      case len(ProfileField::kComment):
        for (const uint8_t* c = b; c < p;)  // packed codes
          if (!varint(c, p, v) || !code(v)) return false;
        return true;
      default:
        return false;
    }
  }

  // A string code: checked against the table in finish().
  bool code(uint64_t v) {
    max_code_ = std::max(max_code_, v);
    return true;  // for `return code(v)` in field()
  }

  // A mapping, location or function: checked, and its id must be the next
  // of 1..n.
  bool numbered(const uint8_t* b, const uint8_t* e, const Acts& a, uint64_t& count) {
    uint64_t id = 0;
    return walk(b, e, a, id) && id == ++count;
  }

  static constexpr auto no_line = [](const uint8_t*, const uint8_t*) { return false; };

  // A varint field whose tag byte is `tag` at p, if there: past it, v its value.
  static PPROFCORE_INLINE bool optional(const uint8_t*& p, const uint8_t* e, uint8_t tag, uint64_t& v) {
    if (p == e || *p != tag) return true;
    ++p;
    return varint(p, e, v);
  }

  // The Location most producers write (Go's runtime among them): id, then
  // mapping id and address, then Lines of a function id and a line number,
  // each field once and in this order, and Lines under 128 bytes. Read
  // straight through, without the table walk(); false where the message is
  // any other (nothing kept then: walk() reads it from the start).
  bool usual_location(const uint8_t* p, const uint8_t* e) {
    // The tag bytes of the fields read, in their order.
    constexpr uint8_t kIdTag = tag_byte(LocationField::kId, wire::kVarint),
                      kMappingTag = tag_byte(LocationField::kMappingId, wire::kVarint),
                      kAddressTag = tag_byte(LocationField::kAddress, wire::kVarint),
                      kLineTag = tag_byte(LocationField::kLine, wire::kLen),
                      kFunctionTag = tag_byte(LineField::kFunctionId, wire::kVarint),
                      kNumberTag = tag_byte(LineField::kLine, wire::kVarint);
    uint64_t id;
    if (p == e || *p++ != kIdTag || !varint(p, e, id) || id != n_locations_ + 1) return false;
    if (p < e && *p == kMappingTag && !skip_varint(++p, e)) return false;
    if (p < e && *p == kAddressTag && !skip_varint(++p, e)) return false;
    const size_t lines_before = p_.lines.function.size();
    auto refuse = [&] {  // nothing kept: walk() reads the message from the start
      if constexpr (kKeepFunctions) p_.lines.function.resize(lines_before);
      return false;
    };
    uint64_t max_function = max_function_;
    while (p < e) {
      uint64_t function;
      if (e - p < 2 || p[0] != kLineTag || p[1] >= 0x80 || p[1] > e - p - 2) return refuse();
      const uint8_t* const end = p + 2 + p[1];
      p += 2;
      if (p == end || *p++ != kFunctionTag || !varint(p, end, function) || function == 0) return refuse();
      if (p < end && *p == kNumberTag && !skip_varint(++p, end)) return refuse();
      if (p != end) return refuse();
      max_function = function > max_function ? function : max_function;
      if constexpr (kKeepFunctions) p_.lines.function.push_back(static_cast<int32_t>(function - 1));
    }
    max_function_ = max_function;
    ++n_locations_;
    return true;
  }

  // The Function most producers write: id, name, system name, file name and
  // start line, each once and in this order (any but the id may be missing).
  // false where it is any other, nothing kept.
  bool usual_function(const uint8_t* p, const uint8_t* e) {
    constexpr uint8_t kIdTag = tag_byte(FunctionField::kId, wire::kVarint);
    uint64_t id, name = 0, system_name = 0, file = 0, start = 0;
    if (p == e || *p++ != kIdTag || !varint(p, e, id) || id != n_functions_ + 1) return false;
    if (!optional(p, e, tag_byte(FunctionField::kName, wire::kVarint), name) ||
        !optional(p, e, tag_byte(FunctionField::kSystemName, wire::kVarint), system_name) ||
        !optional(p, e, tag_byte(FunctionField::kFilename, wire::kVarint), file) ||
        !optional(p, e, tag_byte(FunctionField::kStartLine, wire::kVarint), start) || p != e)
      return false;
    max_code_ = std::max({max_code_, name, system_name, file});
    ++n_functions_;
    if constexpr (kKeepFunctions) p_.functions.name.push_back(static_cast<int32_t>(name));  // checked in finish()
    return true;
  }

  // Checks one message's fields against `a`; `kept` gets the last value of
  // the field marked kKeep. A Line's function id must be set (the table of
  // functions, later in the file, is checked in finish()).
  bool walk(const uint8_t* p, const uint8_t* e, const Acts& a, uint64_t& kept) {
    uint64_t unnamed = 0;
    return fields(p, e, a, kept, unnamed, [&](const uint8_t* b, const uint8_t* le) {
      uint64_t function = 0;
      if (!fields(b, le, kLineActs, function, unnamed, no_line) || function == 0) return false;
      max_function_ = std::max(max_function_, function);
      if constexpr (kKeepFunctions) p_.lines.function.push_back(static_cast<int32_t>(function - 1));
      return true;
    });
  }

  // `name` gets the last value of the field marked kName.
  template <class OnLine>
  PPROFCORE_INLINE bool fields(const uint8_t* p, const uint8_t* e, const Acts& a, uint64_t& kept, uint64_t& name,
                               OnLine&& on_line) {
    // In locals: stores through `kept` could alias the members.
    uint64_t keep = kept, named = name, max_code = max_code_;
    while (p < e) {
      const uint8_t act = a.at[*p++];
      uint64_t v;
      if (act == kVarint) {  // not kept: skipped (addresses take several bytes)
        if (!skip_varint(p, e)) return false;
      } else if (act & kVarint) {
        if (!varint(p, e, v)) return false;
        const uint64_t as_code = (act & kCode) ? v : 0;
        max_code = as_code > max_code ? as_code : max_code;
        keep = (act & kKeep) ? v : keep;
        named = (act & kName) ? v : named;
      } else if (act == kLine) {
        if (!varint(p, e, v) || v > static_cast<uint64_t>(e - p) || !on_line(p, p + v)) return false;
        p += v;
      } else {
        return false;
      }
    }
    kept = keep;
    name = named;
    max_code_ = max_code;
    return true;
  }

  // The rules decode() applies once everything is read.
  bool finish() {
    if (s_.strings.empty() || max_code_ >= s_.strings.size() || max_code_ > kMaxCode) return false;
    if (!s_.samples.empty() && p_.sample_type_type.empty()) return false;
    if (max_function_ > n_functions_) return false;
    s_.locations.index_dense(n_locations_);
    return true;
  }

  Scan& s_;
  Profile& p_;
  uint64_t max_code_ = 0, max_function_ = 0;
  uint64_t n_mappings_ = 0, n_locations_ = 0, n_functions_ = 0;
};

}  // namespace

namespace {

template <bool kKeepFunctions>
bool lean_tables(const uint8_t* data, size_t n, Scan& out) {
  Profile& p = out.tables;
  p.sample_type_type.clear();
  p.sample_type_unit.clear();
  p.time_nanos = p.duration_nanos = 0;
  p.default_sample_type = 0;
  p.strings.clear();  // the strings are out.strings: views, no copies
  out.strings.clear();
  out.samples.clear();
  if constexpr (kKeepFunctions) {
    p.functions.name.clear();
    p.lines.function.clear();
    p.locations.line_offsets.assign(1, 0);
  }
  if (n == 0) return false;
  return LeanTables<kKeepFunctions>(out).run(data, data + n);
}

}  // namespace

bool scan_label_tables(const uint8_t* data, size_t n, Scan& out) { return lean_tables<false>(data, n, out); }

bool scan_function_tables(const uint8_t* data, size_t n, Scan& out) { return lean_tables<true>(data, n, out); }

}  // namespace pprofcore
