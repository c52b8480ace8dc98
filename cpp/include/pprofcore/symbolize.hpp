// symbolize: applies frames an external symbolizer resolved to a profile's
// locations (new lines and functions, mapping has_* flags). Finding binaries,
// running llvm-symbolizer/addr2line and demangling are the Python side's job;
// this file only builds the resulting profile.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Mapping flags a symbolization sets (OR'ed into the mapping's has_* columns).
enum SymbolizedFlags : uint8_t {
  kHasFunctions = 1,
  kHasFilenames = 2,
  kHasLineNumbers = 4,
  kHasInlineFrames = 8,
};

// The frames resolved for some locations. Frame columns are parallel; the
// frames of location[i] are rows frame_offsets[i]..frame_offsets[i+1], innermost
// inline frame first (pprof's order). Strings are codes into `strings`.
struct ResolvedFrames {
  std::vector<int32_t> location;       // location rows, each at most once
  std::vector<int64_t> frame_offsets;  // location.size() + 1
  std::vector<int32_t> name, system_name, filename;
  std::vector<int64_t> line, column, start_line;
  std::vector<std::string> strings;
  std::vector<uint8_t> mapping_flags;  // one per mapping row (or empty): SymbolizedFlags to set
};

// A copy of `p` where each resolved location's lines are replaced by its frames
// and is_folded is cleared (as pprof's local symbolizer does). Functions are
// added once per distinct (name, system_name, filename, start_line); existing
// functions and strings are kept. Throws ProfileError on out-of-range input.
Profile apply_symbols(const Profile& p, const ResolvedFrames& r);

// What pprof's driver does to every profile it reads before symbolizing it
// (locateBinaries): a profile without mappings gets one empty mapping, id 1,
// that every location points at, so `-raw` and `-proto` show it; a non-empty
// `exec_name` (the binary named before the profile, `pprof BINARY PROFILE`)
// becomes the first mapping's file. A copy of `p` with both applied.
Profile with_main_mapping(const Profile& p, std::string_view exec_name);

// A copy of `p` whose function rows `rows[i]` are named `names[i]`, system names
// unchanged (pprof's demangling step rewrites names only). A name already in the
// string table keeps its code, so equal names compare equal by code. Throws
// ProfileError on a row out of range or on columns of unequal length.
Profile with_function_names(const Profile& p, const std::vector<int32_t>& rows, const std::vector<std::string>& names);

// A copy of `p` whose mapping rows `rows[i]` have the file `files[i]` (pprof's
// driver clears the file of a mapping named by a URL). Strings are reused as in
// with_function_names; throws ProfileError on bad rows or lengths.
Profile with_mapping_files(const Profile& p, const std::vector<int32_t>& rows, const std::vector<std::string>& files);

// The function rows whose name pprof's demangling step may change, a superset
// the caller narrows: an empty name; a name equal to its system name where that
// is mangled (`_Z`, `__Z`, `_R`) or has `::`, `<`, `>`, `[` or `]`; with `force`,
// also a set name that differs from a set system name. Each string is looked at
// once, so a profile of Go names costs one pass over its function rows.
std::vector<int32_t> demangle_candidates(const Profile& p, bool force);

}  // namespace pprofcore
