// series: the per-profile half of a fleet time series. Reads many files on
// worker threads and reduces each, as soon as it is decoded, to its non-zero
// flat (or cum) value per report node (aggregate.hpp's pprof -top nodes), so
// no decoded profile outlives its worker and Python receives rows, not
// profiles. Not here: time buckets, normalization, DataFrames (Python).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pprofcore/aggregate.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/io.hpp"

namespace pprofcore {

// Which sample type each profile contributes: pprof's default (the profile's
// default_sample_type when set, else its last type), an index (negative counts
// from the end), or a type name.
struct SampleTypeChoice {
  enum class Kind { Default, Index, Name } kind = Kind::Default;
  int64_t index = 0;
  std::string name;
};

// A label key a series splits by. String values are kept as they are; numeric
// values go to buckets: powers of two ([2^k, 2^(k+1)), 0 alone, negatives
// mirrored), the given ascending edges, or each number alone.
struct SeriesLabel {
  std::string key;
  enum class Numbers { Pow2, Edges, Exact } numbers = Numbers::Pow2;
  std::vector<int64_t> edges;
};

struct SeriesOptions {
  Granularity granularity = Granularity::Functions;
  bool nodes = true;                // false: labels only (each sample counted once)
  std::vector<SeriesLabel> labels;  // split by these keys (the first label of a key in a sample)
  bool cum = false;                 // false: flat (self) values
  SampleTypeChoice sample_type;
  DecodeOptions decode;
  unsigned threads = 0;  // 0 = hardware concurrency
  // Profiles decoded per round: the memory bound (at most this many per-profile
  // results wait to be interned at once).
  size_t batch = 256;
  // Read each file with scan.hpp's lean pass where it can (the ordinary
  // decode otherwise); false: always decode (for tests that compare the two).
  bool scan = true;
};

// One row per (profile, node) with a non-zero value, in profile order and, within
// a profile, by value descending, then name (bytewise); names interned in order
// of first appearance in each profile's node order (Profile.top's node table).
struct SeriesResult {
  std::vector<int64_t> profile;  // position in the input list
  std::vector<int32_t> name;     // index into names
  std::vector<int64_t> value;
  std::vector<std::string> names;
  // Per input profile: pprof's total of the chosen type (sum of |value|,
  // wrapping like NumPy's int64), time_nanos, duration_nanos.
  std::vector<int64_t> total, time_nanos, duration_nanos;
  std::vector<std::string> type_names;  // distinct chosen sample type names, first seen first
  // With labels, `name` indexes keys: key k is node key_node[k] (into names;
  // -1 without nodes) and, per label, key_labels[k * n_labels + j] (into
  // label_values; -1 where the sample has no such label). Rows are then by
  // value descending within a profile (ties in no set order).
  std::vector<int32_t> key_node, key_labels;
  std::vector<std::string> label_values;
};

// A sample type name `p` does not have. The bytes are kept apart from the
// message so a binding can quote them the way its language does.
class UnknownSampleType : public ProfileError {
 public:
  UnknownSampleType(std::string wanted, std::vector<std::string> have);
  std::string wanted;
  std::vector<std::string> have;
};

// Index of the chosen type in `p`: ProfileError for an index out of range,
// UnknownSampleType for a name (or default_sample_type) that is not there.
size_t choose_sample_type(const Profile& p, const SampleTypeChoice& choice);

// Decodes and reduces `paths` (see above). The first failing file in input
// order is rethrown (decode errors with "path: " in front); `poll` as in io.hpp.
SeriesResult series_files(const std::vector<std::string>& paths, const SeriesOptions& options, const Poll& poll = {});

// The same rows for profiles already decoded (options.decode and scan unused).
SeriesResult series_profiles(const std::vector<const Profile*>& profiles, const SeriesOptions& options,
                             const Poll& poll = {});

}  // namespace pprofcore
