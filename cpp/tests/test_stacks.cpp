// C++ unit tests of stacks: the flame graph call tree (paths, self/total, recursion,
// inline frames, inversion, base profiles, "..." merging and pre-order), and the
// pruned build held to the whole-trie build on random profiles.

#include "check.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/filter.hpp"
#include "pprofcore/stacks.hpp"

using namespace pprofcore;

// Locations: 0 main, 1 work with helper inlined (lines: helper, work), 2 leaf, 3 tiny.
// Samples (leaf first): [1,1,0]=3  [2,0]=2  [3,1,0]=1  []=4 (empty stack ends at the root).
static Profile tree_profile(std::vector<int64_t> values = {3, 2, 1, 4}) {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  p.functions.id = {1, 2, 3, 4, 5};
  p.functions.name = {s.intern("main"), s.intern("work"), s.intern("helper"), s.intern("leaf"), s.intern("tiny")};
  p.functions.system_name = p.functions.name;
  p.functions.filename = {s.intern("main.go"), s.intern("work.go"), s.intern("work.go"), s.intern("leaf.go"),
                          s.intern("tiny.go")};
  p.functions.start_line = {1, 10, 30, 40, 50};
  p.locations.id = {1, 2, 3, 4};
  p.locations.mapping = {-1, -1, -1, -1};
  p.locations.address = {0, 0, 0, 0};
  p.locations.is_folded = {0, 0, 0, 0};
  p.locations.line_offsets = {0, 1, 3, 4, 5};
  p.lines.function = {0, 2, 1, 3, 4};
  p.lines.line = {5, 31, 12, 41, 51};
  p.lines.column = {0, 0, 0, 0, 0};
  p.values = values;
  p.stack_offsets = {0, 3, 5, 8, 8};
  p.stack_locations = {1, 1, 0, 2, 0, 3, 1, 0};
  p.label_offsets = {0, 0, 0, 0, 0};
  p.strings = s.take();
  return p;
}

static std::string path(const CallTree& t, int32_t n) {
  std::string out;
  for (; n > 0; n = t.parent[static_cast<size_t>(n)])
    out = std::string(t.frame_name[static_cast<size_t>(t.frame[static_cast<size_t>(n)])]) + (out.empty() ? "" : ";") +
          out;
  return out;
}

static int32_t find(const CallTree& t, const std::string& p) {
  for (size_t i = 0; i < t.size(); ++i)
    if (path(t, static_cast<int32_t>(i)) == p) return static_cast<int32_t>(i);
  return -1;
}

static int32_t frame(const CallTree& t, std::string_view name) {
  for (size_t i = 0; i < t.frame_name.size(); ++i)
    if (t.frame_name[i] == name) return static_cast<int32_t>(i);
  return -1;
}

TEST(tree_paths_self_total) {
  Profile p = tree_profile();
  NodeTable nodes = aggregate(p, AggregateOptions{});
  CallTree t = build_call_tree(StackSource{&p, &nodes, 0}, nullptr, CallTreeOptions{});
  EXPECT(t.parent[0] == -1 && t.frame[0] == 0 && t.total[0] == 10 && t.self[0] == 4);
  const int32_t rec = find(t, "main;work;helper;work;helper");  // recursion gives new nodes
  EXPECT(rec >= 0 && t.self[static_cast<size_t>(rec)] == 3 && t.total[static_cast<size_t>(rec)] == 3);
  const int32_t work = find(t, "main;work");
  EXPECT(work >= 0 && t.total[static_cast<size_t>(work)] == 4 && t.self[static_cast<size_t>(work)] == 0);
  EXPECT(t.depth[static_cast<size_t>(work)] == 2);
  const int32_t main_ = find(t, "main");
  EXPECT(t.total[static_cast<size_t>(main_)] == 6);
  EXPECT(t.size() == 8);  // root main work helper work helper leaf tiny
  // pprof's flat/cum per frame: recursion counted once.
  EXPECT(t.frame_total[static_cast<size_t>(frame(t, "work"))] == 4);
  EXPECT(t.frame_self[static_cast<size_t>(frame(t, "helper"))] == 3);
  EXPECT(t.base_total.empty() && !t.with_base);
}

