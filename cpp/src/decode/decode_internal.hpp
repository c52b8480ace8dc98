// decode_internal (private): the Decoder, whose members are defined by concern
// in four files: decode.cpp (the wire walk and the per-message decoders),
// validate.cpp (ids to rows, pprof's validity rules), repair.cpp (what repair
// mode does instead of throwing) and decode_overlap.cpp (the helper thread, and
// decoding while another thread inflates). Not installed; only those files
// include it.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "decode_samples.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/memory.hpp"
#include "pprofcore/profile.hpp"
#include "pprofcore/proto_fields.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore::decoding {

// Thrown in streaming mode when the input must be decoded the ordinary way:
// the producer stopped early (it failed, or the input needs the non-streaming
// path), a field is larger than the window, or an error needs the whole input
// to say where it is. The caller decides what to report.
struct StreamAborted {};

// Streaming mode's buffer (decode_overlap.cpp): a window of the inflated
// stream that an inflater thread fills (as a gzip::ChunkSink) while the decoder
// reads whole top-level fields from it. When the decoder reaches the end of
// the window, the unread tail moves to the front and the inflater goes on, so
// memory stays at the window's size however large the profile is.
class StreamWindow final : public gzip::ChunkSink {
 public:
  // Bytes the buffer must have past `capacity`: where the inflater looks for
  // the end of the stream once every byte has been delivered.
  static constexpr size_t kSlack = 64;
  // The first chunk handed to the inflater (later ones double up to `chunk`,
  // and the last ones halve down to it again).
  static constexpr size_t kFirstChunk = size_t(8) << 10;

  // `capacity` bytes of `buf` (plus kSlack) for a stream of `total` bytes,
  // refilled `chunk` bytes at a time.
  StreamWindow(uint8_t* buf, size_t capacity, size_t chunk, size_t total)
      : buf_(buf), cap_(std::min(capacity, total)), chunk_(chunk), total_(total), compact_at_(cap_ - cap_ / 4) {}

  // Decoder side. The window's base address never changes (fields move within it).
  const uint8_t* base() const { return buf_; }
  // Waits until the top-level field at the read position is whole and returns
  // its end, or nullptr at the end of the stream; pos() is where it starts.
  // Throws StreamAborted (see above).
  const uint8_t* next_field() {
    // Fast path: a one-byte tag of a length-delimited field with a one- or
    // two-byte length (samples, locations, functions, strings), already whole.
    const size_t avail = wend_.load(std::memory_order_acquire) - rpos_;
    const uint8_t* p = buf_ + rpos_;
    if (avail >= 3 && p[0] < 0x80 && (p[0] & 7) == wire::kLen) {
      size_t need = p[1] < 0x80   ? 2 + size_t(p[1])
                    : p[2] < 0x80 ? 3 + ((p[1] & 0x7fu) | (size_t(p[2]) << 7))
                                  : avail + 1;  // a longer length: the slow path
      if (need <= avail) return p + need;
    }
    return next_field_slow();
  }
  const uint8_t* pos() const { return buf_ + rpos_; }
  // The end of the bytes delivered so far (the window may hold more than the
  // field next_field() returned; fields read past it go to consumed()).
  const uint8_t* filled() const { return buf_ + wend_.load(std::memory_order_acquire); }
  void consumed(const uint8_t* upto) {
    rpos_ = static_cast<size_t>(upto - buf_);
    make_room();
  }
  // Gives a waiting inflater room (when the read position is far enough in):
  // call it during long work between fields, or the inflater waits meanwhile.
  void make_room() {
    if (rpos_ >= compact_at_) compact_early();
  }
  // How far into the stream the read position is, and the stream's size.
  size_t offset() const { return window_start_ + rpos_; }
  size_t total() const { return total_; }
  // The decoder is done (or gave up): a waiting inflater stops.
  void close();
  // Whether the decoder spins a while for bytes before it sleeps (spin_for).
  void spin_while_waiting(bool on) { spin_ = on; }

  // Inflater side.
  std::pair<uint8_t*, size_t> room() override;
  void wrote(size_t n) override;
  void finish();  // no more bytes will come

 private:
  const uint8_t* next_field_slow();
  void wait_for(size_t need);
  bool spin_for(size_t need);
  void compact(size_t need);
  void compact_early();

