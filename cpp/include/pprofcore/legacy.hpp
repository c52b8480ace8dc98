// legacy: reads pprof's pre-protobuf formats into a Profile, as google/pprof's
// profile.Parse does when the input is not profile.proto. Owns the dispatch:
// which reader recognises the input, tried in pprof's order. The readers:
// legacy_gperftools (binary CPU), legacy_go (text heap, contention and count
// profiles), legacy_threadz, legacy_java and, tried last as pprof reads
// neither, legacy_jemalloc (jemalloc's heap_v2) and goroutine_dump (Go
// goroutine dumps: debug=2, tracebacks). What they share lives in
// legacy_builder (samples to a Profile, as pprof finishes every legacy parse)
// and legacy_text (lines and Go's number syntax). Symbol comments in the text
// (`# 0x... func file:line`) are not read, as in pprof: legacy profiles come
// out unsymbolized.
#pragma once
#include <cstddef>
#include <cstdint>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Parses `data` as a legacy profile into `out`. Returns false when no legacy
// parser recognises the input (then the caller reports it as not a profile);
// throws DecodeError (what is wrong, field "line N" and the byte offset of that
// line) when a parser recognises its header but the rest is malformed.
bool decode_legacy(const uint8_t* data, size_t n, Profile& out);

}  // namespace pprofcore
