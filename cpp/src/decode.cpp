// decode: one pass over profile.proto into the columnar Profile, then a fix-up
// pass that resolves ids to rows and applies pprof's validity rules. References
// are stored provisionally as int32 ids (ids above INT32_MAX go to a side list),
// so the common case needs no temporary arrays. Anything pprof would reject raises
// DecodeError, except in repair mode, where the fix-up pass repairs reference and
// id problems and odd value counts and counts them in a RepairReport.
#include "pprofcore/decode.hpp"
#include "pprofcore/legacy.hpp"
#include "pprofcore/repair_strings.hpp"
#include "pprofcore/zstd.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <unordered_map>

#include "pprofcore/memory.hpp"
#include "pprofcore/wire.hpp"
#include "pprofcore/sniff.hpp"

namespace pprofcore {
namespace {

using wire::kLen;
using wire::kVarint;
using wire::Reader;

constexpr uint64_t kMaxSmallId = static_cast<uint64_t>(std::numeric_limits<int32_t>::max());

// Profile field numbers (profile.proto).
enum ProfileField : uint32_t {
  kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5, kStringTable = 6,
  kDropFrames = 7, kKeepFrames = 8, kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11,
  kPeriod = 12, kComment = 13, kDefaultSampleType = 14, kDocUrl = 15,
};

// Thrown in streaming mode when the producer stopped early (it failed, or the
// input needs the non-streaming path); the caller decides what to report.
struct StreamAborted {};

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

// Sample columns filled by one SampleDecoder. The main thread writes straight
// into the Profile; a helper thread writes into its own and is appended after.
struct SampleColumns {
  std::vector<int64_t> values;
  std::vector<int64_t> stack_ends;  // end offset of each sample's stack
  std::vector<int32_t> stack_locations;
  std::vector<int64_t> label_ends;
  Labels labels;
};

// Decodes Sample messages. Hot loop: packed varints are decoded through a small
// stack buffer and appended in bulk, avoiding per-element push_back.
class SampleDecoder {
 public:
  SampleDecoder(const uint8_t* base, std::vector<int64_t>& values, std::vector<int64_t>& stack_ends,
                std::vector<int32_t>& stack_locations, std::vector<int64_t>& label_ends, Labels& labels)
      : base_(base), values_(values), stack_ends_(stack_ends), stack_locations_(stack_locations),
        label_ends_(label_ends), labels_(labels) {}

  std::vector<BigRef> big_refs;
  MaxStringCode codes;
  size_t first_value_count = 0;
  size_t count = 0;
  int64_t mismatch_sample = -1;  // index local to this decoder
  size_t mismatch_count = 0;
  int64_t mismatch_offset = -1;
  size_t dropped_labels = 0;
  // Repair mode records every sample's value count here as it is decoded, so the
  // repair never rescans the input (a second read may see other bytes).
  bool record_value_counts = false;
  std::vector<size_t> value_counts;

  void sample(const uint8_t* msg_at, const uint8_t* begin, const uint8_t* end) {
    Reader m(base_, begin, end);
    size_t values_before = values_.size();
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag("Profile.sample");
      uint32_t f = tag >> 3, wt = tag & 7;
      if (f == 1) {
        if (wt == kLen) {
          const uint8_t* pe = m.length_delimited("Profile.sample.location_id");
          location_ids(m.pos(), pe);
          m.seek(pe);
        } else if (wt == kVarint) {
          uint64_t id = m.varint("Profile.sample.location_id");
          if (id > kMaxSmallId) {
            big_refs.push_back({stack_locations_.size(), id});
            id = static_cast<uint64_t>(-1);
          }
          stack_locations_.push_back(static_cast<int32_t>(id));
        } else {
          m.wrong_type(wt, kVarint, "Profile.sample.location_id", tag_at);
        }
      } else if (f == 2) {
        if (wt == kLen) {
          const uint8_t* pe = m.length_delimited("Profile.sample.value");
          packed_values(m.pos(), pe);
          m.seek(pe);
        } else if (wt == kVarint) {
          values_.push_back(static_cast<int64_t>(m.varint("Profile.sample.value")));
        } else {
          m.wrong_type(wt, kVarint, "Profile.sample.value", tag_at);
        }
      } else if (f == 3) {
        if (wt != kLen) m.wrong_type(wt, kLen, "Profile.sample.label", tag_at);
        label(m);
      } else {
        m.skip(wt, "Profile.sample (unknown field)");
      }
    }
    size_t n = values_.size() - values_before;
    if (record_value_counts) value_counts.push_back(n);
    if (count == 0) {
      first_value_count = n;
    } else if (n != first_value_count && mismatch_sample < 0) {
      mismatch_sample = static_cast<int64_t>(count);
      mismatch_count = n;
      mismatch_offset = m.offset_of(msg_at);
    }
    ++count;
    stack_ends_.push_back(static_cast<int64_t>(stack_locations_.size()));
    label_ends_.push_back(static_cast<int64_t>(labels_.size()));
  }

 private:
  // Location ids: 1..INT32_MAX go straight into the column as provisional ids;
  // larger ones are recorded in big_refs with a -1 placeholder.
  void location_ids(const uint8_t* p, const uint8_t* e) {
    // Capacity is reserved up front (one id per byte at most), so this never
    // reallocates; writing through a local end pointer keeps it in a register.
    std::vector<int32_t>& out = stack_locations_;
    size_t need = out.size() + static_cast<size_t>(e - p);
    if (need > out.capacity()) out.reserve(std::max(need, out.capacity() * 2));
    while (p < e) {
      uint64_t v;
      if (e - p >= 2 && (p[0] & p[1] & 0x80) == 0) {
        // One or two bytes, without a branch on which: ids are mostly < 16384.
        uint32_t second = p[0] >> 7;  // 1 when a second byte follows (then p[1] < 0x80)
        v = (p[0] & 0x7fu) | ((uint32_t(p[1]) << 7) & (0u - second));
        p += 1 + second;
      } else {
        Reader q(base_, p, e);
        v = q.varint("Profile.sample.location_id");
        p = q.pos();
      }
      if (v > kMaxSmallId) {
        big_refs.push_back({out.size(), v});
        v = static_cast<uint64_t>(-1);
      }
      out.push_back(static_cast<int32_t>(v));
    }
  }

