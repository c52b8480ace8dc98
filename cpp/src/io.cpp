// io: file reading (size-limited, judged from its first bytes) and the batch
// decoder's cancellable thread pool.
#include "pprofcore/io.hpp"
#include "pprofcore/zstd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "pprofcore/gzip.hpp"
#include "pprofcore/proto_fields.hpp"
#include "pprofcore/wire.hpp"

namespace pprofcore {

namespace {

// How much of a file is read before anything is judged, and how often a batch
// waiting for its workers polls for cancellation (Ctrl-C).
constexpr size_t kPrefixBytes = size_t(64) << 10;
constexpr auto kPollInterval = std::chrono::milliseconds(50);

[[noreturn]] void too_large(size_t max_size, bool gzip) {
  const std::string tail = std::to_string(max_size) + " bytes (raise max_decompressed_size to allow it)";
  if (gzip) throw GzipError("gzip input is larger than twice the limit of " + tail, "gzip", -1);
  throw DecodeError("input is larger than the limit of " + tail, "", -1);
}

// Closes the descriptor however read_file leaves.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads up to `want` bytes into p; returns the bytes read (fewer only at end of file).
size_t read_some(int fd, char* p, size_t want, const std::string& path) {
  size_t got = 0;
  while (got < want) {
    ssize_t r = ::read(fd, p + got, std::min<size_t>(want - got, size_t(1) << 30));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw FileError(errno, path);
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

// The first top-level tag in data[0, n) that profile.proto cannot hold (field 0,
// wire type 6 or 7, or a known field with the wrong wire type): sets `at` to its
// offset and returns true. Returns false when the prefix gives no such verdict.
bool impossible_top_level_tag(const uint8_t* data, size_t n, size_t& at) {
  using namespace wire;
  using proto::ProfileField;
  size_t p = 0;
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64 && p < n; shift += 7) {
      uint8_t b = data[p++];
      v |= uint64_t(b & 0x7f) << shift;
      if (b < 0x80) return true;
    }
    return false;
  };
  while (p < n) {
    size_t tag_at = p;
    uint64_t tag, v;
    if (!varint(tag)) return false;
    uint64_t field = tag >> 3;
    uint32_t wt = static_cast<uint32_t>(tag & 7);
    // The wire type each Profile field must have (comment: packed or not, either).
    const auto f = static_cast<ProfileField>(field <= 15 ? field : 0);  // none is numbered above 15
    bool message =
        (f >= ProfileField::kSampleType && f <= ProfileField::kStringTable) || f == ProfileField::kPeriodType;
    bool scalar = (f >= ProfileField::kDropFrames && f <= ProfileField::kDurationNanos) || f == ProfileField::kPeriod ||
                  f == ProfileField::kDefaultSampleType || f == ProfileField::kDocUrl;
    if (field == 0 || field > 0x1fffffff || wt > 5 || (message && wt != kLen) || (scalar && wt != kVarint)) {
      at = tag_at;
      return true;
    }
    switch (wt) {
      case kVarint:
        if (!varint(v)) return false;
        break;
      case kFixed64:
        p += 8;
        break;
      case kFixed32:
        p += 4;
        break;
      case kLen:
        if (!varint(v) || v > n - p) return false;
        p += static_cast<size_t>(v);
        break;
      default:
        return false;  // groups: leave them to the decoder
    }
  }
  return false;
}

}  // namespace

// The error is the decoder's own, so it does not depend on how much of the
// file was read.
void judge_prefix(const uint8_t* data, size_t n, const DecodeOptions& options) {
  size_t at;
  if (gzip::is_gzip(data, n) || !impossible_top_level_tag(data, n, at)) return;
  DecodeOptions serial = options;
  serial.threads = 1;
  try {
    decode(data, n, serial);
  } catch (const DecodeError& e) {
    if (e.offset() == static_cast<int64_t>(at)) throw;
  }
}

namespace {

// read_file()'s body for any byte container with data(), size() and a
// resize(n) that keeps the first bytes: a std::string (zero-filled growth) or
// a worker's kept gzip::Buffer (uninitialized growth, no allocation once it
// has grown to the largest file read).
template <class Bytes>
void read_whole(const std::string& path, size_t max_size, const std::function<void(const uint8_t*, size_t)>& on_prefix,
                Bytes& out) {
  if (path.find('\0') != std::string::npos) throw std::invalid_argument("embedded null byte");
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) throw FileError(errno, path);
  struct stat st;
  if (::fstat(f.fd, &st) != 0) throw FileError(errno, path);
  if (S_ISDIR(st.st_mode)) throw FileError(EISDIR, path);
  const bool regular = S_ISREG(st.st_mode);
  const size_t announced = regular && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
  // The first bytes tell gzip from raw, and so the limit; a regular file over
  // it is refused from its size, before the rest is read.
  out.resize(std::min(announced ? announced : kPrefixBytes, kPrefixBytes));
  auto bytes = [&] { return reinterpret_cast<char*>(out.data()); };
  size_t size = read_some(f.fd, bytes(), out.size(), path);
  out.resize(size);
  const auto* first = reinterpret_cast<const uint8_t*>(out.data());
  const bool gz = gzip::is_gzip(first, size) || zstd::is_zstd(first, size);  // compressed: gzip's allowance
  const size_t limit = max_input_size(max_size, gz);
  if (announced > limit) too_large(max_size, gz);
  // Reading one byte past the limit is how a pipe or device shows it is too large.
  const size_t hard = limit == SIZE_MAX ? limit : limit + 1;
  if (size == kPrefixBytes) {  // more may follow
    if (on_prefix) on_prefix(reinterpret_cast<const uint8_t*>(out.data()), size);
    if (announced > size) {
      out.resize(std::min(announced, hard));
      size += read_some(f.fd, bytes() + size, out.size() - size, path);
      out.resize(size);
    }
    // Whatever fstat did not announce (pipes, devices, /proc, a file still
    // growing), a chunk at a time and never past the limit.
    while (size < hard) {
      out.resize(size + std::min(kPrefixBytes, hard - size));
      const size_t got = read_some(f.fd, bytes() + size, out.size() - size, path);
      size += got;
      out.resize(size);
      if (got == 0) break;
    }
  }
  if (size > limit) too_large(max_size, gz);
}

// A gzip::Buffer seen as read_whole's container.
struct GrowingBuffer {
  gzip::Buffer& b;
  uint8_t* data() { return b.data(); }
  size_t size() const { return b.size(); }
  void resize(size_t n) {
    if (n > b.capacity()) b.reserve(std::max(n, 2 * b.capacity()));  // pipes grow a chunk at a time
    b.set_size(n);
  }
};

}  // namespace

