// io: reading input files and decoding many of them on a thread pool. Never
// writes input files. Per-file failures are captured, not thrown, so batches can
// continue; a batch can be cancelled between files through its `poll` hook.
#pragma once
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pprofcore/decode.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/gzip.hpp"

namespace pprofcore {

// Reads a whole file holding a profile of at most `max_size` bytes (at most
// max_input_size(max_size, gzip) bytes, gzip judged by the magic number). Throws
// std::invalid_argument for a path with a NUL byte (the OS would read another
// file), FileError for OS errors (EISDIR for a directory), and DecodeError (or
// GzipError) for a larger file: a regular file is judged by its size once its
// first 64 KiB are read; pipes and devices stop being read at the limit.
// `on_prefix` (may be empty) sees the first bytes of a longer input before the
// rest is read and may throw to stop.
std::string read_file(const std::string& path, size_t max_size = SIZE_MAX,
                      const std::function<void(const uint8_t*, size_t)>& on_prefix = {});

// read_file() into `out` (its old contents dropped): a batch worker keeps one
// buffer for file after file, so a file costs no allocation or zero-filling
// once the buffer has grown to the largest file read.
void read_file(const std::string& path, gzip::Buffer& out, size_t max_size = SIZE_MAX,
               const std::function<void(const uint8_t*, size_t)>& on_prefix = {});

// read_file()'s `on_prefix` for profiles: throws the decoder's own DecodeError
// when the first bytes cannot start a profile (not gzip, and a top-level tag no
// reading of profile.proto accepts), so a large non-profile is not read whole.
void judge_prefix(const uint8_t* data, size_t n, const DecodeOptions& options);

// Reads and decodes one file: read_file() with options.max_decompressed_size as
// the limit, then decode(). Input that cannot be a profile (not gzip, and a
// top-level tag no reading of profile.proto accepts) is rejected from its first
// bytes, before the rest is read.
Profile load_file(const std::string& path, const DecodeOptions& options, RepairReport* report = nullptr);

// What a batch worker keeps from one file to the next (load_file below): the
// file's bytes and the decode's buffers.
struct LoadBuffers {
  gzip::Buffer file;
  DecodeBuffers decode;
  // Bytes the two byte buffers hold on to (the largest file so far).
  size_t byte_capacity() const { return file.capacity() + decode.inflated.capacity(); }
};

// load_file() (plain mode) through `kept`'s buffers: no allocation or
// zero-filling of the file's bytes, and the profile built in kept.decode.spent's
// columns (which it consumes).
Profile load_file(const std::string& path, const DecodeOptions& options, LoadBuffers& kept);

// Inside a catch block: rethrows the current exception, a DecodeError (or
// GzipError) of the same type with its path set, anything else unchanged.
[[noreturn]] void rethrow_with_path(const std::string& path);

struct LoadResult {
  std::shared_ptr<Profile> profile;  // null on failure
  std::exception_ptr error;          // what loading the file threw, when profile is null
};

// Called on the caller's thread between files and every few milliseconds while a
// batch waits for its workers; throwing from it cancels the batch: the workers
// finish the file they hold, are joined, and the exception is rethrown.
using Poll = std::function<void()>;

// Decodes `paths` on `threads` workers (0 = hardware concurrency); order preserved.
std::vector<LoadResult> load_many(const std::vector<std::string>& paths, unsigned threads, const DecodeOptions& options,
                                  const Poll& poll = {});

// Runs fn(i) for i in [0, n) on up to `threads` workers (0 = hardware concurrency).
// The first exception thrown by fn or poll stops the remaining work (items not
// yet started are skipped) and is rethrown once every worker has been joined.
void parallel_for(size_t n, unsigned threads, const std::function<void(size_t)>& fn, const Poll& poll = {});

}  // namespace pprofcore