  void packed_values(const uint8_t* p, const uint8_t* e) {
    std::vector<int64_t>& out = values_;
    size_t need = out.size() + static_cast<size_t>(e - p);
    if (need > out.capacity()) out.reserve(std::max(need, out.capacity() * 2));
    while (p < e) {
      uint64_t v = *p;
      if (v < 0x80) {
        ++p;
      } else {
        Reader q(base_, p, e);
        v = q.varint("Profile.sample.value");
        p = q.pos();
      }
      out.push_back(static_cast<int64_t>(v));
    }
  }

  int32_t code(Reader& m, uint64_t raw, const char* field) {
    if (raw > kMaxSmallId)
      throw DecodeError("string index " + std::to_string(static_cast<int64_t>(raw)) + " out of range", field,
                        m.offset());
    codes.see(static_cast<int64_t>(raw), field, m.offset());
    return static_cast<int32_t>(raw);
  }

  void label(Reader& r) {
    const char* field = "Profile.sample.label";
    const uint8_t* e = r.length_delimited(field);
    Reader m(base_, r.pos(), e);
    int32_t key = 0, str = 0, unit = 0;
    int64_t num = 0;
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag(field);
      uint32_t f = tag >> 3, wt = tag & 7;
      if (f >= 1 && f <= 4 && wt != kVarint) m.wrong_type(wt, kVarint, field, tag_at);
      switch (f) {
        case 1: key = code(m, m.varint(field), "Profile.sample.label.key"); break;
        case 2: str = code(m, m.varint(field), "Profile.sample.label.str"); break;
        case 3: num = static_cast<int64_t>(m.varint(field)); break;
        case 4: unit = code(m, m.varint(field), "Profile.sample.label.num_unit"); break;
        default: m.skip(wt, "Profile.sample.label (unknown field)");
      }
    }
    r.seek(e);
    // pprof quirk: a label with no string, no number and no unit is dropped.
    if (str == 0 && num == 0 && unit == 0) {
      ++dropped_labels;
      return;
    }
    labels_.key.push_back(key);
    labels_.str.push_back(str == 0 ? -1 : str);
    labels_.num.push_back(num);
    labels_.num_unit.push_back(unit);
  }

  const uint8_t* base_;
  std::vector<int64_t>& values_;
  std::vector<int64_t>& stack_ends_;
  std::vector<int32_t>& stack_locations_;
  std::vector<int64_t>& label_ends_;
  Labels& labels_;
};

class Decoder {
 public:
  Decoder(const uint8_t* data, size_t n, unsigned threads, RepairReport* repair = nullptr)
      : data_(data), n_(n), threads_(threads), repair_(repair) {}

  // Streaming mode: `data` is being filled by another thread; `produced` counts
  // the bytes ready and `producer_done` is set when no more will come.
  void stream_from(const std::atomic<size_t>* produced, const std::atomic<bool>* producer_done) {
    produced_ = produced;
    producer_done_ = producer_done;
  }

  Profile run() {
    if (produced_) reserve_for_stream();
    else prescan();
    // Large profiles: a helper thread decodes the second half of the samples
    // while this thread does the first half and every other field.
    std::thread helper;
    std::exception_ptr helper_error;
    SampleColumns tail;
    SampleDecoder tail_samples(data_, tail.values, tail.stack_ends, tail.stack_locations, tail.label_ends, tail.labels);
    main_samples_.record_value_counts = tail_samples.record_value_counts = repair_ != nullptr;
    if (split_at_) {
      reserve_tail(tail);
      helper = std::thread([&] {
        try {
          decode_tail(tail_samples);
        } catch (...) {
          helper_error = std::current_exception();
        }
      });
    }
    try {
      main_loop();
    } catch (...) {
      if (helper.joinable()) helper.join();
      throw;
    }
    if (helper.joinable()) {
      helper.join();
      if (helper_error) std::rethrow_exception(helper_error);
      append_tail(tail, tail_samples);
    }
    max_string_code_.merge(main_samples_.codes);
    first_value_count_ = main_samples_.first_value_count;
    mismatch_sample_ = main_samples_.mismatch_sample;
    mismatch_count_ = main_samples_.mismatch_count;
    mismatch_offset_ = main_samples_.mismatch_offset;
    dropped_empty_labels_ = main_samples_.dropped_labels;
    big_sample_refs_ = std::move(main_samples_.big_refs);
    try {
      fixup();
    } catch (const DecodeError& e) {
      if (concat_at_ < 0) throw;
      throw DecodeError("input looks like concatenated profiles (a sample_type at byte offset " +
                            std::to_string(concat_at_) + " follows the string table): " + e.reason(),
                        e.field(), e.offset());
    }
    return std::move(p_);
  }

