// decode_overlap: the decoder's parallelism. A helper thread decodes the second
// half of a large profile's samples (split point chosen from the prescan), and
// gzip input can be inflated on one thread while this one decodes the bytes that
// have arrived (streaming mode: every top-level field waits until it is whole,
// in a window that the inflater refills).
// Knows nothing of field contents beyond "is this a sample" and a field's length.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "decode_internal.hpp"
#include "pprofcore/idle_cpu.hpp"
#include "pprofcore/memory.hpp"

namespace pprofcore::decoding {

using wire::kLen;
using wire::Reader;

void Decoder::plan_split(const std::vector<std::pair<const uint8_t*, size_t>>& marks, const size_t* counts,
                         const size_t* bytes) {
  const size_t kSample = static_cast<size_t>(ProfileField::kSample);
  const size_t kParallelBytes = size_t(4) << 20;
  if (threads_ == 1 || bytes[kSample] < kParallelBytes || marks.size() <= 2) return;
  // Automatic: two threads unless every CPU is busy but not crowded (idle_cpu.hpp).
  if (threads_ == 0 && !second_thread_pays_now()) return;
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
  t.stack_locations.reserve(bytes + 16);  // huge pages as it grows (decode_tail)
}

// Helper thread: decodes the samples from split_.at on (into t, through d),
// skipping other fields.
void Decoder::decode_tail(SampleDecoder& d, const SampleColumns& t) const {
  HugePageGrowth growth;
  size_t done = 0, next_check = 0;
  Reader r(data_, split_.at, data_ + n_);
  while (!r.done()) {
    uint32_t tag = r.tag(kProfilePath);
    uint32_t wt = tag & 7;
    if (field_of<ProfileField>(tag) == ProfileField::kSample && wt == kLen) {
      const uint8_t* e = r.length_delimited(path(ProfileField::kSample));
      d.sample(r.pos(), e);
      done += static_cast<size_t>(e - r.pos());
      if (done >= next_check) {
        next_check = done + kGrowthStep;
        growth.update(t.stack_locations, HugePageGrowth::project(t.stack_locations.size(), done, split_.tail_bytes));
      }
      r.seek(e);
    } else {
      r.skip(wt, kProfilePath);
    }
  }
  d.finish();
}

// Appends the helper's samples after the main thread's, rebasing offsets. The
// helper's columns are given back as they are copied (half the samples would
// otherwise be resident twice at the end of the decode).
void Decoder::append_tail(SampleColumns& t, SampleDecoder& d) {
  const int64_t loc_base = static_cast<int64_t>(p_.stack_locations.size());
  const int64_t label_base = static_cast<int64_t>(p_.labels.size());
  append_releasing(p_.stack_offsets, t.stack_ends, [&](int64_t e) { return e + loc_base; });
  append_releasing(p_.label_offsets, t.label_ends, [&](int64_t e) { return e + label_base; });
  // The appended locations get huge pages up to where they end.
  growth_[0].update(p_.stack_locations, p_.stack_locations.size() + t.stack_locations.size());
  append_releasing(p_.stack_locations, t.stack_locations);
  append_releasing(p_.values, t.values);
  Labels::visit_columns([&](const char*, auto& dst, auto& src) { append_releasing(dst, src); }, p_.labels, t.labels);
  auto append = [](auto& dst, const auto& src) { dst.insert(dst.end(), src.begin(), src.end()); };
  SampleDecoder& m = main_samples_;
  for (BigRef b : d.big_refs) m.big_refs.push_back({b.index + static_cast<size_t>(loc_base), b.id});
  m.codes.merge(d.codes);
  m.max_row = std::max(m.max_row, d.max_row);
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
// size: generous, but untouched reservations are never resident, while a
// column that grows by doubling keeps old and new copies at once (peak memory).
// Each row takes at least a few bytes of its message, hence the divisors.
// The big sample columns get huge pages as they grow (advise_stream_growth).
void Decoder::reserve_for_stream() {
  const size_t cap = size_t(1) << 28;
  size_t n = std::min(n_, cap);
  scratch_.emplace(n_);
  scratch_->lend(p_);  // these reservations are then no-ops from the second load on
  p_.stack_locations.reserve(n);
  p_.values.reserve(n / 2);
  p_.stack_offsets.reserve(n / 16);
  p_.label_offsets.reserve(n / 16);
  main_samples_.label_room = n / 4;  // reserved at the first label, if any
  // Locations, functions and strings: rarely more rows than this.
  p_.locations.for_each_column([&](const char*, auto& c) { c.reserve(n / 64); });
  p_.lines.for_each_column([&](const char*, auto& c) { c.reserve(n / 64); });
  p_.functions.for_each_column([&](const char*, auto& c) { c.reserve(n / 64); });
  p_.strings.offsets.reserve(n / 64);
  p_.strings.data.reserve(n / 4);
}

// Huge pages for the sample columns of estimated size, up to where each is
// projected to end (HugePageGrowth::project) after `done` of the `total` bytes
// that fill them: the stream in streaming mode, this thread's sample bytes
// otherwise. Profiles whose tables follow the samples in a stream project long,
// and then keep up to one huge page per column unused.
void Decoder::advise_growth(size_t done, size_t total) {
  next_growth_check_ = done + kGrowthStep;
  auto follow = [&](HugePageGrowth& g, const auto& column) {
    g.update(column, HugePageGrowth::project(column.size(), done, total));
  };
  follow(growth_[0], p_.stack_locations);
  if (!window_) return;  // the other columns were sized exactly by the prescan
  follow(growth_[1], p_.values);
  follow(growth_[2], p_.stack_offsets);
  follow(growth_[3], p_.label_offsets);
}

namespace {

// A hint to the CPU that this thread is spinning (it lets the other
// hyperthread, if any, run, and saves power).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Reads the varint at p (at most 10 bytes before e); false if it does not end there.
bool peek_varint(const uint8_t*& p, const uint8_t* e, uint64_t& v) {
  v = 0;
  for (int shift = 0; p < e && shift < 64; shift += 7) {
    uint8_t b = *p++;
    v |= uint64_t(b & 0x7f) << shift;
    if (b < 0x80) return true;
  }
  return false;
}

}  // namespace

const uint8_t* StreamWindow::next_field_slow() {
  const size_t at = window_start_ + rpos_;
  if (at >= total_) return nullptr;
  const size_t left = total_ - at;
  // A tag and a length (or a varint value) take at most 20 bytes.
  size_t need = std::min<size_t>(left, 20);
  wait_for(need);
  const uint8_t* p = buf_ + rpos_;
  uint64_t tag, len;
  if (peek_varint(p, buf_ + rpos_ + need, tag) && (tag & 7) == wire::kLen && peek_varint(p, buf_ + rpos_ + need, len)) {
    size_t header = static_cast<size_t>(p - (buf_ + rpos_));
    // A length past the end of the stream: hand over what there is, and the
    // decoder reports it.
    need = len > left - header ? left : header + static_cast<size_t>(len);
    wait_for(need);
  }
  return buf_ + rpos_ + need;
}

void StreamWindow::wait_for(size_t need) {
  if (wend_.load(std::memory_order_acquire) - rpos_ >= need) return;  // the common case: no lock
  if (need > cap_) throw StreamAborted();                             // a field larger than the window
  if (rpos_ + need > cap_) compact(need);
  // Not before the first bytes: ISA-L's first chunk takes 0.15-0.25 ms (its
  // first block's tables), longer than a spin.
  if (spin_ && window_start_ + wend_.load(std::memory_order_relaxed) > 0 && spin_for(need)) return;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return wend_.load(std::memory_order_relaxed) - rpos_ >= need || done_; });
  if (wend_.load(std::memory_order_relaxed) - rpos_ < need) throw StreamAborted();  // the inflater stopped short
}

