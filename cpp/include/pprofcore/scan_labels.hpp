// scan_labels: the labels-only walk over a scan's samples (fleet series by
// label). Where for_each_sample (scan.hpp) hands over each sample's location
// rows and label payloads, this walk keeps only what a sum per label value
// needs: the chosen value and, per wanted key, the first label decode() keeps.
// It checks what for_each_sample checks (location ids, the number of values,
// every label field) in the same single pass; scan_label_tables is the
// tables pass it needs (scan_labels.cpp). Not here: bucketing numbers, naming
// values, the sums themselves (series.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pprofcore/proto_fields.hpp"
#include "pprofcore/scan.hpp"

namespace pprofcore {

// The tables pass for the walk below, leaner than scan_tables: keeps the
// header (sample types, default_sample_type, times), the strings (views in
// out.strings; tables.strings stays empty) and the samples' spans, and
// checks the rest without keeping it. true: scan_tables
// would accept `data` with the same header, strings and samples, and location
// ids are 1..n. false where it might not, or where the ids are numbered
// otherwise: the caller then takes scan_tables.
bool scan_label_tables(const uint8_t* data, size_t n, Scan& out);

// scan_label_tables that also keeps what a sum per function name needs:
// tables.functions.name, tables.lines.function (rows) and
// tables.locations.line_offsets, as scan_tables would fill them (the other
// columns of the tables are left as they were). The same answers as
// scan_label_tables otherwise.
bool scan_function_tables(const uint8_t* data, size_t n, Scan& out);

// The first label of one wanted key that a sample carries: a string (value:
// its code) or a number (value: the number); kind kNone without one.
struct FirstLabel {
  static constexpr int64_t kNone = 0, kString = 1, kNumber = 2;
  int64_t kind = kNone, value = 0;
};

// Calls fn(value, firsts, leaf) for each sample of a successful scan, in
// order: `value` of type `ti`, firsts[k] the first label whose key code c has
// key_of_code[c] == k (key_of_code has one entry per string, -1 where not
// wanted; or none at all: no key wanted), `leaf` the id of the sample's
// first location, checked (0 without one: a flat sum needs no more of the
// stack; s.locations.row(leaf) is its row). A
// label with neither string, number nor unit is dropped, as decode() drops
// it. false where decode() would refuse the samples (fn may have been called
// for the samples before).
template <class Fn>
bool for_each_sample_labels(const Scan& s, size_t ti, const std::vector<int32_t>& key_of_code,
                            std::vector<FirstLabel>& firsts, Fn&& fn) {
  using proto::LabelField;
  using proto::SampleField;
  using scanning::varint;
  constexpr uint64_t kLocation = tag_byte(SampleField::kLocationId, wire::kVarint);
  constexpr uint64_t kLocations = tag_byte(SampleField::kLocationId, wire::kLen);
  constexpr uint64_t kValue = tag_byte(SampleField::kValue, wire::kVarint);
  constexpr uint64_t kValues = tag_byte(SampleField::kValue, wire::kLen);
  constexpr uint64_t kLabel = tag_byte(SampleField::kLabel, wire::kLen);
  const size_t n_types = s.tables.num_types();
  const uint64_t n_strings = s.strings.size();

  constexpr uint8_t kKeyTag = tag_byte(LabelField::kKey, wire::kVarint);
  constexpr uint8_t kStrTag = tag_byte(LabelField::kStr, wire::kVarint);
  constexpr uint8_t kNumTag = tag_byte(LabelField::kNum, wire::kVarint);
  constexpr uint8_t kUnitTag = tag_byte(LabelField::kNumUnit, wire::kVarint);

  // Notes a label decode() keeps (one with a string, number or unit) as its
  // key's first, where that key is wanted.
  auto keep = [&](uint64_t key, uint64_t str, uint64_t num, uint64_t unit) {
    if ((str == 0 && num == 0 && unit == 0) || key_of_code.empty()) return;  // dropped, or no key wanted
    const int32_t k = key_of_code[static_cast<size_t>(key)];
    if (k >= 0 && firsts[static_cast<size_t>(k)].kind == FirstLabel::kNone)
      firsts[static_cast<size_t>(k)] = str != 0 ? FirstLabel{FirstLabel::kString, static_cast<int64_t>(str)}
                                                : FirstLabel{FirstLabel::kNumber, static_cast<int64_t>(num)};
  };

  // One Label message: every field a varint, codes within the table.
  auto label = [&](const uint8_t* p, const uint8_t* e) {
    uint64_t key = 0, str = 0, num = 0, unit = 0;
    while (p < e) {
      uint64_t tag, v;
      if (!varint(p, e, tag) || !varint(p, e, v)) return false;
      if (tag == kNumTag) {
        num = v;  // a number, not a code
        continue;
      }
      if (tag == kKeyTag) {
        key = v;
      } else if (tag == kStrTag) {
        str = v;
      } else if (tag == kUnitTag) {
        unit = v;
      } else {
        return false;  // another field, or not a varint
      }
      if (v >= n_strings) return false;
    }
    keep(key, str, num, unit);
    return true;
  };

  // Whether each one-byte location id (0 to 127) is in the table: most stack
  // ids of small profiles, looked up once per profile.
  uint8_t small_ids[128];
  for (uint64_t id = 0; id < 128; ++id) small_ids[id] = s.locations.row(id) >= 0;

  for (const Scan::Span& span : s.samples) {
    const uint8_t* p = span.begin;
    const uint8_t* const e = span.end;
    size_t n_values = 0;
    int64_t value = 0;
    uint64_t leaf = 0;
    for (FirstLabel& f : firsts) f = FirstLabel{};
    while (p < e) {
      uint64_t tag, v;
      // The usual label, key and string codes under 128 (six bytes with its
      // tag), read in one look: samples carry them one after another. Other
      // fields pay the one compare.
      if (p[0] == kLabel) {
        if (e - p >= 6 && p[1] == 4 && p[2] == kKeyTag && p[4] == kStrTag && ((p[3] | p[5]) & 0x80) == 0) {
          if (p[3] >= n_strings || p[5] >= n_strings) return false;
          keep(p[3], p[5], 0, 0);
          p += 6;
          continue;
        }
      }
      if (!varint(p, e, tag)) return false;
      if (tag == kLocation) {
        if (!varint(p, e, v) || s.locations.row(v) < 0) return false;
        leaf = leaf ? leaf : v;
        continue;
      }
      if (tag == kValue) {
        if (!varint(p, e, v)) return false;
        if (n_values++ == ti) value = static_cast<int64_t>(v);
        continue;
      }
      // The rest are length-delimited: packed ids, packed values, a label.
      if ((tag & 7) != wire::kLen || !varint(p, e, v) || v > static_cast<uint64_t>(e - p)) return false;
      const uint8_t* const end = p + v;
      if (tag == kLabel) {
        if (!label(p, end)) return false;
        p = end;
      } else if (tag == kLocations) {
        if (!leaf && p < end) {  // the first id; checked with the rest below
          const uint8_t* q = p;
          if (!varint(q, end, leaf)) return false;
        }
        while (p < end) {
          uint8_t known = 1;  // a run of one-byte ids, checked without a branch each
          while (p < end && *p < 0x80) known &= small_ids[*p++];
          if (!known) return false;
          if (p < end && (!varint(p, end, v) || s.locations.row(v) < 0)) return false;
        }
      } else if (tag == kValues) {
        while (p < end) {
          if (!varint(p, end, v)) return false;
          if (n_values++ == ti) value = static_cast<int64_t>(v);
        }
      } else {
        return false;
      }
    }
    if (n_values != n_types) return false;
    fn(value, static_cast<const FirstLabel*>(firsts.data()), leaf);
  }
  return true;
}

}  // namespace pprofcore
