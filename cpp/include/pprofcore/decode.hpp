// decode: profile.proto bytes (raw or gzip) -> columnar Profile, with pprof's
// validation rules (CheckValid, string_table[0] == "", concatenated profiles).
// Does not read files (see io.hpp). Given a RepairReport it fixes what can be
// fixed (dangling references, missing functions, bad ids, odd value counts) and
// counts each repair there instead of throwing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pprofcore/gzip.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

struct DecodeOptions {
  size_t max_decompressed_size = size_t(4) << 30;  // 4 GiB: gzip-bomb guard, and the most raw bytes read
  gzip::Backend inflater = gzip::Backend::Auto;
  // Threads for one large profile (0 = up to 2 when it pays off, 1 = serial).
  // Batch loaders set 1 and parallelise across files instead.
  unsigned threads = 0;
};

// Repair mode, selected by passing a RepairReport to decode: what it changed, one
// counter per kind of repair (all zero = the input was valid). Dropped or cleared
// data is counted, never hidden. Errors in the wire format, the string table and
// gzip are never repaired.
struct RepairReport {
  size_t dangling_location_refs = 0;    // sample location ids with no location: removed from the stack
  size_t zero_location_refs = 0;        // sample location ids equal to 0: removed from the stack
  size_t dangling_mapping_refs = 0;     // location mapping ids with no mapping: cleared (no mapping)
  size_t missing_function_refs = 0;     // lines whose function id is 0 or dangling: pointed at a stub
  size_t stub_functions = 0;            // placeholder functions added for those lines
  size_t zero_ids = 0;                  // mappings/functions/locations with id 0: given a fresh id
  size_t duplicate_ids = 0;             // later rows reusing an id: given a fresh id (refs go to the first)
  size_t value_count_mismatch = 0;      // samples whose value count != number of sample types: dropped
  int64_t dropped_values_sum = 0;       // sum of all values of the dropped samples (what was lost)
  size_t bad_first_string = 0;          // string_table[0] not "" (replaced by "") or no table (one added)
  size_t out_of_range_string_refs = 0;  // string codes past the table: pointed at placeholders (repair_strings.hpp)
  size_t placeholder_strings = 0;       // "[missing string N]" strings added for those codes

  size_t total() const {
    return dangling_location_refs + zero_location_refs + dangling_mapping_refs + missing_function_refs + zero_ids +
           duplicate_ids + value_count_mismatch + bad_first_string + out_of_range_string_refs;
  }
};

// Decodes an uncompressed serialized Profile message. A non-null `report`
// selects repair mode and receives the repairs (it is reset first).
Profile decode_raw(const uint8_t* data, size_t n, const DecodeOptions& options = {}, RepairReport* report = nullptr);

// The most input bytes accepted under a limit of `max_decompressed_size`: raw
// input is the profile itself; compressed (gzip or zstd) input may be a little
// larger than what it inflates to (stored blocks, headers), never twice as large
// plus 1 MiB.
size_t max_input_size(size_t max_decompressed_size, bool gzip);

// Sniffs gzip and zstd, decompresses if needed, then decodes.
// options.max_decompressed_size limits the profile.proto bytes: raw input longer
// than it is refused, compressed input stops there (all members or frames
// together); see also max_input_size(). Input that is not profile.proto is read
// with pprof's legacy parsers (legacy.hpp) when one recognises it; other
// non-pprof inputs are rejected with a DecodeError that says what they look like.
// A non-null `report` selects repair mode, as for decode_raw.
Profile decode(const uint8_t* data, size_t n, const DecodeOptions& options = {}, RepairReport* report = nullptr);

// What a batch worker keeps from one decode to the next: the buffer gzip input
// inflates into, and a spent profile whose columns the next decode fills, so
// that a file no larger than those before it allocates almost nothing.
struct DecodeBuffers {
  gzip::Buffer inflated;
  Profile spent;  // its contents are dropped; only its columns' capacity serves
};

// decode() (plain mode) into `kept`'s buffers: kept.spent is consumed by a
// decode of whole bytes; the overlapped path (large gzip input, more than one
// thread) allocates its own and leaves it.
Profile decode(const uint8_t* data, size_t n, const DecodeOptions& options, DecodeBuffers& kept);

}  // namespace pprofcore
