// profile: the columnar data model of one pprof profile (see docs/architecture.md).
// Every cross-reference is a dense row index; original pprof ids are kept as
// columns; every string is an int32 code into `strings`. A Profile is immutable
// once built (decoders and transforms build new ones). No I/O and no wire format here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/strings.hpp"

namespace pprofcore {

// Column visitors: each table lists its columns once, in a static
// visit_columns(f, tables...) that calls f(name, table.column...) for every
// column, over one table or several in step (equality compares two). Equality,
// memory accounting, invariant checks and the bindings' NumPy views all walk
// that list, so a new pprof field is one line in one place.
#define PPROFCORE_FOR_EACH_COLUMN     \
  template <class F>                  \
  void for_each_column(F&& f) {       \
    visit_columns(f, *this);          \
  }                                   \
  template <class F>                  \
  void for_each_column(F&& f) const { \
    visit_columns(f, *this);          \
  }

struct Labels {  // one row per sample label, grouped by sample via Samples::label_offsets
  std::vector<int32_t> key;
  std::vector<int32_t> str;  // -1 = numeric label (no string value)
  std::vector<int64_t> num;
  std::vector<int32_t> num_unit;  // 0 = no unit
  size_t size() const { return key.size(); }
  // Appends one label row (str -1 for a numeric label).
  void push_back(int32_t k, int32_t s, int64_t n, int32_t unit) {
    key.push_back(k);
    str.push_back(s);
    num.push_back(n);
    num_unit.push_back(unit);
  }
  template <class F, class... T>
  static void visit_columns(F&& f, T&... t) {
    f("key", t.key...);
    f("str", t.str...);
    f("num", t.num...);
    f("num_unit", t.num_unit...);
  }
  PPROFCORE_FOR_EACH_COLUMN
};

struct Locations {
  std::vector<uint64_t> id;
  std::vector<int32_t> mapping;  // row into mappings, -1 = none
  std::vector<uint64_t> address;
  std::vector<uint8_t> is_folded;
  std::vector<int64_t> line_offsets{0};  // size()+1 entries into Lines
  size_t size() const { return id.size(); }
  template <class F, class... T>
  static void visit_columns(F&& f, T&... t) {
    f("id", t.id...);
    f("mapping", t.mapping...);
    f("address", t.address...);
    f("is_folded", t.is_folded...);
    f("line_offsets", t.line_offsets...);
  }
  PPROFCORE_FOR_EACH_COLUMN
};

struct Lines {                    // leaf (innermost inline frame) first within a location, as on the wire
  std::vector<int32_t> function;  // row into functions
  std::vector<int64_t> line;
  std::vector<int64_t> column;
  size_t size() const { return function.size(); }
  template <class F, class... T>
  static void visit_columns(F&& f, T&... t) {
    f("function", t.function...);
    f("line", t.line...);
    f("column", t.column...);
  }
  PPROFCORE_FOR_EACH_COLUMN
};

struct Functions {
  std::vector<uint64_t> id;
  std::vector<int32_t> name;
  std::vector<int32_t> system_name;
  std::vector<int32_t> filename;
  std::vector<int64_t> start_line;
  size_t size() const { return id.size(); }
  template <class F, class... T>
  static void visit_columns(F&& f, T&... t) {
    f("id", t.id...);
    f("name", t.name...);
    f("system_name", t.system_name...);
    f("filename", t.filename...);
    f("start_line", t.start_line...);
  }
  PPROFCORE_FOR_EACH_COLUMN
};

struct Mappings {
  std::vector<uint64_t> id;
  std::vector<uint64_t> memory_start;
  std::vector<uint64_t> memory_limit;
  std::vector<uint64_t> file_offset;
  std::vector<int32_t> filename;
  std::vector<int32_t> build_id;
  std::vector<uint8_t> has_functions;
  std::vector<uint8_t> has_filenames;
  std::vector<uint8_t> has_line_numbers;
  std::vector<uint8_t> has_inline_frames;
  size_t size() const { return id.size(); }
  template <class F, class... T>
  static void visit_columns(F&& f, T&... t) {
    f("id", t.id...);
    f("memory_start", t.memory_start...);
    f("memory_limit", t.memory_limit...);
    f("file_offset", t.file_offset...);
    f("filename", t.filename...);
    f("build_id", t.build_id...);
    f("has_functions", t.has_functions...);
    f("has_filenames", t.has_filenames...);
    f("has_line_numbers", t.has_line_numbers...);
    f("has_inline_frames", t.has_inline_frames...);
  }
  PPROFCORE_FOR_EACH_COLUMN
};

struct Profile {
  // header
  std::vector<int32_t> sample_type_type;  // codes, one per value column
  std::vector<int32_t> sample_type_unit;
  bool has_period_type = false;  // distinguishes "absent" from ("", "")
  int32_t period_type_type = 0;
  int32_t period_type_unit = 0;
  int64_t period = 0;
  int64_t time_nanos = 0;
  int64_t duration_nanos = 0;
  std::vector<int32_t> comments;
  int32_t drop_frames = 0;
  int32_t keep_frames = 0;
  int32_t default_sample_type = 0;
  int32_t doc_url = 0;

