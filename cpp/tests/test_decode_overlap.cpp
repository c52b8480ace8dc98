// C++ unit tests of the overlapped decode (decode_overlap.cpp): gzip input
// decoded through the inflater's window gives exactly what the ordinary path
// gives, stays on the overlapped path when it can (a silent fallback would only
// cost time, so it is checked here), and falls back when it must.
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../src/decode/decode_internal.hpp"
#include "check.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/gzip.hpp"

using namespace pprofcore;

// A profile of about `samples` x 60 bytes: long stacks, labels, and strings of
// assorted lengths, so fields straddle every window boundary.
static Profile big_profile(size_t samples, size_t longest_name = 300) {
  std::mt19937_64 rng(42);
  Profile p;
  StringInterner s;
  p.sample_type_type = {s.intern("alloc_objects"), s.intern("alloc_space")};
  p.sample_type_unit = {s.intern("count"), s.intern("bytes")};
  const size_t nf = 3000;
  for (size_t i = 0; i < nf; ++i) {
    p.functions.id.push_back(i + 1);
    size_t tail = i == 0 ? longest_name : rng() % 300;  // one name of longest_name bytes
    p.functions.name.push_back(s.intern("pkg.Func" + std::to_string(i) + std::string(tail, 'x')));
    p.functions.system_name.push_back(p.functions.name.back());
    p.functions.filename.push_back(s.intern("file" + std::to_string(i % 50) + ".go"));
    p.functions.start_line.push_back(static_cast<int64_t>(i));
    p.locations.id.push_back(i + 1);
    p.locations.mapping.push_back(-1);
    p.locations.address.push_back(0x400000 + 16 * i);
    p.locations.is_folded.push_back(0);
    p.lines.function.push_back(static_cast<int32_t>(i));
    p.lines.line.push_back(static_cast<int64_t>(i % 700));
    p.lines.column.push_back(0);
    p.locations.line_offsets.push_back(static_cast<int64_t>(p.lines.size()));
  }
  int32_t key = s.intern("bytes");
  for (size_t i = 0; i < samples; ++i) {
    size_t depth = 5 + rng() % 40;
    for (size_t d = 0; d < depth; ++d) p.stack_locations.push_back(static_cast<int32_t>(rng() % nf));
    p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
    p.values.push_back(static_cast<int64_t>(1 + rng() % 5));
    p.values.push_back(static_cast<int64_t>(rng() % 100000));
    p.labels.key.push_back(key);
    p.labels.str.push_back(-1);
    p.labels.num.push_back(static_cast<int64_t>(rng() % 4096));
    p.labels.num_unit.push_back(0);
    p.label_offsets.push_back(static_cast<int64_t>(p.labels.size()));
  }
  p.strings = s.take();
  return p;
}

static std::string gzip_of(const std::string& raw) {
  return gzip::deflate(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), 1);
}

static bool overlapped(const std::string& gz, Profile& out, RepairReport* report = nullptr) {
  return decoding::decode_overlapped(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), DecodeOptions{}, report,
                                     out);
}

