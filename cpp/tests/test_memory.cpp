// C++ unit tests of memory.hpp: the huge page advice that follows a growing
// column (checked against the kernel's own view of the mappings on Linux),
// appends that give the source's pages back, and the decoder's columns sized
// without a doubling at their end (the peak memory of one decode).
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "check.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/memory.hpp"
#include "pprofcore/profile.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace pprofcore;

static constexpr size_t kHuge = size_t(2) << 20;

#if defined(__linux__) && defined(MADV_HUGEPAGE)
// The VmFlags of the mapping that holds address a ("" if none): "hg" marks
// MADV_HUGEPAGE, "nh" MADV_NOHUGEPAGE.
static std::string vm_flags(uintptr_t a) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo, hi;
    char dash;
    std::istringstream head(line);
    if (line.find('-') != std::string::npos && (head >> std::hex >> lo >> dash >> hi) && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = a >= lo && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

static bool advised(uintptr_t a) { return vm_flags(a).find(" hg") != std::string::npos; }

TEST(growth_advice_follows_the_projection) {
  // A mapping of its own, huge-page aligned, so the regions are known.
  const size_t len = 12 * kHuge;
  void* m = mmap(nullptr, len + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT(m != MAP_FAILED);
  const uintptr_t base = (reinterpret_cast<uintptr_t>(m) + kHuge - 1) & ~(kHuge - 1);
  const void* b = reinterpret_cast<const void*>(base);
  HugePageGrowth g;
  // Projected to end inside region 5: regions 0-4 are advised, not region 5
  // (it would be resident whole for the part of it that gets written).
  g.update(b, 0, 5 * kHuge + 100, len);
  EXPECT(g.advised_end() == base + 5 * kHuge);
  EXPECT(advised(base) && advised(base + 4 * kHuge + 7) && !advised(base + 5 * kHuge));
  // The projection grows: so does the advice, never past the capacity.
  g.update(b, kHuge / 2, 100 * kHuge, len);
  EXPECT(g.advised_end() == base + 12 * kHuge);
  EXPECT(advised(base + 11 * kHuge));
  // It shrinks again: untouched regions past it are un-advised...
  std::memset(reinterpret_cast<void*>(base), 1, 3 * kHuge + 10);  // regions 0-3 written
  g.update(b, 3 * kHuge + 10, 7 * kHuge, len);
  EXPECT(g.advised_end() == base + 7 * kHuge);
  EXPECT(advised(base + 6 * kHuge) && !advised(base + 7 * kHuge) && !advised(base + 11 * kHuge));
  // ...but never one already written to (region 3 holds data).
  g.update(b, 3 * kHuge + 10, 0, len);
  EXPECT(g.advised_end() == base + 4 * kHuge);
  EXPECT(advised(base + 3 * kHuge));
  // A column that moved (it outgrew its room) starts over in its new buffer.
  g.update(reinterpret_cast<const void*>(base + 8 * kHuge), 0, 2 * kHuge, 4 * kHuge);
  EXPECT(g.advised_end() == base + 10 * kHuge);
  munmap(m, len + kHuge);
}
#endif

TEST(projection_stays_short_of_the_rate) {
  EXPECT(HugePageGrowth::project(100, 0, 1000) == 100);     // nothing read yet: no guess
  EXPECT(HugePageGrowth::project(100, 1000, 1000) == 100);  // all read: the size is known
  // A quarter read, 100 elements: the rate says 400; 90% of the rest is 370.
  EXPECT(HugePageGrowth::project(100, 250, 1000) == 370);
}

TEST(append_releasing_moves_everything) {
  // Large enough to cross several huge page boundaries of the source.
  std::vector<int64_t> src(3 * kHuge / sizeof(int64_t) + 123), dst{-1, -2};
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int64_t>(i * 7);
  dst.reserve(2 + src.size());
  const size_t n = src.size();
  append_releasing(dst, src);
  EXPECT(src.empty() && dst.size() == n + 2 && dst[0] == -1 && dst[1] == -2);
  bool same = true;
  for (size_t i = 0; i < n; ++i) same = same && dst[i + 2] == static_cast<int64_t>(i * 7);
  EXPECT(same);
  // With a transformation (the decoder rebases offsets this way).
  std::vector<int32_t> s32(kHuge), d32;
  for (size_t i = 0; i < s32.size(); ++i) s32[i] = static_cast<int32_t>(i);
  append_releasing(d32, s32, [](int32_t x) { return x + 5; });
  EXPECT(s32.empty() && d32.size() == kHuge && d32.front() == 5 && d32.back() == static_cast<int32_t>(kHuge) + 4);
  // Empty source: nothing happens.
  std::vector<int32_t> none;
  append_releasing(d32, none);
  EXPECT(d32.size() == kHuge);
}

// A profile whose sample values take several bytes each, so a packed field's
// byte length overstates its value count.
static Profile wide_values_profile(size_t samples) {
  Profile p;
  StringInterner s;
  p.sample_type_type = {s.intern("alloc_objects"), s.intern("alloc_space")};
  p.sample_type_unit = {s.intern("count"), s.intern("bytes")};
  p.functions.id = {1};
  p.functions.name = {s.intern("main")};
  p.functions.system_name = {p.functions.name[0]};
  p.functions.filename = {s.intern("main.go")};
  p.functions.start_line = {1};
  p.locations.id = {1};
  p.locations.mapping = {-1};
  p.locations.address = {0x1000};
  p.locations.is_folded = {0};
  p.lines.function = {0};
  p.lines.line = {3};
  p.lines.column = {0};
  p.locations.line_offsets.push_back(1);
  for (size_t i = 0; i < samples; ++i) {
    p.stack_locations.push_back(0);
    p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
    p.values.push_back(static_cast<int64_t>(1000000 + i));
    p.values.push_back(static_cast<int64_t>(1) << 40);
    p.label_offsets.push_back(0);
  }
  p.strings = s.take();
  return p;
}

TEST(value_column_is_never_doubled) {
  // One thread and several (a helper decodes the second half): the prescan
  // sizes the values exactly, and the last samples must not double it.
  for (unsigned threads : {1u, 0u}) {
    for (size_t samples : {size_t(1000), size_t(400000)}) {
      std::string raw = encode_raw(wide_values_profile(samples));
      DecodeOptions o;
      o.threads = threads;
      Profile p = decode(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), o);
      EXPECT(p.values.size() == 2 * samples);
      EXPECT(p.values.capacity() == p.values.size());
      EXPECT(p.stack_offsets.capacity() == p.stack_offsets.size());
    }
  }
}

int main() { return check::run_all(); }
