// repair_strings: the string-table half of repair mode (a non-null RepairReport).
// Owns what a decoded Profile's string codes may point at when the producer got
// the table wrong: codes past the end of the table. Does not own the
// string_table[0] rule (the decoder replaces a non-empty first string with ""
// as it reads it) or any other repair (decode.cpp).
#pragma once
#include <cstddef>

#include "pprofcore/profile.hpp"

namespace pprofcore {

struct StringRepair {
  size_t references = 0;    // string codes that were past the table
  size_t placeholders = 0;  // strings appended for them
};

// Points every string code >= p.strings.size() at a placeholder string
// "[missing string N]" appended to the table (one per distinct N), so distinct
// missing names stay distinct in reports. drop_frames and keep_frames, which
// are regexes, become "" (no regex) instead. Numeric labels (str == -1) are
// left alone. A table without its leading "" must be fixed first.
StringRepair repair_string_codes(Profile& p);

}  // namespace pprofcore
