// io: file reading and the batch decoder's thread pool.
#include "pprofcore/io.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <thread>

namespace pprofcore {

std::string read_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::system_error(errno, std::generic_category(), path);
  std::string out;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    if (size > 0) out.reserve(static_cast<size_t>(size));
    std::fseek(f, 0, SEEK_SET);
  }
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
  bool failed = std::ferror(f);
  int err = errno;
  std::fclose(f);
  if (failed) throw std::system_error(err, std::generic_category(), path);
  return out;
}

void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (threads > n) threads = static_cast<unsigned>(n);
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

std::vector<LoadResult> load_many(const std::vector<std::string>& paths, unsigned threads,
                                  const DecodeOptions& options) {
  std::vector<LoadResult> results(paths.size());
  // Parallelism is across files; one thread per file avoids oversubscription.
  DecodeOptions per_file = options;
  if (paths.size() > 1) per_file.threads = 1;
  parallel_for(paths.size(), threads, [&](size_t i) {
    LoadResult& r = results[i];
    try {
      std::string bytes = read_file(paths[i]);
      r.profile = std::make_shared<Profile>(
          decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), per_file));
    } catch (const DecodeError& e) {
      r.error = e.what();
      r.error_field = e.field();
      r.error_offset = e.offset();
      r.is_decode_error = true;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
  });
  return results;
}

}  // namespace pprofcore
