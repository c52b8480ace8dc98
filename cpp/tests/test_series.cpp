// C++ unit tests of series_files: rows equal a per-file aggregate in input
// order whatever the thread count and batch size, the first failing file in
// input order is the one reported, a poll that throws cancels the workers, the lean scan gives what decoding gives
// (or leaves the file to it), by node and by label, and sample-type choices
// follow pprof.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "check.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/scan.hpp"
#include "pprofcore/scan_labels.hpp"
#include "pprofcore/series.hpp"
#include "pprofcore/strings.hpp"

using namespace pprofcore;

// A small CPU-like profile whose leaf functions and values depend on `seed`.
static Profile small(int seed) {
  Profile p;
  StringInterner s;
  p.sample_type_type = {s.intern("samples"), s.intern("cpu")};
  p.sample_type_unit = {s.intern("count"), s.intern("nanoseconds")};
  p.time_nanos = 1000 + seed;
  p.duration_nanos = 10;
  for (int f = 0; f < 6; ++f) {
    p.functions.id.push_back(uint64_t(f) + 1);
    p.functions.name.push_back(s.intern("fn" + std::to_string((f + seed) % 9)));
    p.functions.system_name.push_back(0);
    p.functions.filename.push_back(s.intern("a.go"));
    p.functions.start_line.push_back(0);
    p.locations.id.push_back(uint64_t(f) + 1);
    p.locations.mapping.push_back(-1);
    p.locations.address.push_back(0x1000 + uint64_t(f));
    p.locations.is_folded.push_back(0);
    p.lines.function.push_back(f);
    p.lines.line.push_back(f + 1);
    p.lines.column.push_back(0);
    p.locations.line_offsets.push_back(int64_t(p.lines.size()));
  }
  for (int i = 0; i < 10; ++i) {
    p.stack_locations.push_back((i + seed) % 6);
    p.stack_locations.push_back((i + 1) % 6);
    p.stack_offsets.push_back(int64_t(p.stack_locations.size()));
    p.label_offsets.push_back(0);
    p.values.insert(p.values.end(), {int64_t(i % 3), int64_t(i % 3) * 1000 - (seed % 2) * 7});
  }
  p.strings = s.take();
  return p;
}

static std::string write(const std::string& name, const std::string& bytes) {
  return check::scratch().write(name, bytes);
}

TEST(series_rows_match_each_aggregate_in_order) {
  std::vector<std::string> paths;
  std::vector<Profile> profiles;
  for (int i = 0; i < 11; ++i) {
    profiles.push_back(small(i));
    paths.push_back(write(std::to_string(i) + ".pb.gz", encode(profiles.back(), i % 2 == 0)));
  }
  for (unsigned threads : {1u, 2u, 3u}) {
    for (size_t batch : {size_t(1), size_t(4), size_t(256)}) {
      SeriesOptions o;
      o.threads = threads, o.batch = batch, o.cum = batch == 4;
      SeriesResult r = series_files(paths, o);
      size_t row = 0;
      std::vector<std::string> first_seen;  // names in node order, each once
      for (size_t i = 0; i < profiles.size(); ++i) {
        AggregateOptions ao;
        ao.label_type = 1;
        NodeTable t = aggregate(profiles[i], ao);
        // The profile's non-zero nodes, by value descending, then name.
        std::vector<std::pair<int64_t, std::string>> want;
        for (size_t k = 0; k < t.size(); ++k) {
          int64_t v = (o.cum ? t.cum : t.flat)[k * t.n_types + 1];
          if (v == 0) continue;
          want.emplace_back(v, std::string(t.printable[k]));
          if (std::find(first_seen.begin(), first_seen.end(), want.back().second) == first_seen.end())
            first_seen.push_back(want.back().second);
        }
        std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
          return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        for (const auto& [v, name] : want) {
          EXPECT(row < r.value.size());
          if (row >= r.value.size()) return;
          EXPECT(r.profile[row] == int64_t(i));
          EXPECT(r.names[size_t(r.name[row])] == name);
          EXPECT(r.value[row] == v);
          ++row;
        }
        EXPECT(r.time_nanos[i] == 1000 + int64_t(i));
      }
      EXPECT(row == r.value.size());
      EXPECT(r.names == first_seen);
      EXPECT(r.type_names == std::vector<std::string>{"cpu"});
    }
  }
}