  uint8_t* const buf_;
  const size_t cap_;
  const size_t chunk_;
  const size_t total_;       // bytes the whole stream inflates to
  const size_t compact_at_;  // read position from which a full window is compacted early
  bool spin_ = false;        // decoder: spin_while_waiting
  size_t rpos_ = 0;          // decoder: read position in the window
  size_t window_start_ = 0;  // decoder: stream offset of buf_[0]
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<size_t> wend_{0};         // end of the inflated bytes in the window (written under mu_)
  bool done_ = false, closed_ = false;  // under mu_
};

// Streaming mode's columns, kept by the process between loads
// (stream_scratch.cpp). Holds the spare from construction to destruction, or
// nothing: for a stream over the size limit, a process's first streaming
// load, or while another decoder holds it.
class StreamScratch {
 public:
  explicit StreamScratch(size_t stream_bytes);
  ~StreamScratch();
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;

  // p's columns (still empty) take the kept buffers, capacity and all.
  void lend(Profile& p);
  // Every column of p but the string table's becomes an exact-size copy now
  // (the stream reached its string table): rows that come later grow the
  // copy, and copy_out cuts it back to size. Copies in slices, calling
  // `between` after each (the window makes room for the inflater there).
  void copy_out_before_strings(Profile& p, const std::function<void()>& between);
  // p's columns become exact-size copies, and the kept buffers come back:
  // the profile never shares memory with a later load.
  void copy_out(Profile& p);

 private:
  enum class Lent { kNone, kAll, kStrings };
  std::unique_ptr<Profile> columns_;
  Lent lent_ = Lent::kNone;
};

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
  void add(uint64_t id, int32_t row);
  // Smallest id above `above` that is not in use (wrapping past 2^64-1).
  uint64_t fresh(uint64_t above) const;
};

// What fixup does with a reference whose id is 0 (when that is not "none") or
// names no row: returns the row to store, or throws.
using Missing = std::function<int32_t(size_t index, uint64_t id)>;

// Repair mode's policy (repair.cpp): called by the validator where it would
// otherwise throw, each repair counted in the report. Never runs on valid input.
class Repairs {
 public:
  explicit Repairs(RepairReport& report) : report_(report) {}

  // Marks a stack entry for removal by remove_stack_entries.
  static constexpr int32_t kRemoved = -2;

  // A location's mapping_id names no mapping: counted (the location gets none).
  void dangling_mapping() { ++report_.dangling_mapping_refs; }
  // A sample's location id is 0 or dangling: counted, the entry marked kRemoved.
  int32_t missing_location(uint64_t id);
  // A line's function id is 0 or dangling: points it at a stub function.
  int32_t missing_function(Profile& p, IdIndex& functions, uint64_t id);
  // Ids 0 and duplicates get fresh ids; returns the index of the result.
  IdIndex index_ids(std::vector<uint64_t>& ids, IdIndex idx);
  // Compacts the stacks after missing_location marked entries.
  void remove_stack_entries(Profile& p) const;
  // Drops every sample whose value count (counts[s]) is not the number of types.
  void drop_samples_with_bad_value_counts(Profile& p, const std::vector<size_t>& counts);

  // string_table[0] is not "" (or there is no table): the first string becomes ""
  // (code 0 means "unset", so its text cannot be meant).
  void first_string(Profile& p);
  // String codes past the table: pointed at placeholder strings (repair_strings.hpp).
  void missing_strings(Profile& p);

  bool removed_stack_entries() const { return report_.dangling_location_refs || report_.zero_location_refs; }

 private:
  RepairReport& report_;
  std::unordered_map<uint64_t, int32_t> stubs_;  // missing function id -> stub row
  uint64_t stub_max_id_ = 0;
};

// Input bytes between two updates of a column's huge pages (HugePageGrowth):
// no column grows by a huge page meanwhile.
constexpr size_t kGrowthStep = size_t(128) << 10;

// Where a helper thread takes over the samples (decode_overlap.cpp).
struct SplitPlan {
  const uint8_t* at = nullptr;                        // tag of the first helper sample
  size_t index = std::numeric_limits<size_t>::max();  // its sample index
  size_t tail_bytes = 0, tail_samples = 0, types = 0;
};

class Decoder {
 public:
  // `report` non-null selects repair mode.
  Decoder(const uint8_t* data, size_t n, unsigned threads, RepairReport* report)
      : data_(data), n_(n), threads_(threads) {
    if (report) repair_.emplace(*report);
  }

  // Streaming mode: the bytes arrive through `window` (data must be its base).
  void stream_from(StreamWindow* window) { window_ = window; }
  // Before run(): the profile is built in `spent`'s columns (their capacity).
  void reuse(Profile&& spent) {
    p_ = std::move(spent);
    clear_keeping_capacity(p_);
  }

