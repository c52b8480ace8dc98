// arith: integer arithmetic on sample values. With Go's semantics: pprof sums and
// subtracts int64 values with two's-complement wrap-around, and converts
// out-of-range floats to the minimum int64 (amd64); signed overflow is
// undefined in C++, so values are combined through uint64 here. Checked: sums
// that must not wrap detect overflow instead.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

namespace pprofcore {

inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

inline int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

// sum + v into `sum`; false (and `sum` unspecified) when it leaves int64. For
// totals shown to a person, which must not wrap as pprof's do.
inline bool checked_add(int64_t& sum, int64_t v) { return !__builtin_add_overflow(sum, v, &sum); }

// Rounds half away from zero (Go's math.Round); NaN and values outside int64
// become INT64_MIN, as Go's float-to-int conversion does on amd64.
inline int64_t round_to_int64(double x) {
  double r = std::round(x);
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(r);
}

}  // namespace pprofcore
