// C++ unit tests of merge, compact, scale and delta, including the
// no-allocation-in-steady-state guarantee of DeltaComputer (counted by
// replacing the global operator new in this test binary).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

#include "check.hpp"
#include "pprofcore/labels.hpp"
#include "pprofcore/delta.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/merge.hpp"
#include "pprofcore/scale.hpp"

using namespace pprofcore;

static std::atomic<long> g_allocs{0};
void* operator new(std::size_t n) {
  ++g_allocs;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

// A Go-heap-like cumulative profile at step `step`: `k` stacks over a few
// functions, alloc_* growing with the step, inuse_* constant. The last stack
// is split into two identical samples (duplicates to aggregate), and sample
// order rotates with the step.
static Profile heap_step(int step, int k = 40) {
  Profile p;
  StringInterner s;
  for (const char* t : {"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"})
    p.sample_type_type.push_back(s.intern(t));
  for (const char* u : {"count", "bytes", "count", "bytes"}) p.sample_type_unit.push_back(s.intern(u));
  p.has_period_type = true;
  p.period_type_type = s.intern("space");
  p.period_type_unit = s.intern("bytes");
  p.period = 524288;
  p.time_nanos = 1000 + step;
  p.mappings.id = {1};
  p.mappings.memory_start = {0x400000 + uint64_t(step) * 0x10000};  // ASLR: moves each step
  p.mappings.memory_limit = {0x900000 + uint64_t(step) * 0x10000};
  p.mappings.file_offset = {0};
  p.mappings.filename = {s.intern("/bin/app")};
  p.mappings.build_id = {s.intern("")};
  p.mappings.has_functions = {1};
  p.mappings.has_filenames = {1};
  p.mappings.has_line_numbers = {1};
  p.mappings.has_inline_frames = {0};
  const int nf = 8;
  for (int f = 0; f < nf; ++f) {
    p.functions.id.push_back(uint64_t(f) + 1);
    p.functions.name.push_back(s.intern("fn" + std::to_string(f)));
    p.functions.system_name.push_back(s.intern("fn" + std::to_string(f)));
    p.functions.filename.push_back(s.intern("app.go"));
    p.functions.start_line.push_back(f * 10);
    p.locations.id.push_back(uint64_t(f) + 1);
    p.locations.mapping.push_back(0);
    p.locations.address.push_back(p.mappings.memory_start[0] + 0x100 * uint64_t(f + 1));
    p.locations.is_folded.push_back(0);
    p.lines.function.push_back(f);
    p.lines.line.push_back(f * 10 + 3);
    p.lines.column.push_back(0);
    p.locations.line_offsets.push_back(p.lines.size());
  }
  int32_t key = s.intern("kind");
  for (int j = 0; j <= k; ++j) {
    int i = (j + step) % k;
    if (j == k) i = k - 1;  // duplicate of the last stack
    p.stack_locations.push_back(i % nf);
    p.stack_locations.push_back((i / nf + 1) % nf);
    p.stack_offsets.push_back(p.stack_locations.size());
    p.labels.key.push_back(key);
    p.labels.str.push_back(s.intern(i % 2 ? "odd" : "even"));
    p.labels.num.push_back(0);
    p.labels.num_unit.push_back(0);
    p.label_offsets.push_back(p.labels.size());
    int64_t grow = int64_t(i + 1) * (step + 1);
    p.values.insert(p.values.end(), {grow, grow * 64, int64_t(i), int64_t(i) * 64});
  }
  p.strings = s.take();
  check_invariants(p);
  return p;
}

static int64_t total(const Profile& p, size_t t) {
  int64_t n = 0;
  for (size_t i = 0; i < p.num_samples(); ++i) n += p.values[i * p.num_types() + t];
  return n;
}

TEST(merge_sums_and_dedups) {
  Profile a = heap_step(0), b = heap_step(1);
  Profile m = merge({&a, &b});
  check_invariants(m);
  EXPECT(m.num_samples() == 40);  // the duplicate is folded in, rotation does not matter
  EXPECT(m.locations.size() == 8 && m.functions.size() == 8 && m.mappings.size() == 1);
  EXPECT(total(m, 1) == total(a, 1) + total(b, 1));
  EXPECT(m.time_nanos == 1000);
  EXPECT(compact(m) == m);
  EXPECT(compact(compact(a)) == compact(a));
}

// Merged sample -> heap_step's stack index i, from its two functions' names.
static int stack_index(const Profile& m, size_t sample) {
  auto fn = [&](int64_t k) {
    const int32_t loc = m.stack_locations[size_t(m.stack_offsets[sample] + k)];
    const int32_t f = m.lines.function[size_t(m.locations.line_offsets[size_t(loc)])];
    return std::stoi(std::string(m.str(m.functions.name[size_t(f)]).substr(2)));
  };
  return fn(0) + 8 * ((fn(1) + 7) % 8);
}

// Samples are looked up through the order of the previous source first; sums
// must not depend on whether that guess hits (same order), misses (rotated,
// reversed input order) or meets a duplicate.
TEST(merge_sums_whatever_the_sample_order) {
  const int k = 40;
  const std::vector<int> orders[] = {{0, 1, 2, 3, 4, 5}, {5, 3, 1, 0, 2, 4}, {2, 2, 2, 0, 0, 0}};
  for (const auto& order : orders) {
    std::vector<Profile> steps;
    for (int step : order) steps.push_back(heap_step(step, k));
    std::vector<const Profile*> ptrs;
    for (const Profile& p : steps) ptrs.push_back(&p);
    Profile m = merge(ptrs);
    check_invariants(m);
    EXPECT(m.num_samples() == size_t(k));
    int64_t weight = 0;
    for (int step : order) weight += step + 1;
    for (size_t s = 0; s < m.num_samples(); ++s) {
      const int i = stack_index(m, s);
      EXPECT(m.values[s * 4] == int64_t(i + 1) * weight * (i == k - 1 ? 2 : 1));
    }
  }
}

// Merger::add builds the keys of 16 samples before looking them up: a
// duplicate within one block (stack k - 1, rows 39 and 40) must still be found,
// and all-zero samples at the blocks' edges (rows 15, 16 and 32) skipped.
TEST(merge_sums_across_key_blocks) {
  const int k = 40;
  Profile p = heap_step(0, k);  // step 0: row j holds stack j (row k repeats stack k - 1)
  for (size_t row : {15, 16, 32}) std::fill_n(p.values.begin() + long(row * 4), 4, 0);
  for (int copies : {1, 2}) {
    std::vector<const Profile*> ptrs(size_t(copies), &p);
    Profile m = merge(ptrs);
    check_invariants(m);
    EXPECT(m.num_samples() == size_t(k - 3));
    for (size_t s = 0; s < m.num_samples(); ++s) {
      const int i = stack_index(m, s);
      EXPECT(i != 15 && i != 16 && i != 32);
      EXPECT(m.values[s * 4] == int64_t(i + 1) * copies * (i == k - 1 ? 2 : 1));
    }
  }
}

// merge() of a list sizes its sample columns ahead from the first inputs
// (over-reserving when later inputs add nothing new, as a fleet of repeats);
// the result equals an incremental merge whose columns only grew.
TEST(merge_sized_ahead_equals_grown) {
  const Profile p = heap_step(3, 400);
  const std::vector<const Profile*> repeats(300, &p);
  Profile m = merge(repeats);
  Merger grown;
  for (const Profile* q : repeats) grown.add(*q);
  EXPECT(m == grown.take_result());
  EXPECT(m.num_samples() == compact(p).num_samples());
  std::vector<Profile> steps;
  for (int i = 0; i < 60; ++i) steps.push_back(heap_step(i, 30 + i));
  std::vector<const Profile*> ptrs;
  Merger stepwise;
  for (const Profile& q : steps) ptrs.push_back(&q), stepwise.add(q);
  EXPECT(merge(ptrs) == stepwise.take_result());
}

// Files prepared ahead (merge_files prepares them on the decoding thread)
// merge exactly as files prepared by the Merger. Inputs alternate between the two,
// so a hash that differs from the Merger's own, or one read at the wrong
// row, interns a string twice or maps a location to another one.
TEST(merge_with_files_prepared_ahead_equals_prepared_here) {
  std::vector<Profile> steps;
  for (int i = 0; i < 40; ++i) steps.push_back(heap_step(i, 10 + (i * 7) % 30));
  Merger here, ahead;
  for (size_t i = 0; i < steps.size(); ++i) {
    here.add(steps[i]);
    const PreparedSource prep = prepare_source(steps[i]);
    ahead.add(steps[i], i % 2 ? &prep : nullptr);
  }
  Profile a = ahead.take_result();
  check_invariants(a);
  EXPECT(a == here.take_result());
}

// pprof's label order (string labels, then numeric, each by key string,
// a key's values in their order) as a stable sort, against what
// prepare_source computes by place masks and by its fallback sort: keys
// held under two codes, a key twice in a sample, samples of 0 to 70 labels,
// and key sets of up to 40 strings (over a mask's 64 places).
TEST(label_order_is_pprofs_stable_sort) {
  std::mt19937 rng(7);
  for (int round = 0; round < 60; ++round) {
    Profile p;
    p.strings.push_back("");
    const int nkeys = 1 + round % 40;
    for (int k = 0; k < nkeys; ++k) p.strings.push_back("key" + std::to_string((k * 7919) % 97));
    p.strings.push_back("key0");  // one key string under two codes
    const int ncodes = static_cast<int>(p.strings.size());
    for (int s = 0; s < 50; ++s) {
      const int n = s % 10 == 9 ? 70 : static_cast<int>(rng() % 8);
      const bool distinct = s % 3 != 0;
      std::vector<int32_t> pool;
      for (int c = 1; c < ncodes; ++c) pool.push_back(c);
      std::shuffle(pool.begin(), pool.end(), rng);
      for (int i = 0; i < n; ++i) {
        const int32_t key =
            distinct && i < static_cast<int>(pool.size()) ? pool[size_t(i)] : 1 + int32_t(rng() % (ncodes - 1));
        const bool numeric = rng() % 3 == 0;
        p.labels.push_back(key, numeric ? -1 : 1, numeric ? int64_t(i) : 0, 0);
      }
      p.label_offsets.push_back(static_cast<int64_t>(p.labels.size()));
      p.stack_offsets.push_back(0);
    }
    const PreparedSource prep = prepare_source(p);
    for (size_t s = 0; s < p.num_samples(); ++s) {
      std::vector<uint32_t> want;
      for (int64_t i = p.label_offsets[s]; i < p.label_offsets[s + 1]; ++i) want.push_back(static_cast<uint32_t>(i));
      // The reference: a stable insertion sort (std::stable_sort's buffer
      // comes from the nothrow operator new this binary does not replace).
      auto before = [&](uint32_t a, uint32_t b) {
        const bool an = p.labels.str[a] < 0, bn = p.labels.str[b] < 0;
        return an != bn ? bn : p.str(p.labels.key[a]) < p.str(p.labels.key[b]);
      };
      for (size_t i = 1; i < want.size(); ++i)
        for (size_t j = i; j > 0 && before(want[j], want[j - 1]); --j) std::swap(want[j], want[j - 1]);
      const uint32_t* got = prep.label_order.data() + p.label_offsets[s];
      EXPECT(std::equal(want.begin(), want.end(), got));
    }
  }
}

// Locations are found by a content hash, then compared field by field: a
// location whose function differs only in its file, or whose line differs,
// is another location; the same content at other rows and string codes is
// the same one.
TEST(merge_matches_locations_by_content) {
  Profile a = heap_step(0);
  Profile other_file = a;
  other_file.strings.push_back("other.go");
  other_file.functions.filename[3] = static_cast<int32_t>(other_file.strings.size() - 1);
  Profile other_line = a;
  other_line.lines.line[5] += 1;
  Profile moved = heap_step(1);  // the mapping moved, so every address did: same keys
  Profile m = merge({&a, &other_file, &other_line, &moved});
  check_invariants(m);
  EXPECT(m.functions.size() == 9);
  EXPECT(m.locations.size() == 10);
  EXPECT(total(m, 0) == 3 * total(a, 0) + total(moved, 0));
}

TEST(merge_drops_cancelled_samples) {
  Profile a = heap_step(2);
  Profile neg = scale_n(a, {-1, -1, -1, -1});
  Profile m = merge({&a, &neg});
  check_invariants(m);
  EXPECT(m.num_samples() == 0);
  EXPECT(m.locations.size() == 0);
  EXPECT(m.mappings.size() == 1);  // the first mapping stays
}

TEST(merge_incompatible_throws) {
  Profile a = heap_step(0);
  Profile b = select_sample_types(a, {0, 1});
  EXPECT_THROWS(merge({&a, &b}), ProfileError, "incompatible sample types");
  EXPECT_THROWS(merge({}), ProfileError, "no profiles");
}

TEST(scale_n_keep_rule) {
  Profile a = heap_step(0);
  // Only the scaled type decides: inuse (ratio 1) cannot keep a sample.
  Profile z = scale_n(a, {0, 0, 1, 1});
  EXPECT(z.num_samples() == 0);
  Profile h = scale_n(a, {0.5, 1, 1, 1});
  EXPECT(h.values[0] == (a.values[0] + 1) / 2 || h.values[0] == a.values[0] / 2);
}

TEST(delta_semantics) {
  DeltaComputer dc({"alloc_objects", "alloc_space"});
  Profile s0 = heap_step(0), s1 = heap_step(1);
  EXPECT(dc.delta(s0) == s0);  // first passes through
  Profile d = dc.delta(s1);
  check_invariants(d);
  EXPECT(d.num_samples() == 40);
  EXPECT(total(d, 0) == total(s1, 0) - total(s0, 0));
  EXPECT(total(d, 2) == total(s1, 2));  // inuse passes through
  Profile d2 = dc.delta(s1);            // nothing new allocated: only inuse left
  EXPECT(total(d2, 0) == 0 && total(d2, 2) == total(s1, 2));
  EXPECT(d2.num_samples() == 39);  // stack 0 has inuse 0 -> all-zero, dropped
}

TEST(delta_steady_state_allocates_nothing) {
  std::vector<Profile> series;
  for (int i = 0; i < 12; ++i) series.push_back(heap_step(i));
  DeltaComputer dc({"alloc_objects", "alloc_space"});
  Profile out;
  for (int i = 0; i < 4; ++i) dc.delta_into(series[size_t(i)], out);  // warm-up: tables and buffers grow
  long before = g_allocs.load();
  for (int i = 4; i < 12; ++i) dc.delta_into(series[size_t(i)], out);
  long allocs = g_allocs.load() - before;
  std::printf("  allocations in 8 steady-state delta calls: %ld\n", allocs);
  EXPECT(allocs == 0);
  EXPECT(dc.num_states() == 40);
}

TEST(fingerprints_tell_keys_apart) {
  // Every key one word away from another (a changed, added or moved word)
  // gets its own fingerprint; equal keys get equal ones.
  std::vector<std::vector<uint32_t>> keys;
  for (uint32_t n = 0; n < 12; ++n) {
    std::vector<uint32_t> k(n);
    for (uint32_t i = 0; i < n; ++i) k[i] = i * 2654435761u;
    keys.push_back(k);
    for (uint32_t i = 0; i < n; ++i) {
      for (uint32_t bit : {0u, 17u, 31u}) {
        std::vector<uint32_t> m = k;
        m[i] ^= 1u << bit;
        keys.push_back(m);
      }
      if (i + 1 < n) {
        std::vector<uint32_t> m = k;
        std::swap(m[i], m[i + 1]);
        keys.push_back(m);
      }
    }
  }
  std::vector<Fingerprint> prints;
  for (auto& k : keys) prints.push_back(fingerprint_words(k.data(), k.size()));
  size_t collisions = 0;
  for (size_t a = 0; a < keys.size(); ++a)
    for (size_t b = a + 1; b < keys.size(); ++b)
      collisions += keys[a] != keys[b] && (prints[a].lo == prints[b].lo || prints[a].hi == prints[b].hi);
  EXPECT(collisions == 0);
  std::vector<uint32_t> again = keys[5];
  EXPECT(fingerprint_words(again.data(), again.size()) == prints[5]);
}

TEST(string_tail_word_equals_zero_padded_copy) {
  // hash_bytes reads a string's last 1-7 bytes with fixed-size loads; the word
  // must be the one a copy into a zeroed word gives, for every length and
  // every byte position (high bytes included).
  const unsigned char bytes[8] = {0x01, 0x80, 0xff, 0x7f, 0x10, 0xfe, 0x33, 0xc4};
  for (size_t n = 1; n < 8; ++n)
    for (size_t start = 0; start + n <= 8; ++start) {
      const char* p = reinterpret_cast<const char*>(bytes) + start;
      uint64_t want = 0;
      std::memcpy(&want, p, n);
      EXPECT(tail_word(p, n) == want);
    }
}

// A profile of `n` samples whose stacks are `depth` frames deep (distinct stacks).
static Profile deep_step(int step, size_t n, size_t depth) {
  Profile p = heap_step(step, 8);
  p.stack_locations.clear();
  p.stack_offsets.assign(1, 0);
  p.labels = Labels();
  p.label_offsets.assign(1, 0);
  p.values.clear();
  for (size_t i = 0; i < n; ++i) {
    for (size_t d = 0; d < depth; ++d) p.stack_locations.push_back(static_cast<int32_t>((i >> (d % 10)) % 8));
    p.stack_locations.push_back(static_cast<int32_t>(i % 8));
    p.stack_locations.push_back(static_cast<int32_t>((i / 8) % 8));
    p.stack_locations.push_back(static_cast<int32_t>((i / 64) % 8));
    p.stack_locations.push_back(static_cast<int32_t>((i / 512) % 8));
    p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
    p.label_offsets.push_back(0);
    const int64_t v = int64_t(i + 1) * (step + 1);
    p.values.insert(p.values.end(), {v, v * 64, 1, 64});
  }
  return p;
}

TEST(delta_state_does_not_grow_with_stack_depth) {
  // The state keeps a fingerprint per sample, not its stack: 4,000 samples
  // 200 frames deep take the same state as 4 frames deep, and the deltas are
  // right.
  size_t bytes[2];
  size_t k = 0;
  for (size_t depth : {size_t(0), size_t(196)}) {
    DeltaComputer dc({"alloc_objects", "alloc_space"});
    Profile s0 = deep_step(0, 4000, depth), s1 = deep_step(1, 4000, depth);
    dc.delta(s0);
    Profile d = dc.delta(s1);
    EXPECT(d.num_samples() == 4000 && total(d, 0) == total(s1, 0) - total(s0, 0));
    EXPECT(dc.num_states() == 4000);
    bytes[k++] = dc.memory_bytes();
  }
  std::printf("  delta state: %zu bytes (4 frames), %zu bytes (200 frames)\n", bytes[0], bytes[1]);
  EXPECT(bytes[1] == bytes[0]);
}

TEST(delta_taking_its_input_over_gives_the_same_deltas) {
  // Two computers fed the same series, one copying from its input and one
  // taking it over: equal outputs, through a first profile (passed through),
  // duplicates, samples whose delta is zero, a profile of few samples after
  // many (the state is rebuilt) and changed sample types (a restart).
  std::vector<Profile> series;
  for (int i = 0; i < 4; ++i) series.push_back(heap_step(i));
  series.push_back(deep_step(4, 6000, 3));
  series.push_back(deep_step(5, 6000, 3));
  series.push_back(heap_step(6));  // 41 samples after 6,000: the state goes stale
  series.push_back(heap_step(7));
  series.push_back(heap_step(7));  // nothing new: only inuse left, stack 0 all zero (dropped)
  Profile other = heap_step(8);
  other.sample_type_type.pop_back();
  other.sample_type_unit.pop_back();
  std::vector<int64_t> three;
  for (size_t i = 0; i < other.num_samples(); ++i)
    for (size_t t = 0; t < 3; ++t) three.push_back(other.values[i * 4 + t]);
  other.values = three;
  series.push_back(other);
  series.push_back(heap_step(9));
  DeltaComputer copying({"alloc_objects", "alloc_space"}), taking({"alloc_objects", "alloc_space"});
  Profile a, b;
  for (size_t i = 0; i < series.size(); ++i) {
    const bool da = copying.delta_into(series[i], a);
    Profile input = series[i];
    const bool db = taking.delta_into(std::move(input), b);
    EXPECT(da == db);
    EXPECT(a == b);
    check_invariants(b);
    EXPECT(copying.num_states() == taking.num_states());
  }
}

int main() { return check::run_all(); }
