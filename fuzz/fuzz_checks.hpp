// fuzz_checks: helpers shared by the libFuzzer targets: decode an input the way
// every target does and abort (a finding) when a property does not hold.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/profile.hpp"

namespace fuzz_checks {

[[noreturn]] inline void fail(const char* target, const char* what) {
  std::fprintf(stderr, "%s: %s\n", target, what);
  std::abort();
}

// The decoded input, or nothing when it is not a valid profile (not a finding).
inline std::optional<pprofcore::Profile> decode_input(const uint8_t* data, size_t size) {
  pprofcore::DecodeOptions options;
  options.max_decompressed_size = size_t(16) << 20;  // keep gzip bombs cheap
  try {
    return pprofcore::decode(data, size, options);
  } catch (const pprofcore::DecodeError&) {
    return std::nullopt;
  }
}

inline void require_valid(const pprofcore::Profile& p, const char* target) {
  try {
    pprofcore::check_invariants(p);
  } catch (const pprofcore::ProfileError& e) {
    std::fprintf(stderr, "invariant: %s\n", e.what());
    fail(target, "result violates the profile invariants");
  }
}

// Per-type sums with wrap-around (values are int64 and may be extreme).
inline std::vector<uint64_t> totals(const pprofcore::Profile& p) {
  std::vector<uint64_t> t(p.num_types(), 0);
  for (size_t s = 0; s < p.num_samples(); ++s)
    for (size_t k = 0; k < t.size(); ++k) t[k] += static_cast<uint64_t>(p.values[s * t.size() + k]);
  return t;
}

}  // namespace fuzz_checks
