// profile: equality, invariant checks and memory accounting of the columnar model.
#include "pprofcore/profile.hpp"

#include <string>

#include "pprofcore/errors.hpp"

namespace pprofcore {

// Counts used elements: reserved-but-untouched capacity is never resident.
template <class T>
static size_t bytes_of(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

size_t Profile::memory_bytes() const {
  size_t n = bytes_of(values) + bytes_of(stack_offsets) + bytes_of(stack_locations) + bytes_of(label_offsets);
  n += bytes_of(labels.key) + bytes_of(labels.str) + bytes_of(labels.num) + bytes_of(labels.num_unit);
  n += bytes_of(locations.id) + bytes_of(locations.mapping) + bytes_of(locations.address) +
       bytes_of(locations.is_folded) + bytes_of(locations.line_offsets);
  n += bytes_of(lines.function) + bytes_of(lines.line) + bytes_of(lines.column);
  n += bytes_of(functions.id) + bytes_of(functions.name) + bytes_of(functions.system_name) +
       bytes_of(functions.filename) + bytes_of(functions.start_line);
  n += bytes_of(mappings.id) * 4 + bytes_of(mappings.filename) * 2 + bytes_of(mappings.has_functions) * 4;
  n += strings.data.size() + bytes_of(strings.offsets);
  return n;
}

bool operator==(const Profile& a, const Profile& b) {
  return a.sample_type_type == b.sample_type_type && a.sample_type_unit == b.sample_type_unit &&
         a.has_period_type == b.has_period_type && a.period_type_type == b.period_type_type &&
         a.period_type_unit == b.period_type_unit && a.period == b.period && a.time_nanos == b.time_nanos &&
         a.duration_nanos == b.duration_nanos && a.comments == b.comments && a.drop_frames == b.drop_frames &&
         a.keep_frames == b.keep_frames && a.default_sample_type == b.default_sample_type &&
         a.doc_url == b.doc_url && a.values == b.values && a.stack_offsets == b.stack_offsets &&
         a.stack_locations == b.stack_locations && a.label_offsets == b.label_offsets &&
         a.labels.key == b.labels.key && a.labels.str == b.labels.str && a.labels.num == b.labels.num &&
         a.labels.num_unit == b.labels.num_unit && a.locations.id == b.locations.id &&
         a.locations.mapping == b.locations.mapping && a.locations.address == b.locations.address &&
         a.locations.is_folded == b.locations.is_folded && a.locations.line_offsets == b.locations.line_offsets &&
         a.lines.function == b.lines.function && a.lines.line == b.lines.line && a.lines.column == b.lines.column &&
         a.functions.id == b.functions.id && a.functions.name == b.functions.name &&
         a.functions.system_name == b.functions.system_name && a.functions.filename == b.functions.filename &&
         a.functions.start_line == b.functions.start_line && a.mappings.id == b.mappings.id &&
         a.mappings.memory_start == b.mappings.memory_start && a.mappings.memory_limit == b.mappings.memory_limit &&
         a.mappings.file_offset == b.mappings.file_offset && a.mappings.filename == b.mappings.filename &&
         a.mappings.build_id == b.mappings.build_id && a.mappings.has_functions == b.mappings.has_functions &&
         a.mappings.has_filenames == b.mappings.has_filenames &&
         a.mappings.has_line_numbers == b.mappings.has_line_numbers &&
         a.mappings.has_inline_frames == b.mappings.has_inline_frames && a.strings == b.strings;
}

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw ProfileError("profile invariant violated: " + what);
}

void check_offsets(const std::vector<int64_t>& off, size_t rows, size_t target, const char* name) {
  require(off.size() == rows + 1, std::string(name) + " has wrong length");
  require(off[0] == 0 && static_cast<size_t>(off.back()) == target, std::string(name) + " does not span its table");
  for (size_t i = 0; i + 1 < off.size(); ++i) require(off[i] <= off[i + 1], std::string(name) + " not monotone");
}

void check_rows(const std::vector<int32_t>& col, size_t rows, bool allow_none, const char* name) {
  for (int32_t r : col)
    require((allow_none && r == -1) || (r >= 0 && static_cast<size_t>(r) < rows), std::string(name) + " out of range");
}

}  // namespace

void check_invariants(const Profile& p) {
  const size_t ns = p.num_samples(), nt = p.num_types(), nstr = p.strings.size();
  require(nstr >= 1 && p.strings[0].empty(), "string table must start with \"\"");
  require(p.sample_type_unit.size() == nt, "sample type columns differ in length");
  require(p.values.size() == ns * nt, "values is not n_samples x n_types");
  check_offsets(p.stack_offsets, ns, p.stack_locations.size(), "stack_offsets");
  check_offsets(p.label_offsets, ns, p.labels.size(), "label_offsets");
  check_offsets(p.locations.line_offsets, p.locations.size(), p.lines.size(), "line_offsets");
  check_rows(p.stack_locations, p.locations.size(), false, "stack_locations");
  check_rows(p.locations.mapping, p.mappings.size(), true, "locations.mapping");
  check_rows(p.lines.function, p.functions.size(), false, "lines.function");
  auto codes = [&](const std::vector<int32_t>& col, bool allow_none, const char* name) {
    check_rows(col, nstr, allow_none, name);
  };
  codes(p.sample_type_type, false, "sample_type.type");
  codes(p.sample_type_unit, false, "sample_type.unit");
  codes(p.labels.key, false, "labels.key");
  codes(p.labels.str, true, "labels.str");
  codes(p.labels.num_unit, false, "labels.num_unit");
  codes(p.functions.name, false, "functions.name");
  codes(p.functions.system_name, false, "functions.system_name");
  codes(p.functions.filename, false, "functions.filename");
  codes(p.mappings.filename, false, "mappings.filename");
  codes(p.mappings.build_id, false, "mappings.build_id");
  codes(p.comments, false, "comments");
  for (int32_t c : {p.period_type_type, p.period_type_unit, p.drop_frames, p.keep_frames, p.default_sample_type,
                    p.doc_url})
    require(c >= 0 && static_cast<size_t>(c) < nstr, "header string code out of range");
}

}  // namespace pprofcore
