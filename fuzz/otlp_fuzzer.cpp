// otlp_fuzzer: the OpenTelemetry profiles decoder (otlp.hpp) on any bytes,
// protobuf or JSON, called directly so inputs profile.proto would accept still
// reach it. Every profile it returns must be valid and survive OTLP's own round
// trip (write, then decode to as many samples); a refusal must be a
// DecodeError with a clean message. Anything else (crash, sanitizer report,
// another exception, a hang) is a bug.
#include <cstdint>

#include "fuzz_checks.hpp"
#include "pprofcore/otlp.hpp"

using namespace pprofcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DecodeOptions options;
  options.max_decompressed_size = size_t(16) << 20;  // keep gzip bombs cheap
  std::vector<otlp::Decoded> all;
  try {
    all = otlp::decode(data, size, options);
  } catch (const DecodeError& e) {
    fuzz_checks::require_clean_error(e, "otlp_fuzzer");
    return 0;
  }
  for (const otlp::Decoded& d : all) {
    fuzz_checks::require_valid(d.profile, "otlp_fuzzer");
    if (d.profile.num_types() == 0) continue;
    std::string again = otlp::write(d.profile);
    std::vector<otlp::Decoded> back = otlp::decode(reinterpret_cast<const uint8_t*>(again.data()), again.size());
    if (back.size() != 1 || back[0].profile.num_samples() != d.profile.num_samples())
      fuzz_checks::fail("otlp_fuzzer", "write then decode changed the profile");
  }
  return 0;
}
