// legacy_builder: the steps every legacy reader shares once its samples are
// read (see legacy_builder.hpp). The mapping heuristics follow google/pprof's
// ParseMemoryMap so that the result prints the same `-raw` dump as pprof's own
// parse.
#include "pprofcore/legacy_builder.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "pprofcore/hashing.hpp"
#include "pprofcore/legacy_text.hpp"
#include "pprofcore/strings.hpp"

namespace pprofcore::legacy {

namespace {

// Splits `s` at runs of whitespace.
std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> f;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_go_space(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !is_go_space(s[j])) ++j;
    if (j > i) f.push_back(s.substr(i, j - i));
    i = j;
  }
  return f;
}

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}
bool perm_char(char c) { return c == '-' || c == 'r' || c == 'w' || c == 'x' || c == 'p'; }
bool digit_char(char c) { return c >= '0' && c <= '9'; }
bool hex_char(char c) { return is_hex(c); }

// glog prefixes ("I0102 10:11:12.123 file.cc:42] ") before a mapping line.
std::string_view remove_logging_info(std::string_view line) {
  size_t close = line.find(']');
  if (close == std::string_view::npos || close + 1 >= line.size() || !is_go_space(line[close + 1])) return line;
  std::string_view head = line.substr(0, close);
  if (head.find('[') != std::string_view::npos) return line;
  size_t colon = head.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= head.size()) return line;
  if (!all_of(head.substr(colon + 1), digit_char)) return line;
  return line.substr(close + 2);
}

// One line of a memory map in /proc/self/maps form ("start-end perms offset
// dev inode path") or pprof's brief form ("start-end [perms] [path] [(@offset)]
// [build id]"). Returns false for lines that are neither (skipped as pprof does);
// `keep` is false for non-executable mappings.
bool parse_mapping_line(std::string_view line, RawMapping& m, bool& keep) {
  size_t i = 0, n = line.size();
  while (i < n && is_go_space(line[i])) ++i;
  auto hex_run = [&](size_t& k) {
    if (k + 1 < n && line[k] == '0' && line[k + 1] == 'x' && k + 2 < n && is_hex(line[k + 2])) k += 2;
    size_t s = k;
    while (k < n && is_hex(line[k])) ++k;
    return line.substr(s, k - s);
  };
  std::string_view start = hex_run(i), end;
  if (start.empty()) return false;
  size_t k = i;
  if (k < n && (is_go_space(line[k]) || line[k] == '-')) ++k;
  while (k < n && is_go_space(line[k])) ++k;
  end = hex_run(k);
  if (end.empty()) {
    // The regex backtracks into the first number: "ab" reads as a-b.
    if (start.size() < 2) return false;
    end = start.substr(start.size() - 1);
    start.remove_suffix(1);
    k = i;
  }
  if (k < n && line[k] == ':') ++k;
  std::vector<std::string_view> f =
      (k < n && is_go_space(line[k])) ? fields(line.substr(k)) : std::vector<std::string_view>{};
  std::string_view perm, offset, file, build_id;
  size_t t = 0;
  if (t < f.size() && all_of(f[t], perm_char)) perm = f[t++];
  // /proc form: [offset] dev(hex:hex) inode [path]
  auto is_dev = [](std::string_view d) {
    size_t c = d.find(':');
    return c != std::string_view::npos && all_of(d.substr(0, c), hex_char) && all_of(d.substr(c + 1), hex_char);
  };
  bool proc = false;
  size_t u = t;
  if (u < f.size() && all_of(f[u], hex_char) && u + 1 < f.size() && is_dev(f[u + 1])) {
    offset = f[u++];
  }
  if (u + 1 < f.size() && is_dev(f[u]) && !f[u + 1].empty() && digit_char(f[u + 1][0])) {
    proc = true;
    u += 2;
    if (u < f.size()) file = f[u];
  }
  if (!proc) {
    offset = {};
    if (t < f.size()) file = f[t++];
    if (t < f.size() && f[t].size() > 3 && f[t].substr(0, 2) == "(@" && f[t].back() == ')' &&
        all_of(f[t].substr(2, f[t].size() - 3), hex_char))
      offset = f[t].substr(2, f[t].size() - 3), ++t;
    if (t < f.size() && all_of(f[t], hex_char)) build_id = f[t];
  }
  m = RawMapping{};
  m.file = std::string(file);
  m.build_id = std::string(build_id);
  keep = perm.empty() || perm.find('x') != std::string_view::npos;
  if (!keep) return true;
  if (!parse_hex(start, m.start) || !parse_hex(end, m.limit)) return false;
  if (!offset.empty() && !parse_hex(offset, m.offset)) return false;
  return true;
}

