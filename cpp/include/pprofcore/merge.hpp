// merge: google/pprof's Merge and Compact on the columnar model, as an
// incremental Merger whose memory grows with the distinct content (strings,
// functions, mappings, locations, samples), not with the number of inputs.
// Keys follow profile/merge.go exactly: sample = (merged locations, string
// labels grouped by key, numeric labels with units grouped by key); location =
// (address - mapping start, mapping, is_folded, (function, line) per line);
// mapping = (size rounded up to 4 KiB, file offset, build id or file);
// function = (name, system name, file, start line). Not here: unit
// harmonization and sample-type selection (scale.hpp), delta (delta.hpp).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/hashing.hpp"
#include "pprofcore/io.hpp"
#include "pprofcore/profile.hpp"

namespace pprofcore {

// An allocator whose resize() leaves the new elements uninitialized: the
// Merger's key buffers are written in full right after each resize, and
// zero-filling them first was a memset call per sample.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
// Words of a merge key (Merger::append_key's layout).
using KeyWords = std::vector<uint32_t, UninitializedAllocator<uint32_t>>;

// What Merger::add needs of a profile that depends on that profile alone,
// so merge_files computes it on the thread that decoded the file, off the
// merging thread. Content hashes of its rows, in row order, from their bytes
// and fields, never from string codes or ids, so equal content hashes alike
// in every file: strings (hash_bytes), functions (their strings and start
// line), mappings (map_mapping's key) and locations (address from the
// mapping's start, the mapping's key, lines); they let the Merger intern
// strings without hashing them again and find a location's merged twin
// without mapping its functions first. And each sample's label rows in
// pprof's order (label_order[label_offsets[s] ...]).
struct PreparedSource {
  std::vector<uint64_t> strings, functions, mappings, locations;
  std::vector<uint32_t> label_order;
  // Scratch of the label order: each key string code's rank, the keys ranked,
  // each label's sort key.
  std::vector<int32_t> key_rank, ranked_keys;
  std::vector<uint64_t> label_keys;
  size_t memory_bytes() const {
    return (strings.capacity() + functions.capacity() + mappings.capacity() + locations.capacity() +
            label_keys.capacity()) *
               8 +
           (label_order.capacity() + key_rank.capacity() + ranked_keys.capacity()) * 4;
  }
};
PreparedSource prepare_source(const Profile& p);
// The same, into `out`'s buffers (reused between profiles).
void prepare_source_into(const Profile& p, PreparedSource& out);

class Merger {
 public:
  // What the merged profile holds: its samples (merge, compact), or only their
  // identities (delta, which keeps its own values): sample rows stay empty and
  // each sample key is kept as a fingerprint (see sample_prints_).
  enum class Keep { Samples, KeysOnly };
  explicit Merger(Keep keep = Keep::Samples) : keep_(keep) { intern(std::string_view()); }  // code 0 is ""

  // Adds one profile: checks it against the first (same period type and sample
  // types, else ProfileError), combines headers as pprof does (earliest
  // time_nanos with pprof's zero quirk, summed duration, max period, comments
  // deduplicated, first non-empty default_sample_type) and sums the values of
  // its non-zero samples into the merged samples. `prep` (may be null) is
  // prepare_source(p), computed where that is cheaper: merge_files prepares
  // on the decoding thread, which has the bytes in its cache and time to
  // spare, rather than on the merging thread.
  void add(const Profile& p, const PreparedSource* prep = nullptr);
  // How many profiles add() will be given in all (0: unknown, the default).
  // Known, the merged sample columns are sized ahead from their growth so far
  // instead of doubling: each doubling copies the column into fresh pages
  // (half the page faults of a 1,000-file merge).
  void expect_inputs(size_t n) { expected_inputs_ = n; }

  // The merged profile so far (all-zero merged samples dropped, as pprof does by
  // re-merging). The Merger stays usable.
  Profile result() const;
  // Like result(), but moves the merged tables out; the Merger is spent.
  Profile take_result();

  size_t num_inputs() const { return inputs_; }
  // Distinct samples so far (in both modes).
  size_t num_samples() const { return keep_ == Keep::KeysOnly ? sample_prints_.size() : out_.num_samples(); }
  size_t memory_bytes() const;

  // Lower level, used by delta: start mapping `src` (no header checks), then map
  // its sample rows to merged rows. A new merged sample starts with zero values.
  // `prep` as for add(); null: computed here.
  void begin_source(const Profile& src, const PreparedSource* prep = nullptr);
  int32_t map_sample(size_t row);
  // Sizes the sample identity tables for `src`'s samples on top of what is
  // held, so that interning them does not leave the tables up to twice as
  // large as needed (the merged sample rows of Keep::Samples are not sized).
  void reserve_for(const Profile& src);
  const Profile& merged() const { return out_; }  // no sample rows with Keep::KeysOnly

