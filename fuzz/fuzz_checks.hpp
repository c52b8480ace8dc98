// fuzz_checks: helpers shared by the libFuzzer targets: decode an input the way
// every target does and abort (a finding) when a property does not hold.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/merge.hpp"
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

// `p` encodes to bytes that decode without repair to `p` again.
inline void require_roundtrip(const pprofcore::Profile& p, const char* target) {
  require_valid(p, target);
  std::string bytes = pprofcore::encode_raw(p);
  pprofcore::Profile q;
  try {
    q = pprofcore::decode_raw(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  } catch (const pprofcore::DecodeError& e) {
    std::fprintf(stderr, "re-decode: %s\n", e.what());
    fail(target, "encode output does not decode");
  }
  if (!(p == q)) fail(target, "decode -> encode -> decode changed the profile");
}

// Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
inline bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    const size_t n = c < 0x80                 ? 1
                     : c >= 0xc2 && c <= 0xdf ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<uint8_t>(s[i + k]) & 0xc0) != 0x80) return false;
    const auto c1 = static_cast<uint8_t>(n > 1 ? s[i + 1] : 0);
    if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))
      return false;
    i += n;
  }
  return true;
}

// A refusal must explain itself in text Python can hold: the bindings build
// the exception from what() and field() as str, which fails on invalid UTF-8.
inline void require_clean_error(const pprofcore::DecodeError& e, const char* target) {
  if (e.reason().empty()) fail(target, "DecodeError without a reason");
  if (!valid_utf8(e.what()) || !valid_utf8(e.field())) {
    std::fprintf(stderr, "message: %s\n", e.what());
    fail(target, "DecodeError message or field is not valid UTF-8");
  }
}

// Per-type sums with wrap-around (values are int64 and may be extreme).
inline std::vector<uint64_t> totals(const pprofcore::Profile& p) {
  std::vector<uint64_t> t(p.num_types(), 0);
  for (size_t s = 0; s < p.num_samples(); ++s)
    for (size_t k = 0; k < t.size(); ++k) t[k] += static_cast<uint64_t>(p.values[s * t.size() + k]);
  return t;
}

// `p` with `extra` more labels on every sample (keys and values taken from the
// string table, chosen by `seed`), so merge keys exercise the label sort beyond
// its small-n path. With `numeric_first` the added labels are reordered with the
// numeric ones first, each kind keeping its relative order: pprof's label sets
// do not depend on that order, so both variants must merge to the same samples.
inline pprofcore::Profile with_extra_labels(const pprofcore::Profile& p, const uint8_t* seed, size_t seed_size,
                                            size_t extra, bool numeric_first) {
  pprofcore::Profile out = p;
  const size_t n_strings = p.strings.size();
  if (n_strings < 2 || seed_size == 0) return out;
  struct Row {
    int32_t key, str;
    int64_t num;
    int32_t unit;
  };
  std::vector<Row> added;
  for (size_t i = 0; i < extra; ++i) {
    uint8_t b = seed[i % seed_size] ^ static_cast<uint8_t>(i * 7);
    int32_t key = static_cast<int32_t>(1 + b % 3 % (n_strings - 1));  // few keys: long runs per key
    if (b & 0x80)
      added.push_back({key, -1, static_cast<int64_t>(i) + 1, 0});
    else
      added.push_back({key, static_cast<int32_t>(1 + (b >> 2) % (n_strings - 1)), 0, 0});
  }
  if (numeric_first) {
    std::vector<Row> reordered;
    for (const Row& r : added)
      if (r.str < 0) reordered.push_back(r);
    for (const Row& r : added)
      if (r.str >= 0) reordered.push_back(r);
    added.swap(reordered);
  }
  pprofcore::Labels& l = out.labels;
  l = pprofcore::Labels{};
  out.label_offsets.assign(1, 0);
  for (size_t s = 0; s < p.num_samples(); ++s) {
    for (int64_t j = p.label_offsets[s]; j < p.label_offsets[s + 1]; ++j) {
      const size_t q = static_cast<size_t>(j);
      l.key.push_back(p.labels.key[q]);
      l.str.push_back(p.labels.str[q]);
      l.num.push_back(p.labels.num[q]);
      l.num_unit.push_back(p.labels.num_unit[q]);
    }
    for (const Row& r : added) {
      l.key.push_back(r.key);
      l.str.push_back(r.str);
      l.num.push_back(r.num);
      l.num_unit.push_back(r.unit);
    }
    out.label_offsets.push_back(static_cast<int64_t>(l.size()));
  }
  return out;
}

// The input decoded (p) and merged with itself (merge(p, p)), or nothing when
// the decoder refuses it or merge refuses p by pprof's rules.
inline std::optional<std::pair<pprofcore::Profile, pprofcore::Profile>> decoded_and_doubled(const uint8_t* data,
                                                                                            size_t size) {
  auto p = decode_input(data, size);
  if (!p) return std::nullopt;
  try {
    pprofcore::Profile doubled = pprofcore::merge({&*p, &*p});
    return std::make_pair(std::move(*p), std::move(doubled));
  } catch (const pprofcore::ProfileError&) {
    return std::nullopt;
  }
}

// The two label-heavy variants of p (with_extra_labels in both orders), whose
// samples must pair one for one in a merge or a delta.
inline std::pair<pprofcore::Profile, pprofcore::Profile> label_heavy_twins(const pprofcore::Profile& p,
                                                                           const uint8_t* seed, size_t seed_size) {
  const size_t extra = 40 + seed_size % 64;
  return {with_extra_labels(p, seed, seed_size, extra, false), with_extra_labels(p, seed, seed_size, extra, true)};
}

}  // namespace fuzz_checks
