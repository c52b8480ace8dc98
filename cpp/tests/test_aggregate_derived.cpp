// C++ tests of aggregate_derived: the node table of a name filter's output,
// found from its input's, equals aggregate() of that output, field by field,
// on random profiles (inline frames, recursion, shared names, three sample
// types with zeros of their own) under random focus/ignore/hide/show masks.
#include <cstdio>
#include <random>

#include "check.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/aggregate_derived.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/filter.hpp"

using namespace pprofcore;

// random_profile with two more sample types: a multiple of the first that is
// sometimes zero, and small values mostly zero, so each type's labels differ.
static Profile three_types(uint32_t seed, size_t n_samples) {
  Profile p = check::random_profile(seed, n_samples);
  std::mt19937 rng(seed * 7 + 1);
  std::vector<int64_t> values;
  for (int64_t v : p.values) {
    values.push_back(v);
    values.push_back(rng() % 4 == 0 ? 0 : v * 3);
    values.push_back(rng() % 3 == 0 ? static_cast<int64_t>(rng() % 50) : 0);
  }
  p.values = std::move(values);
  for (int k = 0; k < 2; ++k) {
    p.sample_type_type.push_back(p.sample_type_type[0]);
    p.sample_type_unit.push_back(p.sample_type_unit[0]);
  }
  return p;
}

static NameMatch random_match(const Profile& p, std::mt19937& rng, uint32_t one_in) {
  NameMatch m;
  m.active = rng() % 2 == 0;
  for (size_t f = 0; f < p.functions.size(); ++f) m.function.push_back(rng() % one_in == 0);
  m.mapping.assign(p.mappings.size(), 0);
  return m;
}

static bool same_table(const NodeTable& a, const NodeTable& b) {
  return a.n_types == b.n_types && a.flat == b.flat && a.cum == b.cum && a.function == b.function && a.name == b.name &&
         a.start_line == b.start_line && a.lineno == b.lineno && a.address == b.address && a.objfile == b.objfile &&
         a.inline_label == b.inline_label && a.inline_labels_by_type == b.inline_labels_by_type && a.file == b.file &&
         a.printable == b.printable && a.loc_node_offsets == b.loc_node_offsets && a.loc_nodes == b.loc_nodes &&
         a.sums_overflow == b.sums_overflow;
}

TEST(derived_tables_equal_aggregated_ones) {
  size_t same_rows = 0, own_rows = 0, declined = 0, lines_changed = 0, in_place_rows = 0, hiding_rows = 0;
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    const Profile p = three_types(seed, 20 + seed * 5);
    std::mt19937 rng(seed);
    const NameMatch focus = random_match(p, rng, 2), ignore = random_match(p, rng, 6), hide = random_match(p, rng, 5),
                    show = random_match(p, rng, 2);
    const NameFilterResult r = filter_by_name(p, focus, ignore, hide, show);
    // The same filter deferring its copy when it changes no sample.
    const NameFilterResult lazy = filter_by_name(p, focus, ignore, hide, show, nullptr, true);
    EXPECT(lazy.kept == r.kept && lazy.hidden == r.hidden);
    EXPECT(lazy.deferred == (r.hidden.empty() && r.profile.lines.size() == p.lines.size()));
    if (lazy.deferred) {
      EXPECT(lazy.profile.num_samples() == 0);
      EXPECT(keep_samples(p, lazy.kept) == r.profile);
    } else {
      EXPECT(lazy.profile == r.profile);
    }
    // Deferring every result: the output's tables (when lines left a location) and the same masks.
    const NameFilterResult all = filter_by_name(p, focus, ignore, hide, show, nullptr, true, true);
    EXPECT(all.deferred && all.kept == r.kept && all.hidden == r.hidden && all.profile.num_samples() == 0);
    EXPECT(all.own_tables == (r.profile.lines.size() != p.lines.size()));
    const Profile& all_tables = all.own_tables ? all.profile : p;
    EXPECT(kept_output(p, all.kept, all.hidden, all.own_tables ? &all.profile : nullptr) == r.profile);
    lines_changed += r.profile.lines.size() != p.lines.size();
    for (Granularity g : {Granularity::Functions, Granularity::Lines, Granularity::Files, Granularity::Addresses}) {
      for (int label_type : {-1, 1}) {
        AggregateOptions opt;
        opt.granularity = g;
        opt.inline_frames = seed % 5 != 0;
        opt.label_type = label_type;
        opt.label_div_type = seed % 2 ? 0 : -1;
        opt.min_samples_per_thread = seed % 3 ? 1000000 : 1;  // one part, or as many as cores
        const NodeTable parent_t = aggregate(p, opt);
        const std::optional<NodeTable> got = derived_aggregate(r.profile, false, p, parent_t, r.kept, r.hidden, opt);
        if (!got) {
          ++declined;
          continue;
        }
        ++(r.profile.lines.size() == p.lines.size() ? same_rows : own_rows);
        EXPECT(same_table(*got, aggregate(r.profile, opt)));
        if (lazy.deferred) {  // read off p's samples in place
          const std::optional<NodeTable> in_place = derived_aggregate(p, true, p, parent_t, r.kept, r.hidden, opt);
          EXPECT(in_place && same_table(*in_place, *got));
          ++in_place_rows;
        }
        // Hidden locations skipped in p's stacks, over the output's own tables.
        const std::optional<NodeTable> hiding = derived_aggregate(all_tables, true, p, parent_t, r.kept, r.hidden, opt);
        if (hiding) {
          EXPECT(same_table(*hiding, *got));
          hiding_rows += !r.hidden.empty();
        }
      }
    }
  }
  // Every path taken: derived with the parent's rows and with the child's, declined.
  std::printf("  derived %zu + %zu (%zu in place, %zu hiding), declined %zu, lines changed %zu\n", same_rows, own_rows,
              in_place_rows, hiding_rows, declined, lines_changed);
  EXPECT(same_rows > 100 && own_rows > 20 && declined > 0 && lines_changed > 0 && in_place_rows > 50 &&
         hiding_rows > 20);
}

