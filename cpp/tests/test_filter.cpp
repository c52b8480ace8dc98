// C++ unit tests of filter/prune/labels on a hand-built profile: pprof's
// documented examples (ShowFrom, PruneFrom, Prune) and output invariants.
#include <random>

#include "check.hpp"
#include "pprofcore/filter.hpp"
#include "pprofcore/labels.hpp"
#include "pprofcore/prune.hpp"

using namespace pprofcore;

// Functions A..D (rows 0..3), one location per function, no mapping; one
// sample whose stack (leaf first) is given as function rows.
static Profile make(const std::vector<int32_t>& stack) {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  for (int i = 0; i < 4; ++i) {
    const std::string name(1, static_cast<char>('A' + i));
    p.functions.id.push_back(static_cast<uint64_t>(i + 1));
    p.functions.name.push_back(s.intern(name));
    p.functions.system_name.push_back(0);
    p.functions.filename.push_back(0);
    p.functions.start_line.push_back(0);
    check::add_location(p, static_cast<uint64_t>(i + 1), -1, 0, i, 1);
  }
  p.values = {1};
  p.stack_locations = stack;
  p.stack_offsets = {0, static_cast<int64_t>(stack.size())};
  p.labels.key = {s.intern("k")};
  p.labels.str = {s.intern("v")};
  p.labels.num = {0};
  p.labels.num_unit = {0};
  p.label_offsets = {0, 1};
  p.strings = s.take();
  check_invariants(p);
  return p;
}

static std::vector<uint8_t> only(int f) {
  std::vector<uint8_t> m(4, 0);
  m[static_cast<size_t>(f)] = 1;
  return m;
}

static NameMatch match(int f) {
  NameMatch m;
  m.active = true;
  m.function = only(f);
  return m;
}

static std::vector<int32_t> stack_of(const Profile& p, size_t s = 0) {
  return std::vector<int32_t>(p.stack_locations.begin() + p.stack_offsets[s],
                              p.stack_locations.begin() + p.stack_offsets[s + 1]);
}

enum { A, B, C, D };

TEST(show_from_keeps_rootmost_match_and_callees) {
  Profile p = make({B, C, B, A});  // pprof's [A, B, C, B], root A
  bool matched = false;
  Profile q = show_from(p, match(B), &matched);
  check_invariants(q);
  EXPECT(matched);
  EXPECT((stack_of(q) == std::vector<int32_t>{B, C, B}));
  // D exists but is in no stack: it matched no samples.
  Profile r = show_from(p, match(D), &matched);
  EXPECT(!matched);
  EXPECT(r.num_samples() == 0);
}

TEST(prune_from_and_prune_follow_pprof_docs) {
  Profile p = make({A, B, C, B, D});  // pprof's [A, B, C, B, D], leaf A
  EXPECT((stack_of(prune_from(p, only(B))) == std::vector<int32_t>{B, C, B, D}));
  EXPECT((stack_of(prune_from(p, only(A))) == std::vector<int32_t>{A, B, C, B, D}));
  EXPECT((stack_of(prune(p, only(B))) == std::vector<int32_t>{D}));
  EXPECT((stack_of(prune(p, only(D))) == std::vector<int32_t>{A, B, C, B, D}));
}

TEST(focus_ignore_hide_show) {
  Profile p = make({A, B, C});
  NameMatch none;
  auto r = filter_by_name(p, match(B), none, none, none);
  EXPECT(r.focus_matched && r.profile.num_samples() == 1);
  r = filter_by_name(p, none, match(B), none, none);
  EXPECT(r.ignore_matched && r.profile.num_samples() == 0);
  r = filter_by_name(p, none, none, match(B), none);
  check_invariants(r.profile);
  EXPECT((stack_of(r.profile) == std::vector<int32_t>{A, C}));
  EXPECT(r.profile.labels.size() == 1);
  r = filter_by_name(p, none, none, none, match(D));
  EXPECT(!r.show_matched && r.profile.num_samples() == 0);
}

// Random profiles with labels: a focus/ignore filter, which copies the kept
// samples in runs, equals keep_samples (one sample at a time) on the samples
// pprof's rule keeps, computed here frame by frame.
TEST(focus_ignore_copies_the_kept_samples) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Profile p = check::random_profile(seed, 30 + seed * 7);
    std::mt19937 rng(seed);
    p.label_offsets = {0};
    for (size_t s = 0; s < p.num_samples(); ++s) {
      for (uint32_t k = rng() % 3; k > 0; --k) p.labels.push_back(1, -1, static_cast<int64_t>(rng() % 100), 0);
      p.label_offsets.push_back(static_cast<int64_t>(p.labels.size()));
    }
    NameMatch focus, ignore;
    for (NameMatch* m : {&focus, &ignore}) {
      m->active = seed % 3 != 0 || m == &ignore;
      m->mapping.assign(p.mappings.size(), 0);
      for (size_t f = 0; f < p.functions.size(); ++f) m->function.push_back(rng() % (m == &ignore ? 6 : 2) == 0);
    }
    auto matches = [&](const NameMatch& m, int32_t loc) {
      if (!m.active) return false;
      for (int64_t i = p.locations.line_offsets[loc]; i < p.locations.line_offsets[loc + 1]; ++i)
        if (m.function[static_cast<size_t>(p.lines.function[static_cast<size_t>(i)])]) return true;
      return false;
    };
    std::vector<uint8_t> keep(p.num_samples(), 0);
    for (size_t s = 0; s < p.num_samples(); ++s) {
      bool focused = false, ignored = false;
      for (int32_t loc : stack_of(p, s)) {
        focused = focused || !focus.active || matches(focus, loc);
        ignored = ignored || matches(ignore, loc);
      }
      keep[s] = focused && !ignored;
    }
    const Profile want = keep_samples(p, keep);
    const Profile got = filter_by_name(p, focus, ignore, NameMatch(), NameMatch()).profile;
    check_invariants(got);
    EXPECT(got.values == want.values && got.stack_offsets == want.stack_offsets);
    EXPECT(got.stack_locations == want.stack_locations && got.label_offsets == want.label_offsets);
    EXPECT(got.labels.key == want.labels.key && got.labels.num == want.labels.num);
  }
}

TEST(label_frames_and_keep_labels) {
  Profile p = make({A, B});
  bool rm = false, lm = false;
  Profile q = add_label_frames(p, {p.labels.key[0]}, {}, {p.labels.str[0]}, {}, &rm, &lm);
  check_invariants(q);
  EXPECT(rm && !lm);
  EXPECT(q.locations.size() == 5);
  EXPECT((stack_of(q) == std::vector<int32_t>{A, B, 4}));
  EXPECT(q.str(q.functions.name[4]) == "v" && q.str(q.functions.filename[4]) == "k");
  Profile r = keep_labels(p, {0});
  check_invariants(r);
  EXPECT(r.labels.size() == 0 && r.num_samples() == 1);
}

int main() { return check::run_all(); }
