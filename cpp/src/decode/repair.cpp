// repair: what repair mode (decode given a RepairReport) does where validation
// would throw: stub functions for missing ones, fresh ids
// for id 0 and duplicates, dangling stack entries removed, samples with the
// wrong number of values dropped; each counted in the RepairReport. Never runs
// on valid input. Wire-format, string-table and gzip errors are not repaired.
// A new repair is one method here, called from validate.cpp where the refusal is.
#include <algorithm>
#include <string>

#include "decode_internal.hpp"
#include "pprofcore/repair_strings.hpp"

namespace pprofcore::decoding {

int32_t Repairs::missing_location(uint64_t id) {
  ++(id == 0 ? report_.zero_location_refs : report_.dangling_location_refs);
  return kRemoved;
}

// One placeholder function per distinct missing function id, named after it.
int32_t Repairs::missing_function(Profile& p, IdIndex& functions, uint64_t missing_id) {
  ++report_.missing_function_refs;
  auto it = stubs_.find(missing_id);
  if (it != stubs_.end()) return it->second;
  auto& f = p.functions;
  if (stubs_.empty())
    for (uint64_t id : f.id) stub_max_id_ = std::max(stub_max_id_, id);
  uint64_t id = stub_max_id_ = functions.fresh(stub_max_id_);
  int32_t row = static_cast<int32_t>(f.size());
  std::string name =
      missing_id == 0 ? "[missing function]" : "[missing function id " + std::to_string(missing_id) + "]";
  int32_t code = static_cast<int32_t>(p.strings.size());
  p.strings.push_back(name);
  f.id.push_back(id);
  f.name.push_back(code);
  f.system_name.push_back(code);
  f.filename.push_back(0);
  f.start_line.push_back(0);
  functions.add(id, row);
  ++report_.stub_functions;
  stubs_.emplace(missing_id, row);
  return row;
}

// The first row with an id owns it; id 0 and later duplicates get fresh ids
// above the largest id in use, so nothing is dropped.
IdIndex Repairs::index_ids(std::vector<uint64_t>& ids, IdIndex idx) {
  uint64_t max_id = 0;
  std::vector<size_t> renumber;
  for (size_t i = 0; i < ids.size(); ++i) {
    max_id = std::max(max_id, ids[i]);
    if (ids[i] == 0) {
      ++report_.zero_ids;
      renumber.push_back(i);
    } else if (!idx.map.emplace(ids[i], static_cast<int32_t>(i)).second) {
      ++report_.duplicate_ids;
      renumber.push_back(i);
    }
  }
  for (size_t i : renumber) {
    max_id = ids[i] = idx.fresh(max_id);
    idx.map.emplace(ids[i], static_cast<int32_t>(i));
  }
  return idx;
}

void Repairs::remove_stack_entries(Profile& p) const {
  auto& so = p.stack_offsets;
  auto& sl = p.stack_locations;
  size_t w = 0, r = 0;
  for (size_t s = 0; s + 1 < so.size(); ++s) {
    size_t end = static_cast<size_t>(so[s + 1]);
    for (; r < end; ++r)
      if (sl[r] != kRemoved) sl[w++] = sl[r];
    so[s + 1] = static_cast<int64_t>(w);
  }
  sl.resize(w);
}

void Repairs::drop_samples_with_bad_value_counts(Profile& p, const std::vector<size_t>& counts) {
  const size_t nt = p.num_types(), ns = p.num_samples();
  if (counts.size() != ns) throw DecodeError("internal error: value counts missing", "Profile.sample", -1);
  auto& so = p.stack_offsets;
  auto& lo = p.label_offsets;
  size_t vr = 0, vw = 0, sw = 0, lw = 0, out = 0;
  for (size_t s = 0; s < ns; ++s) {
    size_t s_begin = static_cast<size_t>(so[s]), s_end = static_cast<size_t>(so[s + 1]);
    size_t l_begin = static_cast<size_t>(lo[s]), l_end = static_cast<size_t>(lo[s + 1]);
    if (counts[s] != nt) {
      ++report_.value_count_mismatch;
      for (size_t k = 0; k < counts[s]; ++k)
        report_.dropped_values_sum = static_cast<int64_t>(static_cast<uint64_t>(report_.dropped_values_sum) +
                                                          static_cast<uint64_t>(p.values[vr + k]));
      vr += counts[s];
      continue;
    }
    for (size_t k = 0; k < nt; ++k) p.values[vw++] = p.values[vr++];
    for (size_t k = s_begin; k < s_end; ++k) p.stack_locations[sw++] = p.stack_locations[k];
    for (size_t k = l_begin; k < l_end; ++k, ++lw)
      p.labels.for_each_column([&](const char*, auto& c) { c[lw] = c[k]; });
    ++out;
    so[out] = static_cast<int64_t>(sw);
    lo[out] = static_cast<int64_t>(lw);
  }
  p.values.resize(vw);
  p.stack_locations.resize(sw);
  so.resize(out + 1);
  lo.resize(out + 1);
  p.labels.for_each_column([&](const char*, auto& c) { c.resize(lw); });
}

void Repairs::first_string(Profile& p) {
  ++report_.bad_first_string;
  p.strings.push_back("");
}

void Repairs::missing_strings(Profile& p) {
  StringRepair fixed = repair_string_codes(p);
  report_.out_of_range_string_refs += fixed.references;
  report_.placeholder_strings += fixed.placeholders;
}

}  // namespace pprofcore::decoding
