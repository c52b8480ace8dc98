// jfr_fuzzer: the JFR reader (jfr.hpp) on its own, seeded with recordings
// (tests/data/producers/small.jfr and tests/helpers/jfrwriter.py's, varint and
// big-endian). Chunk headers, metadata trees, constant pools, varints and
// event sizes all come from the input. An accepted recording must be a valid
// profile that round-trips; a refusal must be a DecodeError with a valid
// UTF-8 message.
#include <cstdint>

#include "fuzz_checks.hpp"
#include "pprofcore/jfr.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Profile p;
  try {
    p = jfr::read(data, size);
  } catch (const DecodeError& e) {
    fuzz_checks::require_clean_error(e, "jfr_fuzzer");
    return 0;
  }
  fuzz_checks::require_roundtrip(p, "jfr_fuzzer");
  return 0;
}
