// validate: the decoder's second half (pprof's postDecode and CheckValid). Turns
// the provisional ids the wire walk stored into dense rows, and enforces what
// pprof enforces: a string table starting with "", string codes in range, one
// value per sample type, unique non-zero ids, no dangling references. Repair
// mode hands each refusal to Repairs (repair.cpp) instead of throwing. Does not
// read the wire except to locate an error (Decoder::locate).
#include <algorithm>
#include <string>

#include "decode_internal.hpp"

namespace pprofcore::decoding {

void IdIndex::add(uint64_t id, int32_t row) {
  if (dense && id == n + 1 && static_cast<size_t>(row) == n) {
    ++n;
    return;
  }
  if (dense) {
    map.reserve(n * 2 + 2);
    for (size_t i = 0; i < n; ++i) map.emplace(i + 1, static_cast<int32_t>(i));
    dense = false;
  }
  map.emplace(id, row);
  ++n;
}

uint64_t IdIndex::fresh(uint64_t above) const {
  uint64_t id = above + 1;
  while (id == 0 || find(id) >= 0) ++id;
  return id;
}

IdIndex Decoder::index_ids(std::vector<uint64_t>& ids, const char* what, ProfileField field) {
  IdIndex idx;
  idx.n = ids.size();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] != i + 1) {
      idx.dense = false;
      break;
    }
  }
  if (idx.dense) return idx;
  idx.map.reserve(ids.size() * 2);
  if (repair_) return repair_->index_ids(ids, std::move(idx));
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string f = std::string("Profile.") + what + "[" + std::to_string(i) + "].id";
    if (ids[i] == 0) throw DecodeError(std::string("found ") + what + " with reserved id 0", f, locate(field, i));
    if (!idx.map.emplace(ids[i], static_cast<int32_t>(i)).second)
      throw DecodeError(std::string("multiple ") + what + "s with same id " + std::to_string(ids[i]), f,
                        locate(field, i));
  }
  return idx;
}

// Replaces provisional ids in `column` by rows. A missing id (0 when !zero_is_none,
// or dangling) is passed to `missing(i, id)`, which returns the row to store or
// throws; by default it throws the DecodeError naming the reference.
void Decoder::resolve(std::vector<int32_t>& column, const std::vector<BigRef>& big, const IdIndex& idx,
                      bool zero_is_none, const char* what,
                      const std::function<std::pair<std::string, int64_t>(size_t)>& where, const Missing& missing) {
  if (idx.dense && big.empty() && !zero_is_none) {
    // Common case: ids 1..n, all small. One branch-light pass; the error path
    // below re-runs to name the first bad reference.
    const uint32_t n = static_cast<uint32_t>(idx.n);
    int32_t* c = column.data();
    const size_t m = column.size();
    bool ok = true;
    for (size_t i = 0; i < m; ++i) {
      uint32_t row = static_cast<uint32_t>(c[i]) - 1u;  // id 0 wraps to a huge value
      ok &= row < n;
      c[i] = static_cast<int32_t>(row);
    }
    if (ok) return;
    for (size_t i = 0; i < m; ++i) c[i] += 1;  // restore the ids for the precise error
  }
  size_t b = 0;
  for (size_t i = 0; i < column.size(); ++i) {
    uint64_t id;
    if (column[i] >= 0) {
      id = static_cast<uint64_t>(column[i]);
    } else {
      while (big[b].index != i) ++b;
      id = big[b].id;
    }
    if (id == 0 && zero_is_none) {
      column[i] = -1;
      continue;
    }
    int32_t row = id == 0 ? -1 : idx.find(id);
    if (row < 0 && missing) {
      column[i] = missing(i, id);
      continue;
    }
    if (row < 0) {
      auto [field, offset] = where(i);
      throw DecodeError(id == 0 ? std::string("reference to ") + what + " id 0 (no " + what + ")"
                                : std::string("dangling reference to ") + what + " id " + std::to_string(id),
                        field, offset);
    }
    column[i] = row;
  }
}

// pprof: every sample has one value per sample type. Repair mode drops the
// samples that do not (after resolve, in fixup); otherwise the first offender
// is named.
void Decoder::check_value_counts() {
  const SampleDecoder& s = main_samples_;
  const size_t ns = p_.num_samples();
  if (ns == 0) return;
  if (p_.num_types() == 0)
    throw DecodeError("profile has " + std::to_string(ns) + " samples but no sample_type",
                      path(ProfileField::kSampleType), -1);
  if (repair_) return;
  if (s.mismatch_sample >= 0)
    throw DecodeError("sample " + std::to_string(s.mismatch_sample) + " has " + std::to_string(s.mismatch_count) +
                          " values, sample 0 has " + std::to_string(s.first_value_count) + " (" +
                          std::to_string(p_.num_types()) + " sample types)",
                      path(SampleField::kValue), locate(ProfileField::kSample, static_cast<size_t>(s.mismatch_sample)));
  if (s.first_value_count != p_.num_types())
    throw DecodeError("samples have " + std::to_string(s.first_value_count) + " values but there are " +
                          std::to_string(p_.num_types()) + " sample types",
                      path(SampleField::kValue), locate(ProfileField::kSample, 0));
}