  Profile run();

 private:
  // ---- decode.cpp: the wire walk ----
  void main_loop();
  void copy_columns_before_strings();
  void field(wire::Reader& r);
  void prescan();
  void value_type(wire::Reader& r, int32_t* type, int32_t* unit, const char* field);
  void mapping(wire::Reader& r);
  void location(wire::Reader& r);
  const uint8_t* line(const uint8_t* p, const uint8_t* end);
  void function(wire::Reader& r);
  void string_table_entry(wire::Reader& r, const uint8_t* tag_at);
  const uint8_t* string_run(const uint8_t* p, const uint8_t* end);
  int32_t string_code(wire::Reader& r, uint64_t raw, const char* field) {
    return decoding::string_code(r, raw, field, max_string_code_);
  }
  int32_t string_code_field(wire::Reader& r, uint32_t wt, const char* field, const uint8_t* tag_at);
  int64_t locate(ProfileField field, size_t index) const;

  // ---- validate.cpp: ids to rows and pprof's rules ----
  void fixup();
  void check_value_counts();
  IdIndex index_ids(std::vector<uint64_t>& ids, const char* what, ProfileField field);
  void resolve(std::vector<int32_t>& column, const std::vector<BigRef>& big, const IdIndex& idx, bool zero_is_none,
               const char* what, const std::function<std::pair<std::string, int64_t>(size_t)>& where,
               const Missing& missing = nullptr);

  // ---- decode_overlap.cpp: the helper thread and streaming ----
  void plan_split(const std::vector<std::pair<const uint8_t*, size_t>>& marks, const size_t* counts,
                  const size_t* bytes);
  void reserve_tail(SampleColumns& t) const;
  void decode_tail(SampleDecoder& d, const SampleColumns& t) const;
  void append_tail(SampleColumns& t, SampleDecoder& d);
  void reserve_for_stream();
  void advise_growth(size_t done, size_t total);

  const uint8_t* data_;
  size_t n_;
  unsigned threads_;
  StreamWindow* window_ = nullptr;        // streaming mode only
  std::optional<StreamScratch> scratch_;  // streaming mode only
  bool copy_before_strings_ = false;      // the first string is in: copy the other columns (main_loop)
  // Huge pages for the sample columns whose size is estimated (advise_growth):
  // stack locations, and in streaming mode the values and offsets too.
  HugePageGrowth growth_[4];
  size_t next_growth_check_ = 0;  // progress (stream or sample bytes) of the next advise_growth()
  size_t main_sample_bytes_ = 0;  // sample bytes this thread decodes (prescan)
  size_t sample_bytes_done_ = 0;  // of which decoded so far
  Profile p_;
  SampleDecoder main_samples_{data_, p_.values, p_.stack_offsets, p_.stack_locations, p_.label_offsets, p_.labels};
  size_t samples_seen_ = 0;
  SplitPlan split_;
  std::vector<BigRef> big_mapping_refs_, big_function_refs_;
  MaxStringCode max_string_code_;
  int64_t concat_at_ = -1;  // offset of a sample_type after the string table, if any
  std::optional<Repairs> repair_;
};

// Not profile.proto: like pprof's ParseData, tries the legacy formats, else
// rethrows `e` saying what the input looks like. Call inside e's catch handler.
Profile decode_fallback(const DecodeError& e, const uint8_t* data, size_t n);

// Throws GzipError when `data`, decompressed from `outer` ("gzip", "zstd"), is
// itself compressed: pprof decompresses once.
void refuse_nested_compression(const char* outer, const uint8_t* data, size_t n);

// The on_prefix check for the first decompressed bytes of `format` ("zstd"):
// throws when they cannot start a profile (judge_prefix, or all zero bytes), so
// a decompression bomb stops there instead of at the size limit.
void judge_decompressed_prefix(const char* format, const uint8_t* data, size_t n, const DecodeOptions& options);

// Whether plain decoding would have refused what repair mode fixed (dangling
// mapping ids are accepted by both modes). Such input may be a legacy format
// that only looked like profile.proto; plain decoding reads it as that format.
inline bool plain_refuses(const RepairReport& r) { return r.total() != r.dangling_mapping_refs; }

// decode_overlap.cpp: whether gzip input of n bytes goes the overlapped way,
// and that way (false: the input needs the ordinary path, which reports why).
bool worth_overlapping(size_t n, const DecodeOptions& options);
bool decode_overlapped(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report, Profile& out);

}  // namespace pprofcore::decoding
