// C++ unit tests of series_files: rows equal a per-file aggregate in input
// order whatever the thread count and batch size, the first failing file in
// input order is the one reported, and sample-type choices follow pprof.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "check.hpp"
#include "pprofcore/aggregate.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/gzip.hpp"
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
  std::string path = "/tmp/pprofcore_test_series_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
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
  for (const std::string& path : paths) std::remove(path.c_str());
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
  for (const std::string& path : paths) std::remove(path.c_str());
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

TEST(fastest_level_round_trips) {
  std::string data;
  for (int i = 0; i < 200000; ++i) data += char('a' + (i * 7919 % 13));
  std::string z = gzip::deflate(reinterpret_cast<const uint8_t*>(data.data()), data.size(), gzip::kFastestLevel);
  gzip::Buffer back = gzip::inflate(reinterpret_cast<const uint8_t*>(z.data()), z.size(), size_t(1) << 30);
  EXPECT(back.str() == data);
  EXPECT(z.size() < data.size() / 4);
}

int main() { return check::run_all(); }
