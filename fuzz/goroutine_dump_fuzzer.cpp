// goroutine_dump_fuzzer: the Go goroutine dump reader (goroutine_dump.hpp) on
// its own, seeded with dumps only, since the legacy dispatch tries it last and
// its grammar (headers, frames, created-by lines, elisions, crash preambles) is
// the largest of the text readers. An accepted dump must be a valid profile
// that round-trips and whose samples are one goroutine each (value 1); a
// refusal must be a DecodeError with a valid UTF-8 message.
#include <cstdint>

#include "fuzz_checks.hpp"
#include "pprofcore/goroutine_dump.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Profile p;
  try {
    if (!decode_goroutine_dump(reinterpret_cast<const char*>(data), size, p)) return 0;
  } catch (const DecodeError& e) {
    fuzz_checks::require_clean_error(e, "goroutine_dump_fuzzer");
    return 0;
  }
  fuzz_checks::require_roundtrip(p, "goroutine_dump_fuzzer");
  for (int64_t v : p.values)
    if (v != 1) fuzz_checks::fail("goroutine_dump_fuzzer", "a goroutine sample does not count 1");
  return 0;
}