 private:
  void main_loop() {
    Reader r(data_, data_, data_ + n_);
    while (!r.done()) {
      if (produced_) wait_for_field(r);
      const uint8_t* tag_at = r.pos();
      uint32_t tag = r.tag("Profile");
      uint32_t field = tag >> 3, wt = tag & 7;
      switch (field) {
        case kSampleType: {
          expect(r, wt, kLen, "Profile.sample_type", tag_at);
          // Producers write sample types first and strings last: a sample_type
          // after the string table hints at concatenated profiles (used in errors).
          if (p_.strings.size() > 0 && concat_at_ < 0) concat_at_ = r.offset_of(tag_at);
          int32_t t = 0, u = 0;
          value_type(r, &t, &u, "Profile.sample_type");
          p_.sample_type_type.push_back(t);
          p_.sample_type_unit.push_back(u);
          break;
        }
        case kSample: {
          expect(r, wt, kLen, "Profile.sample", tag_at);
          const uint8_t* msg = r.pos();
          const uint8_t* e = r.length_delimited("Profile.sample");
          // Samples from the split point on belong to the helper thread.
          if (samples_seen_++ < split_index_) main_samples_.sample(msg, r.pos(), e);
          r.seek(e);
          break;
        }
        case kMapping:
          expect(r, wt, kLen, "Profile.mapping", tag_at);
          mapping(r);
          break;
        case kLocation:
          expect(r, wt, kLen, "Profile.location", tag_at);
          location(r);
          break;
        case kFunction:
          expect(r, wt, kLen, "Profile.function", tag_at);
          function(r);
          break;
        case kStringTable: {
          expect(r, wt, kLen, "Profile.string_table", tag_at);
          const uint8_t* e = r.length_delimited("Profile.string_table");
          const uint8_t* s = r.pos();
          if (p_.strings.size() == 0 && e != s && repair_) {
            ++repair_->bad_first_string;  // code 0 means "unset": its text cannot be meant
            p_.strings.push_back("");
            r.seek(e);
            break;
          }
          if (p_.strings.size() == 0 && e != s) {
            // pprof: the first string must be empty so that code 0 means "unset".
            throw DecodeError("string_table[0] must be \"\" but is " + std::to_string(e - s) + " bytes long",
                              "Profile.string_table", r.offset_of(tag_at));
          }
          p_.strings.data.append(reinterpret_cast<const char*>(s), static_cast<size_t>(e - s));
          p_.strings.offsets.push_back(static_cast<int64_t>(p_.strings.data.size()));
          r.seek(e);
          break;
        }
        case kDropFrames:
          p_.drop_frames = string_code_field(r, wt, "Profile.drop_frames", tag_at);
          break;
        case kKeepFrames:
          p_.keep_frames = string_code_field(r, wt, "Profile.keep_frames", tag_at);
          break;
        case kTimeNanos: {
          expect(r, wt, kVarint, "Profile.time_nanos", tag_at);
          int64_t v = static_cast<int64_t>(r.varint("Profile.time_nanos"));
          // pprof: a second time_nanos means two profiles were concatenated.
          if (p_.time_nanos != 0)
            throw DecodeError("concatenated profiles detected (second time_nanos)", "Profile.time_nanos",
                              r.offset_of(tag_at));
          p_.time_nanos = v;
          break;
        }
        case kDurationNanos:
          expect(r, wt, kVarint, "Profile.duration_nanos", tag_at);
          p_.duration_nanos = static_cast<int64_t>(r.varint("Profile.duration_nanos"));
          break;
        case kPeriodType:
          expect(r, wt, kLen, "Profile.period_type", tag_at);
          p_.has_period_type = true;
          value_type(r, &p_.period_type_type, &p_.period_type_unit, "Profile.period_type");
          break;
        case kPeriod:
          expect(r, wt, kVarint, "Profile.period", tag_at);
          p_.period = static_cast<int64_t>(r.varint("Profile.period"));
          break;
        case kComment:
          if (wt == kLen) {
            const uint8_t* e = r.length_delimited("Profile.comment");
            while (r.pos() < e) p_.comments.push_back(string_code(r, r.varint("Profile.comment"), "Profile.comment"));
            if (r.pos() != e) throw DecodeError("packed field overruns its length", "Profile.comment", r.offset());
          } else {
            expect(r, wt, kVarint, "Profile.comment", tag_at);
            p_.comments.push_back(string_code(r, r.varint("Profile.comment"), "Profile.comment"));
          }
          break;
        case kDefaultSampleType:
          p_.default_sample_type = string_code_field(r, wt, "Profile.default_sample_type", tag_at);
          break;
        case kDocUrl:
          p_.doc_url = string_code_field(r, wt, "Profile.doc_url", tag_at);
          break;
        default:
          r.skip(wt, "Profile (unknown field)");
      }
    }
  }

  // Counts top-level messages so every column can be reserved once. Reserving
  // virtual memory generously is cheap: untouched pages are never resident.
  void prescan() {
    size_t counts[16] = {0}, bytes[16] = {0};
    // Every 1024th sample's tag position and the sample bytes before it, to pick
    // a split point for the helper thread.
    std::vector<std::pair<const uint8_t*, size_t>> marks;
    Reader r(data_, data_, data_ + n_);
    try {
      while (!r.done()) {
        const uint8_t* tag_at = r.pos();
        uint32_t tag = r.tag("Profile");
        uint32_t field = tag >> 3, wt = tag & 7;
        if (field == kSample && (counts[kSample] & 1023) == 0) marks.emplace_back(tag_at, bytes[kSample]);
        const uint8_t* before = r.pos();
        r.skip(wt, "Profile");
        if (field < 16) {
          counts[field]++;
          bytes[field] += static_cast<size_t>(r.pos() - before);
        }
      }
    } catch (const DecodeError&) {
      marks.clear();  // malformed: decode single-threaded; the real pass reports the error
    }
    const size_t kParallelBytes = size_t(4) << 20;
    if (threads_ != 1 && bytes[kSample] >= kParallelBytes && marks.size() > 2) {
      // Split where the main thread's share (first samples + all other fields)
      // roughly equals the helper's (the remaining samples).
      size_t other = n_ - bytes[kSample];
      size_t target = (bytes[kSample] + other) / 2;
      size_t best = 1;
      for (size_t i = 1; i < marks.size(); ++i)
        if (marks[i].second + other <= target + target / 16) best = i;
      split_at_ = marks[best].first;
      split_index_ = best * 1024;
      tail_bytes_ = bytes[kSample] - marks[best].second;
      types_hint_ = counts[kSampleType];
      tail_samples_hint_ = counts[kSample] - split_index_;
    }
    size_t ns = counts[kSample];
    reserve_huge(p_.stack_offsets, ns + 1);
    reserve_huge(p_.label_offsets, ns + 1);
    size_t types = counts[kSampleType] ? counts[kSampleType] : 1;
    // Every value takes at least one byte of a sample: cap the reservation by
    // that, or (many samples) x (many sample types) would reserve terabytes.
    size_t max_values = bytes[kSample];
    reserve_huge(p_.values, ns && types > max_values / ns ? max_values : ns * types);
    // Each location id takes at least one byte: an upper bound, and untouched
    // reserved pages are never resident.
    reserve_huge(p_.stack_locations, bytes[kSample] + 16);
    size_t nl = counts[kLocation];
    p_.locations.id.reserve(nl);
    p_.locations.mapping.reserve(nl);
    p_.locations.address.reserve(nl);
    p_.locations.is_folded.reserve(nl);
    p_.locations.line_offsets.reserve(nl + 1);
    p_.lines.function.reserve(nl);
    p_.lines.line.reserve(nl);
    p_.lines.column.reserve(nl);
    size_t nf = counts[kFunction];
    p_.functions.id.reserve(nf);
    p_.functions.name.reserve(nf);
    p_.functions.system_name.reserve(nf);
    p_.functions.filename.reserve(nf);
    p_.functions.start_line.reserve(nf);
    p_.strings.offsets.reserve(counts[kStringTable] + 1);
    p_.strings.data.reserve(bytes[kStringTable]);
  }