// Waits for the bytes by spinning, up to 200 us; false if they have not come.
// The inflater publishes a chunk every 0.1-0.2 ms over the samples, and the
// decoder, faster there, waited for nearly every one: sleeping on the
// condition variable made each chunk cost the inflater a wake-up (a system
// call, and on a virtual machine an interrupt to the sleeping CPU) and the
// decoder the time to be scheduled again; spinning, large.cpu's loads took
// 2-5% less time for 0.4-3% more CPU (docs/performance-log.md, decode round
// fifteen). Only while a CPU was idle when the decode began
// (decode_overlapped), and only until a spin runs out: then the inflater is
// not keeping pace (its CPU taken by another process, say), and a spinning
// thread would take more CPU from it, so the decoder sleeps from then on.
bool StreamWindow::spin_for(size_t need) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
  do {
    for (int i = 0; i < 16; ++i) {
      if (wend_.load(std::memory_order_acquire) - rpos_ >= need) return true;
      cpu_relax();
    }
  } while (std::chrono::steady_clock::now() < until);
  spin_ = false;
  return false;
}

// Moves the unread bytes to the front once the inflater has filled the window
// (it waits in room() meanwhile, so nothing writes during the move).
void StreamWindow::compact(size_t need) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return wend_.load(std::memory_order_relaxed) == cap_ || done_; });
  size_t end = wend_.load(std::memory_order_relaxed);
  if (end != cap_) throw StreamAborted();  // the inflater stopped short
  std::memmove(buf_, buf_ + rpos_, end - rpos_);
  window_start_ += rpos_;
  wend_.store(end - rpos_, std::memory_order_release);
  rpos_ = 0;
  cv_.notify_all();
}