TEST(tree_is_preorder_sorted_by_total) {
  Profile p = tree_profile();
  NodeTable nodes = aggregate(p, AggregateOptions{});
  CallTree t = build_call_tree(StackSource{&p, &nodes, 0}, nullptr, CallTreeOptions{});
  for (size_t i = 1; i < t.size(); ++i) {
    const int32_t par = t.parent[i];
    EXPECT(par >= 0 && static_cast<size_t>(par) < i);
    EXPECT(t.depth[i] == t.depth[static_cast<size_t>(par)] + 1);
  }
  // main's children: work (4) before leaf (2).
  const int32_t main_ = find(t, "main");
  EXPECT(path(t, main_ + 1) == "main;work");
}

TEST(inverted_tree_starts_at_leaves) {
  Profile p = tree_profile();
  NodeTable nodes = aggregate(p, AggregateOptions{});
  CallTreeOptions opt;
  opt.inverted = true;
  CallTree t = build_call_tree(StackSource{&p, &nodes, 0}, nullptr, opt);
  const int32_t h = find(t, "helper");
  EXPECT(h >= 0 && t.total[static_cast<size_t>(h)] == 3);
  EXPECT(find(t, "tiny;helper;work;main") >= 0);
  EXPECT(t.self[static_cast<size_t>(find(t, "leaf;main"))] == 2);
}

TEST(min_fraction_merges_small_children) {
  Profile p = tree_profile({30, 20, 1, 0});
  NodeTable nodes = aggregate(p, AggregateOptions{});
  CallTreeOptions opt;
  opt.min_fraction = 0.05;  // 2.55 of 51: tiny (1) goes
  CallTree t = build_call_tree(StackSource{&p, &nodes, 0}, nullptr, opt);
  const int32_t dots = find(t, "main;work;helper;...");
  EXPECT(dots >= 0 && t.self[static_cast<size_t>(dots)] == 1 && t.total[static_cast<size_t>(dots)] == 1);
  EXPECT(find(t, "main;work;helper;tiny") < 0);
  EXPECT(t.ellipsis_frame >= 0);
  // Totals are unchanged by merging.
  EXPECT(t.total[static_cast<size_t>(find(t, "main;work;helper"))] == 31);
}

TEST(base_profile_shares_tree) {
  Profile cur = tree_profile({3, 2, 0, 0});
  Profile base = tree_profile({1, 0, 5, 0});
  NodeTable nc = aggregate(cur, AggregateOptions{}), nb = aggregate(base, AggregateOptions{});
  StackSource bs{&base, &nb, 0};
  CallTree t = build_call_tree(StackSource{&cur, &nc, 0}, &bs, CallTreeOptions{});
  EXPECT(t.with_base);
  EXPECT(t.total[0] == 5 && t.base_total[0] == 6);
  const int32_t tiny = find(t, "main;work;helper;tiny");  // only in the base: kept
  EXPECT(tiny >= 0 && t.total[static_cast<size_t>(tiny)] == 0 && t.base_total[static_cast<size_t>(tiny)] == 5);
  const int32_t leaf = find(t, "main;leaf");  // only in the new profile
  EXPECT(leaf >= 0 && t.base_total[static_cast<size_t>(leaf)] == 0 && t.total[static_cast<size_t>(leaf)] == 2);
}

TEST(lines_granularity_splits_frames) {
  Profile p = tree_profile();
  AggregateOptions o;
  o.granularity = Granularity::Lines;
  NodeTable nodes = aggregate(p, o);
  CallTree t = build_call_tree(StackSource{&p, &nodes, 0}, nullptr, CallTreeOptions{});
  EXPECT(find(t, "main main.go:5;leaf leaf.go:41") >= 0);
  EXPECT(t.frame_line[static_cast<size_t>(frame(t, "leaf leaf.go:41"))] == 41);
}

TEST(nodes_without_sums_give_the_same_tree) {
  Profile p = tree_profile();
  AggregateOptions o;
  o.sums = false;
  NodeTable lean = aggregate(p, o), full = aggregate(p, AggregateOptions{});
  EXPECT(lean.cum[0] == 0 && lean.printable[0] == full.printable[0]);
  CallTree a = build_call_tree(StackSource{&p, &lean, 0}, nullptr, CallTreeOptions{});
  CallTree b = build_call_tree(StackSource{&p, &full, 0}, nullptr, CallTreeOptions{});
  EXPECT(a.parent == b.parent && a.frame == b.frame && a.self == b.self && a.total == b.total);
  EXPECT(a.frame_total == b.frame_total);
}

