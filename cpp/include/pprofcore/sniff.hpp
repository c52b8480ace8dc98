// sniff: recognises inputs that are not profile.proto (legacy pprof text and
// binary formats, jemalloc, OpenTelemetry profiles) so errors can say what they are.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace pprofcore {

// A short description ("legacy gperftools heap profile (text)") or "" when the
// input could plausibly be profile.proto.
std::string describe_non_pprof(const uint8_t* data, size_t n);

}  // namespace pprofcore