  // Blocks until bytes [0, k) are available (streaming mode).
  void wait_for(size_t k) {
    if (k > n_) k = n_;
    unsigned spins = 0;
    while (produced_->load(std::memory_order_acquire) < k) {
      if (producer_done_->load(std::memory_order_acquire) && produced_->load(std::memory_order_acquire) < k)
        throw StreamAborted();
      if (++spins > 32) std::this_thread::yield();
    }
  }

  // Waits until the whole top-level field at r's position is available.
  void wait_for_field(const Reader& r) {
    size_t at = static_cast<size_t>(r.pos() - data_);
    wait_for(at + 16);  // a tag and a length/varint are at most 15 bytes
    Reader peek = r;
    uint32_t tag = peek.tag("Profile");
    if ((tag & 7) == kLen) wait_for(static_cast<size_t>(peek.length_delimited("Profile") - data_));
  }

  // Without a prescan (the bytes are still arriving), reserve from the total
  // size: generous, but untouched reservations are never resident.
  void reserve_for_stream() {
    const size_t cap = size_t(1) << 28;
    size_t n = std::min(n_, cap);
    reserve_huge(p_.stack_locations, n);
    reserve_huge(p_.values, n / 2);
    reserve_huge(p_.stack_offsets, n / 16);
    reserve_huge(p_.label_offsets, n / 16);
  }

  void reserve_tail(SampleColumns& t) {
    size_t ns = tail_samples_hint_;
    size_t types = types_hint_ ? types_hint_ : 1;
    reserve_huge(t.values, ns && types > tail_bytes_ / ns ? tail_bytes_ : ns * types);  // as in prescan
    t.stack_ends.reserve(ns);
    t.label_ends.reserve(ns);
    reserve_huge(t.stack_locations, tail_bytes_ + 16);
  }

  // Helper thread: decodes the samples from split_at_ on, skipping other fields.
  void decode_tail(SampleDecoder& d) {
    Reader r(data_, split_at_, data_ + n_);
    while (!r.done()) {
      uint32_t tag = r.tag("Profile");
      uint32_t field = tag >> 3, wt = tag & 7;
      if (field == kSample && wt == kLen) {
        const uint8_t* msg = r.pos();
        const uint8_t* e = r.length_delimited("Profile.sample");
        d.sample(msg, r.pos(), e);
        r.seek(e);
      } else {
        r.skip(wt, "Profile");
      }
    }
  }

  // Appends the helper's samples after the main thread's, rebasing offsets.
  void append_tail(SampleColumns& t, SampleDecoder& d) {
    const int64_t loc_base = static_cast<int64_t>(p_.stack_locations.size());
    const int64_t label_base = static_cast<int64_t>(p_.labels.size());
    for (int64_t e : t.stack_ends) p_.stack_offsets.push_back(e + loc_base);
    for (int64_t e : t.label_ends) p_.label_offsets.push_back(e + label_base);
    p_.stack_locations.insert(p_.stack_locations.end(), t.stack_locations.begin(), t.stack_locations.end());
    p_.values.insert(p_.values.end(), t.values.begin(), t.values.end());
    auto append = [](auto& dst, const auto& src) { dst.insert(dst.end(), src.begin(), src.end()); };
    append(p_.labels.key, t.labels.key);
    append(p_.labels.str, t.labels.str);
    append(p_.labels.num, t.labels.num);
    append(p_.labels.num_unit, t.labels.num_unit);
    for (BigRef b : d.big_refs) main_samples_.big_refs.push_back({b.index + static_cast<size_t>(loc_base), b.id});
    main_samples_.codes.merge(d.codes);
    main_samples_.dropped_labels += d.dropped_labels;
    main_samples_.value_counts.insert(main_samples_.value_counts.end(), d.value_counts.begin(), d.value_counts.end());
    SampleDecoder& m = main_samples_;
    if (d.count > 0 && m.mismatch_sample < 0) {
      if (m.count == 0) {
        m.first_value_count = d.first_value_count;
        m.mismatch_sample = d.mismatch_sample;
        m.mismatch_count = d.mismatch_count;
        m.mismatch_offset = d.mismatch_offset;
      } else if (d.first_value_count != m.first_value_count) {
        m.mismatch_sample = static_cast<int64_t>(m.count);
        m.mismatch_count = d.first_value_count;
        m.mismatch_offset = locate(kSample, m.count);
      } else if (d.mismatch_sample >= 0) {
        m.mismatch_sample = d.mismatch_sample + static_cast<int64_t>(m.count);
        m.mismatch_count = d.mismatch_count;
        m.mismatch_offset = d.mismatch_offset;
      }
    }
    m.count += d.count;
  }

  void expect(Reader& r, uint32_t wt, uint32_t expected, const char* field, const uint8_t* tag_at) {
    if (wt != expected) r.wrong_type(wt, expected, field, tag_at);
  }

  // A string index read as int64: must be non-negative and fit an int32 code.
  // The range check against the table happens in fixup (the table comes last).
  int32_t string_code(Reader& r, uint64_t raw, const char* field) {
    if (raw > kMaxSmallId)
      throw DecodeError("string index " + std::to_string(static_cast<int64_t>(raw)) + " out of range", field,
                        r.offset());
    max_string_code_.see(static_cast<int64_t>(raw), field, r.offset());
    return static_cast<int32_t>(raw);
  }

  int32_t string_code_field(Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at) {
    expect(r, wt, kVarint, field, tag_at);
    return string_code(r, r.varint(field), field);
  }