TEST(series_reports_the_first_failing_file_in_order) {
  std::vector<std::string> paths;
  for (int i = 0; i < 9; ++i)
    paths.push_back(i == 3   ? write("bad3.pb.gz", "\x1f\x8b not gzip at all")
                    : i == 6 ? "/nonexistent/pprofcore_test_series_missing.pb"
                             : write("e" + std::to_string(i) + ".pb", encode(small(i), false)));
  for (unsigned threads : {1u, 2u, 4u}) {
    SeriesOptions o;
    o.threads = threads, o.batch = 4;
    bool threw = false;
    try {
      series_files(paths, o);
    } catch (const DecodeError& e) {
      threw = true;
      EXPECT(std::string(e.what()).find("bad3.pb.gz") != std::string::npos);
    }
    EXPECT(threw);
  }
}

TEST(series_cancelled_by_poll_joins_and_rethrows) {
  // Work for about a second, results coming all the time: the calling
  // thread must still poll (every 50 ms), and stop the workers when it throws.
  const Profile p = small(1);
  const std::vector<const Profile*> many(40000, &p);
  for (unsigned threads : {1u, 2u, 3u}) {
    SeriesOptions o;
    o.threads = threads, o.batch = 8;
    EXPECT_THROWS(series_profiles(many, o, [] { throw std::runtime_error("interrupted"); }), std::runtime_error,
                  "interrupted");
  }
}

// A profile with what the small one lacks: a mapping, a nameless function
// (named after its binary), a location with an inline frame, a location with
// no line, labels, a comment, default_sample_type and a period type.
static Profile rich(int seed) {
  Profile p = small(seed);
  StringInterner s;
  for (size_t i = 0; i < p.strings.size(); ++i) s.intern(p.strings[i]);
  check::one_mapping(p, 0x1000, 0x9000, s.intern("/usr/lib/libx.so"), 1);
  p.mappings.build_id = {s.intern("abc")};
  p.functions.id.push_back(7);
  p.functions.name.push_back(0);  // nameless
  p.functions.system_name.push_back(0);
  p.functions.filename.push_back(0);
  p.functions.start_line.push_back(40 + seed);
  for (size_t l = 0; l < p.locations.size(); ++l) p.locations.mapping[l] = l % 2 ? 0 : -1;
  // Location 7: the nameless function inlined into fn(seed); location 8: no line.
  p.locations.id.insert(p.locations.id.end(), {7, 8});
  p.locations.mapping.insert(p.locations.mapping.end(), {0, 0});
  p.locations.address.insert(p.locations.address.end(), {0x2000, 0x3000});
  p.locations.is_folded.insert(p.locations.is_folded.end(), {0, 0});
  p.lines.function.insert(p.lines.function.end(), {6, 0});
  p.lines.line.insert(p.lines.line.end(), {3, 9});
  p.lines.column.insert(p.lines.column.end(), {0, 0});
  p.locations.line_offsets.push_back(int64_t(p.lines.size()));
  p.locations.line_offsets.push_back(int64_t(p.lines.size()));
  p.stack_locations.insert(p.stack_locations.end(), {6, 7, 2});
  p.stack_offsets.push_back(int64_t(p.stack_locations.size()));
  p.stack_locations.insert(p.stack_locations.end(), {7, 6});
  p.stack_offsets.push_back(int64_t(p.stack_locations.size()));
  p.values.insert(p.values.end(), {1, 500 + seed, 2, -7});
  p.labels.key = {s.intern("zone"), s.intern("bytes")};
  p.labels.str = {s.intern("z" + std::to_string(seed)), -1};
  p.labels.num = {0, 4096};
  p.labels.num_unit = {0, s.intern("bytes")};
  p.label_offsets.insert(p.label_offsets.end(), {1, 2});  // one label on each new sample
  p.comments = {s.intern("a comment")};
  p.default_sample_type = s.intern("cpu");
  p.has_period_type = true;
  p.period_type_type = s.intern("cpu");
  p.period_type_unit = s.intern("nanoseconds");
  p.period = 10000000;
  p.strings = s.take();
  return p;
}

