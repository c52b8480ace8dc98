// decode_samples (private): the Sample message decoder, the hot loop of every
// decode. A header so that it inlines into both the main loop (decode.cpp) and
// the helper thread's loop (decode_overlap.cpp). Knows nothing of threads,
// validation or repair: it records what fixup needs (big ids, the largest
// string code, the first value-count mismatch) and moves on.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "pprofcore/errors.hpp"
#include "pprofcore/profile.hpp"
#include "pprofcore/proto_fields.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore::decoding {

// The decoder is written in profile.proto's names (ProfileField::kSample,
// path(f), tag_byte): it reads them unqualified.
using namespace proto;

// References are stored provisionally as int32 ids; larger ids go to a side list.
constexpr uint64_t kMaxSmallId = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());

// A reference whose id does not fit the provisional int32 slot.
struct BigRef {
  size_t index;
  uint64_t id;
};

// The largest string code seen so far and where, for the range check in fixup
// (the string table is usually written last, so codes cannot be checked on sight).
struct MaxStringCode {
  int64_t code = 0;
  const char* field = "";
  int64_t offset = -1;
  inline void see(int64_t c, const char* f, int64_t at) {
    if (c > code) {
      code = c;
      field = f;
      offset = at;
    }
  }
  void merge(const MaxStringCode& o) {
    if (o.code > code) *this = o;
  }
};

// Takes the offset by value, not the reader: see wire::VarintAt.
[[noreturn]] __attribute__((noinline, cold)) inline void string_code_out_of_range(int64_t offset, uint64_t raw,
                                                                                  const char* field) {
  throw DecodeError("string index " + std::to_string(static_cast<int64_t>(raw)) + " out of range", field, offset);
}

// A string index read as int64: must be non-negative and fit an int32 code.
// The range check against the table happens in fixup (the table comes last).
// Inlined: labels and functions call it for every code (the error path is apart).
PPROFCORE_INLINE int32_t string_code(wire::Reader& r, uint64_t raw, const char* field, MaxStringCode& codes) {
  if (raw > kMaxSmallId) string_code_out_of_range(r.offset(), raw, field);
  codes.see(static_cast<int64_t>(raw), field, r.offset());
  return static_cast<int32_t>(raw);
}

// r.varint(field), with varints of three to eight bytes read inline by
// wire::varint_in_word when eight bytes remain (heap values and addresses
// take three to six bytes, which the reader's inline path leaves to an
// out-of-line call; errors, which need more than eight bytes, still come
// from the reader).
PPROFCORE_INLINE uint64_t long_varint(wire::Reader& r, const char* field) {
#if defined(PPROFCORE_VARINT_IN_WORD)
  const uint8_t* p = r.pos();
  if (r.end() - p >= 8 && (p[0] & p[1]) >= 0x80) {  // three bytes or more
    const wire::VarintAt v = wire::varint_in_word(p);
    if (v.next) {
      r.seek(v.next);
      return v.value;
    }
  }
#endif
  return r.varint(field);
}

// Sample columns filled by one SampleDecoder. The main thread writes straight
// into the Profile; a helper thread writes into its own and is appended after.
struct SampleColumns {
  std::vector<int64_t> values;
  std::vector<int64_t> stack_ends;  // end offset of each sample's stack
  std::vector<int32_t> stack_locations;
  std::vector<int64_t> label_ends;
  Labels labels;
};

// Decodes Sample messages. Hot loop: packed varints go into columns reserved
// up front (a packed field's byte length bounds its element count), so
// nothing reallocates mid-field; ids of up to three bytes take no branch.
class SampleDecoder {
 public:
  SampleDecoder(const uint8_t* base, std::vector<int64_t>& values, std::vector<int64_t>& stack_ends,
                std::vector<int32_t>& stack_locations, std::vector<int64_t>& label_ends, Labels& labels)
      : base_(base),
        values_(values),
        stack_ends_(stack_ends),
        stack_locations_(stack_locations),
        label_ends_(label_ends),
        labels_(labels) {}
  SampleDecoder(const uint8_t* base, SampleColumns& c)
      : SampleDecoder(base, c.values, c.stack_ends, c.stack_locations, c.label_ends, c.labels) {}

