// delta_fuzzer: a delta series p, p, merge(p, p) over any decodable profile:
// the first delta passes p through, the second is empty (nothing changed), the
// third sums back to p (2p - p); every result is a valid profile, and equal to
// what a computer taking its inputs over (delta_into(Profile&&)) gives. A
// label-heavy copy of p followed by the same copy with its labels interleaved
// differently gives an empty delta.
#include "fuzz_checks.hpp"
#include "pprofcore/delta.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto input = fuzz_checks::decoded_and_doubled(data, size);
  if (!input) return 0;
  const auto& [p, doubled] = *input;
  DeltaComputer dc({});  // subtract every sample type
  Profile first = dc.delta(p), second = dc.delta(p), third = dc.delta(doubled);
  for (const Profile* d : {&first, &second, &third}) fuzz_checks::require_valid(*d, "delta_fuzzer");
  DeltaComputer taking({});
  const Profile* inputs[] = {&p, &p, &doubled};
  const Profile* expected[] = {&first, &second, &third};
  for (size_t i = 0; i < 3; ++i) {
    Profile in = *inputs[i], out;
    taking.delta_into(std::move(in), out);
    if (!(out == *expected[i])) fuzz_checks::fail("delta_fuzzer", "taking the input over changed the delta");
  }
  if (fuzz_checks::totals(first) != fuzz_checks::totals(p))
    fuzz_checks::fail("delta_fuzzer", "first delta is not the profile itself");
  if (second.num_samples() != 0) fuzz_checks::fail("delta_fuzzer", "delta of an unchanged profile is not empty");
  if (fuzz_checks::totals(third) != fuzz_checks::totals(p))
    fuzz_checks::fail("delta_fuzzer", "delta of 2p after p does not sum to p");
  // Label-heavy samples: a delta against the same samples with their labels
  // interleaved differently is empty (the keys must match).
  auto [heavy, reordered] = fuzz_checks::label_heavy_twins(p, data, size);
  DeltaComputer labelled({});
  Profile h1 = labelled.delta(heavy), h2 = labelled.delta(reordered);
  fuzz_checks::require_valid(h1, "delta_fuzzer");
  fuzz_checks::require_valid(h2, "delta_fuzzer");
  if (h2.num_samples() != 0) fuzz_checks::fail("delta_fuzzer", "reordering labels across kinds changed delta keys");
  return 0;
}