// Once the decoder is three quarters through a window that the inflater has
// filled (it then waits in room()), the unread quarter moves to the front at
// once: the inflater refills the window while the decoder reads that quarter.
// Compacting only when the decoder reaches the end made the two take turns,
// each waiting for the other at every window (docs/performance.md, round seven).
void StreamWindow::compact_early() {
  if (wend_.load(std::memory_order_acquire) != cap_ || window_start_ + cap_ >= total_) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t end = wend_.load(std::memory_order_relaxed);  // still cap_: only this thread lowers it
    std::memmove(buf_, buf_ + rpos_, end - rpos_);
    window_start_ += rpos_;
    wend_.store(end - rpos_, std::memory_order_release);
    rpos_ = 0;
  }
  cv_.notify_all();
}

void StreamWindow::close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

std::pair<uint8_t*, size_t> StreamWindow::room() {
  std::unique_lock<std::mutex> lock(mu_);
  auto delivered = [&] { return window_start_ + wend_.load(std::memory_order_relaxed) >= total_; };
  cv_.wait(lock, [&] { return wend_.load(std::memory_order_relaxed) < cap_ || closed_ || delivered(); });
  if (closed_) return {nullptr, 0};
  // Every byte is in: what comes now is the member's end, or bytes too many
  // (then the stream is not what its trailer says, and the caller gives up).
  if (delivered()) return {buf_ + cap_, kSlack};
  size_t end = wend_.load(std::memory_order_relaxed);
  const size_t at = window_start_ + end;
  // The first chunks are small and double up to chunk_: the decoder, idle
  // until bytes arrive, starts after 8 KiB instead of a whole chunk. The last
  // ones halve down to 8 KiB again: what the decoder has left once the last
  // byte is in is one small chunk, not a whole one (large.cpu: 0.25-0.35 ms
  // of strings decoded after the inflater's end with 64 KiB chunks).
  const size_t chunk = std::min({chunk_, std::max(kFirstChunk, at), std::max(kFirstChunk, (total_ - at) / 2)});
  return {buf_ + end, std::min(cap_ - end, chunk)};
}

void StreamWindow::wrote(size_t n) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    size_t end = wend_.load(std::memory_order_relaxed);
    if (window_start_ + end < total_) wend_.store(end + n, std::memory_order_release);
  }
  cv_.notify_all();
}

void StreamWindow::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
}

bool worth_overlapping(size_t n, const DecodeOptions& options) {
  // Measured (docs/performance.md, "Decode, round two"): with the window the
  // overlapped path costs the same as inflate-then-decode at 200 KB of gzip and
  // wins from there (0.84x the time at 770 KB); below, the thread's start dominates.
  const size_t kOverlapBytes = size_t(256) << 10;
  // Asking for ISA-L explicitly always overlaps (tests use it on small files);
  // threads = 0 (automatic) overlaps unless every CPU is busy but not crowded:
  // then libdeflate and the decode on one thread (idle_cpu.hpp).
  if (!gzip::have_isal()) return false;
  if (options.inflater == gzip::Backend::Isal) return true;
  if (options.inflater != gzip::Backend::Auto || options.threads == 1 || n < kOverlapBytes) return false;
  return options.threads > 1 || second_thread_pays_now();
}

