// sniff: recognises inputs that are not profile.proto (legacy pprof text and
// binary formats, other profilers' formats: JFR, perf.data,
// OpenTelemetry profiles as protobuf or JSON, speedscope and Chrome .cpuprofile
// JSON, folded stacks; other compressors, archives and file types by their magic
// numbers) so errors can say what they are and which converter makes pprof of them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace pprofcore {

// A short description ("legacy gperftools heap profile (text)") or "" when the
// input could plausibly be profile.proto.
std::string describe_non_pprof(const uint8_t* data, size_t n);

// For input that failed with a wire-type mismatch at `error_offset`: "" unless the
// whole input is well-formed protobuf and the failure lies in its first field, in
// which case it names the foreign message (OTLP) or says that the schema is not
// profile.proto.
std::string describe_foreign_protobuf(const uint8_t* data, size_t n, int64_t error_offset);

}  // namespace pprofcore
