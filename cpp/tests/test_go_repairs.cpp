// C++ unit tests of go_repairs: the type-parameter rule, function merging, and
// truncated stacks completed from a sibling (checked with check_invariants).
#include "check.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/go_repairs.hpp"

using namespace pprofcore;

// One function per location, `n` of them named f0..f{n-1} (f0 the root), and
// the given samples as root-first location rows with count values.
static Profile chain_profile(int n, const std::vector<std::vector<int32_t>>& root_first,
                             const std::vector<std::string>& names = {}) {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  for (int i = 0; i < n; ++i) {
    const std::string name = names.empty() ? "f" + std::to_string(i) : names[static_cast<size_t>(i)];
    p.functions.id.push_back(static_cast<uint64_t>(i + 1));
    p.functions.name.push_back(s.intern(name));
    p.functions.system_name.push_back(p.functions.name.back());
    p.functions.filename.push_back(s.intern("main.go"));
    p.functions.start_line.push_back(names.empty() ? i : 7);
    check::add_location(p, static_cast<uint64_t>(i + 1), -1, 0, i, i);
  }
  for (const auto& stack : root_first) {
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) p.stack_locations.push_back(*it);
    p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
    p.label_offsets.push_back(0);
    p.values.push_back(1);
  }
  p.strings = s.take();
  return p;
}

static std::vector<int32_t> range(int32_t from, int32_t to) {
  std::vector<int32_t> out;
  for (int32_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

TEST(type_param_names) {
  EXPECT(drop_go_type_params("main.Map[go.shape.int]") == "main.Map");
  EXPECT(drop_go_type_params("main.(*List[...]).Push") == "main.(*List).Push");
  EXPECT(drop_go_type_params("x.F[go.shape.[]uint8,go.shape.struct { a [2]int }]") == "x.F");
  EXPECT(drop_go_type_params("std::vector<int>::operator[]") == "std::vector<int>::operator[]");
  EXPECT(drop_go_type_params("[abc]") == "[abc]");  // no name before it
  EXPECT(drop_go_type_params("open[go.shape") == "open[go.shape");
}

TEST(type_params_merge_functions) {
  Profile p = chain_profile(3, {{0, 1}, {0, 2}}, {"main.main", "main.Map[go.shape.int]", "main.Map[...]"});
  TypeParamsReport r;
  Profile q = drop_type_params(p, r);
  check_invariants(q);
  EXPECT(r.functions_renamed == 2);
  EXPECT(r.functions_merged == 1);
  EXPECT(q.functions.size() == 2);
  EXPECT(q.lines.function[1] == q.lines.function[2]);
  EXPECT(q.str(q.functions.name[1]) == "main.Map");
  TypeParamsReport none;
  EXPECT(drop_type_params(q, none) == q && none.functions_renamed == 0);
}

TEST(truncated_stack_gets_the_root_part) {
  // f0..f69 is one deep chain; the runtime kept its leaf-most 64 frames (f6..f69).
  // A sibling f0..f20 knows what lies above f6..f13 (the window).
  Profile p = chain_profile(70, {range(6, 70), range(0, 21)});
  TruncatedStacksReport r;
  Profile q = repair_truncated_stacks(p, 0, 8, r);
  check_invariants(q);
  EXPECT(r.depth == 64 && r.truncated == 1 && r.repaired == 1 && r.frames_added == 6 && r.ambiguous == 0);
  EXPECT(q.stack_offsets[1] == 70);
  EXPECT(q.stack_locations[69] == 0);  // the root
  EXPECT(q.values == p.values);
  TruncatedStacksReport again;
  Profile same = repair_truncated_stacks(q, 64, 8, again);
  EXPECT(again.truncated == 0 && same == q);
  EXPECT_THROWS(repair_truncated_stacks(p, 0, 0, r), ProfileError, "window");
}

int main() { return check::run_all(); }
