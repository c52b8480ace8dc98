// merge_fuzzer: any profile the decoder accepts merges with itself into a valid
// profile whose per-type totals are exactly double (merge sums values and drops
// only all-zero samples), and merging is order-independent in its totals. The
// same profile with many labels per sample merges sample for sample with a copy
// whose string and numeric labels interleave differently.
#include "fuzz_checks.hpp"
#include "pprofcore/merge.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = fuzz_checks::decoded_and_doubled(data, size);
  if (!input) return 0;
  const auto& [p, m] = *input;
  fuzz_checks::require_valid(m, "merge_fuzzer");
  auto one = fuzz_checks::totals(p), two = fuzz_checks::totals(m);
  for (size_t k = 0; k < one.size(); ++k)
    if (two[k] != one[k] * 2) fuzz_checks::fail("merge_fuzzer", "merge(p, p) does not double the totals");
  Merger incremental;
  incremental.add(p);
  incremental.add(p);
  if (fuzz_checks::totals(incremental.result()) != two)
    fuzz_checks::fail("merge_fuzzer", "incremental Merger differs from merge()");
  // Label-heavy samples (past the sort's small-n path): the order in which
  // labels of different kinds interleave must not change merge keys, so merging
  // the two variants pairs every sample with its twin. (The output's string
  // table and label order follow first appearance, so the variants' compacted
  // forms are equal as label sets, not byte for byte.)
  auto [heavy, reordered] = fuzz_checks::label_heavy_twins(p, data, size);
  Profile a, both;
  try {
    a = compact(heavy);
    both = merge({&heavy, &reordered});
  } catch (const ProfileError&) {
    return 0;
  }
  fuzz_checks::require_valid(a, "merge_fuzzer");
  fuzz_checks::require_valid(both, "merge_fuzzer");
  if (both.num_samples() != a.num_samples())
    fuzz_checks::fail("merge_fuzzer", "label order across kinds changed merge keys");
  if (fuzz_checks::totals(a) != one)
    fuzz_checks::fail("merge_fuzzer", "compact of a label-heavy profile changed totals");
  if (fuzz_checks::totals(both) != two)
    fuzz_checks::fail("merge_fuzzer", "label-heavy merge does not double the totals");
  return 0;
}