namespace {

// The window: the whole buffer, 2 MiB (or the stream, if smaller), small
// beside the columns (peak memory) yet larger than any field but a huge
// string (a larger field sends the input the ordinary way). The decoder
// keeps ahead of the inflater over the samples and falls behind over the
// tables after them (their decode, and the columns' copies made at the
// string table), so the inflater should run ahead as far as the window lets
// it: with an eighth of the stream as the window (512 KiB for large.cpu's
// 2.45 MB) it waited 0.6-0.8 ms a load for room (docs/performance-log.md,
// decode round fourteen). Chunks are an eighth of such a window (64 to 256
// KiB): the inflater publishes its bytes that often.
constexpr size_t kWindowBytes = size_t(2) << 20;
constexpr size_t kMinChunkBytes = size_t(64) << 10;
constexpr size_t kMaxChunkBytes = size_t(256) << 10;

size_t chunk_bytes(size_t total) { return std::clamp(total / 64, kMinChunkBytes, kMaxChunkBytes); }

// One spare window kept between calls, so repeated loads write into memory
// that is already mapped instead of faulting in fresh pages every time.
std::atomic<uint8_t*> spare_window{nullptr};

struct WindowBuffer {
  uint8_t* p;
  WindowBuffer() : p(spare_window.exchange(nullptr)) {
    if (!p) p = new uint8_t[kWindowBytes + StreamWindow::kSlack];
  }
  ~WindowBuffer() {
    uint8_t* expected = nullptr;
    if (!spare_window.compare_exchange_strong(expected, p)) delete[] p;
  }
};

}  // namespace

// Inflates on a helper thread while this thread decodes what has arrived,
// through a window of kWindowBytes. Returns false when the input needs the
// ordinary path: several gzip members, ISIZE wrapped past 4 GiB, a size over
// the limit, a field larger than the window, any decode error and any repair
// plain decoding would refuse (the ordinary path has the whole input to say
// exactly where the error is, or to read a legacy format). gzip errors are
// thrown from here.
bool decode_overlapped(const uint8_t* data, size_t n, const DecodeOptions& options, RepairReport* report,
                       Profile& out) {
  size_t size = gzip::trailer_size(data, n);
  // Implausible sizes (corrupt trailers, ratios deflate cannot reach) go the safe way.
  if (size == 0 || size > options.max_decompressed_size || size > n * 1032 + 1024) return false;
  if (report) *report = RepairReport{};
  WindowBuffer buffer;
  StreamWindow window(buffer.p, kWindowBytes, chunk_bytes(size), size);
  // The caller's thread is one of the runnable ones: fewer than the CPUs
  // means one is idle for the inflater, and the decoder may spin on another.
  window.spin_while_waiting(runnable_threads() < online_cpus());
  bool complete = false;
  std::exception_ptr inflate_error;
  std::thread inflater([&] {
    try {
      complete = gzip::inflate_chunked(data, n, size, window);
    } catch (...) {
      inflate_error = std::current_exception();
    }
    window.finish();
  });
  bool decoded = false;
  std::exception_ptr other_error;
  try {
    Decoder d(window.base(), size, 1, report);
    d.stream_from(&window);
    out = d.run();
    decoded = true;
  } catch (const StreamAborted&) {
  } catch (const DecodeError&) {
  } catch (...) {
    other_error = std::current_exception();  // out of memory, say: not the input's fault
  }
  window.close();
  inflater.join();
  // A gzip failure explains any decode failure it caused, so it wins.
  if (inflate_error) std::rethrow_exception(inflate_error);
  if (other_error) std::rethrow_exception(other_error);
  // Input that needed repairs may be a legacy format: the ordinary path decides.
  return decoded && complete && !(report && plain_refuses(*report));
}

}  // namespace pprofcore::decoding