TEST(threads_give_the_same_tree) {
  Profile cur = tree_profile({3, 2, 1, 4});
  Profile base = tree_profile({1, 0, 5, 2});
  NodeTable nc = aggregate(cur, AggregateOptions{}), nb = aggregate(base, AggregateOptions{});
  StackSource bs{&base, &nb, 0};
  for (bool inverted : {false, true}) {
    CallTreeOptions serial, threaded;
    serial.inverted = threaded.inverted = inverted;
    serial.min_samples_per_thread = 1000000;
    threaded.min_samples_per_thread = 1;  // one sample per part (as many parts as cores)
    CallTree a = build_call_tree(StackSource{&cur, &nc, 0}, &bs, serial);
    CallTree b = build_call_tree(StackSource{&cur, &nc, 0}, &bs, threaded);
    EXPECT(a.parent == b.parent && a.frame == b.frame && a.self == b.self && a.total == b.total);
    EXPECT(a.base_self == b.base_self && a.base_total == b.base_total && a.frame_total == b.frame_total);
  }
}

static bool same_tree(const CallTree& a, const CallTree& b) {
  bool frames = a.frame_name.size() == b.frame_name.size();
  for (size_t i = 0; frames && i < a.frame_name.size(); ++i)
    frames = a.frame_name[i] == b.frame_name[i] && a.frame_file[i] == b.frame_file[i];
  return frames && a.frame_line == b.frame_line && a.frame_self == b.frame_self && a.frame_total == b.frame_total &&
         a.frame_base_self == b.frame_base_self && a.frame_base_total == b.frame_base_total &&
         a.ellipsis_frame == b.ellipsis_frame && a.parent == b.parent && a.frame == b.frame && a.depth == b.depth &&
         a.self == b.self && a.total == b.total && a.base_self == b.base_self && a.base_total == b.base_total &&
         a.with_base == b.with_base;
}

TEST(pruned_build_equals_trie_build) {
  size_t checked = 0, trimmed = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Profile cur = check::random_profile(seed, 30 + seed * 7), base = check::random_profile(seed + 1000, 25 + seed * 5);
    AggregateOptions agg;
    agg.granularity = seed % 3 == 0 ? Granularity::Lines : Granularity::Functions;
    NodeTable nc = aggregate(cur, agg), nb = aggregate(base, agg);
    StackSource bs{&base, &nb, 0};
    for (double mf : {0.0, 0.002, 0.01, 0.05, 0.2, 1.0})
      for (bool inverted : {false, true})
        for (bool with_base : {false, true}) {
          CallTreeOptions trie, pruned;
          trie.min_fraction = pruned.min_fraction = mf;
          trie.inverted = pruned.inverted = inverted;
          trie.method = CallTreeOptions::Method::Trie;
          pruned.method = CallTreeOptions::Method::Pruned;
          pruned.min_samples_per_thread = seed % 2 ? 1 : 50000;  // split across threads, or not
          const StackSource* b = with_base ? &bs : nullptr;
          CallTree a = build_call_tree(StackSource{&cur, &nc, 0}, b, trie);
          CallTree c = build_call_tree(StackSource{&cur, &nc, 0}, b, pruned);
          EXPECT(same_tree(a, c));
          ++checked;
          trimmed += a.ellipsis_frame >= 0;
        }
  }
  EXPECT(checked == 40 * 6 * 4 && trimmed > checked / 4);  // the trimming paths were taken
}

// `p` with a second sample type: its values, some zeroed (a type only some samples have).
static Profile with_second_type(const Profile& p, uint32_t seed) {
  Profile q = p;
  q.sample_type_type.push_back(q.sample_type_type[0]);
  q.sample_type_unit.push_back(q.sample_type_unit[0]);
  q.values.clear();
  for (size_t s = 0; s < p.num_samples(); ++s) {
    q.values.push_back(p.values[s]);
    q.values.push_back((s + seed) % 3 == 0 ? 0 : p.values[s] * 3 - 7);
  }
  return q;
}

TEST(kept_path_sums_give_the_tree_built_from_scratch) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const Profile cur = with_second_type(check::random_profile(seed, 30 + seed * 7), seed);
    const Profile base = with_second_type(check::random_profile(seed + 1000, 25 + seed * 5), seed);
    const NodeTable nc = aggregate(cur, AggregateOptions{}), nb = aggregate(base, AggregateOptions{});
    for (bool inverted : {false, true}) {
      const PathSums sums = path_sums(cur, nc, inverted);
      for (size_t type : {0, 1})
        for (double mf : {0.002, 0.05, 0.2})
          for (bool with_base : {false, true}) {  // with a base the sums are not used
            CallTreeOptions scratch, kept;
            scratch.min_fraction = kept.min_fraction = mf;
            scratch.inverted = kept.inverted = inverted;
            kept.sums = &sums;
            kept.min_samples_per_thread = seed % 2 ? 1 : 50000;
            const StackSource bs{&base, &nb, type};
            const StackSource* b = with_base ? &bs : nullptr;
            EXPECT(same_tree(build_call_tree(StackSource{&cur, &nc, type}, b, scratch),
                             build_call_tree(StackSource{&cur, &nc, type}, b, kept)));
          }
    }
  }
}

