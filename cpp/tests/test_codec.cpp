// C++ unit tests of the wire reader, gzip, decode and encode.
#include <cstring>
#include <fstream>
#include <sstream>

#include "check.hpp"
#include "pprofcore/decode.hpp"
#include "pprofcore/encode.hpp"
#include "pprofcore/gzip.hpp"
#include "pprofcore/wire.hpp"

using namespace pprofcore;

static Profile small_profile() {
  Profile p;
  StringInterner s;
  p.sample_type_type = {s.intern("samples"), s.intern("cpu")};
  p.sample_type_unit = {s.intern("count"), s.intern("nanoseconds")};
  p.has_period_type = true;
  p.period_type_type = s.intern("cpu");
  p.period_type_unit = s.intern("nanoseconds");
  p.period = 10000000;
  p.time_nanos = 1700000000000000000;
  p.duration_nanos = 1000000000;
  p.comments = {s.intern("a comment")};
  check::one_mapping(p, 0x400000, 0x800000, s.intern("/bin/app"), 1);
  p.mappings.build_id = {s.intern("abc123")};
  p.mappings.has_filenames = p.mappings.has_line_numbers = {1};
  p.functions.id = {1, 2};
  p.functions.name = {s.intern("main"), s.intern("work")};
  p.functions.system_name = {s.intern("main"), s.intern("work")};
  p.functions.filename = {s.intern("main.go"), s.intern("main.go")};
  p.functions.start_line = {10, 20};
  p.locations.id = {1, 2};
  p.locations.mapping = {0, -1};
  p.locations.address = {0x401000, 0};
  p.locations.is_folded = {0, 1};
  p.locations.line_offsets = {0, 1, 3};
  p.lines.function = {0, 1, 0};
  p.lines.line = {12, 25, 13};
  p.lines.column = {0, 7, 0};
  p.values = {1, 10000000, 2, 20000000};
  p.stack_offsets = {0, 2, 3};
  p.stack_locations = {1, 0, 0};
  p.label_offsets = {0, 2, 2};
  p.labels.key = {s.intern("endpoint"), s.intern("bytes")};
  p.labels.str = {s.intern("/api"), -1};
  p.labels.num = {0, 4096};
  p.labels.num_unit = {0, s.intern("bytes")};
  p.strings = s.take();
  return p;
}

static Profile roundtrip(const Profile& p, bool gz) {
  std::string bytes = encode(p, gz);
  return decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(roundtrip_raw_and_gzip) {
  Profile p = small_profile();
  check_invariants(p);
  EXPECT(roundtrip(p, false) == p);
  EXPECT(roundtrip(p, true) == p);
  EXPECT(encode_raw(p) == encode_raw(roundtrip(p, false)));
}

TEST(varint_errors) {
  const uint8_t overlong[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_THROWS(decode_raw(overlong, sizeof overlong), DecodeError, "varint");
  const uint8_t truncated[] = {0x12, 0x05, 0x08};
  EXPECT_THROWS(decode_raw(truncated, sizeof truncated), DecodeError, "runs past the end");
}

TEST(empty_input) { EXPECT_THROWS(decode(nullptr, 0), DecodeError, "empty input"); }

TEST(missing_string_table) {
  const uint8_t only_period[] = {0x60, 0x05};  // period = 5
  EXPECT_THROWS(decode_raw(only_period, sizeof only_period), DecodeError, "missing string table");
}

TEST(first_string_not_empty) {
  const uint8_t bad[] = {0x32, 0x01, 'x'};
  EXPECT_THROWS(decode_raw(bad, sizeof bad), DecodeError, "string_table[0]");
}

TEST(dangling_location) {
  Profile p = small_profile();
  std::string bytes = encode_raw(p);
  // Drop all locations by re-encoding a copy whose samples reference a missing id.
  Profile q = p;
  q.locations.id = {1, 7};
  std::string b2 = encode_raw(q);
  Profile r = decode_raw(reinterpret_cast<const uint8_t*>(b2.data()), b2.size());
  EXPECT(r.locations.id[1] == 7);  // non-dense ids resolve through the hash path
  EXPECT(r.stack_locations == p.stack_locations);
}

TEST(gzip_backends_agree) {
  std::string raw = encode_raw(small_profile());
  for (auto be : {gzip::Backend::Zlib, gzip::Backend::Auto}) {
    std::string gz = gzip::deflate(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), 6, be);
    for (auto bi : {gzip::Backend::Zlib, gzip::Backend::Auto}) {
      std::string back = gzip::inflate(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), 1 << 20, bi).str();
      EXPECT(back == raw);
    }
    std::string two = gz + gz;  // multi-member
    std::string back = gzip::inflate(reinterpret_cast<const uint8_t*>(two.data()), two.size(), 1 << 20).str();
    EXPECT(back == raw + raw);
    EXPECT_THROWS(gzip::inflate(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), 16), GzipError, "limit");
    std::string cut = gz.substr(0, gz.size() - 5);
    EXPECT_THROWS(gzip::inflate(reinterpret_cast<const uint8_t*>(cut.data()), cut.size(), 1 << 20), GzipError, "");
  }
}