namespace {

// The index of the run of `offsets` (n+1 ascending entries) that holds item i.
size_t owner(const std::vector<int64_t>& offsets, size_t i) {
  return static_cast<size_t>(std::upper_bound(offsets.begin(), offsets.end(), static_cast<int64_t>(i)) -
                             offsets.begin()) -
         1;
}

}  // namespace

void Decoder::fixup() {
  try {
    if (repair_ && p_.strings.size() == 0) repair_->first_string(p_);
    if (repair_ && max_string_code_.code >= static_cast<int64_t>(p_.strings.size())) repair_->missing_strings(p_);
    const size_t n_strings = p_.strings.size();
    if (n_strings == 0)
      throw DecodeError("missing string table (pprof requires string_table[0] == \"\")",
                        path(ProfileField::kStringTable), -1);
    if (!repair_ && max_string_code_.code >= static_cast<int64_t>(n_strings))
      throw DecodeError("string index " + std::to_string(max_string_code_.code) + " out of range (string table has " +
                            std::to_string(n_strings) + " entries)",
                        max_string_code_.field, max_string_code_.offset);
    check_value_counts();

    IdIndex mappings = index_ids(p_.mappings.id, "mapping", ProfileField::kMapping);
    IdIndex functions = index_ids(p_.functions.id, "function", ProfileField::kFunction);
    IdIndex locations = index_ids(p_.locations.id, "location", ProfileField::kLocation);

    // google/pprof accepts a location whose mapping_id names no mapping (real
    // producers write them) and gives it no mapping; so do we, counting it in repair mode.
    Missing missing_mapping = [&](size_t, uint64_t) {
      if (repair_) repair_->dangling_mapping();
      return -1;
    };
    Missing missing_function, missing_location;
    if (repair_) {
      missing_function = [&](size_t, uint64_t id) { return repair_->missing_function(p_, functions, id); };
      missing_location = [&](size_t, uint64_t id) { return repair_->missing_location(id); };
    }
    resolve(
        p_.locations.mapping, big_mapping_refs_, mappings, true, "mapping",
        [&](size_t i) {
          return std::make_pair("Profile.location[" + std::to_string(i) + "].mapping_id",
                                locate(ProfileField::kLocation, i));
        },
        missing_mapping);
    resolve(
        p_.lines.function, big_function_refs_, functions, false, "function",
        [&](size_t i) {
          size_t loc = owner(p_.locations.line_offsets, i);
          return std::make_pair("Profile.location[" + std::to_string(loc) + "] (id " +
                                    std::to_string(p_.locations.id[loc]) + ").line.function_id",
                                locate(ProfileField::kLocation, loc));
        },
        missing_function);
    // The sample decoder stored rows already (id - 1); they stand when the
    // location ids are 1..n and every row is below n. Otherwise back to ids
    // for the general path (kBigIdRow + 1 is its big-id placeholder, -1).
    const SampleDecoder& samples = main_samples_;
    if (!(locations.dense && samples.big_refs.empty() && samples.max_row < locations.n)) {
      for (int32_t& c : p_.stack_locations) c += 1;
      resolve(
          p_.stack_locations, samples.big_refs, locations, false, "location",
          [&](size_t i) {
            size_t s = owner(p_.stack_offsets, i);
            return std::make_pair("Profile.sample[" + std::to_string(s) + "].location_id",
                                  locate(ProfileField::kSample, s));
          },
          missing_location);
    }
    if (repair_) {
      if (repair_->removed_stack_entries()) repair_->remove_stack_entries(p_);
      const SampleDecoder& s = main_samples_;
      if (p_.num_samples() > 0 && (s.mismatch_sample >= 0 || s.first_value_count != p_.num_types()))
        repair_->drop_samples_with_bad_value_counts(p_, s.value_counts);
    }
  } catch (const DecodeError& e) {
    if (concat_at_ < 0) throw;
    // The concatenation hint: the likely cause of whatever failed.
    throw DecodeError("input looks like concatenated profiles (a sample_type at byte offset " +
                          std::to_string(concat_at_) + " follows the string table): " + e.reason(),
                      e.field(), e.offset());
  }
}

}  // namespace pprofcore::decoding
