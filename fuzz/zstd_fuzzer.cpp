// zstd_fuzzer: zstd decompression (zstd.hpp) and the decoder's zstd path. Any
// input either decompresses within the limit or raises GzipError; an output of
// k bytes must come back whole at a limit of k and fail with the limit error at
// k - 1 (the limit holds over every frame together). decode() of the input must
// return a valid profile or raise a DecodeError with a valid UTF-8 message.
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_checks.hpp"
#include "pprofcore/zstd.hpp"

using namespace pprofcore;

namespace {

constexpr size_t kMax = size_t(16) << 20;
constexpr const char* kTarget = "zstd_fuzzer";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string out;
  bool ok = false;
  try {
    out = zstd::decompress(data, size, kMax).str();
    ok = true;
  } catch (const GzipError& e) {
    fuzz_checks::require_clean_error(e, kTarget);
  }
  if (ok && !out.empty() && out.size() <= (size_t(1) << 20)) {
    if (zstd::decompress(data, size, out.size()).str() != out)
      fuzz_checks::fail(kTarget, "output differs at its own size");
    bool limited = false;
    try {
      zstd::decompress(data, size, out.size() - 1);
    } catch (const GzipError& e) {
      limited = std::strstr(e.what(), "exceeds the limit") != nullptr;
    }
    if (!limited) fuzz_checks::fail(kTarget, "output one byte over the limit was let through");
  }
  // The whole decoding path, which tells zstd input by its magic number.
  DecodeOptions options;
  options.max_decompressed_size = kMax;
  options.threads = 1;
  try {
    fuzz_checks::require_roundtrip(decode(data, size, options), kTarget);
  } catch (const DecodeError& e) {
    fuzz_checks::require_clean_error(e, kTarget);
  }
  return 0;
}
