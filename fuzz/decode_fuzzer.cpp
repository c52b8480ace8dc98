// decode_fuzzer: libFuzzer target for the profile.proto decoder. Any input must
// either raise DecodeError or decode to a Profile that satisfies the invariants
// and survives encode -> decode unchanged (and encodes deterministically). The
// same input is also decoded in repair mode, whose output must obey the same
// rules. Anything else (crash, sanitizer report, other exception) is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "pprofcore/decode.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/errors.hpp"

using namespace pprofcore;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "decode_fuzzer: %s\n", what);
  std::abort();
}

void check_roundtrip(const Profile& p) {
  try {
    check_invariants(p);
  } catch (const ProfileError& e) {
    std::fprintf(stderr, "invariant: %s\n", e.what());
    fail("decoded profile violates invariants");
  }
  std::string bytes = encode_raw(p);
  if (encode_raw(p) != bytes) fail("encode_raw is not deterministic");
  Profile q;
  try {
    q = decode_raw(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  } catch (const DecodeError& e) {
    std::fprintf(stderr, "re-decode: %s\n", e.what());
    fail("encode output does not decode");
  }
  if (!(p == q)) fail("decode -> encode -> decode changed the profile");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DecodeOptions options;
  options.max_decompressed_size = size_t(16) << 20;  // keep gzip bombs cheap
  try {
    check_roundtrip(decode(data, size, options));
  } catch (const DecodeError&) {
  }
#ifdef PPROFCORE_FUZZ_REPAIR
  try {
    RepairReport report;  // selects repair mode
    check_roundtrip(decode(data, size, options, &report));
  } catch (const DecodeError&) {
  }
#endif
  return 0;
}