 private:
  // The merged code of source string `code`: the memo inline (most calls),
  // the interning out of line.
  int32_t map_string(int32_t code) {
    const int32_t m = str_map_[static_cast<size_t>(code)];
    return m >= 0 ? m : map_new_string(code);
  }
  int32_t map_new_string(int32_t code);
  int32_t intern(std::string_view s, uint64_t h);
  int32_t intern(std::string_view s) { return intern(s, hash_bytes(s)); }
  int32_t map_function(int32_t row);
  int32_t map_mapping(int32_t row);
  int32_t map_location(int32_t row);
  // Whether source location `row` (its key address and merged mapping given)
  // has the content of merged location k, and source function `row` that of
  // merged function k; a match is memoized (merged rows are unique by content).
  bool same_location(int32_t k, size_t row, uint64_t key_addr, int32_t mapping);
  bool same_function(int32_t row, int32_t k);
  bool same_string(int32_t code, int32_t k);
  int32_t add_location(size_t row, uint64_t key_addr, int32_t mapping, int64_t shift, uint64_t h);
  // A sample's key, appended to `words`: [number of locations, merged
  // locations..., then kLabelWords per label: key, value (-1: numeric), number
  // (low, high), unit], labels in pprof's canonical order.
  void append_key(size_t row, KeyWords& words);
  // What the sample table is keyed by: a 64-bit hash (Keep::Samples, in lo)
  // or the fingerprint (Keep::KeysOnly).
  Fingerprint key_id(const uint32_t* key, size_t n) const;
  // The merged sample of key[0, n), added when new.
  int32_t resolve(const uint32_t* key, size_t n, const Fingerprint& id);
  int32_t add_sample(const uint32_t* key, size_t n, const Fingerprint& id);
  bool same_sample(int32_t k, const uint32_t* key, size_t n) const;
  void combine_header(const Profile& p);
  // Before adding `src`: sizes the merged sample columns (see expect_inputs).
  void reserve_samples(const Profile& src);

  Keep keep_;
  Profile out_;
  size_t inputs_ = 0, expected_inputs_ = 0;
  IdTable strings_, functions_, mappings_, locations_, samples_;

  // Per-source memo tables (reused between sources; only grow).
  const Profile* src_ = nullptr;
  const PreparedSource* src_prep_ = nullptr;  // see add(); &own_prep_ when not given
  PreparedSource own_prep_{};
  std::vector<int32_t> str_map_, fn_map_, map_map_, loc_map_;
  std::vector<int64_t> map_offset_;

  // Sample order of the previous source: next_[r] is the merged sample that
  // followed merged sample r there (-1: none yet), first_ its first sample.
  // resolve() tries that successor before the table.
  std::vector<int32_t> next_;
  int32_t first_ = -1, previous_ = -1, guess_ = -1;

  // Keys of merged locations, flattened to 32-bit words in one arena, so a
  // probe compares one contiguous run (few cache misses). A sample's key is
  // built in probe_ ([number of locations, locations..., 5 words a label]) to
  // be hashed; its merged row is what a probe compares with (same_sample).
  std::vector<uint32_t> loc_keys_{};
  KeyWords probe_{}, loc_probe_{};
  static constexpr size_t kLabelWords = 5;
  // Merger::add's block of sample keys (see there): each sample's row, where
  // its key starts in block_words_, and its table key.
  struct PendingSample {
    size_t row, begin;
    Fingerprint id;
  };
  std::vector<PendingSample> block_{};
  KeyWords block_words_{};
  std::vector<int64_t> loc_key_off_{0};
  // Keep::KeysOnly keeps a 128-bit fingerprint of each sample key instead of
  // the key (as fastdelta does): 16 bytes a sample instead of the whole stack,
  // for a chance of two keys colliding of about n^2 / 2^129.
  std::vector<Fingerprint> sample_prints_{};
};

// Merges profiles in order (pprof's profile.Merge). Throws ProfileError when
// the list is empty or the profiles are incompatible.
Profile merge(const std::vector<const Profile*>& profiles);

// pprof's Compact (= Merge of one profile): drops unreferenced rows and all-zero
// samples, deduplicates content, renumbers ids 1..n.
Profile compact(const Profile& p);

// Decodes files on `threads` workers (0 = all cores) while the calling thread
// merges them in input order: the result is identical to merge() of the decoded
// files, and at most a few decoded profiles per worker are held at once.
// `on_file(i)` (may be empty) is called from the calling thread after file i is
// merged; `poll` (may be empty) between files and while waiting for a decoder.
// Either may throw to cancel: workers are stopped and joined, then the exception
// is rethrown. Decode errors are rethrown with the file name.
Profile merge_files(const std::vector<std::string>& paths, unsigned threads, const DecodeOptions& options,
                    const std::function<void(size_t)>& on_file = {}, const Poll& poll = {});

}  // namespace pprofcore