TEST(derived_tables_refuse_masks_of_another_profile) {
  const Profile p = three_types(3, 60);
  const NameFilterResult r = filter_by_name(p, NameMatch(), NameMatch(), NameMatch(), NameMatch());
  const NodeTable t = aggregate(p, AggregateOptions{});
  std::vector<uint8_t> short_mask(r.kept.begin(), r.kept.end() - 1);
  EXPECT_THROWS(derived_aggregate(r.profile, false, p, t, short_mask, {}, AggregateOptions{}), InternalError,
                "do not fit");
  std::vector<uint8_t> one_more = r.kept;
  for (auto& k : one_more)
    if (!k) {
      k = 1;
      break;
    }
  EXPECT_THROWS(derived_aggregate(r.profile, false, p, t, one_more, {}, AggregateOptions{}), InternalError,
                "not its input");
}

// aggregate_edges over a deferred output (p's samples with a keep mask)
// equals aggregate_edges over the copied output.
TEST(edges_with_a_sample_mask_equal_those_of_the_copy) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    const Profile p = three_types(seed, 30 + seed * 4);
    std::mt19937 rng(seed + 99);
    const NameMatch focus = random_match(p, rng, 2), ignore = random_match(p, rng, 6);
    const NameFilterResult r = filter_by_name(p, focus, ignore, NameMatch(), NameMatch());
    const NodeTable t = aggregate(p, AggregateOptions{});
    std::vector<uint8_t> nodes(t.size(), 0), keep(t.size(), 1);
    for (auto& n : nodes) n = rng() % 3 == 0;
    for (auto& k : keep) k = rng() % 4 != 0;
    for (int label_type : {-1, 2}) {
      const EdgeTable a = aggregate_edges(r.profile, t, nodes, label_type, -1, keep);
      const EdgeTable b = aggregate_edges(p, t, nodes, label_type, -1, keep, r.kept);
      EXPECT(a.src == b.src && a.dst == b.dst && a.weight == b.weight && a.is_inline == b.is_inline);
    }
  }
}

// The same after hide and show: p's stacks walked without the hidden
// locations, over the output's node table.
TEST(edges_with_hidden_locations_equal_those_of_the_copy) {
  size_t hiding = 0;
  for (uint32_t seed = 1; seed <= 80; ++seed) {
    const Profile p = three_types(seed, 30 + seed * 4);
    std::mt19937 rng(seed + 7);
    const NameMatch focus = random_match(p, rng, 2), ignore = random_match(p, rng, 6), hide = random_match(p, rng, 4),
                    show = random_match(p, rng, 2);
    const NameFilterResult r = filter_by_name(p, focus, ignore, hide, show);
    const NameFilterResult all = filter_by_name(p, focus, ignore, hide, show, nullptr, true, true);
    hiding += !all.hidden.empty();
    for (bool inline_frames : {true, false}) {
      AggregateOptions opt;
      opt.inline_frames = inline_frames;
      opt.granularity = seed % 2 ? Granularity::Functions : Granularity::Lines;
      const NodeTable t = aggregate(r.profile, opt);
      std::vector<uint8_t> nodes(t.size(), 0), keep(t.size(), 1);
      for (auto& n : nodes) n = rng() % 3 == 0;
      for (auto& k : keep) k = rng() % 4 != 0;
      for (int label_type : {-1, 2}) {
        const EdgeTable a = aggregate_edges(r.profile, t, nodes, label_type, -1, keep);
        const EdgeTable b = aggregate_edges(p, t, nodes, label_type, -1, keep, all.kept, all.hidden);
        EXPECT(a.src == b.src && a.dst == b.dst && a.weight == b.weight && a.is_inline == b.is_inline);
      }
    }
  }
  EXPECT(hiding > 10);
}

int main() { return check::run_all(); }