  void value_type(Reader& r, int32_t* type, int32_t* unit, const char* field) {
    const uint8_t* e = r.length_delimited(field);
    Reader m(data_, r.pos(), e);
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag(field);
      uint32_t f = tag >> 3, wt = tag & 7;
      if (f == 1) {
        expect(m, wt, kVarint, field, tag_at);
        *type = string_code(m, m.varint(field), field);
      } else if (f == 2) {
        expect(m, wt, kVarint, field, tag_at);
        *unit = string_code(m, m.varint(field), field);
      } else {
        m.skip(wt, field);
      }
    }
    r.seek(e);
  }

  inline void push_ref(std::vector<int32_t>& column, std::vector<BigRef>& big, uint64_t id) {
    if (id <= kMaxSmallId) {
      column.push_back(static_cast<int32_t>(id));
    } else {
      big.push_back({column.size(), id});
      column.push_back(-1);
    }
  }

  void mapping(Reader& r) {
    const char* field = "Profile.mapping";
    const uint8_t* e = r.length_delimited(field);
    Reader m(data_, r.pos(), e);
    uint64_t v[7] = {0};  // id, start, limit, offset, filename, build_id (raw)
    int32_t filename = 0, build_id = 0;
    uint8_t flags[4] = {0};
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag(field);
      uint32_t f = tag >> 3, wt = tag & 7;
      if (f >= 1 && f <= 10) {
        expect(m, wt, kVarint, field, tag_at);
        uint64_t x = m.varint(field);
        if (f <= 4) v[f - 1] = x;
        else if (f == 5) filename = string_code(m, x, "Profile.mapping.filename");
        else if (f == 6) build_id = string_code(m, x, "Profile.mapping.build_id");
        else flags[f - 7] = x != 0;
      } else {
        m.skip(wt, "Profile.mapping (unknown field)");
      }
    }
    r.seek(e);
    auto& t = p_.mappings;
    t.id.push_back(v[0]);
    t.memory_start.push_back(v[1]);
    t.memory_limit.push_back(v[2]);
    t.file_offset.push_back(v[3]);
    t.filename.push_back(filename);
    t.build_id.push_back(build_id);
    t.has_functions.push_back(flags[0]);
    t.has_filenames.push_back(flags[1]);
    t.has_line_numbers.push_back(flags[2]);
    t.has_inline_frames.push_back(flags[3]);
  }

  void location(Reader& r) {
    const char* field = "Profile.location";
    const uint8_t* e = r.length_delimited(field);
    Reader m(data_, r.pos(), e);
    uint64_t id = 0, mapping_id = 0, address = 0;
    uint8_t folded = 0;
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag(field);
      uint32_t f = tag >> 3, wt = tag & 7;
      switch (f) {
        case 1: expect(m, wt, kVarint, "Profile.location.id", tag_at); id = m.varint(field); break;
        case 2: expect(m, wt, kVarint, "Profile.location.mapping_id", tag_at); mapping_id = m.varint(field); break;
        case 3: expect(m, wt, kVarint, "Profile.location.address", tag_at); address = m.varint(field); break;
        case 4: expect(m, wt, kLen, "Profile.location.line", tag_at); line(m); break;
        case 5: expect(m, wt, kVarint, "Profile.location.is_folded", tag_at); folded = m.varint(field) != 0; break;
        default: m.skip(wt, "Profile.location (unknown field)");
      }
    }
    r.seek(e);
    auto& t = p_.locations;
    t.id.push_back(id);
    push_ref(t.mapping, big_mapping_refs_, mapping_id);
    t.address.push_back(address);
    t.is_folded.push_back(folded);
    t.line_offsets.push_back(static_cast<int64_t>(p_.lines.size()));
  }

  void line(Reader& r) {
    const char* field = "Profile.location.line";
    const uint8_t* e = r.length_delimited(field);
    Reader m(data_, r.pos(), e);
    uint64_t function_id = 0;
    int64_t line_no = 0, column = 0;
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag(field);
      uint32_t f = tag >> 3, wt = tag & 7;
      switch (f) {
        case 1: expect(m, wt, kVarint, "Profile.location.line.function_id", tag_at); function_id = m.varint(field); break;
        case 2: expect(m, wt, kVarint, "Profile.location.line.line", tag_at); line_no = static_cast<int64_t>(m.varint(field)); break;
        case 3: expect(m, wt, kVarint, "Profile.location.line.column", tag_at); column = static_cast<int64_t>(m.varint(field)); break;
        default: m.skip(wt, "Profile.location.line (unknown field)");
      }
    }
    r.seek(e);
    push_ref(p_.lines.function, big_function_refs_, function_id);
    p_.lines.line.push_back(line_no);
    p_.lines.column.push_back(column);
  }

  void function(Reader& r) {
    const char* field = "Profile.function";
    const uint8_t* e = r.length_delimited(field);
    Reader m(data_, r.pos(), e);
    uint64_t id = 0;
    int32_t name = 0, system_name = 0, filename = 0;
    int64_t start_line = 0;
    while (!m.done()) {
      const uint8_t* tag_at = m.pos();
      uint32_t tag = m.tag(field);
      uint32_t f = tag >> 3, wt = tag & 7;
      switch (f) {
        case 1: expect(m, wt, kVarint, "Profile.function.id", tag_at); id = m.varint(field); break;
        case 2: expect(m, wt, kVarint, "Profile.function.name", tag_at);
          name = string_code(m, m.varint(field), "Profile.function.name"); break;
        case 3: expect(m, wt, kVarint, "Profile.function.system_name", tag_at);
          system_name = string_code(m, m.varint(field), "Profile.function.system_name"); break;
        case 4: expect(m, wt, kVarint, "Profile.function.filename", tag_at);
          filename = string_code(m, m.varint(field), "Profile.function.filename"); break;
        case 5: expect(m, wt, kVarint, "Profile.function.start_line", tag_at);
          start_line = static_cast<int64_t>(m.varint(field)); break;
        default: m.skip(wt, "Profile.function (unknown field)");
      }
    }
    r.seek(e);
    auto& t = p_.functions;
    t.id.push_back(id);
    t.name.push_back(name);
    t.system_name.push_back(system_name);
    t.filename.push_back(filename);
    t.start_line.push_back(start_line);
  }

  // Byte offset of the index-th top-level message with field number `field`,
  // found by rescanning (only on the error path).
  int64_t locate(uint32_t field, size_t index) const {
    Reader r(data_, data_, data_ + n_);
    size_t seen = 0;
    while (!r.done()) {
      const uint8_t* at = r.pos();
      uint32_t tag = r.tag("Profile");
      if ((tag >> 3) == field && seen++ == index) return r.offset_of(at);
      r.skip(tag & 7, "Profile");
    }
    return -1;
  }

  // Maps ids to dense rows. Fast path: ids are 1..n in order.
  struct IdIndex {
    bool dense = true;
    size_t n = 0;
    std::unordered_map<uint64_t, int32_t> map;
    int32_t find(uint64_t id) const {
      if (dense) return (id >= 1 && id <= n) ? static_cast<int32_t>(id - 1) : -1;
      auto it = map.find(id);
      return it == map.end() ? -1 : it->second;
    }
    // Repair mode: registers a row appended after indexing (a stub function).
    void add(uint64_t id, int32_t row) {
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
    // Smallest id above every id in use (wrapping past 2^64-1 to the first free one).
    uint64_t fresh(uint64_t above) const {
      uint64_t id = above + 1;
      while (id == 0 || find(id) >= 0) ++id;
      return id;
    }
  };

  IdIndex index_ids(std::vector<uint64_t>& ids, const char* what, uint32_t field) const {
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
    if (repair_) return index_ids_repair(ids, std::move(idx));
    for (size_t i = 0; i < ids.size(); ++i) {
      std::string f = std::string("Profile.") + what + "[" + std::to_string(i) + "].id";
      if (ids[i] == 0) throw DecodeError(std::string("found ") + what + " with reserved id 0", f, locate(field, i));
      if (!idx.map.emplace(ids[i], static_cast<int32_t>(i)).second)
        throw DecodeError(std::string("multiple ") + what + "s with same id " + std::to_string(ids[i]), f,
                          locate(field, i));
    }
    return idx;
  }

  // Repair mode: the first row with an id owns it; id 0 and later duplicates get
  // fresh ids above the largest id in use, so nothing is dropped.
  IdIndex index_ids_repair(std::vector<uint64_t>& ids, IdIndex idx) const {
    uint64_t max_id = 0;
    std::vector<size_t> renumber;
    for (size_t i = 0; i < ids.size(); ++i) {
      max_id = std::max(max_id, ids[i]);
      if (ids[i] == 0) {
        ++repair_->zero_ids;
        renumber.push_back(i);
      } else if (!idx.map.emplace(ids[i], static_cast<int32_t>(i)).second) {
        ++repair_->duplicate_ids;
        renumber.push_back(i);
      }
    }
    for (size_t i : renumber) {
      max_id = ids[i] = idx.fresh(max_id);
      idx.map.emplace(ids[i], static_cast<int32_t>(i));
    }
    return idx;
  }

  // Replaces provisional ids in `column` by rows. A missing id (0 when !zero_is_none,
  // or dangling) is passed to `missing(i, id)`, which returns the row to store or
  // throws; by default it throws the DecodeError naming the reference.
  using Missing = std::function<int32_t(size_t, uint64_t)>;
  void resolve(std::vector<int32_t>& column, const std::vector<BigRef>& big, const IdIndex& idx, bool zero_is_none,
               const char* what, const std::function<std::pair<std::string, int64_t>(size_t)>& where,
               const Missing& missing = nullptr) {
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

  void fixup() {
    if (repair_ && p_.strings.size() == 0) {
      ++repair_->bad_first_string;
      p_.strings.push_back("");
    }
    if (repair_ && max_string_code_.code >= static_cast<int64_t>(p_.strings.size())) {
      StringRepair fixed = repair_string_codes(p_);
      repair_->out_of_range_string_refs += fixed.references;
      repair_->placeholder_strings += fixed.placeholders;
    }
    const size_t n_strings = p_.strings.size();
    if (n_strings == 0)
      throw DecodeError("missing string table (pprof requires string_table[0] == \"\")", "Profile.string_table", -1);
    if (!repair_ && max_string_code_.code >= static_cast<int64_t>(n_strings))
      throw DecodeError("string index " + std::to_string(max_string_code_.code) + " out of range (string table has " +
                            std::to_string(n_strings) + " entries)",
                        max_string_code_.field, max_string_code_.offset);

    const size_t ns = p_.num_samples();
    if (ns > 0) {
      if (p_.num_types() == 0)
        throw DecodeError("profile has " + std::to_string(ns) + " samples but no sample_type", "Profile.sample_type",
                          -1);
      if (repair_ && (mismatch_sample_ >= 0 || first_value_count_ != p_.num_types())) {
        drop_bad_value_counts_ = true;
      } else if (mismatch_sample_ >= 0)
        throw DecodeError("sample " + std::to_string(mismatch_sample_) + " has " + std::to_string(mismatch_count_) +
                              " values, sample 0 has " + std::to_string(first_value_count_) + " (" +
                              std::to_string(p_.num_types()) + " sample types)",
                          "Profile.sample.value", locate(kSample, static_cast<size_t>(mismatch_sample_)));
      else if (first_value_count_ != p_.num_types())
        throw DecodeError("samples have " + std::to_string(first_value_count_) + " values but there are " +
                              std::to_string(p_.num_types()) + " sample types",
                          "Profile.sample.value", locate(kSample, 0));
    }

    IdIndex mappings = index_ids(p_.mappings.id, "mapping", kMapping);
    IdIndex functions = index_ids(p_.functions.id, "function", kFunction);
    IdIndex locations = index_ids(p_.locations.id, "location", kLocation);

    Missing missing_function, missing_location;
    // google/pprof accepts a location whose mapping_id names no mapping (real
    // producers write them) and gives it no mapping; so do we, counting it in repair mode.
    Missing missing_mapping = [&](size_t, uint64_t) {
      if (repair_) ++repair_->dangling_mapping_refs;
      return -1;
    };
    if (repair_) {
      missing_function = [&](size_t, uint64_t id) { return stub_function(functions, id); };
      missing_location = [&](size_t, uint64_t id) {
        ++(id == 0 ? repair_->zero_location_refs : repair_->dangling_location_refs);
        return kRemoved;
      };
    }
    resolve(p_.locations.mapping, big_mapping_refs_, mappings, true, "mapping", [&](size_t i) {
      return std::make_pair("Profile.location[" + std::to_string(i) + "].mapping_id", locate(kLocation, i));
    }, missing_mapping);
    resolve(p_.lines.function, big_function_refs_, functions, false, "function", [&](size_t i) {
      // Find the owning location of line i.
      auto& lo = p_.locations.line_offsets;
      size_t loc = static_cast<size_t>(std::upper_bound(lo.begin(), lo.end(), static_cast<int64_t>(i)) - lo.begin()) - 1;
      return std::make_pair("Profile.location[" + std::to_string(loc) + "] (id " +
                                std::to_string(p_.locations.id[loc]) + ").line.function_id",
                            locate(kLocation, loc));
    }, missing_function);
    resolve(p_.stack_locations, big_sample_refs_, locations, false, "location", [&](size_t i) {
      auto& so = p_.stack_offsets;
      size_t s = static_cast<size_t>(std::upper_bound(so.begin(), so.end(), static_cast<int64_t>(i)) - so.begin()) - 1;
      return std::make_pair("Profile.sample[" + std::to_string(s) + "].location_id", locate(kSample, s));
    }, missing_location);
    if (repair_ && (repair_->dangling_location_refs || repair_->zero_location_refs)) remove_stack_entries();
    if (drop_bad_value_counts_) drop_samples_with_bad_value_counts();
  }

  // ---- repair mode helpers (never run on valid input) ----

  static constexpr int32_t kRemoved = -2;

  // One placeholder function per distinct missing function id, named after it.
  int32_t stub_function(IdIndex& functions, uint64_t missing_id) {
    ++repair_->missing_function_refs;
    auto it = stubs_.find(missing_id);
    if (it != stubs_.end()) return it->second;
    auto& f = p_.functions;
    if (stubs_.empty())
      for (uint64_t id : f.id) stub_max_id_ = std::max(stub_max_id_, id);
    uint64_t id = stub_max_id_ = functions.fresh(stub_max_id_);
    int32_t row = static_cast<int32_t>(f.size());
    std::string name = missing_id == 0 ? "[missing function]" : "[missing function id " + std::to_string(missing_id) + "]";
    int32_t code = static_cast<int32_t>(p_.strings.size());
    p_.strings.push_back(name);
    f.id.push_back(id);
    f.name.push_back(code);
    f.system_name.push_back(code);
    f.filename.push_back(0);
    f.start_line.push_back(0);
    functions.add(id, row);
    ++repair_->stub_functions;
    stubs_.emplace(missing_id, row);
    return row;
  }

  // Compacts stack_locations after dangling entries were marked kRemoved.
  void remove_stack_entries() {
    auto& so = p_.stack_offsets;
    auto& sl = p_.stack_locations;
    size_t w = 0, r = 0;
    for (size_t s = 0; s + 1 < so.size(); ++s) {
      size_t end = static_cast<size_t>(so[s + 1]);
      for (; r < end; ++r)
        if (sl[r] != kRemoved) sl[w++] = sl[r];
      so[s + 1] = static_cast<int64_t>(w);
    }
    sl.resize(w);
  }

  // Drops every sample whose value count differs from the number of sample types.
  void drop_samples_with_bad_value_counts() {
    const std::vector<size_t>& counts = main_samples_.value_counts;
    const size_t nt = p_.num_types(), ns = p_.num_samples();
    if (counts.size() != ns) throw DecodeError("internal error: value counts missing", "Profile.sample", -1);
    auto& so = p_.stack_offsets;
    auto& lo = p_.label_offsets;
    auto& l = p_.labels;
    size_t vr = 0, vw = 0, sw = 0, lw = 0, out = 0;
    for (size_t s = 0; s < ns; ++s) {
      size_t s_begin = static_cast<size_t>(so[s]), s_end = static_cast<size_t>(so[s + 1]);
      size_t l_begin = static_cast<size_t>(lo[s]), l_end = static_cast<size_t>(lo[s + 1]);
      if (counts[s] != nt) {
        ++repair_->value_count_mismatch;
        for (size_t k = 0; k < counts[s]; ++k)
          repair_->dropped_values_sum = static_cast<int64_t>(static_cast<uint64_t>(repair_->dropped_values_sum) +
                                                             static_cast<uint64_t>(p_.values[vr + k]));
        vr += counts[s];
        continue;
      }
      for (size_t k = 0; k < nt; ++k) p_.values[vw++] = p_.values[vr++];
      for (size_t k = s_begin; k < s_end; ++k) p_.stack_locations[sw++] = p_.stack_locations[k];
      for (size_t k = l_begin; k < l_end; ++k, ++lw) {
        l.key[lw] = l.key[k];
        l.str[lw] = l.str[k];
        l.num[lw] = l.num[k];
        l.num_unit[lw] = l.num_unit[k];
      }
      ++out;
      so[out] = static_cast<int64_t>(sw);
      lo[out] = static_cast<int64_t>(lw);
    }
    p_.values.resize(vw);
    p_.stack_locations.resize(sw);
    so.resize(out + 1);
    lo.resize(out + 1);
    l.key.resize(lw);
    l.str.resize(lw);
    l.num.resize(lw);
    l.num_unit.resize(lw);
  }

  const uint8_t* data_;
  size_t n_;
  unsigned threads_;
  const std::atomic<size_t>* produced_ = nullptr;
  const std::atomic<bool>* producer_done_ = nullptr;
  Profile p_;
  SampleDecoder main_samples_{data_, p_.values, p_.stack_offsets, p_.stack_locations, p_.label_offsets, p_.labels};
  size_t samples_seen_ = 0;
  size_t split_index_ = std::numeric_limits<size_t>::max();
  const uint8_t* split_at_ = nullptr;
  size_t tail_bytes_ = 0, tail_samples_hint_ = 0, types_hint_ = 0;
  std::vector<BigRef> big_sample_refs_, big_mapping_refs_, big_function_refs_;
  size_t first_value_count_ = 0;
  int64_t mismatch_sample_ = -1;
  size_t mismatch_count_ = 0;
  int64_t mismatch_offset_ = -1;
  MaxStringCode max_string_code_;
  size_t dropped_empty_labels_ = 0;
  int64_t concat_at_ = -1;
  RepairReport* repair_ = nullptr;  // non-null in repair mode
  bool drop_bad_value_counts_ = false;
  std::unordered_map<uint64_t, int32_t> stubs_;  // missing function id -> stub row
  uint64_t stub_max_id_ = 0;
};

}  // namespace

