// scan: a lean, all-or-nothing reading of profile.proto for reductions that need
// a profile's tables but not its samples as columns (fleet series). It fills
// the tables aggregate() reads and keeps each Sample's bytes for a walk once
// the tables are known. Wherever decode() might decide otherwise than the scan
// would (invalid input of any kind, and valid input the scan leaves to
// decode(): fields profile.proto does not define) it answers false and the
// caller decodes the ordinary way, which reports any error. Never throws for
// bad input. Not here: decompression, legacy formats, repair, labels as data
// (they are checked, not kept).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "pprofcore/hashing.hpp"
#include "pprofcore/profile.hpp"
#include "pprofcore/proto_fields.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore {

// Rows of a table's ids: id - 1 when the ids are 1..n in file order (every
// producer we know of but a few), else through a hash table.
class ScanIds {
 public:
  // Indexes `ids` (kept by reference); false on an id 0 or a repeated id.
  bool index(const std::vector<uint64_t>& ids);
  // Ids known to be 1..n (nothing to keep).
  void index_dense(size_t n) {
    n_ = n;
    dense_ = true;
  }
  // The row of `id`, or -1.
  int32_t row(uint64_t id) const {
    if (dense_) return id - 1 < n_ ? static_cast<int32_t>(id - 1) : -1;  // id 0 wraps past n
    return table_.find(hash_mix(0x5ca9, id), [&](int32_t r) { return (*ids_)[static_cast<size_t>(r)] == id; });
  }

 private:
  const std::vector<uint64_t>* ids_ = nullptr;
  uint64_t n_ = 0;
  bool dense_ = true;
  IdTable table_;
};

struct Scan {
  // Header (sample types, period, times, default_sample_type...), mappings,
  // locations, lines, functions and strings as decode() builds them, ids
  // resolved to rows; no samples, no labels, no comments. The lean passes
  // (scan_labels.hpp) leave tables.strings empty: see `strings`.
  Profile tables;
  // The string table by code, as views into the data read (valid while it
  // lives): every pass fills it, so a series reads names without the lean
  // passes copying any string.
  std::vector<std::string_view> strings;
  struct Span {
    const uint8_t* begin;
    const uint8_t* end;
  };
  std::vector<Span> samples;  // each Sample message's payload, in file order
  // Buffers the passes reuse (a Scan is meant to be kept per thread).
  std::vector<uint64_t> mapping_ids, function_ids;  // as read, before they become rows
  ScanIds mapping_rows, function_rows, locations;   // locations: the sample walk's
  mutable std::vector<int64_t> values;              // of the sample being walked
  mutable std::vector<int32_t> rows;
  mutable std::vector<Span> labels;  // the walked sample's Label payloads
};

// Reads uncompressed profile.proto `data` into `out` (whose buffers are reused).
// true: decode() accepts the input (up to its samples, which for_each_sample
// checks) and `out.tables` holds what it would hold. false: `out` is unspecified.
// The spans point into `data`, which must outlive the walk.
bool scan_tables(const uint8_t* data, size_t n, Scan& out);

namespace scanning {

// A varint at p (before e); false when truncated or longer than 10 bytes.
bool varint_long(const uint8_t*& p, const uint8_t* e, uint64_t& v);
PPROFCORE_INLINE bool varint(const uint8_t*& p, const uint8_t* e, uint64_t& v) {
  if (p < e && *p < 0x80) {
    v = *p++;
    return true;
  }
  if (e - p >= 2 && p[1] < 0x80) {  // two bytes: ids and codes past 127
    v = (p[0] & 0x7fu) | (uint64_t(p[1]) << 7);
    p += 2;
    return true;
  }
  return varint_long(p, e, v);
}

// One Label message: the fields decode() reads, each a varint, string codes
// within the table. Anything else is left to decode().
PPROFCORE_INLINE bool label(const uint8_t* p, const uint8_t* e, uint64_t n_strings) {
  // The usual label, key and str (or num) as one-byte varints, in one look.
  constexpr uint8_t kKey = proto::tag_byte(proto::LabelField::kKey, wire::kVarint);
  constexpr uint8_t kStr = proto::tag_byte(proto::LabelField::kStr, wire::kVarint);
  constexpr uint8_t kNum = proto::tag_byte(proto::LabelField::kNum, wire::kVarint);
  if (e - p == 4 && p[0] == kKey && (p[2] == kStr || p[2] == kNum) && ((p[1] | p[3]) & 0x80) == 0)
    return p[1] < n_strings && (p[2] == kNum || p[3] < n_strings);
  while (p < e) {
    uint64_t tag, v;
    if (!varint(p, e, tag) || (tag & 7) != wire::kVarint || !varint(p, e, v)) return false;
    const uint64_t field = tag >> 3;
    if (field == 1 || field == 2 || field == 4) {  // key, str, num_unit: string codes
      if (v >= n_strings) return false;
    } else if (field != 3) {  // 3: num
      return false;
    }
  }
  return true;
}

}  // namespace scanning

// Calls fn(values, rows, n_rows) for each sample of a successful scan, in order:
// exactly tables.num_types() values, location rows leaf first (ids checked
// against the table). Labels are checked as decode() checks them; their
// payloads are in s.labels during the call.
// Returns false where decode() would refuse the samples (fn may have been
// called for the samples before), true otherwise.
template <class Fn>
bool for_each_sample(const Scan& s, Fn&& fn) {
  using scanning::varint;
  const size_t n_types = s.tables.num_types();
  const uint64_t n_strings = s.strings.size();
  for (const Scan::Span& span : s.samples) {
    const uint8_t* p = span.begin;
    const uint8_t* e = span.end;
    // Every id and value takes at least a byte: room for all of them, so the
    // loops below write through plain pointers.
    const size_t room = static_cast<size_t>(e - p);
    if (s.rows.size() < room) s.rows.resize(room);
    if (s.values.size() < room + n_types) s.values.resize(room + n_types);
    int32_t* const rows = s.rows.data();
    int64_t* const values = s.values.data();
    size_t n_rows = 0, n_values = 0;
    s.labels.clear();
    while (p < e) {
      uint64_t tag, v;
      if (!varint(p, e, tag)) return false;
      const uint64_t field = tag >> 3, wt = tag & 7;
      if (wt == wire::kVarint) {
        if (!varint(p, e, v)) return false;
        int32_t row;
        if (field == 1 && (row = s.locations.row(v)) >= 0) {
          rows[n_rows++] = row;
        } else if (field == 2) {
          values[n_values++] = static_cast<int64_t>(v);
        } else {
          return false;  // a location id 0 or past the table, a label not a message, another field
        }
        continue;
      }
      if (wt != wire::kLen || !varint(p, e, v) || v > static_cast<uint64_t>(e - p)) return false;
      const uint8_t* pe = p + v;
      if (field == 1) {
        while (p < pe) {
          int32_t row;
          if (!varint(p, pe, v) || (row = s.locations.row(v)) < 0) return false;
          rows[n_rows++] = row;
        }
      } else if (field == 2) {
        while (p < pe) {
          if (!varint(p, pe, v)) return false;
          values[n_values++] = static_cast<int64_t>(v);
        }
      } else if (field != 3 || !scanning::label(p, pe, n_strings)) {
        return false;
      } else {
        s.labels.push_back({p, pe});
      }
      p = pe;
    }
    if (n_values != n_types) return false;
    fn(static_cast<const int64_t*>(values), static_cast<const int32_t*>(rows), n_rows);
  }
  return true;
}

}  // namespace pprofcore
