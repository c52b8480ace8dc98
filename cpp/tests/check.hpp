// check: a minimal assertion harness for the C++ unit tests (run by CTest).
#pragma once
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "pprofcore/profile.hpp"
#include "pprofcore/strings.hpp"

namespace check {
inline int failures = 0;
inline std::vector<std::pair<std::string, std::function<void()>>>& registry() {
  static std::vector<std::pair<std::string, std::function<void()>>> r;
  return r;
}
struct Register {
  Register(const char* name, std::function<void()> fn) { registry().emplace_back(name, std::move(fn)); }
};
inline int run_all() {
  for (auto& [name, fn] : registry()) {
    int before = failures;
    try {
      fn();
    } catch (const std::exception& e) {
      std::printf("  %s: unexpected exception: %s\n", name.c_str(), e.what());
      ++failures;
    }
    std::printf("%s %s\n", failures == before ? "PASS" : "FAIL", name.c_str());
  }
  std::printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
// The one sample type most hand-built test profiles have: samples/count.
inline void counted_samples(pprofcore::Profile& p, pprofcore::StringInterner& s) {
  p.sample_type_type = {s.intern("samples")};
  p.sample_type_unit = {s.intern("count")};
}

// A random profile: functions sharing names (so report nodes share frames),
// locations of one to three lines (inline frames), stacks with recursion and
// empty ones, values of both signs and zeros (as a diff has).
inline pprofcore::Profile random_profile(uint32_t seed, size_t n_samples) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  pprofcore::Profile p;
  pprofcore::StringInterner s;
  counted_samples(p, s);
  const size_t nfn = 12, nloc = 20;
  for (size_t f = 0; f < nfn; ++f) {
    p.functions.id.push_back(f + 1);
    p.functions.name.push_back(s.intern("fn" + std::to_string(f % 9)));
    p.functions.filename.push_back(s.intern("file" + std::to_string(f % 4) + ".go"));
    p.functions.start_line.push_back(static_cast<int64_t>(f * 10));
  }
  p.functions.system_name = p.functions.name;
  p.locations.line_offsets = {0};
  for (size_t l = 0; l < nloc; ++l) {
    p.locations.id.push_back(l + 1);
    p.locations.mapping.push_back(-1);
    p.locations.address.push_back(0);
    p.locations.is_folded.push_back(0);
    const size_t lines = 1 + (pick(4) == 0 ? 1 + pick(2) : 0);
    for (size_t k = 0; k < lines; ++k) {
      p.lines.function.push_back(static_cast<int32_t>(pick(nfn)));
      p.lines.line.push_back(static_cast<int64_t>(1 + pick(5)));
      p.lines.column.push_back(0);
    }
    p.locations.line_offsets.push_back(static_cast<int64_t>(p.lines.function.size()));
  }
  p.stack_offsets = {0};
  p.label_offsets = {0};
  for (size_t i = 0; i < n_samples; ++i) {
    const size_t depth = pick(9);  // 0: an empty stack
    for (size_t k = 0; k < depth; ++k) p.stack_locations.push_back(static_cast<int32_t>(pick(k < 2 ? 3 : nloc)));
    p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
    p.label_offsets.push_back(0);
    const int64_t v = pick(6) == 0 ? 0 : static_cast<int64_t>(pick(200)) - (pick(3) == 0 ? 120 : 0);
    p.values.push_back(v);
  }
  p.strings = s.take();
  return p;
}

// The one mapping (id 1) of a hand-built test profile: [start, limit) of
// `filename` (a string code), file offset 0, no build id; of the has_* flags
// only has_functions may be set.
inline void one_mapping(pprofcore::Profile& p, uint64_t start, uint64_t limit, int32_t filename,
                        uint8_t has_functions = 0) {
  p.mappings.id = {1};
  p.mappings.memory_start = {start};
  p.mappings.memory_limit = {limit};
  p.mappings.file_offset = {0};
  p.mappings.filename = {filename};
  p.mappings.build_id = {0};
  p.mappings.has_functions = {has_functions};
  p.mappings.has_filenames = {0};
  p.mappings.has_line_numbers = {0};
  p.mappings.has_inline_frames = {0};
}

// Appends location `id` (mapping row `mapping`, -1 for none, at `address`)
// holding one line: function row `function` at `line`.
inline void add_location(pprofcore::Profile& p, uint64_t id, int32_t mapping, uint64_t address, int32_t function,
                         int64_t line) {
  p.locations.id.push_back(id);
  p.locations.mapping.push_back(mapping);
  p.locations.address.push_back(address);
  p.locations.is_folded.push_back(0);
  p.lines.function.push_back(function);
  p.lines.line.push_back(line);
  p.lines.column.push_back(0);
  p.locations.line_offsets.push_back(static_cast<int64_t>(p.lines.size()));
}

// The row of the report node named `name` (its printable name) in a node table, or -1.
template <class NodeTable>
inline int node_row(const NodeTable& t, std::string_view name) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t.printable[i] == name) return static_cast<int>(i);
  return -1;
}

// A scratch directory of this test binary's own (under the system's temporary
// directory), removed with its files when the binary exits.
struct Scratch {
  std::string dir;
  std::vector<std::string> files;
  Scratch() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pprofcore-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    dir = tmpl;
  }
  ~Scratch() {
    for (auto& f : files) std::remove(f.c_str());
    rmdir(dir.c_str());
  }
  // Writes `bytes` to the file `name` in the directory (replacing it); its path.
  std::string write(const std::string& name, const std::string& bytes) {
    std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
    return path;
  }
};

inline Scratch& scratch() {
  static Scratch s;
  return s;
}
}  // namespace check

#define TEST(name)                                \
  static void name();                             \
  static check::Register reg_##name(#name, name); \
  static void name()
#define EXPECT(cond)                                                    \
  do {                                                                  \
    if (!(cond)) {                                                      \
      std::printf("  %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++check::failures;                                                \
    }                                                                   \
  } while (0)
#define EXPECT_THROWS(expr, Type, needle)                                                        \
  do {                                                                                           \
    bool thrown = false;                                                                         \
    try {                                                                                        \
      expr;                                                                                      \
    } catch (const Type& e) {                                                                    \
      thrown = true;                                                                             \
      if (std::string(e.what()).find(needle) == std::string::npos) {                             \
        std::printf("  %s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, e.what(), needle); \
        ++check::failures;                                                                       \
      }                                                                                          \
    }                                                                                            \
    if (!thrown) {                                                                               \
      std::printf("  %s:%d: expected %s from %s\n", __FILE__, __LINE__, #Type, #expr);           \
      ++check::failures;                                                                         \
    }                                                                                            \
  } while (0)
