// stream_scratch: the streaming decoder's columns, kept between loads. Not
// knowing the counts, the stream reserves every column from the inflated size
// (megabytes per megabyte of profile); that memory grows the heap's top, and
// glibc gives it back once the profile is freed, so the next load faulted the
// same pages in again: about 1,300 page faults, a third of large.cpu's loads
// (docs/performance-log.md, decode rounds eleven and twelve). The decoder
// writes into one set of columns the process keeps, and the profile gets
// exact-size copies: the only memory it owns is its own. The copies are most
// of the time a load spends after the inflater's last byte (large.cpu: 1 of
// 1.5 ms), so every column but the strings' is copied when the stream reaches
// its string table, which pprof's writers put after every other table: those
// copies then run while the inflater is still at work on the strings.
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>

#include "decode_internal.hpp"

namespace pprofcore::decoding {

namespace {

// Streams up to this size use the kept columns; a process keeps at most what
// such a stream touched (a few times its size), never a huge profile's columns.
constexpr size_t kScratchStreamBytes = size_t(16) << 20;

// The kept columns (one set; a decoder running beside the holder reserves its
// own), and whether a streaming load ran before: a process that loads once
// copies nothing and keeps nothing.
std::atomic<Profile*> spare_columns{nullptr};
std::atomic<bool> streamed_before{false};

// Gives col the spare's buffer with col's initial contents ({} or {0}); the
// spare keeps col's small buffer until copy_out swaps them back.
template <class V>
void lend_column(V& col, V& spare) {
  V initial = col;
  col.swap(spare);
  col.assign(initial.begin(), initial.end());
}

// col becomes an exact-size copy of itself; the spare takes back the buffer.
template <class V>
void copy_column_out(V& col, V& spare) {
  spare.swap(col);
  col.assign(spare.begin(), spare.end());
}

// copy_column_out in slices of this many bytes, with `between` called after
// each: the inflater's window is kept moving while the columns are copied.
constexpr size_t kCopySliceBytes = size_t(256) << 10;

template <class V>
void copy_column_out_in_slices(V& col, V& spare, const std::function<void()>& between) {
  spare.swap(col);
  col.clear();
  col.reserve(spare.size());
  const size_t slice = std::max<size_t>(1, kCopySliceBytes / sizeof(typename V::value_type));
  for (auto it = spare.begin(); it != spare.end();) {
    auto next = static_cast<size_t>(spare.end() - it) > slice ? it + static_cast<std::ptrdiff_t>(slice) : spare.end();
    col.insert(col.end(), it, next);
    it = next;
    between();
  }
}

// Whether col is one of p's string table columns.
template <class V>
bool is_strings_column(const Profile& p, const V& col) {
  return static_cast<const void*>(&col) == &p.strings.offsets;
}

}  // namespace

StreamScratch::StreamScratch(size_t stream_bytes) {
  if (stream_bytes > kScratchStreamBytes || !streamed_before.exchange(true)) return;
  columns_.reset(spare_columns.exchange(nullptr));
  if (!columns_) columns_ = std::make_unique<Profile>();
}

StreamScratch::~StreamScratch() {
  if (!columns_) return;
  Profile* expected = nullptr;
  if (spare_columns.compare_exchange_strong(expected, columns_.get())) columns_.release();
}

void StreamScratch::lend(Profile& p) {
  if (!columns_) return;
  Profile::visit_columns([](const char*, const char*, auto& col, auto& spare) { lend_column(col, spare); }, p,
                         *columns_);
  lend_column(p.strings.data, columns_->strings.data);
  lent_ = Lent::kAll;
}

void StreamScratch::copy_out_before_strings(Profile& p, const std::function<void()>& between) {
  if (lent_ != Lent::kAll) return;
  Profile::visit_columns(
      [&](const char*, const char*, auto& col, auto& spare) {
        if (!is_strings_column(p, col)) copy_column_out_in_slices(col, spare, between);
      },
      p, *columns_);
  lent_ = Lent::kStrings;
}

void StreamScratch::copy_out(Profile& p) {
  if (lent_ == Lent::kNone) return;
  const bool all = lent_ == Lent::kAll;
  Profile::visit_columns(
      [&](const char*, const char*, auto& col, auto& spare) {
        if (all || is_strings_column(p, col))
          copy_column_out(col, spare);
        else
          col.shrink_to_fit();  // rows that came after the string table grew it as any vector
      },
      p, *columns_);
  copy_column_out(p.strings.data, columns_->strings.data);
  lent_ = Lent::kNone;
}

}  // namespace pprofcore::decoding
