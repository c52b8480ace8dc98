// C++ unit tests of the legacy readers: values, stacks, mappings and errors for
// one input of each format (the Python tests compare whole files with pprof).
#include <string>

#include "check.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"

using namespace pprofcore;

static Profile load_text(const std::string& s) { return decode(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

static std::string error_field(const std::string& s) {
  try {
    load_text(s);
  } catch (const DecodeError& e) {
    return e.field();
  }
  return "(no error)";
}

TEST(go_count_profile) {
  Profile p = load_text(
      "goroutine profile: total 3\n2 @ 0x401001 0x402002\n#\t0x401000\tmain.f+0x0\tm.go:1\n"
      "1 @ 0x401001\n");
  check_invariants(p);
  EXPECT(p.num_samples() == 2);
  EXPECT(p.values[0] == 2 && p.values[1] == 1);
  EXPECT(p.str(p.sample_type_type[0]) == "goroutine" && p.str(p.period_type_unit) == "count");
  // Return addresses move back onto the call; the second sample reuses location 1.
  EXPECT(p.locations.address[0] == 0x401000 && p.locations.address[1] == 0x402001);
  EXPECT(p.stack_locations[2] == 0);
  // No maps: pprof's placeholder mapping holds every location.
  EXPECT(p.mappings.size() == 1 && p.mappings.memory_limit[0] == ~uint64_t(0));
}

TEST(go_heap_profile_unsampled) {
  Profile p = load_text("heap profile: 1: 1024 [2: 2048] @ heap/1048576\n1: 1024 [2: 2048] @ 0x401001\n");
  check_invariants(p);
  EXPECT(p.num_types() == 4 && p.period == 524288);
  // 1 / (1 - exp(-1024 / 524288)) = 512.5...: the in-use object count becomes 512.
  EXPECT(p.values[2] == 512);
  EXPECT(p.labels.size() == 1 && p.str(p.labels.key[0]) == "bytes" && p.labels.num[0] == 1024);
}

TEST(contention_profile_in_nanoseconds) {
  Profile p = load_text("--- mutex:\ncycles/second=2000000000\nsampling period=5\n4000 3 @ 0x401001\n");
  check_invariants(p);
  EXPECT(p.values[0] == 15);     // contentions x period
  EXPECT(p.values[1] == 10000);  // 4000 cycles at 2 GHz = 2000 ns, x period 5
}

TEST(gperftools_cpu_32bit_big_endian) {
  std::string b;
  auto word = [&](uint32_t w) {
    for (int i = 3; i >= 0; --i) b.push_back(static_cast<char>((w >> (8 * i)) & 0xff));
  };
  // Two samples with different callers (one shared by every sample would be
  // taken for a signal-handler frame and removed, as pprof does).
  for (uint32_t w : {0u, 3u, 0u, 10000u, 0u, 5u, 2u, 0x401000u, 0x402001u, 3u, 2u, 0x401000u, 0x403001u, 0u, 1u, 0u})
    word(w);
  b += "00400000-00500000 r-xp 00000000 08:01 1 /srv/main\n";
  Profile p = load_text(b);
  check_invariants(p);
  EXPECT(p.values[0] == 5 && p.values[1] == 5 * 10000000LL);
  EXPECT(p.locations.address[0] == 0x401000 && p.locations.address[1] == 0x402000);
  EXPECT(p.num_samples() == 2 && p.stack_locations.size() == 4);
  EXPECT(p.mappings.size() == 1 && p.str(p.mappings.filename[0]) == "/srv/main");
}

TEST(jemalloc_heap_v2_as_jeprof_reads_it) {
  Profile p = load_text(
      "heap_v2/4096\n  t*: 2: 8192 [0: 0]\n  t0: 2: 8192 [0: 0] main\n@ 0x401001 0x402002\n"
      "  t*: 2: 8192 [0: 0]\n  t0: 1: 4096 [0: 0]\n  t1: 1: 4096 [0: 0]\n\nMAPPED_LIBRARIES:\n"
      "00400000-00500000 r-xp 00000000 08:01 1 /srv/main\n");
  check_invariants(p);
  EXPECT(p.num_types() == 2 && p.str(p.sample_type_type[1]) == "inuse_space" && p.period == 4096);
  // One sample from the t* line (the per-thread lines are not read), scaled by
  // 1 / (1 - exp(-4096 / 4096)) = 1.58...: 3.16 objects, 12959.6 bytes.
  EXPECT(p.num_samples() == 1 && p.values[0] == 3 && p.values[1] == 12960);
  // The leaf as written, the caller moved back onto its call.
  EXPECT(p.locations.address[0] == 0x401001 && p.locations.address[1] == 0x402001);
  EXPECT(p.mappings.size() == 1 && p.str(p.mappings.filename[0]) == "/srv/main");
}

TEST(errors_name_the_line) {
  EXPECT(error_field("heap_v2/8\n@ 0x1\n  t*: 1: 8 [1:\n") == "line 3");
  EXPECT(error_field("goroutine profile: total 1\n\n1 @ 0xzz\n") == "line 3");
  EXPECT(error_field("heap profile: 1: 2 [3: 4] @ heap/2\n1: 2 [3\n") == "line 2");
  EXPECT(error_field("--- mutex:\ncycles/second=x\n") == "line 2");
  std::string cut("\0\0\0\0\3\0\0\0\0\0\0\0\x10\0\0\0\0\0\0\0\5\0\0\0\7\0\0\0", 28);
  EXPECT(error_field(cut) == "record");
}

int main() { return check::run_all(); }
