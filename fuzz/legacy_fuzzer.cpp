// legacy_fuzzer: the legacy readers through their dispatch (legacy.hpp:
// gperftools CPU and Java CPU binary, Go/C++ heap, count and contention text,
// threadz, Java heapz/contentionz, jemalloc heap_v2, Go goroutine dumps),
// called directly so that inputs profile.proto would also accept still reach
// them. Whatever a reader accepts must be a valid profile that round-trips
// through encode/decode; a refusal must be a DecodeError whose message is valid
// UTF-8. Anything else (crash, sanitizer report, another exception, a hang) is
// a bug.
#include <cstdint>

#include "fuzz_checks.hpp"
#include "pprofcore/legacy.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Profile p;
  try {
    if (!decode_legacy(data, size, p)) return 0;
  } catch (const DecodeError& e) {
    fuzz_checks::require_clean_error(e, "legacy_fuzzer");
    return 0;
  }
  fuzz_checks::require_roundtrip(p, "legacy_fuzzer");
  return 0;
}
