// scan_fuzzer: libFuzzer target for the lean scan (scan.hpp). Whenever the scan
// and its sample walk accept an input, decode_raw() must accept it too and hold
// the same header, tables and samples; the scan may refuse anything (the
// ordinary path then decides). The labels-only walk (scan_labels.hpp) must
// accept exactly what the sample walk accepts, with the same values and each
// wanted key's first label as decoded; the lean pass that keeps function
// names (scan_function_tables) accepts only what scan_tables accepts, keeping
// the same. Anything else (crash, sanitizer report,
// an accepted input that decode_raw refuses or reads differently) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/scan.hpp"
#include "pprofcore/scan_labels.hpp"

using namespace pprofcore;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "scan_fuzzer: %s\n", what);
  std::abort();
}

void same_tables(const Profile& s, const Profile& d) {
  if (s.sample_type_type != d.sample_type_type || s.sample_type_unit != d.sample_type_unit) fail("sample types");
  if (s.has_period_type != d.has_period_type || s.period_type_type != d.period_type_type ||
      s.period_type_unit != d.period_type_unit || s.period != d.period)
    fail("period");
  if (s.time_nanos != d.time_nanos || s.duration_nanos != d.duration_nanos) fail("times");
  if (s.drop_frames != d.drop_frames || s.keep_frames != d.keep_frames ||
      s.default_sample_type != d.default_sample_type || s.doc_url != d.doc_url)
    fail("header codes");
  if (!(s.strings == d.strings)) fail("strings");
  if (s.mappings.id != d.mappings.id || s.mappings.filename != d.mappings.filename) fail("mappings");
  if (s.locations.id != d.locations.id || s.locations.mapping != d.locations.mapping ||
      s.locations.address != d.locations.address || s.locations.line_offsets != d.locations.line_offsets)
    fail("locations");
  if (s.lines.function != d.lines.function || s.lines.line != d.lines.line) fail("lines");
  if (s.functions.id != d.functions.id || s.functions.name != d.functions.name ||
      s.functions.filename != d.functions.filename || s.functions.start_line != d.functions.start_line)
    fail("functions");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Scan scan, lean;  // reused, as the series workers reuse theirs
  // The lean pass that keeps function names by line accepts only what the
  // full pass accepts, and keeps the same names, lines and line offsets.
  const bool lean_ok = scan_function_tables(data, size, lean);
  if (!scan_tables(data, size, scan)) {
    if (lean_ok) fail("the lean function pass accepted what scan_tables refuses");
    return 0;
  }
  if (lean_ok && (lean.tables.functions.name != scan.tables.functions.name ||
                  lean.tables.lines.function != scan.tables.lines.function ||
                  lean.tables.locations.line_offsets != scan.tables.locations.line_offsets ||
                  lean.strings != scan.strings || lean.samples.size() != scan.samples.size()))
    fail("the lean function pass: tables");
  // Every pass keeps the string table as views (Scan::strings); the lean
  // passes leave tables.strings empty, the full pass fills both alike.
  if (scan.strings.size() != scan.tables.strings.size()) fail("Scan::strings: size");
  for (size_t c = 0; c < scan.strings.size(); ++c)
    if (scan.strings[c] != scan.tables.strings[c]) fail("Scan::strings: a string");
  if (lean_ok && lean.tables.strings.size() != 0) fail("the lean function pass copied strings");
  std::vector<int64_t> values, stack_offsets{0};
  std::vector<int32_t> rows;
  const bool walked = for_each_sample(scan, [&](const int64_t* v, const int32_t* r, size_t n) {
    values.insert(values.end(), v, v + scan.tables.num_types());
    rows.insert(rows.end(), r, r + n);
    stack_offsets.push_back(static_cast<int64_t>(rows.size()));
  });
  // The labels-only walk, wanting the keys of string codes 1 to 3, of the last type.
  const size_t n_types = scan.tables.num_types(), ti = n_types ? n_types - 1 : 0;
  std::vector<int32_t> key_of_code(scan.tables.strings.size(), -1);
  for (size_t c = 1; c < key_of_code.size() && c < 4; ++c) key_of_code[c] = static_cast<int32_t>(c - 1);
  std::vector<FirstLabel> firsts(3), got_firsts;
  std::vector<int64_t> got_values;
  std::vector<uint64_t> got_leaves;
  const bool labels_walked =
      for_each_sample_labels(scan, ti, key_of_code, firsts, [&](int64_t v, const FirstLabel* f, uint64_t leaf) {
        got_values.push_back(v);
        got_leaves.push_back(leaf ? static_cast<uint64_t>(scan.locations.row(leaf)) : ~uint64_t(0));
        got_firsts.insert(got_firsts.end(), f, f + 3);
      });
  if (labels_walked != walked) fail("the labels-only walk and the sample walk disagree");
  if (!walked) return 0;
  Profile d;
  try {
    DecodeOptions options;
    options.threads = 1;
    d = decode_raw(data, size, options);
  } catch (const DecodeError& e) {
    std::fprintf(stderr, "decode_raw: %s\n", e.what());
    fail("the scan accepted what decode_raw refuses");
  }
  same_tables(scan.tables, d);
  if (values != d.values || rows != d.stack_locations || stack_offsets != d.stack_offsets) fail("samples");
  for (size_t s = 0; s < d.num_samples(); ++s) {
    if (got_values[s] != d.values[s * n_types + ti]) fail("labels-only walk: values");
    const int64_t b = d.stack_offsets[s];
    if (got_leaves[s] !=
        (b < d.stack_offsets[s + 1] ? static_cast<uint64_t>(d.stack_locations[static_cast<size_t>(b)]) : ~uint64_t(0)))
      fail("labels-only walk: leaf");
    FirstLabel want[3];
    for (int64_t i = d.label_offsets[s]; i < d.label_offsets[s + 1]; ++i) {
      const auto j = static_cast<size_t>(i);
      const int64_t k = d.labels.key[j] - 1;
      if (k < 0 || k > 2 || want[k].kind != FirstLabel::kNone) continue;
      want[k] = d.labels.str[j] >= 0 ? FirstLabel{FirstLabel::kString, d.labels.str[j]}
                                     : FirstLabel{FirstLabel::kNumber, d.labels.num[j]};
    }
    for (size_t k = 0; k < 3; ++k)
      if (got_firsts[s * 3 + k].kind != want[k].kind || got_firsts[s * 3 + k].value != want[k].value)
        fail("labels-only walk: first labels");
  }
  return 0;
}
