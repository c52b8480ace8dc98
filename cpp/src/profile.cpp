// profile: equality, invariant checks and memory accounting of the columnar model.
#include "pprofcore/profile.hpp"

#include <string>
#include <string_view>

#include "pprofcore/errors.hpp"

namespace pprofcore {

size_t Profile::memory_bytes() const {
  // Counts used elements: reserved-but-untouched capacity is never resident.
  size_t n = strings.data.size();
  for_each_column([&n](const char*, const char*, const auto& col) { n += col.size() * sizeof(col[0]); });
  return n;
}

void clear_keeping_capacity(Profile& p) {
  // A new Profile's columns are not all empty (offsets start with a 0): each
  // takes the fresh one's contents, which assign() writes into its capacity.
  const Profile fresh;
  Profile::visit_columns([](const char*, const char*, auto& col, const auto& f) { col.assign(f.begin(), f.end()); }, p,
                         fresh);
  p.strings.data.clear();
  Profile::visit_scalars([](const char*, auto& x, const auto& y) { x = y; }, p, fresh);
}

bool operator==(const Profile& a, const Profile& b) {
  bool same = a.strings.data == b.strings.data;
  Profile::visit_columns([&same](const char*, const char*, const auto& x, const auto& y) { same = same && x == y; }, a,
                         b);
  Profile::visit_scalars([&same](const char*, auto x, auto y) { same = same && x == y; }, a, b);
  return same;
}

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw ProfileError("profile invariant violated: " + what);
}

// The message is built only on failure: these run once per row of big columns.
void require(bool ok, const char* name, const char* what) {
  if (!ok) throw ProfileError(std::string("profile invariant violated: ") + name + what);
}

void check_offsets(const std::vector<int64_t>& off, size_t rows, size_t target, const char* name) {
  require(off.size() == rows + 1, name, " has wrong length");
  require(off[0] == 0 && static_cast<size_t>(off.back()) == target, name, " does not span its table");
  bool monotone = true;
  for (size_t i = 0; i + 1 < off.size(); ++i) monotone &= off[i] <= off[i + 1];
  require(monotone, name, " not monotone");
}

void check_rows(const std::vector<int32_t>& col, size_t rows, bool allow_none, const char* name) {
  bool ok = true;
  for (int32_t r : col) ok &= (allow_none && r == -1) || (r >= 0 && static_cast<size_t>(r) < rows);
  require(ok, name, " out of range");
}

// Every column of a table has one entry per row (line_offsets one more).
template <class Table>
void check_table_lengths(const Table& t, const char* table) {
  t.for_each_column([&](const char* column, const auto& col) {
    const size_t want = std::string_view(column) == "line_offsets" ? t.size() + 1 : t.size();
    require(col.size() == want, std::string(table) + "." + column + " has wrong length");
  });
}

}  // namespace

void check_invariants(const Profile& p) {
  const size_t ns = p.num_samples(), nt = p.num_types(), nstr = p.strings.size();
  check_table_lengths(p.labels, "labels");
  check_table_lengths(p.locations, "locations");
  check_table_lengths(p.lines, "lines");
  check_table_lengths(p.functions, "functions");
  check_table_lengths(p.mappings, "mappings");
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
  for (int32_t c :
       {p.period_type_type, p.period_type_unit, p.drop_frames, p.keep_frames, p.default_sample_type, p.doc_url})
    require(c >= 0 && static_cast<size_t>(c) < nstr, "header string code out of range");
}

}  // namespace pprofcore