TEST(window_matches_ordinary_path) {
  if (!gzip::have_isal()) return;
  // Several windows' worth, and one smaller than a window.
  for (size_t samples : {size_t(200000), size_t(3000)}) {
    Profile p = big_profile(samples);
    std::string raw = encode_raw(p);
    Profile via_window;
    EXPECT(overlapped(gzip_of(raw), via_window));
    EXPECT(via_window == decode_raw(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
  }
}

TEST(window_in_repair_mode) {
  if (!gzip::have_isal()) return;
  Profile p = big_profile(50000);
  std::string raw = encode_raw(p);
  RepairReport r;
  Profile out;
  EXPECT(overlapped(gzip_of(raw), out, &r));
  EXPECT(r.total() == 0 && out == decode_raw(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
}

TEST(falls_back_when_it_must) {
  if (!gzip::have_isal()) return;
  Profile p = big_profile(20000);
  std::string raw = encode_raw(p);
  Profile out;
  // Two members: the ordinary path joins them (and reports what is wrong).
  std::string two = gzip_of(raw) + gzip_of(raw);
  EXPECT(!overlapped(two, out));
  // A field larger than the window.
  Profile huge = big_profile(100, size_t(3) << 20);
  std::string huge_raw = encode_raw(huge);
  EXPECT(!overlapped(gzip_of(huge_raw), out));
  DecodeOptions isal;
  isal.inflater = gzip::Backend::Isal;
  std::string huge_gz = gzip_of(huge_raw);
  EXPECT(decode(reinterpret_cast<const uint8_t*>(huge_gz.data()), huge_gz.size(), isal) ==
         decode_raw(reinterpret_cast<const uint8_t*>(huge_raw.data()), huge_raw.size()));
  // A decode error: the ordinary path names the place in the whole input.
  std::string bad = raw + "\x0f";  // field 1 with wire type 7
  std::string bad_gz = gzip_of(bad);
  EXPECT(!overlapped(bad_gz, out));
  std::string direct, via;
  try {
    decode_raw(reinterpret_cast<const uint8_t*>(bad.data()), bad.size());
  } catch (const DecodeError& e) {
    direct = e.what();
  }
  try {
    decode(reinterpret_cast<const uint8_t*>(bad_gz.data()), bad_gz.size(), isal);
  } catch (const DecodeError& e) {
    via = e.what();
  }
  EXPECT(!direct.empty() && direct == via);
}

// From a process's second streaming load on, the decoder writes into columns
// the process keeps (stream_scratch.cpp) and the profile gets copies: a later
// load writing over the kept columns must leave every earlier profile as it was.
TEST(kept_columns_are_never_a_profiles) {
  if (!gzip::have_isal()) return;
  std::string raw_a = encode_raw(big_profile(60000)), raw_b = encode_raw(big_profile(20000, 40));
  std::string gz_a = gzip_of(raw_a), gz_b = gzip_of(raw_b);
  const Profile plain_a = decode_raw(reinterpret_cast<const uint8_t*>(raw_a.data()), raw_a.size());
  const Profile plain_b = decode_raw(reinterpret_cast<const uint8_t*>(raw_b.data()), raw_b.size());
  std::vector<Profile> loads(5);
  for (size_t i = 0; i < loads.size(); ++i) EXPECT(overlapped(i % 2 ? gz_b : gz_a, loads[i]));
  for (size_t i = 0; i < loads.size(); ++i) EXPECT(loads[i] == (i % 2 ? plain_b : plain_a));
  // Exact sizes from the second load on: the copy, not the kept reservation.
  for (size_t i = 1; i < loads.size(); ++i)
    EXPECT(loads[i].stack_locations.capacity() == loads[i].stack_locations.size() &&
           loads[i].strings.offsets.capacity() == loads[i].strings.offsets.size());
}

// The columns are copied out when the string table starts (stream_scratch.cpp);
// a sample after the strings grows those copies, which end exact all the same.
TEST(rows_after_the_strings_grow_the_copies) {
  if (!gzip::have_isal()) return;
  // Sample{location_id: [1, 2, 3], value: [5, 7]}, field 2 of the Profile.
  const std::string late_sample = "\x12\x09\x0a\x03\x01\x02\x03\x12\x02\x05\x07";
  std::string raw = encode_raw(big_profile(30000)) + late_sample;
  std::string gz = gzip_of(raw);
  const Profile plain = decode_raw(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  EXPECT(plain.stack_locations.size() > 3 && plain.stack_locations.back() == 2);
  for (int i = 0; i < 3; ++i) {  // the first streaming load keeps nothing
    Profile out;
    EXPECT(overlapped(gz, out));
    EXPECT(out == plain);
    EXPECT(out.stack_locations.capacity() == out.stack_locations.size() && out.values.capacity() == out.values.size() &&
           out.label_offsets.capacity() == out.label_offsets.size());
  }
}

// The string table is read a run of entries at a time (Decoder::string_run),
// which leaves some entries to the ordinary path: lengths of three bytes, an
// entry not whole yet in the window, another field between two strings. The
// table comes out the same on both paths, entry for entry.
TEST(string_runs_stop_and_resume) {
  auto entry = [](const std::string& text) {
    std::string e = "\x32";  // string_table, field 6, length-delimited
    for (size_t n = text.size();; n >>= 7) {
      e += static_cast<char>(n < 0x80 ? n : (n & 0x7f) | 0x80);
      if (n < 0x80) break;
    }
    return e + text;
  };
  const std::vector<std::string> before = {
      "", std::string(127, 'a'), std::string(128, 'b'), std::string(16383, 'c'), std::string(16384, 'd'), "e"};
  const std::vector<std::string> after = {std::string(300000, 'f'), "g", ""};
  const std::string comment = "\x68\x01";  // comment (field 13) naming string 1
  const Profile p = big_profile(30000);
  std::string raw = encode_raw(p);
  for (const auto& t : before) raw += entry(t);
  raw += comment;
  for (const auto& t : after) raw += entry(t);
  std::vector<std::string> expected;
  for (size_t i = 0; i < p.strings.size(); ++i) expected.emplace_back(p.strings[i]);
  expected.insert(expected.end(), before.begin(), before.end());
  expected.insert(expected.end(), after.begin(), after.end());
  auto check_table = [&](const Profile& got) {
    EXPECT(got.strings.size() == expected.size());
    for (size_t i = 0; i < expected.size() && i < got.strings.size(); ++i) EXPECT(got.strings[i] == expected[i]);
    EXPECT(got.comments == std::vector<int32_t>{1});
  };
  const Profile plain = decode_raw(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  check_table(plain);
  if (!gzip::have_isal()) return;
  const std::string gz = gzip_of(raw);
  for (int i = 0; i < 2; ++i) {  // the first streaming load keeps no columns, the second does
    Profile out;
    EXPECT(overlapped(gz, out));
    check_table(out);
    EXPECT(out == plain);
  }
}

// The window on its own, a thread writing as an inflater would (chunks of
// assorted sizes, now and then a pause longer than the decoder spins) and
// this one reading fields: every field arrives whole and unchanged, across the
// window's compactions, whether the reader spins or sleeps while it waits.
TEST(window_reader_spinning_or_sleeping) {
  std::mt19937_64 rng(7);
  std::string stream;
  std::vector<std::string> fields;
  while (stream.size() < 600000) {
    std::string payload(rng() % 3000, '\0');
    for (char& c : payload) c = static_cast<char>(rng());
    std::string f = "\x12";  // sample, field 2, length-delimited
    for (size_t n = payload.size();; n >>= 7) {
      f += static_cast<char>(n < 0x80 ? n : (n & 0x7f) | 0x80);
      if (n < 0x80) break;
    }
    fields.push_back(payload);
    stream += f + payload;
  }
  for (bool spin : {true, false}) {
    std::vector<uint8_t> buf((size_t(64) << 10) + decoding::StreamWindow::kSlack);
    decoding::StreamWindow window(buf.data(), size_t(64) << 10, size_t(8) << 10, stream.size());
    window.spin_while_waiting(spin);
    std::thread writer([&] {
      std::mt19937_64 wr(11);
      size_t done = 0;
      for (int chunk = 0; done < stream.size(); ++chunk) {
        auto [out, room] = window.room();
        if (!out) break;
        size_t n = std::min({room, stream.size() - done, size_t(1 + wr() % 9000)});
        std::memcpy(out, stream.data() + done, n);
        done += n;
        window.wrote(n);
        if (chunk % 9 == 0) std::this_thread::sleep_for(std::chrono::microseconds(400));
      }
      window.finish();
    });
    size_t i = 0;
    bool same = true;
    while (const uint8_t* end = window.next_field()) {
      wire::Reader r(window.base(), window.pos(), end);
      r.tag("test");
      const uint8_t* e = r.length_delimited("test");
      same = same && i < fields.size() && std::string(reinterpret_cast<const char*>(r.pos()), e - r.pos()) == fields[i];
      ++i;
      window.consumed(e);
    }
    window.close();
    writer.join();
    EXPECT(same && i == fields.size());
  }
}

// Corrupt deflate data: a GzipError, whether the window sees it first or
// gives up (the stream inflating past its size) and the ordinary path does.
TEST(gzip_errors_win) {
  if (!gzip::have_isal()) return;
  std::string gz = gzip_of(encode_raw(big_profile(20000)));
  gz[gz.size() / 2] ^= 0x55;
  DecodeOptions isal;
  isal.inflater = gzip::Backend::Isal;
  EXPECT_THROWS(decode(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), isal), GzipError, "");
}

int main() { return check::run_all(); }