bool is_shared_library(std::string_view file) {
  // pprof's libRx: `([.]so$|[.]so[._][0-9]+)`
  for (size_t p = file.find(".so"); p != std::string_view::npos; p = file.find(".so", p + 1)) {
    size_t after = p + 3;
    if (after == file.size()) return true;
    if ((file[after] == '.' || file[after] == '_') && after + 1 < file.size() && digit_char(file[after + 1]))
      return true;
  }
  return false;
}

bool adjacent(const RawMapping& a, const RawMapping& b) {
  if (!a.file.empty() && !b.file.empty() && a.file != b.file) return false;
  if (!a.build_id.empty() && !b.build_id.empty() && a.build_id != b.build_id) return false;
  if (a.limit != b.start) return false;
  if (a.offset != 0 && b.offset != 0 && a.offset + (a.limit - a.start) != b.offset) return false;
  return true;
}

}  // namespace

void Builder::parse_memory_map(std::string_view text) {
  LineReader r(text.data(), text.size());
  // "name=value" lines define $name for the mapping lines after them.
  std::vector<std::pair<std::string, std::string>> vars;
  std::string line;
  while (r.next()) {
    std::string_view raw = remove_logging_info(r.line());
    line.clear();
    for (size_t i = 0; i < raw.size();) {
      bool replaced = false;
      if (raw[i] == '$')
        for (auto& v : vars)
          if (raw.substr(i, v.first.size()) == v.first) {
            line += v.second;
            i += v.first.size();
            replaced = true;
            break;
          }
      if (!replaced) line += raw[i++];
    }
    RawMapping m;
    bool keep = false;
    if (!parse_mapping_line(line, m, keep)) {
      size_t eq = line.find('=');
      if (eq != std::string::npos)
        vars.emplace_back("$" + std::string(trim_space(std::string_view(line).substr(0, eq))),
                          std::string(trim_space(std::string_view(line).substr(eq + 1))));
      continue;
    }
    if (keep) mappings.push_back(std::move(m));
  }
}

void Builder::number_locations() {
  // Open addressing on the address (few distinct addresses, millions of uses).
  size_t cap = 1024;
  std::vector<uint64_t> keys(cap);
  std::vector<int32_t> rows(cap, -1);
  auto slot = [&](uint64_t a) {
    size_t mask = cap - 1, h = static_cast<size_t>(hash_mix(0, a)) & mask;
    while (rows[h] >= 0 && keys[h] != a) h = (h + 1) & mask;
    return h;
  };
  sample_locations_.resize(addresses.size());
  for (size_t i = 0; i < addresses.size(); ++i) {
    uint64_t a = addresses[i];
    size_t h = slot(a);
    if (rows[h] < 0) {
      if (2 * (location_addresses_.size() + 1) > cap) {  // grow at load 1/2
        cap *= 2;
        keys.assign(cap, 0);
        rows.assign(cap, -1);
        for (size_t r = 0; r < location_addresses_.size(); ++r) {
          size_t g = slot(location_addresses_[r]);
          keys[g] = location_addresses_[r];
          rows[g] = static_cast<int32_t>(r);
        }
        h = slot(a);
      }
      keys[h] = a;
      rows[h] = static_cast<int32_t>(location_addresses_.size());
      location_addresses_.push_back(a);
    }
    sample_locations_[i] = rows[h];
  }
  numbered_ = true;
}

