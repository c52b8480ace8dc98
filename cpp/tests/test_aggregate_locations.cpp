// C++ tests of aggregate_locations: a node table summed from per-location
// sums equals aggregate() field by field on random profiles (inline frames,
// recursion, names shared by several functions, distinct addresses, three
// sample types with their own zeros), at every granularity it serves.
#include <random>

#include "check.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/aggregate_locations.hpp"
#include "pprofcore/errors.hpp"

using namespace pprofcore;

// check::random_profile with addresses (a few shared) and two more sample
// types: one zero in about a third of the samples, one mostly zero.
static Profile varied(uint32_t seed, size_t n_samples) {
  Profile p = check::random_profile(seed, n_samples);
  std::mt19937 rng(seed ^ 0x5eedu);
  for (auto& a : p.locations.address) a = 0x1000 + 16 * (rng() % 12);
  const size_t ns = p.num_samples();
  std::vector<int64_t> three(ns * 3);
  for (size_t s = 0; s < ns; ++s) {
    three[3 * s] = p.values[s];
    three[3 * s + 1] = rng() % 3 == 0 ? 0 : p.values[s] * 2 + 1;
    three[3 * s + 2] = rng() % 4 == 0 ? static_cast<int64_t>(rng() % 9) - 3 : 0;
  }
  p.values = std::move(three);
  const auto type = p.sample_type_type[0], unit = p.sample_type_unit[0];  // copies: resize may move them
  p.sample_type_type.resize(3, type);
  p.sample_type_unit.resize(3, unit);
  return p;
}

static void expect_equal_tables(const NodeTable& got, const NodeTable& want) {
  EXPECT(got.size() == want.size());
  EXPECT(got.flat == want.flat);
  EXPECT(got.cum == want.cum);
  EXPECT(got.inline_label == want.inline_label);
  EXPECT(got.inline_labels_by_type == want.inline_labels_by_type);
  EXPECT(got.sums_overflow == want.sums_overflow);
  EXPECT(got.loc_nodes == want.loc_nodes && got.printable == want.printable && got.file == want.file);
}

TEST(location_sums_give_the_aggregated_table) {
  size_t summed = 0, declined = 0;
  for (uint32_t seed = 1; seed <= 120; ++seed) {
    const Profile p = varied(seed, 10 + seed * 4);
    AggregateOptions sum_opt;
    sum_opt.min_samples_per_thread = seed % 2 ? 1000000 : 1;  // one part, or as many as cores
    const LocationSums sums = location_sums(p, sum_opt);
    for (Granularity g : {Granularity::Functions, Granularity::FileFunctions, Granularity::Files, Granularity::Lines,
                          Granularity::Addresses}) {
      AggregateOptions opt;
      opt.granularity = g;
      opt.inline_frames = seed % 4 != 0;
      opt.label_type = static_cast<int>(seed % 3) - 1;
      opt.label_div_type = seed % 5 == 0 ? 0 : -1;
      opt.min_samples_per_thread = seed % 3 ? 1000000 : 1;
      const NodeTable want = aggregate(p, opt);
      const std::optional<NodeTable> all = aggregate_from_locations(p, sums, opt, 1.0);
      EXPECT(all.has_value());
      if (all) expect_equal_tables(*all, want);
      ++summed;
      const std::optional<NodeTable> some = aggregate_from_locations(p, sums, opt);
      if (some)
        expect_equal_tables(*some, want);
      else
        ++declined;
    }
  }
  EXPECT(declined > 0 && declined < summed);  // both the walk-all and the declining cases ran
}

TEST(location_sums_of_another_profile_are_refused) {
  const Profile p = varied(3, 40), other = check::random_profile(3, 40);
  EXPECT_THROWS(aggregate_from_locations(p, location_sums(other), AggregateOptions{}), InternalError,
                "not the profile's");
}

int main() { return check::run_all(); }