  // samples
  std::vector<int64_t> values;            // n_samples x n_types, row-major
  std::vector<int64_t> stack_offsets{0};  // n_samples + 1
  std::vector<int32_t> stack_locations;   // location rows, leaf first
  std::vector<int64_t> label_offsets{0};  // n_samples + 1

  Labels labels;
  Locations locations;
  Lines lines;
  Functions functions;
  Mappings mappings;
  StringTable strings;

  size_t num_samples() const { return stack_offsets.size() - 1; }
  size_t num_types() const { return sample_type_type.size(); }
  std::string_view str(int32_t code) const { return strings[static_cast<size_t>(code)]; }

  // Approximate heap bytes held by the columns (for reporting, not accounting).
  size_t memory_bytes() const;

  // Every column as f(table, column, vector...), table "" for the sample
  // columns; `values` (n_samples x n_types, row-major) and the string table's
  // ("strings", "offsets") included. The string bytes and the header scalars are
  // not columns (visit_scalars has the scalars).
  template <class F, class... P>
  static void visit_columns(F&& f, P&... p) {
    f("", "values", p.values...), f("", "stack_offsets", p.stack_offsets...);
    f("", "stack_locations", p.stack_locations...), f("", "label_offsets", p.label_offsets...);
    f("sample_type", "type", p.sample_type_type...), f("sample_type", "unit", p.sample_type_unit...);
    f("", "comments", p.comments...);
    Labels::visit_columns([&f](const char* c, auto&... v) { f("labels", c, v...); }, p.labels...);
    Locations::visit_columns([&f](const char* c, auto&... v) { f("locations", c, v...); }, p.locations...);
    Lines::visit_columns([&f](const char* c, auto&... v) { f("lines", c, v...); }, p.lines...);
    Functions::visit_columns([&f](const char* c, auto&... v) { f("functions", c, v...); }, p.functions...);
    Mappings::visit_columns([&f](const char* c, auto&... v) { f("mappings", c, v...); }, p.mappings...);
    f("strings", "offsets", p.strings.offsets...);
  }
  PPROFCORE_FOR_EACH_COLUMN

  // The header scalars as f(name, value...).
  template <class F, class... P>
  static void visit_scalars(F&& f, P&... p) {
    f("has_period_type", p.has_period_type...), f("period_type.type", p.period_type_type...);
    f("period_type.unit", p.period_type_unit...), f("period", p.period...), f("time_nanos", p.time_nanos...);
    f("duration_nanos", p.duration_nanos...), f("drop_frames", p.drop_frames...);
    f("keep_frames", p.keep_frames...), f("default_sample_type", p.default_sample_type...);
    f("doc_url", p.doc_url...);
  }
};

#undef PPROFCORE_FOR_EACH_COLUMN

// Empties every column and resets the header to a new Profile's, keeping the
// columns' capacity: a batch decoder refills a spent profile's memory instead
// of allocating some forty columns for each file.
void clear_keeping_capacity(Profile& p);

// Exact, column-by-column equality (same rows in the same order, same string table).
bool operator==(const Profile& a, const Profile& b);
inline bool operator!=(const Profile& a, const Profile& b) { return !(a == b); }

// Checks the invariants a builder must establish (offset arrays monotone, every
// row index and string code in range, value count matches). Throws ProfileError.
void check_invariants(const Profile& p);

}  // namespace pprofcore