static std::vector<gzip::Backend> inflaters() {
  std::vector<gzip::Backend> out{gzip::Backend::Zlib, gzip::Backend::Auto};
  if (gzip::have_libdeflate()) out.push_back(gzip::Backend::Libdeflate);
  if (gzip::have_isal()) out.push_back(gzip::Backend::Isal);
  return out;
}

// A buffer kept from stream to stream (a series worker's): each inflate gives
// that stream alone, after a longer one, a multi-member one and a failure.
TEST(gzip_inflate_into_a_kept_buffer) {
  const std::string raw = encode_raw(small_profile());
  const std::string longer = raw + raw + raw;
  auto gz = [](const std::string& s) { return gzip::deflate(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  const std::string a = gz(raw), b = gz(longer), two = a + a;
  for (auto be : inflaters()) {
    gzip::Buffer kept;
    auto into = [&](const std::string& z) {
      gzip::inflate(reinterpret_cast<const uint8_t*>(z.data()), z.size(), 1 << 20, kept, be);
      return kept.str();
    };
    EXPECT(into(b) == longer);
    EXPECT(into(a) == raw);
    EXPECT(into(two) == raw + raw);
    const std::string cut = b.substr(0, b.size() - 5);
    EXPECT_THROWS(into(cut), GzipError, "");
    EXPECT(into(a) == raw);
  }
}

// Many members, each well under the limit, together over it: every backend
// must stop at the limit on the total (libdeflate once checked each member alone).
TEST(gzip_limit_holds_over_all_members) {
  std::string zeros(4000, '\0');
  std::string member = gzip::deflate(reinterpret_cast<const uint8_t*>(zeros.data()), zeros.size(), 6);
  std::string many;
  for (int i = 0; i < 24; ++i) many += member;  // 96,000 bytes inflated
  const auto* p = reinterpret_cast<const uint8_t*>(many.data());
  for (auto be : inflaters()) {
    EXPECT(gzip::inflate(p, many.size(), 96000, be).size() == 96000);  // exactly at the limit: accepted
    EXPECT_THROWS(gzip::inflate(p, many.size(), 95999, be), GzipError, "exceeds the limit of 95999");
    EXPECT_THROWS(gzip::inflate(p, many.size(), 10000, be), GzipError, "exceeds the limit of 10000");
  }
  // The edges: an empty stream fits a limit of 0, one byte does not.
  std::string empty = gzip::deflate(nullptr, 0, 6), one = gzip::deflate(reinterpret_cast<const uint8_t*>("x"), 1, 6);
  for (auto be : inflaters()) {
    EXPECT(gzip::inflate(reinterpret_cast<const uint8_t*>(empty.data()), empty.size(), 0, be).empty());
    EXPECT_THROWS(gzip::inflate(reinterpret_cast<const uint8_t*>(one.data()), one.size(), 0, be), GzipError,
                  "exceeds the limit of 0");
  }
}

// zlib takes 32-bit counts; deflate feeds it in chunks. Tiny chunks exercise the
// refill loop that a > 4 GiB input would take.
TEST(zlib_deflate_in_chunks) {
  std::string raw = encode_raw(small_profile());
  for (int i = 0; i < 6; ++i) raw += raw;
  for (size_t chunk : {size_t(1), size_t(7), size_t(4096), size_t(0)}) {
    std::string gz = gzip::detail::deflate_zlib(reinterpret_cast<const uint8_t*>(raw.data()), raw.size(), 6, chunk);
    EXPECT(gzip::inflate(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), 1 << 24).str() == raw);
  }
  std::string empty = gzip::detail::deflate_zlib(nullptr, 0, 6, 3);
  EXPECT(gzip::inflate(reinterpret_cast<const uint8_t*>(empty.data()), empty.size(), 16).empty());
}

// A profile whose samples take several MiB: small_profile's tables, 150,000
// samples with stacks of 1-40 locations, values of every varint width, and
// 0-7 labels (string and numeric, some numbers negative; none all-zero,
// which decode drops as pprof does).
static Profile many_samples() {
  Profile p = small_profile();
  p.values.clear();
  p.stack_offsets = {0};
  p.stack_locations.clear();
  p.label_offsets = {0};
  p.labels = Labels();
  uint64_t x = 88172645463325252ull;
  auto next = [&] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
  for (int s = 0; s < 150000; ++s) {
    for (size_t t = 0; t < p.num_types(); ++t) p.values.push_back(static_cast<int64_t>(next() >> (next() % 64)));
    for (uint64_t k = 1 + next() % 40; k > 0; --k) p.stack_locations.push_back(static_cast<int32_t>(next() % 2));
    p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
    for (uint64_t k = next() % 8; k > 0; --k) {
      const bool numeric = next() % 3 == 0;
      p.labels.key.push_back(static_cast<int32_t>(1 + next() % (p.strings.size() - 1)));
      p.labels.str.push_back(numeric ? -1 : static_cast<int32_t>(1 + next() % (p.strings.size() - 1)));
      p.labels.num.push_back(numeric ? static_cast<int64_t>(next() | 1) : 0);
      p.labels.num_unit.push_back(numeric ? static_cast<int32_t>(next() % p.strings.size()) : 0);
    }
    p.label_offsets.push_back(static_cast<int64_t>(p.labels.size()));
  }
  return p;
}

// The samples of a large profile are written by several threads into
// stretches sized beforehand: the bytes must not depend on how many.
TEST(encode_is_the_same_on_any_number_of_threads) {
  const Profile p = many_samples();
  std::string one;
  encode_raw_into(p, one, 1);
  EXPECT(one.size() > (size_t(4) << 20));
  for (unsigned threads : {2u, 3u, 8u, 0u}) {
    std::string more;
    encode_raw_into(p, more, threads);
    EXPECT(more == one);
  }
  Profile back = decode(reinterpret_cast<const uint8_t*>(one.data()), one.size());
  EXPECT(back.values == p.values);
  EXPECT(back.stack_locations == p.stack_locations && back.stack_offsets == p.stack_offsets);
  EXPECT(back.labels.key == p.labels.key && back.labels.num == p.labels.num);
  EXPECT(back.label_offsets == p.label_offsets);
}

// Samples over `ids` (one location per id, no lines) with stacks of 0-59
// locations drawn at random.
static Profile stacks_over_ids(const std::vector<uint64_t>& ids, uint64_t seed) {
  Profile p = small_profile();
  p.locations = Locations();
  for (uint64_t id : ids) {
    p.locations.id.push_back(id);
    p.locations.mapping.push_back(-1);
    p.locations.address.push_back(id);
    p.locations.is_folded.push_back(0);
    p.locations.line_offsets.push_back(0);
  }
  p.locations.line_offsets.push_back(0);
  p.lines = Lines();
  p.values.clear();
  p.stack_offsets = {0};
  p.stack_locations.clear();
  p.label_offsets = {0};
  p.labels = Labels();
  uint64_t x = seed;
  auto next = [&] { return x ^= x << 13, x ^= x >> 7, x ^= x << 17; };
  for (int s = 0; s < 20000; ++s) {
    p.values.insert(p.values.end(), {1, 2});
    // Runs of one width now and then, so that blocks of only short ids occur.
    const uint64_t run = next() % 4 == 0 ? next() : 0;
    for (uint64_t k = next() % 60; k > 0; --k)
      p.stack_locations.push_back(static_cast<int32_t>((run ? run % 97 : next()) % ids.size()));
    p.stack_offsets.push_back(static_cast<int64_t>(p.stack_locations.size()));
    p.label_offsets.push_back(0);
  }
  return p;
}

// Packed location ids are decoded 16 bytes at a time while they are short and
// one by one otherwise: stacks mixing ids of one to five bytes (ids past
// INT32_MAX included) read back as the encoder wrote them, on both loops
// (fewer and more than 16384 locations) and across their switches.
TEST(packed_location_ids_of_every_width) {
  std::vector<std::vector<uint64_t>> id_sets(4);
  for (uint64_t i = 1; i <= 300; ++i) id_sets[0].push_back(i);    // one and two bytes
  for (uint64_t i = 1; i <= 30000; ++i) id_sets[1].push_back(i);  // up to three bytes
  for (uint64_t w :
       {uint64_t(1), uint64_t(1) << 7, uint64_t(1) << 14, uint64_t(1) << 21, uint64_t(1) << 28, uint64_t(1) << 35})
    for (uint64_t i = 0; i < 40; ++i) id_sets[2].push_back(w + i);  // every width, sparse
  for (uint64_t i = 1; i <= 16400; ++i) id_sets[3].push_back(i);    // three-byte ids rare
  for (size_t k = 0; k < id_sets.size(); ++k) {
    const Profile p = stacks_over_ids(id_sets[k], 88172645463325252ull + k);
    const std::string bytes = encode_raw(p);
    const Profile back = decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    EXPECT(back.stack_offsets == p.stack_offsets);
    EXPECT(back.stack_locations == p.stack_locations);
    EXPECT(back.locations.id == p.locations.id);
  }
}

// Varints of three to eight bytes in sample values, addresses and function ids
// are read eight bytes at a time, longer ones and the last bytes of a message
// the general way: numbers of every width (1 to 10 bytes, negative values
// included) read back as the encoder wrote them.
TEST(long_varints_of_every_width) {
  std::vector<uint64_t> ids;
  for (int w = 0; w < 9; ++w)
    for (uint64_t i = 0; i < 5; ++i) ids.push_back((uint64_t(1) << (7 * w)) + i);
  Profile p = stacks_over_ids(ids, 2463534242ull);
  p.functions.id = {(uint64_t(1) << 35) + 3, (uint64_t(1) << 56) + 5};
  std::vector<uint64_t> numbers = {0, ~uint64_t(0)};
  for (int bit = 6; bit < 64; ++bit)
    for (uint64_t d : {uint64_t(0), uint64_t(1)}) numbers.push_back((uint64_t(1) << bit) - d);
  p.lines = Lines();
  p.locations.line_offsets = {0};
  for (size_t i = 0; i < ids.size(); ++i) {
    p.locations.address[i] = numbers[i % numbers.size()];
    p.locations.line_offsets.push_back(static_cast<int64_t>(i + 1));
    p.lines.function.push_back(static_cast<int32_t>(i % 2));
    p.lines.line.push_back(static_cast<int64_t>(numbers[(i * 7) % numbers.size()] >> 1));
    p.lines.column.push_back(0);
  }
  for (size_t i = 0; i < p.values.size(); ++i) p.values[i] = static_cast<int64_t>(numbers[(i * 5) % numbers.size()]);
  check_invariants(p);
  const std::string bytes = encode_raw(p);
  const Profile back = decode(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT(back.values == p.values);
  EXPECT(back.locations.address == p.locations.address);
  EXPECT(back.locations.id == p.locations.id);
  EXPECT(back.functions.id == p.functions.id);
  EXPECT(back.lines.line == p.lines.line);
  EXPECT(back.stack_locations == p.stack_locations);
}

// ISA-L's level 1 deflates inputs of 2 MiB and more in 1 MiB pieces on
// several threads: every inflater reads the joined stream back, and the bytes
// do not depend on the thread count. Sizes around the piece boundaries.
TEST(isal_deflate_in_pieces) {
  if (!gzip::have_isal()) return;
  std::string data = encode_raw(many_samples());
  for (size_t n :
       {(size_t(2) << 20) - 1, size_t(2) << 20, (size_t(2) << 20) + 1, (size_t(3) << 20) + 12345, data.size()}) {
    const auto* in = reinterpret_cast<const uint8_t*>(data.data());
    const std::string one = gzip::detail::deflate_isal(in, n, 1);
    for (unsigned threads : {2u, 3u, 0u}) EXPECT(gzip::detail::deflate_isal(in, n, threads) == one);
    for (auto be : inflaters()) {
      const gzip::Buffer back =
          gzip::inflate(reinterpret_cast<const uint8_t*>(one.data()), one.size(), size_t(1) << 30, be);
      EXPECT(back.size() == n && std::memcmp(back.data(), in, n) == 0);
    }
  }
}

int main() { return check::run_all(); }