namespace {

// Called inside a catch handler: rethrows `e` with a description of what the
// input looks like when it is not profile.proto at all (legacy text, OTLP, ...).
[[noreturn]] void rethrow_explained(const DecodeError& e, const uint8_t* data, size_t n) {
  std::string hint = describe_non_pprof(data, n);
  if (hint.empty() && e.reason().rfind("wrong wire type", 0) == 0) hint = describe_foreign_protobuf(data, n, e.offset());
  if (hint.empty()) throw;
  throw DecodeError(hint + "; decoding as profile.proto failed: " + e.reason(), e.field(), e.offset());
}

}  // namespace

Profile decode_raw(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report) {
  if (n == 0) throw DecodeError("empty input: no profile data", "", -1);
  RepairReport scratch;
  if (options.repair && !report) report = &scratch;
  if (report) *report = RepairReport{};
  try {
    return Decoder(data, n, options.threads, options.repair ? report : nullptr).run();
  } catch (const DecodeError& e) {
    // Like pprof's ParseData: what is not profile.proto may be a legacy format.
    Profile legacy;
    if (decode_legacy(data, n, legacy)) return legacy;
    rethrow_explained(e, data, n);
  }
}

namespace {

// Inflates on a helper thread while this thread decodes what has arrived.
// Returns false when the input needs the ordinary path (several gzip members,
// ISIZE wrapped past 4 GiB, or a size over the limit: that path reports it).
bool decode_overlapped(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report,
                       Profile& out) {
  size_t size = gzip::trailer_size(data, n);
  // Implausible sizes (corrupt trailers, ratios deflate cannot reach) go the safe way.
  if (size == 0 || size > options.max_decompressed_size || size > n * 1032 + 1024) return false;
  std::unique_ptr<uint8_t[]> raw(new uint8_t[size]);
  std::atomic<size_t> produced{0};
  std::atomic<bool> done{false};
  bool complete = false;
  std::exception_ptr inflate_error;
  std::thread inflater([&] {
    try {
      complete = gzip::inflate_progressive(data, n, raw.get(), size, produced);
    } catch (...) {
      inflate_error = std::current_exception();
    }
    done.store(true, std::memory_order_release);
  });
  std::exception_ptr decode_error;
  RepairReport scratch;
  if (options.repair && !report) report = &scratch;
  if (report) *report = RepairReport{};
  try {
    Decoder d(raw.get(), size, 1, options.repair ? report : nullptr);
    d.stream_from(&produced, &done);
    out = d.run();
  } catch (const StreamAborted&) {
  } catch (...) {
    decode_error = std::current_exception();
  }
  inflater.join();
  // A gzip failure explains any decode failure it caused, so it wins.
  if (inflate_error) std::rethrow_exception(inflate_error);
  if (!complete) return false;
  if (decode_error) {
    try {
      std::rethrow_exception(decode_error);
    } catch (const DecodeError& e) {
      if (decode_legacy(raw.get(), size, out)) return true;
      rethrow_explained(e, raw.get(), size);
    }
  }
  return true;
}

}  // namespace