std::string read_file(const std::string& path, size_t max_size,
                      const std::function<void(const uint8_t*, size_t)>& on_prefix) {
  std::string out;
  read_whole(path, max_size, on_prefix, out);
  return out;
}

void read_file(const std::string& path, gzip::Buffer& out, size_t max_size,
               const std::function<void(const uint8_t*, size_t)>& on_prefix) {
  GrowingBuffer into{out};
  read_whole(path, max_size, on_prefix, into);
}

Profile load_file(const std::string& path, const DecodeOptions& options, RepairReport* report) {
  try {
    std::string bytes = read_file(path, options.max_decompressed_size,
                                  [&](const uint8_t* p, size_t n) { judge_prefix(p, n, options); });
    return decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), options, report);
  } catch (const DecodeError&) {
    rethrow_with_path(path);
  }
}

Profile load_file(const std::string& path, const DecodeOptions& options, LoadBuffers& kept) {
  try {
    read_file(path, kept.file, options.max_decompressed_size,
              [&](const uint8_t* p, size_t n) { judge_prefix(p, n, options); });
    return decode(kept.file.data(), kept.file.size(), options, kept.decode);
  } catch (const DecodeError&) {
    rethrow_with_path(path);
  }
}

void rethrow_with_path(const std::string& path) {
  try {
    throw;
  } catch (const GzipError& e) {
    throw GzipError(e.reason(), e.field(), e.offset(), path);
  } catch (const DecodeError& e) {
    throw DecodeError(e.reason(), e.field(), e.offset(), path);
  }
}

void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& fn, const Poll& poll) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (threads > n) threads = static_cast<unsigned>(n);
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) {
      if (poll) poll();
      fn(i);
    }
    return;
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> cancel{false};
  std::mutex mu;
  std::condition_variable cv;
  unsigned running = threads;
  std::exception_ptr failure;
  auto worker = [&] {
    try {
      for (size_t i; !cancel.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) fn(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!failure) failure = std::current_exception();
      cancel = true;
    }
    std::lock_guard<std::mutex> lock(mu);
    --running;
    cv.notify_all();
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  try {
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
    // This thread only waits, so that it can poll for cancellation.
    std::unique_lock<std::mutex> lock(mu);
    while (running > 0) {
      if (cv.wait_for(lock, kPollInterval, [&] { return running == 0; })) break;
      if (poll) {
        lock.unlock();
        poll();
        lock.lock();
      }
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu);
    if (!failure) failure = std::current_exception();
    cancel = true;
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

std::vector<LoadResult> load_many(const std::vector<std::string>& paths, unsigned threads, const DecodeOptions& options,
                                  const Poll& poll) {
  std::vector<LoadResult> results(paths.size());
  // Parallelism is across files; one thread per file avoids oversubscription.
  DecodeOptions per_file = options;
  if (paths.size() > 1) per_file.threads = 1;
  parallel_for(
      paths.size(), threads,
      [&](size_t i) {
        LoadResult& r = results[i];
        try {
          r.profile = std::make_shared<Profile>(load_file(paths[i], per_file));
        } catch (...) {
          r.error = std::current_exception();  // the same exception load_file(path) raises
        }
      },
      poll);
  return results;
}

}  // namespace pprofcore
