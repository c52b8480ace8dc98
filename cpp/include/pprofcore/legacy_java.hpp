// legacy_java: pprof's Java profile formats: heapz and contentionz text
// ("--- heapz 1 ---" / "--- contentionz 1 ---", "format = java" attributes,
// "<value> <count> @ 0x..." samples, then "0x<addr> <frame>" symbol lines) and
// the symbol section that follows the records of a Java CPU profile (the binary
// records themselves are read by legacy_gperftools). Frames become functions
// and lines as pprof reads them; addresses are dropped afterwards, as pprof's
// Aggregate does.
#pragma once
#include <cstddef>
#include <string_view>

#include "pprofcore/legacy_builder.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore::legacy {

// False when the first line is not a Java heapz/contentionz header.
bool parse_java_text(const char* data, size_t n, Profile& out);

// Reads "0x<addr> <frame>" lines of `text` into b.symbols / b.functions for
// addresses the samples use. Throws DecodeError on an address over 64 bits.
void parse_java_symbols(std::string_view text, Builder& b);

}  // namespace pprofcore::legacy