  std::vector<BigRef> big_refs;
  // Stack entries are stored as provisional rows (id - 1, as uint32: id 0 and
  // the big-id placeholder come out huge), and the largest is kept, so that
  // when location ids turn out to be 1..n fixup has nothing left to do.
  uint32_t max_row = 0;
  MaxStringCode codes;
  size_t first_value_count = 0;
  size_t count = 0;
  int64_t mismatch_sample = -1;  // index local to this decoder
  size_t mismatch_count = 0;
  // Repair mode records every sample's value count here as it is decoded, so the
  // repair never rescans the input (a second read may see other bytes).
  bool record_value_counts = false;
  std::vector<size_t> value_counts;
  // Labels to reserve room for at the first label (an upper bound from the
  // sample bytes): labels then never grow by doubling, which holds the old
  // and the new copy at once (peak memory), and profiles without labels
  // reserve nothing.
  size_t label_room = 0;

  // Cuts the stack column back to the ids decoded; call once the last sample
  // is in (the column is grown ahead in blocks while decoding).
  void finish() { stack_locations_.resize(ids_); }

  // One Sample message, [begin, end) its payload.
  void sample(const uint8_t* begin, const uint8_t* end) {
    wire::Reader m(base_, begin, end);
    size_t values_before = values_.size();
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag("Profile.sample");
      uint32_t wt = tag & 7;
      switch (field_of<SampleField>(tag)) {
        case SampleField::kLocationId:
          if (wt == wire::kLen) {
            const uint8_t* pe = m.length_delimited(path(SampleField::kLocationId));
            location_ids(m.pos(), pe);
            m.seek(pe);
          } else if (wt == wire::kVarint) {
            const uint32_t row = provisional_row(m.varint(path(SampleField::kLocationId)), ids_);
            max_row = std::max(max_row, row);
            if (ids_ == stack_locations_.size()) grow_ids(ids_ + 1);
            stack_locations_[ids_++] = static_cast<int32_t>(row);
          } else {
            m.wrong_type(wt, wire::kVarint, path(SampleField::kLocationId), tag_at);
          }
          break;
        case SampleField::kValue:
          if (wt == wire::kLen) {
            const uint8_t* pe = m.length_delimited(path(SampleField::kValue));
            packed_values(m.pos(), pe);
            m.seek(pe);
          } else if (wt == wire::kVarint) {
            values_.push_back(static_cast<int64_t>(m.varint(path(SampleField::kValue))));
          } else {
            m.wrong_type(wt, wire::kVarint, path(SampleField::kValue), tag_at);
          }
          break;
        case SampleField::kLabel:
          if (wt != wire::kLen) m.wrong_type(wt, wire::kLen, path(SampleField::kLabel), tag_at);
          m.seek(label(m.pos(), m.end()));
          break;
        default:
          m.skip(wt, kSampleUnknown);
      }
    }
    size_t n = values_.size() - values_before;
    if (record_value_counts) value_counts.push_back(n);
    if (count == 0) {
      first_value_count = n;
    } else if (n != first_value_count && mismatch_sample < 0) {
      mismatch_sample = static_cast<int64_t>(count);
      mismatch_count = n;
    }
    ++count;
    stack_ends_.push_back(static_cast<int64_t>(ids_));
    label_ends_.push_back(static_cast<int64_t>(labels_.size()));
  }

 private:
  // Rows from this one up have ids of three bytes or more (from 16384).
  static constexpr uint32_t kThreeByteRows = (1u << 14) - 1;

  // Placeholder row of a location id too big for the column (kBigIdRow + 1 is
  // the -1 that the general path of fixup expects).
  static constexpr int32_t kBigIdRow = -2;

  // The provisional row of a location id written at `index` of the stack
  // column: 1..INT32_MAX go straight in; larger ones are recorded in big_refs
  // with a kBigIdRow placeholder. Callers keep max_row.
  PPROFCORE_INLINE uint32_t provisional_row(uint64_t id, size_t index) {
    if (id > kMaxSmallId) {
      big_refs.push_back({index, id});
      return static_cast<uint32_t>(kBigIdRow);
    }
    return static_cast<uint32_t>(id) - 1u;
  }

  void location_ids(const uint8_t* p, const uint8_t* e) {
    // Written through a pointer into room made ahead (one id per byte at
    // most): push_back would check the capacity and reload the vector's end
    // for every id.
    std::vector<int32_t>& out = stack_locations_;
    const size_t before = ids_;
    const size_t most = before + static_cast<size_t>(e - p);
    if (most > out.size()) grow_ids(most);
    int32_t* const first = out.data() + before;
    int32_t* w = first;
    uint32_t mx = max_row;
    while (p < e) {
      if (mx < kThreeByteRows) {
        // No id of three bytes seen yet (fewer than 16384 locations, the
        // usual case): one or two bytes, without a branch on which.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        p = ids_by_block<2>(p, e, w, mx);
#endif
        const uint8_t* const last = e - 1;  // two bytes readable before it
        while (p < last && (p[0] & p[1] & 0x80) == 0) {
          const uint32_t second = p[0] >> 7;  // 1 when a second byte follows (then p[1] < 0x80)
          const uint32_t row = ((p[0] & 0x7fu) | ((uint32_t(p[1]) << 7) & (0u - second))) - 1u;
          p += 1 + second;
          mx = std::max(mx, row);
          *w++ = static_cast<int32_t>(row);
        }
      } else {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        // Ids of one to three bytes (up to 2^21) without a branch on which:
        // the first byte below 0x80 ends the id, the bytes after it are
        // masked off and the three 7-bit groups packed. More instructions
        // than the loop above, but a mix of two- and three-byte ids made
        // that loop's branches mispredict.
        p = ids_by_block<3>(p, e, w, mx);
        const uint8_t* const last = e - 3;  // four bytes readable before it
        while (p < last) {
          uint32_t x;
          std::memcpy(&x, p, 4);
          const uint32_t stops = ~x & 0x00808080u;
          if (stops == 0) break;  // four bytes or more
          x &= stops ^ (stops - 1);
          const uint32_t row = ((x & 0x7fu) | ((x >> 1) & 0x3f80u) | ((x >> 2) & 0x1fc000u)) - 1u;
          p += (static_cast<uint32_t>(__builtin_ctz(stops)) + 1u) >> 3;
          mx = std::max(mx, row);
          *w++ = static_cast<int32_t>(row);
        }
#endif
      }
      if (p >= e) break;
      // The field's last bytes, longer ids, and the id that switches loops,
      // the general way.
      wire::Reader q(base_, p, e);
      const uint64_t id = q.varint(path(SampleField::kLocationId));
      p = q.pos();
      const uint32_t row = provisional_row(id, before + static_cast<size_t>(w - first));
      mx = std::max(mx, row);
      *w++ = static_cast<int32_t>(row);
    }
    ids_ = before + static_cast<size_t>(w - first);
    max_row = mx;
  }

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  // The packed-id loops above find each id's end from the one before, a
  // chain of loads that left most of the CPU idle. ids_by_block takes 16 bytes
  // at a time: one mask of their continuation bits says where every id ends
  // (the next start is one past the last end, no load on the way), so the
  // ids of a block decode side by side. It writes a fixed number of ids per
  // block, which cannot mispredict, and leaves shorter tails (and blocks
  // holding a longer id) to the loops above.

  // Bit i set when byte i of p[0..16) has its continuation bit (0x80): each
  // eight bytes' high bits gathered into one byte by a multiply whose partial
  // products never overlap.
  static PPROFCORE_INLINE uint32_t continuation_bits(const uint8_t* p) {
    constexpr uint64_t kHigh = 0x8080808080808080ull, kGather = 0x0002040810204081ull;
    uint64_t lo, hi;
    std::memcpy(&lo, p, 8);
    std::memcpy(&hi, p + 8, 8);
    return static_cast<uint32_t>(((lo & kHigh) * kGather) >> 56) |
           (static_cast<uint32_t>(((hi & kHigh) * kGather) >> 56) << 8);
  }

  // Ids of up to kMaxBytes (2 or 3) bytes, as many per block as surely fit
  // in 16 bytes (8 or 5); returns where it stopped, at an id boundary.
  template <int kMaxBytes>
  static PPROFCORE_INLINE const uint8_t* ids_by_block(const uint8_t* p, const uint8_t* e, int32_t*& out,
                                                      uint32_t& max_row) {
    static_assert(kMaxBytes == 2 || kMaxBytes == 3);
    constexpr int kIds = 16 / kMaxBytes;
    while (e - p >= 16) {
      const uint32_t cont = continuation_bits(p);
      // kMaxBytes continuation bits in a row: a longer id starts there.
      uint32_t run = cont & (cont >> 1);
      if constexpr (kMaxBytes == 3) run &= cont >> 2;
      if (run) break;
      uint32_t ends = ~cont, start = 0, mx = max_row;
#pragma GCC unroll 8
      for (int k = 0; k < kIds; ++k) {
        uint32_t row;
        if constexpr (kMaxBytes == 2) {
          uint16_t x;
          std::memcpy(&x, p + start, 2);
          const uint32_t second = (x >> 7) & 1u;  // 1 when the id is two bytes
          row = ((x & 0x7fu) | ((uint32_t(x) >> 1) & 0x3f80u & (0u - second))) - 1u;
        } else {
          uint32_t x;
          std::memcpy(&x, p + start, 4);
          const uint32_t stops = ~x & 0x00808080u;
          x &= stops ^ (stops - 1);  // this id's bytes only
          row = ((x & 0x7fu) | ((x >> 1) & 0x3f80u) | ((x >> 2) & 0x1fc000u)) - 1u;
        }
        start = static_cast<uint32_t>(__builtin_ctz(ends)) + 1u;
        ends &= ends - 1;
        mx = std::max(mx, row);
        out[k] = static_cast<int32_t>(row);
      }
      max_row = mx;
      out += kIds;
      p += start;
    }
    return p;
  }
