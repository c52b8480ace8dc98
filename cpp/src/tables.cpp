// tables: dense stack ids for the samples table (hash of each location sequence).
#include "pprofcore/tables.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <unordered_map>

namespace pprofcore {

std::vector<int32_t> stack_ids(const Profile& p, size_t* n_stacks) {
  const size_t ns = p.num_samples();
  std::vector<int32_t> out(ns);
  // Open addressing over first-occurrence sample indices, keyed by stack content.
  size_t cap = 16;
  while (cap < ns * 2) cap <<= 1;
  std::vector<int32_t> slot_sample(cap, -1);
  std::vector<uint64_t> slot_hash(cap, 0);
  std::vector<uint64_t> hashes(ns);
  const int32_t* locs = p.stack_locations.data();
  int32_t next = 0;
  for (size_t s = 0; s < ns; ++s) {
    const int64_t b = p.stack_offsets[s], e = p.stack_offsets[s + 1];
    // Two location rows per multiply keeps the dependency chain short.
    uint64_t h = 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(e - b);
    int64_t i = b;
    for (; i + 1 < e; i += 2) {
      uint64_t x;
      std::memcpy(&x, locs + i, sizeof x);
      h = (h ^ x) * 0xff51afd7ed558ccdull;
      h ^= h >> 29;
    }
    if (i < e) {
      h = (h ^ static_cast<uint32_t>(locs[i])) * 0xc4ceb9fe1a85ec53ull;
      h ^= h >> 29;
    }
    h ^= h >> 32;
    size_t k = static_cast<size_t>(h) & (cap - 1);
    for (;;) {
      const int32_t other = slot_sample[k];
      if (other < 0) {
        slot_sample[k] = static_cast<int32_t>(s);
        slot_hash[k] = h;
        out[s] = next++;
        break;
      }
      if (slot_hash[k] == h) {
        const size_t o = static_cast<size_t>(other);
        const int64_t ob = p.stack_offsets[o], oe = p.stack_offsets[o + 1];
        if (oe - ob == e - b && std::memcmp(locs + ob, locs + b, static_cast<size_t>(e - b) * sizeof(int32_t)) == 0) {
          out[s] = out[o];
          break;
        }
      }
      k = (k + 1) & (cap - 1);
    }
  }
  if (n_stacks) *n_stacks = static_cast<size_t>(next);
  return out;
}

std::vector<int32_t> sample_group_ids(const Profile& p, size_t* n_groups) {
  size_t n_stacks = 0;
  std::vector<int32_t> stacks = stack_ids(p, &n_stacks);
  const size_t ns = p.num_samples();
  std::vector<int32_t> out(ns);
  // key: stack id followed by the sorted label rows, as bytes
  std::unordered_map<std::string, int32_t> ids;
  std::string key;
  std::vector<std::tuple<int32_t, int32_t, int64_t, int32_t>> rows;
  for (size_t s = 0; s < ns; ++s) {
    key.assign(reinterpret_cast<const char*>(&stacks[s]), sizeof(int32_t));
    rows.clear();
    for (int64_t i = p.label_offsets[s]; i < p.label_offsets[s + 1]; ++i) {
      const size_t r = static_cast<size_t>(i);
      rows.emplace_back(p.labels.key[r], p.labels.str[r], p.labels.num[r], p.labels.num_unit[r]);
    }
    std::sort(rows.begin(), rows.end());
    for (const auto& [k, str, num, unit] : rows) {
      key.append(reinterpret_cast<const char*>(&k), sizeof k);
      key.append(reinterpret_cast<const char*>(&str), sizeof str);
      key.append(reinterpret_cast<const char*>(&num), sizeof num);
      key.append(reinterpret_cast<const char*>(&unit), sizeof unit);
    }
    auto it = ids.emplace(key, static_cast<int32_t>(ids.size()));
    out[s] = it.first->second;
  }
  if (n_groups) *n_groups = ids.size();
  return out;
}

FrameColumns frame_columns(const Profile& p) {
  FrameColumns f;
  const size_t ns = p.num_samples();
  size_t rows = 0;
  for (int32_t loc : p.stack_locations) {
    const auto l = static_cast<size_t>(loc);
    rows += static_cast<size_t>(std::max<int64_t>(p.locations.line_offsets[l + 1] - p.locations.line_offsets[l], 1));
  }
  f.sample.resize(rows);
  f.depth.resize(rows);
  f.location.resize(rows);
  f.address.resize(rows);
  f.function.resize(rows);
  f.name.resize(rows);
  f.file.resize(rows);
  f.line.resize(rows);
  f.is_inline.resize(rows);
  size_t r = 0;
  for (size_t s = 0; s < ns; ++s) {
    int32_t depth = 0;
    for (int64_t i = p.stack_offsets[s]; i < p.stack_offsets[s + 1]; ++i) {
      const int32_t loc = p.stack_locations[static_cast<size_t>(i)];
      const auto l = static_cast<size_t>(loc);
      const int64_t b = p.locations.line_offsets[l], e = p.locations.line_offsets[l + 1];
      const uint64_t addr = p.locations.address[l];
      if (b == e) {
        f.sample[r] = static_cast<int64_t>(s);
        f.depth[r] = depth++;
        f.location[r] = loc;
        f.address[r] = addr;
        f.function[r] = f.name[r] = f.file[r] = -1;
        f.line[r] = 0;
        f.is_inline[r] = 0;
        ++r;
        continue;
      }
      for (int64_t j = b; j < e; ++j) {
        const auto lr = static_cast<size_t>(j);
        const int32_t fn = p.lines.function[lr];
        f.sample[r] = static_cast<int64_t>(s);
        f.depth[r] = depth++;
        f.location[r] = loc;
        f.address[r] = addr;
        f.function[r] = fn;
        f.name[r] = p.functions.name[static_cast<size_t>(fn)];
        f.file[r] = p.functions.filename[static_cast<size_t>(fn)];
        f.line[r] = p.lines.line[lr];
        f.is_inline[r] = j != e - 1;
        ++r;
      }
    }
  }
  return f;
}

}  // namespace pprofcore