// Every tree read off (or split from) `kept` equals the one built from scratch.
static size_t check_kept_tree(const Profile& p, const NodeTable& nodes, const KeptTree& kept, bool inverted) {
  size_t covered = 0;
  for (size_t type = 0; type < p.num_types(); ++type)
    for (double mf : {0.002, 0.05, 0.2}) {
      CallTreeOptions scratch, read;
      scratch.min_fraction = read.min_fraction = mf;
      scratch.inverted = read.inverted = inverted;
      read.kept = &kept;
      EXPECT(same_tree(build_call_tree(StackSource{&p, &nodes, type}, nullptr, scratch),
                       build_call_tree(StackSource{&p, &nodes, type}, nullptr, read)));
      covered += kept.covers(type, mf);
    }
  return covered;
}

TEST(kept_trees_and_derived_ones_give_the_trees_built_from_scratch) {
  size_t covered = 0, derived = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Profile cur = with_second_type(check::random_profile(seed, 30 + seed * 7), seed);
    if (seed % 2)  // no negative value: the derived trees cover both types
      for (int64_t& v : cur.values) v = v < 0 ? -v : v;
    const NodeTable nc = aggregate(cur, AggregateOptions{});
    std::vector<uint8_t> keep(cur.num_samples(), 1);
    for (size_t s = seed % 5; s < keep.size(); s += 5) keep[s] = 0;  // a fifth dropped
    const Profile child = keep_samples(cur, keep);
    const NodeTable nk = aggregate(child, AggregateOptions{});
    for (bool inverted : {false, true})
      for (double slack : {1.0, 0.5}) {
        const KeptTree kept = kept_tree(cur, nc, inverted, 0.002, slack);
        covered += check_kept_tree(cur, nc, kept, inverted);
        // The samples matched again, or named by the filter's own mask: the same trees.
        for (const std::vector<uint8_t>* mask : std::vector<const std::vector<uint8_t>*>{nullptr, &keep}) {
          const std::optional<KeptTree> sub = derive_kept_tree(child, nk, kept, mask);
          EXPECT(sub.has_value());
          if (!sub) continue;
          derived += check_kept_tree(child, nk, *sub, inverted);
        }
      }
    // A profile whose samples are not the parent's gets none.
    EXPECT(!derive_kept_tree(with_second_type(check::random_profile(seed + 99, 40), seed), nc,
                             kept_tree(cur, nc, false, 0.002, 0.5))
                .has_value());
  }
  EXPECT(covered > 100 && derived > 50);  // most trees were read off the kept ones
}

TEST(pruned_build_on_the_hand_built_tree) {
  for (double mf : {0.0, 0.05}) {
    Profile p = tree_profile({30, 20, 1, 4});
    NodeTable nodes = aggregate(p, AggregateOptions{});
    CallTreeOptions trie, pruned;
    trie.min_fraction = pruned.min_fraction = mf;
    trie.method = CallTreeOptions::Method::Trie;
    pruned.method = CallTreeOptions::Method::Pruned;
    CallTree a = build_call_tree(StackSource{&p, &nodes, 0}, nullptr, trie);
    CallTree b = build_call_tree(StackSource{&p, &nodes, 0}, nullptr, pruned);
    EXPECT(same_tree(a, b) && a.total[0] == 55 && b.self[0] == 4);
  }
}

TEST(bad_arguments_throw) {
  Profile p = tree_profile();
  NodeTable nodes = aggregate(p, AggregateOptions{});
  bool threw = false;
  try {
    build_call_tree(StackSource{&p, &nodes, 3}, nullptr, CallTreeOptions{});
  } catch (const ProfileError&) {
    threw = true;
  }
  EXPECT(threw);
  threw = false;
  CallTreeOptions opt;
  opt.min_fraction = 2;
  try {
    build_call_tree(StackSource{&p, &nodes, 0}, nullptr, opt);
  } catch (const ProfileError&) {
    threw = true;
  }
  EXPECT(threw);
}

int main() { return check::run_all(); }