#endif

  void packed_values(const uint8_t* p, const uint8_t* e) {
    std::vector<int64_t>& out = values_;
    size_t need = out.size() + static_cast<size_t>(e - p);
    if (need > out.capacity()) {
      // Bytes overstate the values (most take several), and the prescan sizes
      // the column exactly: near its end count them, one final byte (< 0x80)
      // each, instead of doubling a full column for a few values.
      need = out.size();
      for (const uint8_t* q = p; q < e; ++q) need += *q < 0x80;
      if (need > out.capacity()) out.reserve(std::max(need, out.capacity() * 2));
    }
    while (p < e) {
      uint64_t v = *p;
      if (v < 0x80) {
        ++p;
      } else {
        wire::Reader q(base_, p, e);
        v = long_varint(q, path(SampleField::kValue));
        p = q.pos();
      }
      out.push_back(static_cast<int64_t>(v));
    }
  }

  // One label field from p (at its length prefix) in a sample ending at end;
  // returns where the label ends. Takes positions, not the sample's reader, so
  // that reader stays in registers (see wire::VarintAt). The usual label is
  // read inline in sample(): a call per label, its registers saved and
  // restored, cost a fifth of the label's instructions.
  PPROFCORE_INLINE const uint8_t* label(const uint8_t* p, const uint8_t* end) {
    wire::Reader r(base_, p, end);
    // The usual label, a string key and value in field order (key then str,
    // a payload of 4 to 6 bytes), is read here without the general loop, which
    // took a third of the decode of a labelled profile. Its varints are read
    // as the general loop reads them (same reader, field and bounds, so the
    // same errors); anything else goes the general way.
    constexpr uint8_t kKeyTag = tag_byte(LabelField::kKey, wire::kVarint);
    constexpr uint8_t kStrTag = tag_byte(LabelField::kStr, wire::kVarint);
    const uint8_t* q = r.pos();
    if (r.end() - q > 5 && q[0] >= 4 && q[0] <= 6 && r.end() - q > q[0] && q[1] == kKeyTag) {
      const char* field = path(SampleField::kLabel);
      const uint8_t* const e = q + 1 + q[0];
      wire::Reader m(base_, q + 2, e);
      const uint64_t key = m.varint(field);
      const uint8_t* const after_key = m.pos();
      if (after_key < e && *after_key == kStrTag) {
        m.seek(after_key + 1);
        const uint64_t str = m.varint(field);
        if (m.pos() == e && str != 0) {  // codes of at most 3 bytes: below 2^21, in range of int32
          codes.see(static_cast<int64_t>(key), path(LabelField::kKey), r.offset_of(after_key));
          codes.see(static_cast<int64_t>(str), path(LabelField::kStr), r.offset_of(e));
          push_label(static_cast<int32_t>(key), static_cast<int32_t>(str), 0, 0);
          return e;
        }
      }
    }
    return any_label(p, end);
  }

  // label() of any other label (numbers, units, other field orders, unknown
  // fields), out of line.
  __attribute__((noinline)) const uint8_t* any_label(const uint8_t* p, const uint8_t* end) {
    wire::Reader r(base_, p, end);
    const char* field = path(SampleField::kLabel);
    const uint8_t* e = r.length_delimited(field);
    wire::Reader m(base_, r.pos(), e);
    int32_t key = 0, str = 0, unit = 0;
    int64_t num = 0;
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag(field);
      uint32_t wt = tag & 7;
      LabelField f = field_of<LabelField>(tag);
      switch (f) {
        case LabelField::kKey:
        case LabelField::kStr:
        case LabelField::kNum:
        case LabelField::kNumUnit:
          if (wt != wire::kVarint) m.wrong_type(wt, wire::kVarint, field, tag_at);
          break;
        default:
          m.skip(wt, kLabelUnknown);
          continue;
      }
      uint64_t raw = m.varint(field);
      if (f == LabelField::kNum)
        num = static_cast<int64_t>(raw);
      else if (f == LabelField::kKey)
        key = string_code(m, raw, path(LabelField::kKey), codes);
      else if (f == LabelField::kStr)
        str = string_code(m, raw, path(LabelField::kStr), codes);
      else
        unit = string_code(m, raw, path(LabelField::kNumUnit), codes);
    }
    // pprof quirk: a label with no string, no number and no unit is dropped.
    if (str != 0 || num != 0 || unit != 0) push_label(key, str == 0 ? -1 : str, num, unit);
    return e;
  }

  PPROFCORE_INLINE void push_label(int32_t key, int32_t str, int64_t num, int32_t unit) {
    if (labels_.key.size() == labels_.key.capacity() && label_room > labels_.key.capacity())
      labels_.for_each_column([&](const char*, auto& c) { c.reserve(label_room); });
    labels_.push_back(key, str, num, unit);
  }

  // Makes the stack column at least `need` long, a block of ids ahead: ids
  // are written into it by position, and resizing per sample (zero-filling
  // each time) cost more than the writes (ids_ is the true length until finish()).
  // The block is 2K ids (8 KiB): of a small file's column, reserved from its
  // sample bytes, a larger block zero-filled three times the ids it holds.
  void grow_ids(size_t need) {
    constexpr size_t kIdBlock = size_t(2) << 10;
    std::vector<int32_t>& out = stack_locations_;
    if (need > out.capacity()) out.reserve(std::max(need, out.capacity() * 2));
    out.resize(std::max(need, std::min(out.capacity(), ids_ + kIdBlock)));
  }

  size_t ids_ = 0;  // stack ids decoded so far (the column may be longer, see grow_ids)
  const uint8_t* base_;
  std::vector<int64_t>& values_;
  std::vector<int64_t>& stack_ends_;
  std::vector<int32_t>& stack_locations_;
  std::vector<int64_t>& label_ends_;
  Labels& labels_;
};

}  // namespace pprofcore::decoding
