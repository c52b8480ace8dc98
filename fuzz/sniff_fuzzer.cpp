// sniff_fuzzer: the input sniffing that explains decode failures (sniff.hpp).
// describe_non_pprof() and describe_foreign_protobuf() (at the offset a real
// decode failure names, and at offsets taken from the input) must return, never
// throw, and their text ends up in Python exceptions, so it must be valid UTF-8.
#include <cstdint>
#include <string>

#include "fuzz_checks.hpp"
#include "pprofcore/sniff.hpp"

using namespace pprofcore;

namespace {

constexpr const char* kTarget = "sniff_fuzzer";

void require_text(const std::string& s) {
  if (!fuzz_checks::valid_utf8(s)) fuzz_checks::fail(kTarget, "description is not valid UTF-8");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  require_text(describe_non_pprof(data, size));
  // Offsets as the decoder reports them: -1 (none), 0, the end, and two from the input.
  int64_t offsets[] = {-1, 0, static_cast<int64_t>(size), size ? data[0] % (static_cast<int64_t>(size) + 1) : 0,
                       size > 1 ? (data[size - 1] * 257 + data[size / 2]) % (static_cast<int64_t>(size) + 1) : 0};
  for (int64_t at : offsets) require_text(describe_foreign_protobuf(data, size, at));
  // The decoder's own failure, whose message carries these descriptions.
  DecodeOptions options;
  options.threads = 1;
  try {
    decode_raw(data, size, options);
  } catch (const DecodeError& e) {
    fuzz_checks::require_clean_error(e, kTarget);
    require_text(describe_foreign_protobuf(data, size, e.offset()));
  }
  return 0;
}
