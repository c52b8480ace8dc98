// merge_fuzzer: any profile the decoder accepts merges with itself into a valid
// profile whose per-type totals are exactly double (merge sums values and drops
// only all-zero samples), and merging is order-independent in its totals.
#include "fuzz_checks.hpp"
#include "pprofcore/merge.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto p = fuzz_checks::decode_input(data, size);
  if (!p) return 0;
  Profile m;
  try {
    m = merge({&*p, &*p});
  } catch (const ProfileError&) {
    return 0;  // e.g. a profile merge refuses by pprof's rules
  }
  fuzz_checks::require_valid(m, "merge_fuzzer");
  auto one = fuzz_checks::totals(*p), two = fuzz_checks::totals(m);
  for (size_t k = 0; k < one.size(); ++k)
    if (two[k] != one[k] * 2) fuzz_checks::fail("merge_fuzzer", "merge(p, p) does not double the totals");
  Merger incremental;
  incremental.add(*p);
  incremental.add(*p);
  if (fuzz_checks::totals(incremental.result()) != two)
    fuzz_checks::fail("merge_fuzzer", "incremental Merger differs from merge()");
  return 0;
}
