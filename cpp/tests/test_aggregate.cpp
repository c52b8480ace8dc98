// C++ unit tests of aggregate (nodes, flat/cum, names, order), folded and stack ids.
#include <map>
#include <random>
#include <set>

#include "check.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/folded.hpp"
#include "pprofcore/packages.hpp"
#include "pprofcore/tables.hpp"

using namespace pprofcore;

// main -> work (recursing: work -> work) with an inlined helper in loc 2, plus
// one unsymbolized location in /lib/libc.so.6.
static Profile recursive_profile() {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  check::one_mapping(p, 0x1000, 0x2000, s.intern("/lib/libc.so.6"));
  p.functions.id = {1, 2, 3};
  p.functions.name = {s.intern("main"), s.intern("work"), s.intern("helper")};
  p.functions.system_name = p.functions.name;
  p.functions.filename = {s.intern("/proc/self/cwd/./src/main.go"), s.intern("src/../src/work.go"),
                          s.intern("src/work.go")};
  p.functions.start_line = {1, 10, 30};
  p.locations.id = {1, 2, 3};
  p.locations.mapping = {-1, -1, 0};
  p.locations.address = {0, 0, 0x1234};
  p.locations.is_folded = {0, 0, 0};
  p.locations.line_offsets = {0, 1, 3, 3};
  p.lines.function = {0, 2, 1};  // loc 2: helper inlined into work
  p.lines.line = {5, 31, 12};
  p.lines.column = {0, 0, 0};
  // sample 0: main -> work(+helper) -> work(+helper), value 3
  // sample 1: main -> libc, value 2
  p.values = {3, 2};
  p.stack_offsets = {0, 3, 5};
  p.stack_locations = {1, 1, 0, 2, 0};
  p.label_offsets = {0, 0, 0};
  p.strings = s.take();
  return p;
}

TEST(clean_path_like_go) {
  EXPECT(clean_path("") == ".");
  EXPECT(clean_path("a/../b") == "b");
  EXPECT(clean_path("/../a//b/./c/") == "/a/b/c");
  EXPECT(clean_path("../../x") == "../../x");
  EXPECT(clean_path("a/b/../../..") == "..");
  EXPECT(clean_path("/") == "/");
}

TEST(functions_flat_cum_recursion) {
  Profile p = recursive_profile();
  check_invariants(p);
  NodeTable t = aggregate(p, AggregateOptions{});
  const int main_ = check::node_row(t, "main"), work = check::node_row(t, "work"),
            helper = check::node_row(t, "helper"), libc = check::node_row(t, "[libc.so.6]");
  EXPECT(main_ >= 0 && work >= 0 && helper >= 0 && libc >= 0);
  EXPECT(t.cum[static_cast<size_t>(main_)] == 5);
  EXPECT(t.cum[static_cast<size_t>(work)] == 3);  // once per sample despite recursion
  EXPECT(t.flat[static_cast<size_t>(helper)] == 3);
  EXPECT(t.flat[static_cast<size_t>(libc)] == 2);
  EXPECT(t.inline_label[static_cast<size_t>(helper)] == 1);
  std::vector<int32_t> order = node_order(p, t, 0, false);
  EXPECT(order.size() == 4);
  EXPECT(order[0] == helper && order[1] == libc);
}

TEST(granularities_name_nodes_like_pprof) {
  Profile p = recursive_profile();
  AggregateOptions o;
  o.granularity = Granularity::Lines;
  NodeTable t = aggregate(p, o);
  EXPECT(check::node_row(t, "main src/main.go:5") >= 0);   // /proc/self/cwd/./ trimmed
  EXPECT(check::node_row(t, "work src/work.go:12") >= 0);  // path cleaned
  o.granularity = Granularity::Addresses;
  t = aggregate(p, o);
  EXPECT(check::node_row(t, "0000000000001234 [libc.so.6]") >= 0);
  o.granularity = Granularity::Files;
  t = aggregate(p, o);
  EXPECT(check::node_row(t, "src/work.go") >= 0);
  o.granularity = Granularity::Functions;
  o.inline_frames = false;
  t = aggregate(p, o);
  EXPECT(check::node_row(t, "helper") < 0);
  EXPECT(t.flat[static_cast<size_t>(check::node_row(t, "work"))] == 3);
  EXPECT_THROWS(parse_granularity("bogus"), ProfileError, "granularity");
}

TEST(nodes_without_names_or_sums_are_the_same_nodes) {
  // A lean table (no sums, no names) has the full table's nodes in the same
  // order, and printable_name() names each as the full table does.
  Profile p = recursive_profile();
  for (Granularity g : {Granularity::Functions, Granularity::FileFunctions, Granularity::Files, Granularity::Lines,
                        Granularity::Addresses, Granularity::Packages, Granularity::Binaries}) {
    for (bool inline_frames : {true, false}) {
      AggregateOptions o;
      o.granularity = g, o.inline_frames = inline_frames;
      const NodeTable full = aggregate(p, o);
      o.sums = false, o.names = false;
      const NodeTable lean = aggregate(p, o);
      EXPECT(lean.size() == full.size() && lean.printable.size() == 0);
      EXPECT(lean.loc_nodes == full.loc_nodes && lean.loc_node_offsets == full.loc_node_offsets);
      for (size_t n = 0; n < full.size() && n < lean.size(); ++n)
        EXPECT(printable_name(p, lean, n) == full.printable[n]);
    }
  }
}

