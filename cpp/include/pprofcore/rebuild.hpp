// rebuild: shared building blocks for transforms that keep a profile's
// locations, functions, mappings and strings and rewrite only samples, labels
// or the lines of locations (filter, prune, labels). Does no matching itself.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// The code of `s` in out's string table, appending it when absent (linear scan:
// for the handful of label keys and units transforms add).
int32_t find_or_add_string(Profile& out, std::string_view s);

// A copy of `p` with no samples (header, locations, lines, functions, mappings
// and strings are copied; samples, labels and values are empty).
Profile copy_without_samples(const Profile& p);

// Replaces out's lines by the lines of `src` whose `keep` entry is non-zero
// (locations unchanged; a location may end up with no lines, as in pprof).
void keep_lines(Profile& out, const Profile& src, const std::vector<uint8_t>& keep);

// Appends samples of `src` to `dst` with new stacks, copying values and labels.
class SampleAppender {
 public:
  SampleAppender(const Profile& src, Profile& dst);
  // Appends sample `s` of src with the given stack (location rows, leaf first).
  // `label_keep`, when not null, selects which of src's label rows are copied.
  void add(size_t s, const int32_t* stack, size_t n, const std::vector<uint8_t>* label_keep = nullptr);
  // Appends sample `s` with its stack and labels but the given values (as many
  // as dst has sample types).
  void add_with_values(size_t s, const int64_t* values, size_t n_values);
  // Appends samples [first, last) unchanged, each column copied as one block.
  void add_range(size_t first, size_t last);
  // Appends sample `s` unchanged.
  void add(size_t s) {
    add(s, src_.stack_locations.data() + src_.stack_offsets[s],
        static_cast<size_t>(src_.stack_offsets[s + 1] - src_.stack_offsets[s]));
  }

 private:
  void append(size_t s, const int64_t* values, size_t n_values, const int32_t* stack, size_t n,
              const std::vector<uint8_t>* label_keep);
  const Profile& src_;
  Profile& dst_;
};

// The samples of `p` with their stacks cut to the frames [begin, end) that
// `cut(stack, n)` returns for each leaf-first stack (nullopt drops the sample);
// with `line_keep`, locations keep only the lines it marks (see keep_lines).
template <class Cut>
Profile with_cut_stacks(const Profile& p, const std::vector<uint8_t>* line_keep, Cut cut) {
  Profile out = copy_without_samples(p);
  if (line_keep) keep_lines(out, p, *line_keep);
  SampleAppender app(p, out);
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int32_t* b = p.stack_locations.data() + p.stack_offsets[s];
    const auto n = static_cast<size_t>(p.stack_offsets[s + 1] - p.stack_offsets[s]);
    if (std::optional<std::pair<size_t, size_t>> kept = cut(b, n))
      app.add(s, b + kept->first, kept->second - kept->first);
  }
  return out;
}

}  // namespace pprofcore
