// profile: the columnar data model of one pprof profile (see docs/architecture.md).
// Every cross-reference is a dense row index; original pprof ids are kept as
// columns; every string is an int32 code into `strings`. A Profile is immutable
// once built (decoders and transforms build new ones). No I/O and no wire format here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/strings.hpp"

namespace pprofcore {

struct Labels {  // one row per sample label, grouped by sample via Samples::label_offsets
  std::vector<int32_t> key;
  std::vector<int32_t> str;       // -1 = numeric label (no string value)
  std::vector<int64_t> num;
  std::vector<int32_t> num_unit;  // 0 = no unit
  size_t size() const { return key.size(); }
};

struct Locations {
  std::vector<uint64_t> id;
  std::vector<int32_t> mapping;  // row into mappings, -1 = none
  std::vector<uint64_t> address;
  std::vector<uint8_t> is_folded;
  std::vector<int64_t> line_offsets{0};  // size()+1 entries into Lines
  size_t size() const { return id.size(); }
};

struct Lines {  // leaf (innermost inline frame) first within a location, as on the wire
  std::vector<int32_t> function;  // row into functions
  std::vector<int64_t> line;
  std::vector<int64_t> column;
  size_t size() const { return function.size(); }
};

struct Functions {
  std::vector<uint64_t> id;
  std::vector<int32_t> name;
  std::vector<int32_t> system_name;
  std::vector<int32_t> filename;
  std::vector<int64_t> start_line;
  size_t size() const { return id.size(); }
};

struct Mappings {
  std::vector<uint64_t> id;
  std::vector<uint64_t> memory_start;
  std::vector<uint64_t> memory_limit;
  std::vector<uint64_t> file_offset;
  std::vector<int32_t> filename;
  std::vector<int32_t> build_id;
  std::vector<uint8_t> has_functions;
  std::vector<uint8_t> has_filenames;
  std::vector<uint8_t> has_line_numbers;
  std::vector<uint8_t> has_inline_frames;
  size_t size() const { return id.size(); }
};

struct Profile {
  // header
  std::vector<int32_t> sample_type_type;  // codes, one per value column
  std::vector<int32_t> sample_type_unit;
  bool has_period_type = false;            // distinguishes "absent" from ("", "")
  int32_t period_type_type = 0;
  int32_t period_type_unit = 0;
  int64_t period = 0;
  int64_t time_nanos = 0;
  int64_t duration_nanos = 0;
  std::vector<int32_t> comments;
  int32_t drop_frames = 0;
  int32_t keep_frames = 0;
  int32_t default_sample_type = 0;
  int32_t doc_url = 0;

  // samples
  std::vector<int64_t> values;                // n_samples x n_types, row-major
  std::vector<int64_t> stack_offsets{0};      // n_samples + 1
  std::vector<int32_t> stack_locations;       // location rows, leaf first
  std::vector<int64_t> label_offsets{0};      // n_samples + 1

  Labels labels;
  Locations locations;
  Lines lines;
  Functions functions;
  Mappings mappings;
  StringTable strings;

  size_t num_samples() const { return stack_offsets.size() - 1; }
  size_t num_types() const { return sample_type_type.size(); }
  std::string_view str(int32_t code) const { return strings[static_cast<size_t>(code)]; }

  // Approximate heap bytes held by the columns (for reporting, not accounting).
  size_t memory_bytes() const;
};

// Exact, column-by-column equality (same rows in the same order, same string table).
bool operator==(const Profile& a, const Profile& b);
inline bool operator!=(const Profile& a, const Profile& b) { return !(a == b); }

// Checks the invariants a builder must establish (offset arrays monotone, every
// row index and string code in range, value count matches). Throws ProfileError.
void check_invariants(const Profile& p);

}  // namespace pprofcore
