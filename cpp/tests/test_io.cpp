// C++ unit tests of io and the batch operations' threads: file reading limits
// and refusals, and cancellation of load_many / merge_files from a callback or
// a poll (the workers must be joined before the exception leaves). Run under
// ThreadSanitizer by tools/sanitize.sh.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "check.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/io.hpp"
#include "pprofcore/merge.hpp"
#include "pprofcore/profile.hpp"

using namespace pprofcore;

namespace {

using check::scratch;

// A small valid profile: one sample type, one sample, no locations.
std::string small_profile_bytes() {
  Profile p;
  StringInterner s;
  check::counted_samples(p, s);
  p.values = {3};
  p.stack_offsets = {0, 0};
  p.label_offsets = {0, 0};
  p.strings = s.take();
  return encode(p, false);
}

std::string good_path() {
  static std::string path = scratch().write("good.pb", small_profile_bytes());
  return path;
}

}  // namespace

TEST(read_file_refuses_directories_nul_and_oversize) {
  EXPECT_THROWS(read_file(scratch().dir), FileError, "Is a directory");
  try {
    read_file(scratch().dir);
  } catch (const FileError& e) {
    EXPECT(e.path() == scratch().dir);
    EXPECT(e.code().value() == EISDIR);
  }
  EXPECT_THROWS(read_file(good_path() + std::string("\0/../x", 6)), std::invalid_argument, "embedded null byte");
  std::string bytes = small_profile_bytes();
  EXPECT(read_file(good_path(), bytes.size()) == bytes);
  EXPECT_THROWS(read_file(good_path(), bytes.size() - 1), DecodeError, "input is larger than the limit");
  EXPECT_THROWS(read_file(scratch().dir + "/missing"), FileError, "missing");
}

TEST(read_file_stops_devices_at_the_limit) {
  // /dev/zero announces no size: it must stop one byte past the limit.
  EXPECT_THROWS(read_file("/dev/zero", 200000), DecodeError, "input is larger than the limit of 200000");
  // Zero bytes are field-0 tags, which pprof skips, so only the limit stops it.
  DecodeOptions o;
  o.max_decompressed_size = 1 << 20;
  EXPECT_THROWS(load_file("/dev/zero", o), DecodeError, "input is larger than the limit of 1048576");
}

TEST(read_file_into_a_kept_buffer_gives_each_file_alone) {
  // A series worker reads file after file into one buffer: a large file (past
  // the 64 KiB first read), then a small one, then the large one again must
  // each come back whole, with nothing of the one before.
  std::string large(200000, '\0');
  for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>(i * 7 + 3);
  const std::string large_path = scratch().write("large.bin", large);
  std::string small = small_profile_bytes();
  gzip::Buffer kept;
  for (const std::string* want : {&large, &small, &large, &small}) {
    read_file(*want == large ? large_path : good_path(), kept);
    EXPECT(kept.str() == *want);
    EXPECT(read_file(*want == large ? large_path : good_path()) == *want);
  }
  EXPECT_THROWS(read_file(good_path(), kept, small.size() - 1), DecodeError, "input is larger than the limit");
  EXPECT_THROWS(read_file(scratch().dir, kept), FileError, "Is a directory");
  // No announced size: read a chunk at a time up to one byte past the limit.
  EXPECT_THROWS(read_file("/dev/zero", kept, 200000), DecodeError, "input is larger than the limit of 200000");
  read_file(good_path(), kept);
  EXPECT(kept.str() == small);
}

namespace {

// random_profile with labels: a string label on every sample, a numeric one
// with a unit on every third, and a mapping for the locations.
Profile labelled_profile(uint32_t seed, size_t n_samples) {
  Profile p = check::random_profile(seed, n_samples);
  const auto code = [&p](std::string_view text) {
    p.strings.push_back(text);
    return static_cast<int32_t>(p.strings.size() - 1);
  };
  const int32_t zone = code("zone"), bytes = code("bytes"), size = code("size"), binary = code("/bin/app");
  const int32_t values[] = {code("zone-a"), code("zone-b"), code("zone-c")};
  check::one_mapping(p, 0x400000, 0x800000, binary, 1);
  for (size_t l = 0; l < p.locations.size(); ++l) {
    p.locations.mapping[l] = 0;
    p.locations.address[l] = 0x400000 + 16 * l;
  }
  p.label_offsets = {0};
  for (size_t i = 0; i < p.num_samples(); ++i) {
    p.labels.push_back(zone, values[(i + seed) % 3], 0, 0);
    if (i % 3 == 0) p.labels.push_back(size, -1, int64_t(i) * 512, bytes);
    p.label_offsets.push_back(static_cast<int64_t>(p.labels.size()));
  }
  return p;
}

}  // namespace