// series_files of one file, as rows and names, or the error it raises.
static std::string series_of(const std::string& path, const SeriesOptions& o) {
  try {
    SeriesResult r = series_files({path}, o);
    std::string out = std::to_string(r.total[0]) + "/" + std::to_string(r.time_nanos[0]) + "/" +
                      std::to_string(r.duration_nanos[0]) + "/" + r.type_names[0] + ":";
    const size_t n_labels = o.labels.size();
    for (size_t i = 0; i < r.value.size(); ++i) {
      const size_t key = size_t(r.name[i]);
      if (n_labels == 0) {
        out += r.names[key];
      } else {  // the key's node (or "-") and label values (or "(none)")
        out += r.key_node[key] >= 0 ? r.names[size_t(r.key_node[key])] : "-";
        for (size_t j = 0; j < n_labels; ++j) {
          const int32_t c = r.key_labels[key * n_labels + j];
          out += "|" + (c >= 0 ? r.label_values[size_t(c)] : std::string("(none)"));
        }
      }
      out += "=" + std::to_string(r.value[i]) + ";";
    }
    return out;
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

// Whether the labels-only tables pass kept what the full one keeps of the
// header, strings, samples and location ids.
static bool lean_agrees(const Scan& lean, const Scan& full) {
  const Profile &a = lean.tables, &b = full.tables;
  bool same = a.sample_type_type == b.sample_type_type && a.default_sample_type == b.default_sample_type &&
              a.time_nanos == b.time_nanos && a.duration_nanos == b.duration_nanos && lean.strings == full.strings &&
              lean.samples.size() == full.samples.size();
  for (size_t i = 0; same && i < lean.samples.size(); ++i)
    same = lean.samples[i].begin == full.samples[i].begin && lean.samples[i].end == full.samples[i].end;
  for (uint64_t id = 0; same && id < b.locations.size() + 3; ++id)
    same = lean.locations.row(id) == full.locations.row(id);
  return same;
}

TEST(series_scan_agrees_with_the_ordinary_path) {
  // Valid files, then every truncation and two bit flips at every byte of
  // each one: the lean scan either gives what decoding gives, or leaves the
  // file to decoding (the same rows, the same error).
  size_t compared = 0, rows = 0, scanned = 0, lean = 0, lean_functions = 0;
  Scan scan, lean_scan, full_scan;
  for (int seed = 0; seed < 3; ++seed) {
    for (bool gz : {false, true}) {
      Profile profile = seed == 0 ? small(seed) : rich(seed);
      if (seed == 2) {  // ids that are not 1..n, as PProf.jl and Pyroscope write them
        for (uint64_t& id : profile.locations.id) id = id * 7919 + 3;
        for (uint64_t& id : profile.functions.id) id = (id << 40) + 11;
        for (uint64_t& id : profile.mappings.id) id += 5;
      }
      const std::string good = encode(profile, gz);
      std::vector<std::string> inputs{good};
      const size_t scanned_before = scanned;
      if (!gz) {
        for (size_t n = 0; n < good.size(); ++n) inputs.push_back(good.substr(0, n));
        for (size_t i = 0; i < good.size(); ++i)
          for (char bit : {char(0x01), char(0x80)}) {
            inputs.push_back(good);
            inputs.back()[i] ^= bit;
          }
      }
      for (size_t k = 0; k < inputs.size(); ++k) {
        const std::string path = write("scan.pb", inputs[k]);
        SeriesOptions o;
        o.threads = 1;
        o.granularity = static_cast<Granularity>(k % 5);
        o.cum = k % 2 == 1;
        if (k % 3 == 2) {  // split by the labels too (string, and numeric in buckets); every other time labels only
          o.labels = {SeriesLabel{"zone"}, SeriesLabel{"bytes", SeriesLabel::Numbers::Edges, {100, 5000}}};
          o.nodes = k % 2 == 0;
        }
        const std::string fast = series_of(path, o);
        o.scan = false;
        const std::string ordinary = series_of(path, o);
        EXPECT(fast == ordinary);
        if (fast != ordinary)
          std::fprintf(stderr, "input %zu of seed %d: %s | %s\n", k, seed, fast.c_str(), ordinary.c_str());
        compared += 1;
        rows += fast.rfind("error: ", 0) != 0;
        const auto* data = reinterpret_cast<const uint8_t*>(inputs[k].data());
        // The labels-only pass accepts only what the full pass accepts, and keeps the same.
        if (!gz && scan_label_tables(data, inputs[k].size(), lean_scan)) {
          EXPECT(scan_tables(data, inputs[k].size(), full_scan) && lean_agrees(lean_scan, full_scan));
          ++lean;
        }
        // So does the pass that keeps function names by line, and it keeps what the full pass keeps.
        if (!gz && scan_function_tables(data, inputs[k].size(), lean_scan)) {
          const Profile &a = lean_scan.tables, &b = full_scan.tables;
          EXPECT(scan_tables(data, inputs[k].size(), full_scan) && lean_agrees(lean_scan, full_scan) &&
                 a.functions.name == b.functions.name && a.lines.function == b.lines.function &&
                 a.locations.line_offsets == b.locations.line_offsets);
          ++lean_functions;
        }
        if (!gz && scan_tables(data, inputs[k].size(), scan) && for_each_sample(scan, [](auto...) {})) {
          // Decoding accepts it; only the sample type can still be refused (a flipped default_sample_type).
          EXPECT(fast.rfind("error: ", 0) != 0 || fast.find("no sample_type") != std::string::npos);
          ++scanned;
        }
        if (!gz && k == 0) EXPECT(scanned == scanned_before + 1);  // a valid file takes the lean way
      }
    }
  }
  // Valid and refused inputs were compared, and many mutants took the lean way.
  EXPECT(compared > 3000 && rows > 100 && scanned > 100 && lean > 100 && lean_functions > 100);
}

TEST(series_sample_type_choice) {
  Profile p = small(1);
  SampleTypeChoice c;
  EXPECT(choose_sample_type(p, c) == 1);  // no default_sample_type: the last
  c.kind = SampleTypeChoice::Kind::Index, c.index = -2;
  EXPECT(choose_sample_type(p, c) == 0);
  c.index = 2;
  bool threw = false;
  try {
    choose_sample_type(p, c);
  } catch (const ProfileError& e) {
    threw = std::string(e.what()) == "sample_type index 2 out of range for 2 types";
  }
  EXPECT(threw);
  c.kind = SampleTypeChoice::Kind::Name, c.name = "wall";
  threw = false;
  try {
    choose_sample_type(p, c);
  } catch (const UnknownSampleType& e) {
    threw = e.wanted == "wall" && e.have == std::vector<std::string>{"samples", "cpu"};
  }
  EXPECT(threw);
}

TEST(series_by_label_sums_each_label_value) {
  // rich(1): zone=z1 on one sample, bytes=4096 on another, the rest unlabelled.
  const std::string path = write("labels.pb", encode(rich(1), false));
  SeriesOptions o;
  o.threads = 1;
  o.nodes = false;
  o.labels = {SeriesLabel{"zone"}, SeriesLabel{"bytes"}};
  SeriesResult r = series_files({path}, o);
  int64_t sum = 0;
  bool zone = false, bytes = false;
  for (size_t i = 0; i < r.value.size(); ++i) {
    const size_t key = size_t(r.name[i]);
    EXPECT(r.key_node[key] == -1);
    const int32_t z = r.key_labels[key * 2], b = r.key_labels[key * 2 + 1];
    zone |= z >= 0 && r.label_values[size_t(z)] == "z1";
    bytes |= b >= 0 && r.label_values[size_t(b)] == "[4096, 8192)";
    sum += r.value[i];
  }
  EXPECT(zone && bytes);
  // Labels only: every sample's value counts once, so the rows add up to the cpu values' sum.
  Profile p = rich(1);
  int64_t want = 0;
  for (size_t s = 0; s < p.num_samples(); ++s) want += p.values[s * 2 + 1];
  EXPECT(sum == want);
  o.labels = {SeriesLabel{"bytes", SeriesLabel::Numbers::Exact, {}}};
  r = series_files({path}, o);
  bool exact = false;
  for (const std::string& v : r.label_values) exact |= v == "4096";
  EXPECT(exact);
}

TEST(fastest_level_round_trips) {
  std::string data;
  for (int i = 0; i < 200000; ++i) data += char('a' + (i * 7919 % 13));
  std::string z = gzip::deflate(reinterpret_cast<const uint8_t*>(data.data()), data.size(), gzip::kFastestLevel);
  gzip::Buffer back = gzip::inflate(reinterpret_cast<const uint8_t*>(z.data()), z.size(), size_t(1) << 30);
  EXPECT(back.str() == data);
  EXPECT(z.size() < data.size() / 4);
}

int main() { return check::run_all(); }
