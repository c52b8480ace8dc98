// C++ unit tests of apply_symbols: resolved frames replace the lines of the
// given locations only, functions are shared between frames with the same
// identity, existing strings are reused, flags are OR'ed, bad input throws;
// with_main_mapping names the main binary and gives pprof's placeholder mapping;
// the demangling step's candidates, renamed functions and mapping files.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/symbolize.hpp"

using namespace pprofcore;

// Three address-only locations in one mapping, plus one location that already
// has a line (function "old"); one sample over all four.
static Profile make() {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  check::one_mapping(p, 0x1000, 0x2000, s.intern("/bin/app"));
  p.functions.id = {7};
  p.functions.name = {s.intern("old")};
  p.functions.system_name = {0};
  p.functions.filename = {0};
  p.functions.start_line = {0};
  for (int i = 0; i < 4; ++i) {
    p.locations.id.push_back(static_cast<uint64_t>(i + 1));
    p.locations.mapping.push_back(0);
    p.locations.address.push_back(static_cast<uint64_t>(0x1100 + i));
    p.locations.is_folded.push_back(i == 1);
    if (i == 3) {
      p.lines.function.push_back(0);
      p.lines.line.push_back(9);
      p.lines.column.push_back(0);
    }
    p.locations.line_offsets.push_back(static_cast<int64_t>(p.lines.size()));
  }
  p.values = {1};
  p.stack_locations = {0, 1, 2, 3};
  p.stack_offsets = {0, 4};
  p.label_offsets = {0, 0};
  p.strings = s.take();
  return p;
}

// Location 0: inline frames mix <- spin; location 1: spin only.
static ResolvedFrames frames() {
  ResolvedFrames r;
  r.strings = {"mix", "spin", "a.c", "old", "_Z3mixv"};
  r.location = {1, 0};
  r.frame_offsets = {0, 1, 3};
  r.name = {1, 0, 1};
  r.system_name = {1, 4, 1};
  r.filename = {2, 2, 2};
  r.line = {6, 3, 6};
  r.column = {0, 0, 0};
  r.start_line = {0, 0, 0};
  r.mapping_flags = {kHasFunctions | kHasInlineFrames};
  return r;
}

TEST(replaces_lines_of_resolved_locations_only) {
  const Profile p = make();
  const Profile q = apply_symbols(p, frames());
  check_invariants(q);
  EXPECT((q.locations.line_offsets == std::vector<int64_t>{0, 2, 3, 3, 4}));
  EXPECT(q.str(q.functions.name[static_cast<size_t>(q.lines.function[0])]) == "mix");
  EXPECT(q.str(q.functions.system_name[static_cast<size_t>(q.lines.function[0])]) == "_Z3mixv");
  EXPECT(q.str(q.functions.name[static_cast<size_t>(q.lines.function[1])]) == "spin");
  EXPECT(q.lines.line[0] == 3 && q.lines.line[1] == 6 && q.lines.line[2] == 6);
  EXPECT(q.lines.function[3] == 0 && q.lines.line[3] == 9);  // untouched location keeps its line
  EXPECT(q.locations.is_folded[1] == 0);                     // pprof clears is_folded
  EXPECT(q.values == p.values && q.stack_locations == p.stack_locations);
}

TEST(functions_shared_and_strings_reused) {
  const Profile p = make();
  const Profile q = apply_symbols(p, frames());
  // "spin" twice with the same identity -> one function; "mix" one more
  EXPECT(q.functions.size() == 3);
  EXPECT(q.lines.function[1] == q.lines.function[2]);
  EXPECT(q.functions.id[1] == 8 && q.functions.id[2] == 9);  // after the largest existing id
  size_t olds = 0;
  for (size_t i = 0; i < q.strings.size(); ++i) olds += q.strings[i] == "old";
  EXPECT(olds == 1);
}

TEST(mapping_flags_are_ored) {
  const Profile q = apply_symbols(make(), frames());
  EXPECT(q.mappings.has_functions[0] == 1 && q.mappings.has_inline_frames[0] == 1);
  EXPECT(q.mappings.has_filenames[0] == 0 && q.mappings.has_line_numbers[0] == 0);
}

TEST(bad_input_throws) {
  const Profile p = make();
  ResolvedFrames r = frames();
  r.location = {1, 9};
  EXPECT_THROWS(apply_symbols(p, r), ProfileError, "out of range");
  r = frames();
  r.location = {1, 1};
  EXPECT_THROWS(apply_symbols(p, r), ProfileError, "given twice");
  r = frames();
  r.name[0] = 99;
  EXPECT_THROWS(apply_symbols(p, r), ProfileError, "string code");
  r = frames();
  r.frame_offsets = {0, 3};
  EXPECT_THROWS(apply_symbols(p, r), ProfileError, "frame_offsets");
  r = frames();
  r.line.pop_back();
  EXPECT_THROWS(apply_symbols(p, r), ProfileError, "differ in length");
  r = frames();
  r.mapping_flags = {1, 2};
  EXPECT_THROWS(apply_symbols(p, r), ProfileError, "mapping_flags");
}

