// labels: rewriting sample labels and sample types — pseudo-frames from label
// values (pprof's -tagroot/-tagleaf, internal/driver/tagroot.go), set/rename
// labels, selecting value columns. No regex matching and no label filtering
// (see filter.hpp); numeric label formatting happens in the caller.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Adds one pseudo-frame per key to every sample: function name = the sample's
// values for that key joined by "," (string values, then numeric ones when the
// key's last numeric label has a unit, as pprof does), file name = the key.
// `root_keys`/`leaf_keys` are key codes; the first root key becomes the root,
// the last leaf key the leaf. `row_text[r]` is the text of label row r: a code
// into the string table extended by `extra_strings` (code = n_strings + index).
// Sets *root_matched / *leaf_matched when some sample had a value for a key.
Profile add_label_frames(const Profile& p, const std::vector<int32_t>& root_keys, const std::vector<int32_t>& leaf_keys,
                         const std::vector<int32_t>& row_text, const std::vector<std::string>& extra_strings,
                         bool* root_matched, bool* leaf_matched);

// Replaces the string labels with key `key` of every sample by one label per
// value in `values` (pprof's Profile.SetLabel). Numeric labels are kept.
Profile set_label(const Profile& p, const std::string& key, const std::vector<std::string>& values);

// Renames label key `from` to `to` in every sample (string and numeric labels).
Profile rename_label(const Profile& p, const std::string& from, const std::string& to);

// Keeps the value columns `indices` (in that order) and their sample types.
Profile select_sample_types(const Profile& p, const std::vector<int64_t>& indices);

}  // namespace pprofcore
