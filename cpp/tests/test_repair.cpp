// C++ unit tests of the decoder's repair mode (a RepairReport passed to decode): each repair
// is made and counted, valid input is untouched, unrepairable input still throws.
#include "check.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/wire.hpp"

using namespace pprofcore;

static Profile base() {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  check::one_mapping(p, 0x1000, 0x2000, s.intern("/bin/app"), 1);
  p.functions.id = {1, 2};
  p.functions.name = {s.intern("main"), s.intern("work")};
  p.functions.system_name = {0, 0};
  p.functions.filename = {0, 0};
  p.functions.start_line = {0, 0};
  p.locations.id = {1, 2};
  p.locations.mapping = {0, 0};
  p.locations.address = {0x1100, 0x1200};
  p.locations.is_folded = {0, 0};
  p.locations.line_offsets = {0, 1, 2};
  p.lines.function = {0, 1};
  p.lines.line = {3, 4};
  p.lines.column = {0, 0};
  p.values = {5, 7};
  p.stack_offsets = {0, 2, 3};
  p.stack_locations = {1, 0, 1};
  p.label_offsets = {0, 0, 0};
  p.strings = s.take();
  return p;
}

static Profile repair(const std::string& bytes, RepairReport* r) {
  Profile p = decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), DecodeOptions{}, r);
  check_invariants(p);
  std::string again = encode_raw(p);
  EXPECT(decode_raw(reinterpret_cast<const uint8_t*>(again.data()), again.size()) == p);
  return p;
}

static std::string with_sample(std::string bytes, std::vector<uint64_t> locs, std::vector<int64_t> values) {
  wire::Writer w;
  size_t at = w.begin_message(2);
  for (uint64_t id : locs) w.uint_field(1, id);
  for (int64_t v : values) {
    w.tag(2, wire::kVarint);
    w.varint(static_cast<uint64_t>(v));
  }
  w.end_message(at);
  return bytes + w.buffer();
}

TEST(valid_input_untouched) {
  RepairReport r;
  r.zero_ids = 99;  // reset by decode
  Profile p = repair(encode_raw(base()), &r);
  EXPECT(p == base());
  EXPECT(r.total() == 0 && r.zero_ids == 0);
}

TEST(dangling_location_removed_from_stack) {
  RepairReport r;
  std::string b = with_sample(encode_raw(base()), {2, 99, 1}, {11});
  EXPECT_THROWS(decode_raw(reinterpret_cast<const uint8_t*>(b.data()), b.size()), DecodeError,
                "dangling reference to location id 99");
  Profile p = repair(b, &r);
  EXPECT(r.dangling_location_refs == 1 && r.total() == 1);
  EXPECT(p.num_samples() == 3);
  EXPECT((std::vector<int32_t>(p.stack_locations.begin() + 3, p.stack_locations.end()) == std::vector<int32_t>{1, 0}));
}

TEST(value_count_mismatch_dropped) {
  RepairReport r;
  std::string b = with_sample(encode_raw(base()), {1}, {1, 2});
  Profile p = repair(b, &r);
  EXPECT(r.value_count_mismatch == 1 && r.dropped_values_sum == 3);
  EXPECT(p == base());
}

TEST(zero_and_duplicate_ids_renumbered) {
  Profile q = base();
  q.functions.id = {2, 2};  // lines of function row 1 now point at row 0
  q.mappings.id = {0};      // locations' mapping becomes "none"
  RepairReport r;
  Profile p = repair(encode_raw(q), &r);
  EXPECT(r.duplicate_ids == 1 && r.zero_ids == 1 && r.total() == 2);
  EXPECT((p.functions.id == std::vector<uint64_t>{2, 3}));
  EXPECT((p.lines.function == std::vector<int32_t>{0, 0}));
  EXPECT((p.locations.mapping == std::vector<int32_t>{-1, -1}));
  EXPECT(p.mappings.id[0] == 1);
}

TEST(missing_functions_stubbed) {
  Profile q = base();
  q.functions.id = {1, 0};  // line -> row 1 encodes as function id 0
  RepairReport r;
  Profile p = repair(encode_raw(q), &r);
  EXPECT(r.zero_ids == 1 && r.missing_function_refs == 1 && r.stub_functions == 1);
  EXPECT(p.functions.size() == 3);
  EXPECT(p.str(p.functions.name[p.lines.function[1]]) == "[missing function]");
}

TEST(string_repairs) {
  RepairReport r;
  // string_table = ["x"]: the first string becomes "".
  const uint8_t first[] = {0x32, 0x01, 'x'};
  Profile p = decode_raw(first, sizeof first, {}, &r);
  EXPECT(r.bad_first_string == 1 && r.total() == 1 && p.strings.size() == 1 && p.str(0).empty());
  // A function named by string 9 of a 5-string table: a placeholder.
  Profile q = base();
  q.functions.name[1] = 9;
  p = repair(encode_raw(q), &r);
  EXPECT(r.out_of_range_string_refs == 1 && r.placeholder_strings == 1);
  EXPECT(p.str(p.functions.name[1]) == "[missing string 9]");
}

TEST(unrepairable_still_throws) {
  RepairReport r;
  const uint8_t huge_index[] = {0x0a, 0x06, 0x08, 0x80, 0x80, 0x80, 0x80, 0x08, 0x32, 0x00};
  EXPECT_THROWS(decode_raw(huge_index, sizeof huge_index, {}, &r), DecodeError, "out of range");
  const uint8_t trunc[] = {0x12, 0x05, 0x08};
  EXPECT_THROWS(decode_raw(trunc, sizeof trunc, {}, &r), DecodeError, "runs past the end");
}

int main() { return check::run_all(); }