TEST(packages_and_binaries) {
  // Functions group by package (once per function row); a function without
  // one (main, work, helper are plain C names) falls under its binary, or
  // <unknown> without a mapping; binaries are mapping files.
  Profile p = recursive_profile();
  AggregateOptions o;
  o.granularity = parse_granularity("packages");
  NodeTable t = aggregate(p, o);
  EXPECT(t.size() == 2 && check::node_row(t, "<unknown>") >= 0 && check::node_row(t, "[libc.so.6]") >= 0);
  EXPECT(t.flat[static_cast<size_t>(check::node_row(t, "<unknown>"))] == 3);
  EXPECT(t.cum[static_cast<size_t>(check::node_row(t, "<unknown>"))] == 5);  // once per sample despite recursion
  o.granularity = parse_granularity("binaries");
  t = aggregate(p, o);
  EXPECT(t.size() == 2 && t.flat[static_cast<size_t>(check::node_row(t, "libc.so.6"))] == 2);
  EXPECT(package_of("github.com/x/y/pkg.(*T[go.shape.int]).M.func1", "") == "github.com/x/y/pkg");
  EXPECT(package_of("com.foo.Bar$Inner.run(I)V", "") == "com.foo");
  EXPECT(package_of("void ns::sub::Class<int>::fn(int) [clone .cold]", "") == "ns::sub");
  EXPECT(package_of("krate::module::f::{{closure}}::h0123456789abcdef", "") == "krate::module");
  EXPECT(package_of("handle", "/venv/lib/python3.12/site-packages/pkg/mod.py") == "pkg.mod");
  EXPECT(package_of("memcpy", "") == "");
}

TEST(edges_and_folded) {
  Profile p = recursive_profile();
  NodeTable t = aggregate(p, AggregateOptions{});
  std::vector<uint8_t> mask(t.size(), 1);
  EdgeTable e = aggregate_edges(p, t, mask, -1);
  int64_t main_to_work = -1;
  for (size_t i = 0; i < e.size(); ++i)
    if (t.printable[static_cast<size_t>(e.src[i])] == "main" && t.printable[static_cast<size_t>(e.dst[i])] == "work")
      main_to_work = e.weight[i];
  EXPECT(main_to_work == 3);
  std::string f = to_folded(p, t, 0, {}, {});
  EXPECT(f == "main;[libc.so.6] 2\nmain;work;helper;work;helper 3\n");
}

TEST(duplicate_strings_merge_like_pprof) {
  Profile p = recursive_profile();
  // a second copy of "work" in the string table, used by a new function
  const int32_t dup = static_cast<int32_t>(p.strings.size());
  p.strings.push_back("work");
  p.functions.id.push_back(4);
  p.functions.name.push_back(dup);
  p.functions.system_name.push_back(dup);
  p.functions.filename.push_back(0);
  p.functions.start_line.push_back(0);
  p.lines.function[2] = 3;  // loc 2's outer line now uses the duplicate
  check_invariants(p);
  NodeTable t = aggregate(p, AggregateOptions{});
  int n = 0;
  for (size_t i = 0; i < t.size(); ++i) n += t.printable[i] == "work";
  EXPECT(n == 1);
}

TEST(stack_ids_dense) {
  Profile p = recursive_profile();
  auto ids = stack_ids(p);
  EXPECT(ids.size() == 2 && ids[0] == 0 && ids[1] == 1);
}

TEST(frame_columns_expand_inline) {
  Profile p = recursive_profile();
  FrameColumns f = frame_columns(p);
  EXPECT(f.sample.size() == 7);
  EXPECT(f.depth[0] == 0 && f.depth[4] == 4 && f.depth[5] == 0);
  EXPECT(f.is_inline[0] == 1 && f.is_inline[1] == 0);     // helper inlined into work
  EXPECT(f.function[5] == -1 && f.address[5] == 0x1234);  // unsymbolized libc frame
  EXPECT(f.line[0] == 31 && f.line[1] == 12);
}

TEST(sums_past_int64_are_refused) {
  Profile p = recursive_profile();
  p.values = {INT64_MAX - 2, 2};  // the sum of |values| is exactly INT64_MAX: fits
  EXPECT(sums_fit(p, 0));
  NodeTable t = aggregate(p, AggregateOptions{});
  EXPECT(!node_order(p, t, 0, false).empty());
  p.values = {INT64_MAX - 2, -3};  // signed sum fits, but cum of a subset may not
  EXPECT(!sums_fit(p, 0));
  t = aggregate(p, AggregateOptions{});
  EXPECT_THROWS(node_order(p, t, 0, false), ProfileError, "'samples/count'");
  EXPECT_THROWS(to_folded(p, t, 0, {}, {}), ProfileError, "int64");
  p.values = {INT64_MIN, 0};
  EXPECT(!sums_fit(p, 0));
}