void Builder::drop_duplicated_leaf_frames() {
  number_locations();
  std::vector<int32_t>& rows = sample_locations_;
  const std::vector<uint64_t>& addr = location_addresses_;
  size_t o = 0;
  std::vector<int64_t> offsets{0};
  for (size_t s = 0; s < num_samples(); ++s) {
    size_t lo = size_t(stack_offsets[s]), hi = size_t(stack_offsets[s + 1]);
    bool dup = hi - lo > 1 && addr[size_t(rows[lo])] == addr[size_t(rows[lo + 1])] + 1;
    for (size_t i = lo; i < hi; ++i)
      if (!(dup && i == lo + 1)) rows[o++] = rows[i];
    offsets.push_back(static_cast<int64_t>(o));
  }
  rows.resize(o);
  stack_offsets = std::move(offsets);
}

Profile Builder::finish() {
  if (!numbered_) number_locations();
  // massageMappings: merge a mapping split into adjacent pieces, then move the
  // first mapping that looks like the main binary to the front.
  if (mappings.size() > 1) {
    std::vector<RawMapping> merged{mappings[0]};
    for (size_t i = 1; i < mappings.size(); ++i) {
      RawMapping& last = merged.back();
      if (adjacent(last, mappings[i])) {
        last.limit = mappings[i].limit;
        if (!mappings[i].file.empty()) last.file = mappings[i].file;
        if (!mappings[i].build_id.empty()) last.build_id = mappings[i].build_id;
      } else {
        merged.push_back(mappings[i]);
      }
    }
    mappings = std::move(merged);
  }
  for (size_t i = 0; i < mappings.size(); ++i) {
    std::string file = mappings[i].file;
    for (size_t p; (p = file.find("(deleted)")) != std::string::npos;) file.erase(p, 9);
    std::string_view f = trim_space(file);
    if (f.empty() || is_shared_library(f) || f[0] == '[') continue;
    std::swap(mappings[0], mappings[i]);
    break;
  }
  // remapMappingIDs: drop a leading /anon_hugepage piece, normalise a main
  // binary mapped at 0x400000, then give each location the first mapping holding it.
  if (!mappings.empty() && mappings[0].file.rfind("/anon_hugepage", 0) == 0 && mappings.size() > 1 &&
      mappings[0].limit == mappings[1].start)
    mappings.erase(mappings.begin());
  if (!mappings.empty() && mappings[0].start - mappings[0].offset == 0x400000) {
    mappings[0].start = 0x400000;
    mappings[0].offset = 0;
  }
  const size_t n_locs = location_addresses_.size();
  std::vector<int32_t> loc_mapping(n_locs, -1);
  // pprof takes the first mapping (in list order) holding the address; when the
  // mappings do not overlap that is the only one, found by binary search.
  std::vector<std::pair<uint64_t, int32_t>> by_start;
  bool disjoint = false;
  auto index_mappings = [&] {
    by_start.clear();
    for (size_t m = 0; m < mappings.size(); ++m) by_start.emplace_back(mappings[m].start, static_cast<int32_t>(m));
    std::sort(by_start.begin(), by_start.end());
    disjoint = true;
    for (size_t i = 1; i < by_start.size() && disjoint; ++i)
      disjoint = mappings[size_t(by_start[i - 1].second)].limit <= by_start[i].first;
  };
  auto find_disjoint = [&](uint64_t a) -> int32_t {
    auto it = std::upper_bound(by_start.begin(), by_start.end(), std::make_pair(a, INT32_MAX));
    if (it == by_start.begin()) return -1;
    --it;
    const RawMapping& m = mappings[size_t(it->second)];
    return m.start <= a && a < m.limit ? it->second : -1;
  };
  index_mappings();
  int32_t fake = -1;
  for (size_t l = 0; l < n_locs; ++l) {
    uint64_t a = location_addresses_[l];
    if (a == 0 || symbols.count(a)) continue;
    int32_t found = disjoint ? find_disjoint(a) : -1;
    for (size_t m = 0; !disjoint && m < mappings.size() && found < 0; ++m)
      if (mappings[m].start <= a && a < mappings[m].limit) found = static_cast<int32_t>(m);
    // Once pprof has added its placeholder (it holds every address), later
    // addresses land there before the repair below is tried.
    if (disjoint && found < 0 && fake >= 0 && a < mappings[size_t(fake)].limit) found = fake;
    for (size_t m = 0; m < mappings.size() && found < 0; ++m) {
      RawMapping& mp = mappings[m];
      // A mapping whose first piece the producer failed to list.
      if (mp.offset != 0 && mp.start - mp.offset <= a && a < mp.start) {
        mp.start -= mp.offset;
        mp.offset = 0;
        found = static_cast<int32_t>(m);
        index_mappings();
      }
    }
    if (found < 0) {
      if (fake < 0) {
        fake = static_cast<int32_t>(mappings.size());
        RawMapping f;
        f.limit = std::numeric_limits<uint64_t>::max();
        mappings.push_back(f);  // not indexed: it overlaps everything (handled above)
      }
      found = fake;
    }
    loc_mapping[l] = found;
  }

  Profile p;
  StringInterner strings;
  for (auto& t : sample_types) {
    p.sample_type_type.push_back(strings.intern(t.first));
    p.sample_type_unit.push_back(strings.intern(t.second));
  }
  p.has_period_type = true;
  p.period_type_type = strings.intern(period_type);
  p.period_type_unit = strings.intern(period_unit);
  p.period = period;
  p.duration_nanos = duration_nanos;
  // addLegacyFrameInfo: the frames pprof hides in these profiles by default.
  static const char* kAllocDrop =
      "calloc|cfree|malloc|free|memalign|do_memalign|(__)?posix_memalign|pvalloc|valloc|realloc|"
      "tcmalloc::.*|tc_calloc|tc_cfree|tc_malloc|tc_free|tc_memalign|tc_posix_memalign|tc_pvalloc|"
      "tc_valloc|tc_realloc|tc_new|tc_delete|tc_newarray|tc_deletearray|tc_new_nothrow|"
      "tc_newarray_nothrow|malloc_zone_malloc|malloc_zone_calloc|malloc_zone_valloc|"
      "malloc_zone_realloc|malloc_zone_memalign|malloc_zone_free|runtime\\..*|BaseArena::.*|"
      "(::)?do_malloc_no_errno|(::)?do_malloc_pages|(::)?do_malloc|DoSampledAllocation|"
      "MallocedMemBlock::MallocedMemBlock|_M_allocate|__builtin_(vec_)?delete|__builtin_(vec_)?new|"
      "__gnu_cxx::new_allocator::allocate|__libc_malloc|__malloc_alloc_template::allocate|allocate|"
      "cpp_alloc|operator new(\\[\\])?|simple_alloc::allocate";
  static const char* kAllocKeep = "runtime\\.panic|runtime\\.reflectcall|runtime\\.call[0-9]*";
  static const char* kCpuDrop =
      "ProfileData::Add|ProfileData::prof_handler|CpuProfiler::prof_handler|__pthread_sighandler|__restore";
  static const char* kLockDrop =
      "RecordLockProfileData|(base::)?RecordLockProfileData.*|(base::)?SubmitMutexProfileData.*|"
      "(base::)?SubmitSpinLockProfileData.*|(base::Mutex::)?AwaitCommon.*|(base::Mutex::)?Unlock.*|"
      "(base::Mutex::)?UnlockSlow.*|(base::Mutex::)?ReaderUnlock.*|(base::MutexLock::)?~MutexLock.*|"
      "(Mutex::)?AwaitCommon.*|(Mutex::)?Unlock.*|(Mutex::)?UnlockSlow.*|(Mutex::)?ReaderUnlock.*|"
      "(MutexLock::)?~MutexLock.*|(SpinLock::)?Unlock.*|(SpinLock::)?SlowUnlock.*|"
      "(SpinLockHolder::)?~SpinLockHolder.*";
  auto types_are = [&](std::initializer_list<const char*> names) {
    if (names.size() != sample_types.size()) return false;
    size_t i = 0;
    for (const char* nm : names)
      if (sample_types[i++].first != nm) return false;
    return true;
  };
  if (types_are({"allocations", "size"}) || types_are({"objects", "space"}) ||
      types_are({"inuse_objects", "inuse_space"}) || types_are({"alloc_objects", "alloc_space"}) ||
      types_are({"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"})) {
    p.drop_frames = strings.intern(kAllocDrop);
    p.keep_frames = strings.intern(kAllocKeep);
  } else if (types_are({"contentions", "delay"})) {
    p.drop_frames = strings.intern(kLockDrop);
  } else {
    p.drop_frames = strings.intern(kCpuDrop);
  }

  const size_t ns = num_samples();
  p.values = std::move(values);
  p.stack_offsets = std::move(stack_offsets);
  p.stack_locations = std::move(sample_locations_);
  p.label_offsets.assign(1, 0);
  p.label_offsets.reserve(ns + 1);
  if (!bytes_label.empty()) {
    int32_t key = strings.intern("bytes");
    for (size_t s = 0; s < ns; ++s) {
      // profile.proto cannot carry a numeric label of 0 without a unit (pprof's
      // decoder drops it), so a block size of 0 is left out, as after any round trip.
      if (bytes_label[s] != 0) {
        p.labels.push_back(key, -1, bytes_label[s], 0);
      }
      p.label_offsets.push_back(static_cast<int64_t>(p.labels.size()));
    }
  } else {
    p.label_offsets.assign(ns + 1, 0);
  }
  for (size_t m = 0; m < mappings.size(); ++m) {
    p.mappings.id.push_back(m + 1);
    p.mappings.memory_start.push_back(mappings[m].start);
    p.mappings.memory_limit.push_back(mappings[m].limit);
    p.mappings.file_offset.push_back(mappings[m].offset);
    p.mappings.filename.push_back(strings.intern(mappings[m].file));
    p.mappings.build_id.push_back(strings.intern(mappings[m].build_id));
    p.mappings.has_functions.push_back(0);
    p.mappings.has_filenames.push_back(0);
    p.mappings.has_line_numbers.push_back(0);
    p.mappings.has_inline_frames.push_back(0);
  }
  p.locations.id.resize(n_locs);
  for (size_t l = 0; l < n_locs; ++l) p.locations.id[l] = l + 1;
  p.locations.mapping = std::move(loc_mapping);
  p.locations.is_folded.assign(n_locs, 0);
  p.locations.line_offsets.assign(n_locs + 1, 0);
  if (!symbols.empty()) {
    // Functions are numbered by first use in location order (remapFunctionIDs).
    std::vector<int32_t> fn_row(functions.size(), -1);
    for (size_t l = 0; l < n_locs; ++l) {
      auto it = symbols.find(location_addresses_[l]);
      if (it != symbols.end()) {
        int32_t& row = fn_row[size_t(it->second.function)];
        if (row < 0) {
          row = static_cast<int32_t>(p.functions.size());
          const auto& f = functions[size_t(it->second.function)];
          p.functions.id.push_back(p.functions.size() + 1);
          int32_t name = strings.intern(f.first);
          p.functions.name.push_back(name);
          p.functions.system_name.push_back(name);
          p.functions.filename.push_back(strings.intern(f.second));
          p.functions.start_line.push_back(0);
        }
        p.lines.function.push_back(row);
        p.lines.line.push_back(it->second.line);
        p.lines.column.push_back(0);
        location_addresses_[l] = 0;
      }
      p.locations.line_offsets[l + 1] = static_cast<int64_t>(p.lines.size());
    }
  }
  if (zero_addresses) location_addresses_.assign(n_locs, 0);
  p.locations.address = std::move(location_addresses_);
  p.strings = strings.take();
  return p;
}

}  // namespace pprofcore::legacy
