// C++ unit tests of goroutine_dump: one dump with each kind of line, the labels,
// inlined frames sharing a location, and malformed lines named by number.
#include <string>

#include "check.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"

using namespace pprofcore;

static Profile load_text(const std::string& s) { return decode(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

static std::string label(const Profile& p, size_t sample, const std::string& key) {
  for (int64_t j = p.label_offsets[sample]; j < p.label_offsets[sample + 1]; ++j) {
    if (p.str(p.labels.key[j]) != key) continue;
    if (p.labels.str[j] >= 0) return std::string(p.str(p.labels.str[j]));
    return std::to_string(p.labels.num[j]) + std::string(p.str(p.labels.num_unit[j]));
  }
  return "(none)";
}

TEST(goroutine_dump_samples_and_labels) {
  Profile p = load_text(
      "panic: boom\n\n"
      "goroutine 5 [chan receive, 7 minutes, locked to thread]:\n"
      "main.inner(...)\n\t/a/m.go:3\n"
      "main.outer(0x1?)\n\t/a/m.go:9 +0x1d\n"
      "created by main.main in goroutine 1\n\t/a/m.go:20 +0x33\n\n"
      "goroutine 1 [running]:\nmain.main()\n\t/a/m.go:21 +0x40\n");
  check_invariants(p);
  EXPECT(p.num_samples() == 2 && p.values[0] == 1 && p.values[1] == 1);
  EXPECT(p.str(p.sample_type_type[0]) == "goroutine" && p.str(p.sample_type_unit[0]) == "count");
  EXPECT(p.comments.size() == 1 && p.str(p.comments[0]) == "panic: boom");
  EXPECT(label(p, 0, "state") == "chan receive" && label(p, 0, "wait") == "7minutes");
  EXPECT(label(p, 0, "goid") == "5" && label(p, 0, "locked_to_thread") == "true");
  EXPECT(label(p, 0, "created_by") == "main.main" && label(p, 0, "parent_goid") == "1");
  EXPECT(label(p, 1, "created_by") == "(none)" && label(p, 1, "state") == "running");
  // main.inner is inlined into main.outer: one location with two lines, leaf first.
  EXPECT(p.stack_offsets[1] == 1);
  int32_t loc = p.stack_locations[0];
  EXPECT(p.locations.line_offsets[loc + 1] - p.locations.line_offsets[loc] == 2);
  EXPECT(p.str(p.functions.name[p.lines.function[p.locations.line_offsets[loc]]]) == "main.inner");
  EXPECT(p.lines.line[p.locations.line_offsets[loc]] == 3 && p.locations.mapping[loc] == -1);
}

TEST(goroutine_dump_errors_name_the_line) {
  std::string field;
  try {
    load_text("goroutine 1 [running]:\nmain.main()\n\t/a/m.go:x +0x1\n");
  } catch (const DecodeError& e) {
    field = e.field();
  }
  EXPECT(field == "line 3");
  EXPECT_THROWS(load_text("goroutine 1 [running]:\nmain.main()\n"), DecodeError, "truncated");
  EXPECT_THROWS(load_text("goroutine 1 [running:\n"), DecodeError, "malformed goroutine header");
}

int main() { return check::run_all(); }