TEST(folded_frames_escape_line_breaks_and_semicolons) {
  std::string out;
  append_folded_frame(out, "a;b\nc\r\x1b\td\xc2\x85\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa#");
  EXPECT(out == "a\\x3bb\\x0ac\\x0d\\x1b\td\\x85\\u2028\\u2029\xe2\x80\xaa#");
}

TEST(threads_give_the_same_sums) {
  for (uint32_t seed = 0; seed < 40; ++seed) {
    Profile p = check::random_profile(seed, 20 + seed * 9);
    for (Granularity g : {Granularity::Functions, Granularity::Lines, Granularity::Files}) {
      AggregateOptions serial, threaded;
      serial.granularity = threaded.granularity = g;
      serial.min_samples_per_thread = 1000000;
      threaded.min_samples_per_thread = 1;  // one sample per part (as many parts as cores)
      NodeTable a = aggregate(p, serial), b = aggregate(p, threaded);
      EXPECT(a.flat == b.flat && a.cum == b.cum);
      EXPECT(a.inline_label == b.inline_label && a.inline_labels_by_type == b.inline_labels_by_type);
    }
  }
}

// Edges touching a few nodes are the edges of every node that touch them, in
// the same order: samples that hold none of the few are skipped unread.
TEST(edges_of_some_nodes_are_a_subset_of_all) {
  for (uint32_t seed = 0; seed < 40; ++seed) {
    Profile p = check::random_profile(seed, 20 + seed * 9);
    NodeTable t = aggregate(p, AggregateOptions{});
    std::vector<uint8_t> all(t.size(), 1), some(t.size(), 0);
    for (size_t n = 0; n < t.size(); n += 3) some[n] = 1;
    EdgeTable full = aggregate_edges(p, t, all, -1), part = aggregate_edges(p, t, some, -1);
    EdgeTable want;
    for (size_t e = 0; e < full.size(); ++e) {
      if (!some[static_cast<size_t>(full.src[e])] && !some[static_cast<size_t>(full.dst[e])]) continue;
      want.src.push_back(full.src[e]);
      want.dst.push_back(full.dst[e]);
      want.weight.push_back(full.weight[e]);
      want.is_inline.push_back(full.is_inline[e]);
    }
    EXPECT(part.src == want.src && part.dst == want.dst && part.weight == want.weight &&
           part.is_inline == want.is_inline);
  }
}

// The edges a plain walk finds: every kept node of every frame, root first,
// an edge wherever caller or callee is masked (the reference the walk that
// skips unmasked locations is held to).
EdgeTable edges_frame_by_frame(const Profile& p, const NodeTable& t, const std::vector<uint8_t>& mask,
                               const std::vector<uint8_t>& keep) {
  EdgeTable e;
  e.n_types = p.num_types();
  std::map<std::pair<int32_t, int32_t>, size_t> rows;
  std::set<size_t> added;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    if (p.values[s] == 0) continue;
    added.clear();
    int32_t parent = -1;
    for (int64_t i = p.stack_offsets[s + 1] - 1; i >= p.stack_offsets[s]; --i) {
      const size_t loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(i)]);
      for (int64_t j = t.loc_node_offsets[loc + 1] - 1; j >= t.loc_node_offsets[loc]; --j) {
        const int32_t n = t.loc_nodes[static_cast<size_t>(j)];
        if (!keep[static_cast<size_t>(n)]) continue;
        const bool is_inline = j != t.loc_node_offsets[loc + 1] - 1;
        if (parent >= 0 && parent != n && (mask[static_cast<size_t>(parent)] || mask[static_cast<size_t>(n)])) {
          auto [it, fresh] = rows.try_emplace({parent, n}, e.src.size());
          if (fresh) {
            e.src.push_back(parent);
            e.dst.push_back(n);
            e.weight.push_back(0);
            e.is_inline.push_back(is_inline);
          }
          if (!is_inline) e.is_inline[it->second] = 0;
          if (added.insert(it->second).second) e.weight[it->second] += p.values[s];
        }
        parent = n;
      }
    }
  }
  return e;
}

TEST(edges_equal_a_frame_by_frame_walk) {
  for (uint32_t seed = 0; seed < 60; ++seed) {
    Profile p = check::random_profile(seed, 20 + seed * 9);
    NodeTable t = aggregate(p, AggregateOptions{});
    std::mt19937 rng(seed);
    std::vector<uint8_t> mask(t.size()), keep(t.size());
    for (size_t n = 0; n < t.size(); ++n) {
      mask[n] = rng() % 4 == 0;
      keep[n] = rng() % 5 != 0;
    }
    const std::vector<uint8_t> all(t.size(), 1), none;
    for (bool trimmed : {true, false}) {
      EdgeTable got = aggregate_edges(p, t, mask, -1, -1, trimmed ? keep : none);
      EdgeTable want = edges_frame_by_frame(p, t, mask, trimmed ? keep : all);
      EXPECT(got.src == want.src && got.dst == want.dst && got.weight == want.weight &&
             got.is_inline == want.is_inline);
    }
  }
}

int main() { return check::run_all(); }