size_t max_input_size(size_t max_decompressed_size, bool gzip) {
  if (!gzip) return max_decompressed_size;
  const size_t slack = size_t(1) << 20;
  return max_decompressed_size > (SIZE_MAX - slack) / 2 ? SIZE_MAX : 2 * max_decompressed_size + slack;
}

Profile decode(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report) {
  if (n == 0) throw DecodeError("empty input: no profile data", "", -1);
  // The limit is on the profile.proto bytes, however they arrive.
  const size_t max = options.max_decompressed_size;
  // Compressed input (gzip or zstd) may be a little larger than what it inflates to.
  if (n > max_input_size(max, gzip::is_gzip(data, n) || zstd::is_zstd(data, n))) {
    if (gzip::is_gzip(data, n))
      throw GzipError("gzip input of " + std::to_string(n) + " bytes is larger than twice the limit of " +
                          std::to_string(max) + " bytes (raise max_decompressed_size to allow it)",
                      "gzip", -1);
    throw DecodeError("input is larger than the limit of " + std::to_string(max) +
                          " bytes (raise max_decompressed_size to allow it)",
                      "", -1);
  }
  // Overlap pays off once inflate takes a few milliseconds.
  const size_t kOverlapBytes = size_t(1) << 20;
  // Asking for ISA-L explicitly always overlaps (tests use it on small files).
  bool overlap = options.inflater == gzip::Backend::Isal ||
                 (options.inflater == gzip::Backend::Auto && options.threads != 1 && n >= kOverlapBytes);
  if (gzip::is_gzip(data, n) && gzip::have_isal() && overlap) {
    Profile p;
    if (decode_overlapped(data, n, options, report, p)) return p;
  }
  if (zstd::is_zstd(data, n)) {
    std::string raw = zstd::decompress(data, n, options.max_decompressed_size);
    if (raw.empty()) throw DecodeError("empty input: zstd stream decompresses to 0 bytes", "", -1);
    return decode_raw(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), options, report);
  }
  if (gzip::is_gzip(data, n)) {
    gzip::Buffer raw = gzip::inflate(data, n, options.max_decompressed_size, options.inflater);
    if (raw.empty()) throw DecodeError("empty input: gzip stream decompresses to 0 bytes", "", -1);
    return decode_raw(raw.data(), raw.size(), options, report);
  }
  return decode_raw(data, n, options, report);
}

}  // namespace pprofcore
