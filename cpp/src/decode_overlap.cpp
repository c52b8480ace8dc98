// decode_overlap: the decoder's parallelism. A helper thread decodes the second
// half of a large profile's samples (split point chosen from the prescan), and
// gzip input can be inflated on one thread while this one decodes the bytes that
// have arrived (streaming mode: every top-level field waits until it is whole).
// Knows nothing of field contents beyond "is this a sample".
#include <algorithm>
#include <memory>
#include <thread>

#include "decode_internal.hpp"
#include "pprofcore/memory.hpp"

namespace pprofcore::decoding {

using wire::kLen;
using wire::Reader;

void Decoder::plan_split(const std::vector<std::pair<const uint8_t*, size_t>>& marks, const size_t* counts,
                         const size_t* bytes) {
  const size_t kSample = static_cast<size_t>(ProfileField::kSample);
  const size_t kParallelBytes = size_t(4) << 20;
  if (threads_ == 1 || bytes[kSample] < kParallelBytes || marks.size() <= 2) return;
  // Split where the main thread's share (first samples + all other fields)
  // roughly equals the helper's (the remaining samples).
  size_t other = n_ - bytes[kSample];
  size_t target = (bytes[kSample] + other) / 2;
  size_t best = 1;
  for (size_t i = 1; i < marks.size(); ++i)
    if (marks[i].second + other <= target + target / 16) best = i;
  split_.at = marks[best].first;
  split_.index = best * 1024;
  split_.tail_bytes = bytes[kSample] - marks[best].second;
  split_.types = counts[static_cast<size_t>(ProfileField::kSampleType)];
  split_.tail_samples = counts[kSample] - split_.index;
}

void Decoder::reserve_tail(SampleColumns& t) const {
  size_t ns = split_.tail_samples;
  size_t types = split_.types ? split_.types : 1;
  size_t bytes = split_.tail_bytes;
  reserve_huge(t.values, ns && types > bytes / ns ? bytes : ns * types);  // as in prescan
  t.stack_ends.reserve(ns);
  t.label_ends.reserve(ns);
  reserve_huge(t.stack_locations, bytes + 16);
}

// Helper thread: decodes the samples from split_.at on, skipping other fields.
void Decoder::decode_tail(SampleDecoder& d) const {
  Reader r(data_, split_.at, data_ + n_);
  while (!r.done()) {
    uint32_t tag = r.tag(kProfilePath);
    uint32_t wt = tag & 7;
    if (field_of<ProfileField>(tag) == ProfileField::kSample && wt == kLen) {
      const uint8_t* e = r.length_delimited(path(ProfileField::kSample));
      d.sample(r.pos(), e);
      r.seek(e);
    } else {
      r.skip(wt, kProfilePath);
    }
  }
}

// Appends the helper's samples after the main thread's, rebasing offsets.
void Decoder::append_tail(SampleColumns& t, SampleDecoder& d) {
  const int64_t loc_base = static_cast<int64_t>(p_.stack_locations.size());
  const int64_t label_base = static_cast<int64_t>(p_.labels.size());
  for (int64_t e : t.stack_ends) p_.stack_offsets.push_back(e + loc_base);
  for (int64_t e : t.label_ends) p_.label_offsets.push_back(e + label_base);
  auto append = [](auto& dst, const auto& src) { dst.insert(dst.end(), src.begin(), src.end()); };
  append(p_.stack_locations, t.stack_locations);
  append(p_.values, t.values);
  Labels::visit_columns([&](const char*, auto& dst, auto& src) { append(dst, src); }, p_.labels, t.labels);
  SampleDecoder& m = main_samples_;
  for (BigRef b : d.big_refs) m.big_refs.push_back({b.index + static_cast<size_t>(loc_base), b.id});
  m.codes.merge(d.codes);
  append(m.value_counts, d.value_counts);
  if (d.count > 0 && m.mismatch_sample < 0) {
    if (m.count == 0) {
      m.first_value_count = d.first_value_count;
      m.mismatch_sample = d.mismatch_sample;
      m.mismatch_count = d.mismatch_count;
    } else if (d.first_value_count != m.first_value_count) {
      m.mismatch_sample = static_cast<int64_t>(m.count);
      m.mismatch_count = d.first_value_count;
    } else if (d.mismatch_sample >= 0) {
      m.mismatch_sample = d.mismatch_sample + static_cast<int64_t>(m.count);
      m.mismatch_count = d.mismatch_count;
    }
  }
  m.count += d.count;
}

// Without a prescan (the bytes are still arriving), reserve from the total
// size: generous, but untouched reservations are never resident.
void Decoder::reserve_for_stream() {
  const size_t cap = size_t(1) << 28;
  size_t n = std::min(n_, cap);
  reserve_huge(p_.stack_locations, n);
  reserve_huge(p_.values, n / 2);
  reserve_huge(p_.stack_offsets, n / 16);
  reserve_huge(p_.label_offsets, n / 16);
}

// Blocks until bytes [0, k) are available (streaming mode).
void Decoder::wait_for(size_t k) const {
  if (k > n_) k = n_;
  unsigned spins = 0;
  while (produced_->load(std::memory_order_acquire) < k) {
    if (producer_done_->load(std::memory_order_acquire) && produced_->load(std::memory_order_acquire) < k)
      throw StreamAborted();
    if (++spins > 32) std::this_thread::yield();
  }
}

// Waits until the whole top-level field at r's position is available.
void Decoder::wait_for_field(const Reader& r) const {
  size_t at = static_cast<size_t>(r.pos() - data_);
  wait_for(at + 16);  // a tag and a length/varint are at most 15 bytes
  Reader peek = r;
  uint32_t tag = peek.tag(kProfilePath);
  if ((tag & 7) == kLen) wait_for(static_cast<size_t>(peek.length_delimited(kProfilePath) - data_));
}

bool worth_overlapping(size_t n, const DecodeOptions& options) {
  // Overlap pays off once inflate takes a few milliseconds.
  const size_t kOverlapBytes = size_t(1) << 20;
  // Asking for ISA-L explicitly always overlaps (tests use it on small files).
  bool overlap = options.inflater == gzip::Backend::Isal ||
                 (options.inflater == gzip::Backend::Auto && options.threads != 1 && n >= kOverlapBytes);
  return overlap && gzip::have_isal();
}

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
  if (report) *report = RepairReport{};
  try {
    Decoder d(raw.get(), size, 1, report);
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
      out = decode_fallback(e, raw.get(), size);
    }
  }
  return true;
}

}  // namespace pprofcore::decoding