TEST(main_mapping_names_the_binary) {
  const Profile q = with_main_mapping(make(), "/opt/moved/app");
  EXPECT(q.mappings.size() == 1 && q.str(q.mappings.filename[0]) == "/opt/moved/app");
  EXPECT(q.locations.mapping == make().locations.mapping);
  check_invariants(q);
  EXPECT(with_main_mapping(make(), "") == make());
}

TEST(main_mapping_placeholder_for_a_profile_without_mappings) {
  Profile p = make();
  p.mappings = Mappings{};
  std::fill(p.locations.mapping.begin(), p.locations.mapping.end(), -1);
  const Profile q = with_main_mapping(p, "");
  EXPECT(q.mappings.size() == 1 && q.mappings.id[0] == 1 && q.mappings.filename[0] == 0);
  EXPECT(q.mappings.memory_limit[0] == 0 && q.mappings.has_functions[0] == 0);
  for (int32_t m : q.locations.mapping) EXPECT(m == 0);
  check_invariants(q);
  const Profile r = with_main_mapping(p, "bin");
  EXPECT(r.str(r.mappings.filename[0]) == "bin");
}

// make() with functions named as (name, system name) pairs.
static Profile with_functions(const std::vector<std::pair<std::string, std::string>>& named) {
  Profile p = make();
  StringInterner s;
  for (size_t i = 0; i < p.strings.size(); ++i) s.intern(p.strings[i]);
  p.functions = Functions{};
  for (size_t i = 0; i < named.size(); ++i) {
    p.functions.id.push_back(i + 1);
    p.functions.name.push_back(s.intern(named[i].first));
    p.functions.system_name.push_back(s.intern(named[i].second));
    p.functions.filename.push_back(0);
    p.functions.start_line.push_back(0);
  }
  p.lines.function = {static_cast<int32_t>(named.size() - 1)};
  p.strings = s.take();
  return p;
}

TEST(demangle_candidates_are_the_rows_demangling_may_change) {
  const Profile p = with_functions({{"main.main", "main.main"},
                                    {"_ZN3foo3barEv", "_ZN3foo3barEv"},
                                    {"std::vector<int>::push_back(int)", "std::vector<int>::push_back(int)"},
                                    {"pkg.F[...]", "pkg.F[...]"},
                                    {"", "_ZN1a1bEv"},
                                    {"shown", "_ZN3foo3quxEv"},
                                    {"", ""},
                                    {"runtime.(*mheap).alloc", "runtime.(*mheap).alloc"}});
  EXPECT(demangle_candidates(p, false) == (std::vector<int32_t>{1, 2, 3, 4, 6}));
  EXPECT(demangle_candidates(p, true) == (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
}

TEST(function_names_set_and_strings_reused) {
  const Profile p = with_functions({{"_ZN3foo3barEv", "_ZN3foo3barEv"}, {"foo::bar", "foo::bar"}});
  const size_t n = p.strings.size();
  const Profile q = with_function_names(p, {0}, {"foo::bar"});
  EXPECT(q.functions.name[0] == p.functions.name[1]);  // the existing string's code
  EXPECT(q.functions.system_name == p.functions.system_name && q.strings.size() == n);
  const Profile r = with_function_names(p, {0, 1}, {"new", "new"});
  EXPECT(r.strings.size() == n + 1 && r.functions.name[0] == r.functions.name[1]);
  EXPECT(r.str(r.functions.name[0]) == "new");
  check_invariants(r);
  EXPECT(with_function_names(p, {}, {}) == p);
  EXPECT_THROWS(with_function_names(p, {2}, {"x"}), ProfileError, "out of range");
  EXPECT_THROWS(with_function_names(p, {0}, {}), ProfileError, "differ in length");
}

TEST(mapping_files_set) {
  const Profile p = make();
  const Profile q = with_mapping_files(p, {0}, {""});
  EXPECT(q.mappings.filename[0] == 0 && q.strings.size() == p.strings.size());
  const Profile r = with_mapping_files(p, {0}, {"/opt/new"});
  EXPECT(r.str(r.mappings.filename[0]) == "/opt/new" && r.strings.size() == p.strings.size() + 1);
  check_invariants(r);
  EXPECT_THROWS(with_mapping_files(p, {1}, {"x"}), ProfileError, "out of range");
}

int main() { return check::run_all(); }