TEST(load_file_through_kept_buffers_matches_a_fresh_load) {
  // merge_files' workers decode file after file into one LoadBuffers, each
  // profile built in the columns of the one before: larger and smaller files
  // in turn, gzip and raw, and a file that fails on the way, must each come
  // back as a fresh load gives it, with nothing of the file before.
  std::vector<std::string> paths;
  const size_t sizes[] = {400, 3, 0, 2000, 40, 1, 900};
  for (size_t i = 0; i < std::size(sizes); ++i) {
    const Profile p = labelled_profile(static_cast<uint32_t>(i + 1), sizes[i]);
    paths.push_back(scratch().write("kept" + std::to_string(i) + ".pb", encode(p, i % 2 == 0)));
    if (i == 3) paths.push_back(scratch().write("kept-bad.pb", std::string("\x08\x01not a profile")));
  }
  const DecodeOptions options;
  LoadBuffers kept;
  for (int pass = 0; pass < 2; ++pass) {
    for (const std::string& path : paths) {
      if (path.find("kept-bad") != std::string::npos) {
        EXPECT_THROWS(load_file(path, options, kept), DecodeError, "kept-bad.pb");
        continue;
      }
      Profile got = load_file(path, options, kept);
      const Profile want = load_file(path, options);
      EXPECT(got == want);
      check_invariants(got);
      kept.decode.spent = std::move(got);  // as merge_files hands a merged file back
    }
  }
}

TEST(parallel_for_cancelled_by_poll_joins_and_rethrows) {
  for (unsigned threads : {1u, 2u, 4u}) {
    // Items hold their workers until the calling thread has polled, so the
    // poll surely comes while work is left; then each takes a millisecond, so
    // finishing all 2000 would take far longer than the cancellation.
    std::atomic<bool> polled{false};
    std::atomic<int> ran{0};
    EXPECT_THROWS(parallel_for(
                      2000, threads,
                      [&](size_t) {
                        while (!polled.load()) std::this_thread::yield();
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                        ++ran;
                      },
                      [&] {
                        polled = true;
                        throw std::runtime_error("interrupted");
                      }),
                  std::runtime_error, "interrupted");
    EXPECT(ran.load() < 2000);
  }
}

TEST(load_many_polls_and_keeps_order) {
  std::vector<std::string> paths(64, good_path());
  EXPECT_THROWS(load_many(paths, 1, DecodeOptions{}, [] { throw std::runtime_error("interrupted"); }),
                std::runtime_error, "interrupted");
  auto all = load_many(paths, 3, DecodeOptions{}, [] {});
  EXPECT(all.size() == paths.size());
  for (auto& r : all) EXPECT(r.profile && r.profile->num_samples() == 1);
}

TEST(load_many_reports_os_errors_with_errno) {
  auto r = load_many({good_path(), scratch().dir}, 2, DecodeOptions{});
  EXPECT(r[0].profile && !r[0].error);
  EXPECT(!r[1].profile && r[1].error);
  int code = 0;
  try {
    std::rethrow_exception(r[1].error);  // the exception load_file throws for it
  } catch (const FileError& e) {
    code = e.code().value();
  } catch (...) {
  }
  EXPECT(code == EISDIR);
}

TEST(load_many_decode_errors_carry_the_path) {
  // Profile.location as a varint: wrong wire type.
  const std::string bad = scratch().write("bad.pb", std::string("\x10\x01", 2));
  auto r = load_many({bad}, 1, DecodeOptions{});
  EXPECT(!r[0].profile && r[0].error);
  EXPECT_THROWS(std::rethrow_exception(r[0].error), DecodeError, (bad + ": ").c_str());
  try {
    std::rethrow_exception(r[0].error);
  } catch (const DecodeError& e) {
    EXPECT(e.path() == bad && e.reason().find(bad) == std::string::npos);
  }
}

TEST(parallel_for_rethrows_a_worker_exception_after_joining) {
  std::atomic<int> ran{0};
  EXPECT_THROWS(parallel_for(1000, 4,
                             [&](size_t i) {
                               ++ran;
                               if (i == 10) throw std::runtime_error("item 10");
                               // Items take a while, so the throw is seen long before the end.
                               std::this_thread::sleep_for(std::chrono::microseconds(300));
                             }),
                std::runtime_error, "item 10");
  EXPECT(ran.load() < 1000);  // the rest was skipped
}

TEST(merge_files_cancelled_by_callback_or_poll) {
  std::vector<std::string> paths(40, good_path());
  for (unsigned threads : {1u, 2u, 4u}) {
    size_t calls = 0;
    EXPECT_THROWS(merge_files(paths, threads, DecodeOptions{},
                              [&](size_t) {
                                if (++calls == 3) throw std::runtime_error("progress raised");
                              }),
                  std::runtime_error, "progress raised");
    EXPECT(calls == 3);
    int polls = 0;
    EXPECT_THROWS(merge_files(paths, threads, DecodeOptions{}, {},
                              [&] {
                                if (++polls == 5) throw std::runtime_error("interrupted");
                              }),
                  std::runtime_error, "interrupted");
  }
  Profile m = merge_files(paths, 2, DecodeOptions{});
  EXPECT(m.num_samples() == 1 && m.values[0] == 3 * 40);
  // A bad file in the middle stops the merge with its name.
  std::vector<std::string> bad(paths);
  bad[7] = scratch().dir;
  EXPECT_THROWS(merge_files(bad, 2, DecodeOptions{}), FileError, "Is a directory");
}

int main() { return check::run_all(); }
