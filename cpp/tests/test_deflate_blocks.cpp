// C++ unit tests of deflate_blocks (where a deflate stream's final block lies)
// against zlib's inflate, which stops at block boundaries when asked
// (Z_BLOCK) and says where, and of libdeflate's deflate in pieces that the
// final block's position makes joinable.
#include <zlib.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "check.hpp"
#include "pprofcore/deflate_blocks.hpp"
#include "pprofcore/gzip.hpp"

using namespace pprofcore;

namespace {

struct ZlibFinal {
  bool ok = false;
  size_t header_bit = 0, end_bit = 0;
};

// zlib's answer: inflate block by block; a boundary is total_in bytes less
// the unused bits of the last one, and the one after the last block is the
// end (data_type: 128 at a boundary, 64 once the last block has begun).
ZlibFinal zlib_final(const std::string& s) {
  ZlibFinal r;
  z_stream z;
  std::memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -15) != Z_OK) return r;
  std::vector<unsigned char> out(1 << 16);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = static_cast<uInt>(s.size());
  size_t previous = 0;
  for (int guard = 0; guard < 1000000; ++guard) {
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_BLOCK);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    if (z.data_type & 128) {
      const size_t at = z.total_in * 8 - static_cast<size_t>(z.data_type & 7);
      if (z.data_type & 64) {
        r = {true, previous, at};
        break;
      }
      previous = at;
    } else if (z.avail_in == 0 && z.avail_out != 0) {
      break;  // input ended inside a block
    }
  }
  inflateEnd(&z);
  return r;
}

std::string zlib_raw(const std::string& in, int level, int strategy, bool flush_halfway) {
  z_stream z;
  std::memset(&z, 0, sizeof z);
  deflateInit2(&z, level, Z_DEFLATED, -15, 8, strategy);
  std::string out(deflateBound(&z, static_cast<uLong>(in.size())) + 64, '\0');
  z.next_out = reinterpret_cast<Bytef*>(&out[0]);
  z.avail_out = static_cast<uInt>(out.size());
  const size_t half = flush_halfway ? in.size() / 2 : 0;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  if (half) {
    z.avail_in = static_cast<uInt>(half);
    ::deflate(&z, Z_SYNC_FLUSH);
  }
  z.avail_in = static_cast<uInt>(in.size() - half);
  ::deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string raw_inflate(const std::string& s) {
  z_stream z;
  std::memset(&z, 0, sizeof z);
  inflateInit2(&z, -15);
  std::string out;
  std::vector<unsigned char> buf(1 << 16);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  z.avail_in = static_cast<uInt>(s.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = buf.data();
    z.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(reinterpret_cast<char*>(buf.data()), buf.size() - z.avail_out);
  }
  inflateEnd(&z);
  return rc == Z_STREAM_END ? out : std::string("<error>");
}

// Inputs that make every kind of block: stored (random bytes), fixed codes
// (short or Z_FIXED), dynamic codes with long and short matches, and long
// runs (one symbol repeated: codes of one or two lengths).
std::vector<std::string> inputs() {
  std::mt19937 rng(7);
  std::vector<std::string> v = {"", "a", "hello, hello, hello world"};
  std::string random(70000, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  v.push_back(random);
  std::string text;
  const char* words[] = {"runtime.mallocgc ", "main.work ", "sync.(*Mutex).Lock ", "net/http.(*conn).serve "};
  while (text.size() < 300000) text += words[rng() % 4] + std::to_string(rng() % 1000);
  v.push_back(text);
  v.push_back(std::string(200000, 'z'));
  v.push_back(random.substr(0, 5000) + std::string(100000, '\0') + text.substr(0, 50000));
  return v;
}

std::vector<std::string> streams() {
  std::vector<std::string> v;
  for (const std::string& in : inputs())
    for (int level : {0, 1, 6, 9})
      for (int strategy : {Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE})
        for (bool flush : {false, true}) v.push_back(zlib_raw(in, level, strategy, flush));
  return v;
}

}  // namespace

// Every kind of block zlib writes: the same final block, to the bit.
TEST(final_block_matches_zlib) {
  for (const std::string& s : streams()) {
    const ZlibFinal want = zlib_final(s);
    EXPECT(want.ok);
    deflate::FinalBlock got;
    EXPECT(deflate::find_final_block(reinterpret_cast<const uint8_t*>(s.data()), s.size(), got));
    EXPECT(got.header_bit == want.header_bit && got.end_bit == want.end_bit);
    EXPECT((got.end_bit + 7) / 8 == s.size());
  }
}

// Cut short anywhere, a stream's final block never ends inside the input.
TEST(truncated_streams_are_refused) {
  const std::vector<std::string> all = streams();
  for (size_t k = 0; k < all.size(); k += 5) {
    const std::string& s = all[k];
    for (size_t len = 0; len < s.size(); len += 1 + len / 3) {
      deflate::FinalBlock got;
      EXPECT(!deflate::find_final_block(reinterpret_cast<const uint8_t*>(s.data()), len, got));
    }
  }
}

// Bits flipped at random: wherever zlib still reads a whole stream, the same
// final block; anything else is refused or found, never read out of bounds
// (the sanitizer build runs this).
TEST(damaged_streams_agree_with_zlib) {
  std::mt19937 rng(11);
  const std::vector<std::string> all = streams();
  size_t agreed = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string s = all[rng() % all.size()];
    if (s.empty()) continue;
    for (int flips = 1 + rng() % 3; flips > 0; --flips) s[rng() % s.size()] ^= static_cast<char>(1u << (rng() % 8));
    if (rng() % 4 == 0) s.resize(rng() % (s.size() + 1));
    deflate::FinalBlock got;
    const bool found = deflate::find_final_block(reinterpret_cast<const uint8_t*>(s.data()), s.size(), got);
    if (found) EXPECT(got.header_bit < got.end_bit && got.end_bit <= 8 * s.size());
    const ZlibFinal want = zlib_final(s);
    if (want.ok) {
      ++agreed;
      EXPECT(found && got.header_bit == want.header_bit && got.end_bit == want.end_bit);
    }
  }
  EXPECT(agreed > 100);  // the damage left enough streams whole to compare
}

// libdeflate deflates inputs of 2 MiB and more in 1 MiB pieces joined into
// one gzip member: every inflater (and zlib, which stops after a first
// member) reads it back whole, and the bytes do not depend on the thread
// count. Sizes around the piece boundaries; random bytes make stored blocks.
TEST(libdeflate_deflate_in_pieces) {
  if (!gzip::have_libdeflate()) return;
  const std::string text = inputs()[4];
  std::string big;
  while (big.size() < (size_t(5) << 20)) big += text;
  std::mt19937 rng(3);
  std::string random(size_t(3) << 20, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  const std::string zeros(size_t(5) << 20, '\0');
  std::vector<std::pair<const std::string*, size_t>> cases;
  for (size_t n :
       {(size_t(2) << 20) - 1, size_t(2) << 20, (size_t(2) << 20) + 1, (size_t(3) << 20) + 12345, big.size()})
    cases.emplace_back(&big, n);
  cases.emplace_back(&random, random.size());
  cases.emplace_back(&zeros, zeros.size());
  for (auto [data, n] : cases) {
    const auto* in = reinterpret_cast<const uint8_t*>(data->data());
    bool in_pieces = false;
    const std::string one = gzip::detail::deflate_libdeflate(in, n, 6, 1, &in_pieces);
    EXPECT(in_pieces == (n >= (size_t(2) << 20)));
    for (unsigned threads : {2u, 3u, 0u}) EXPECT(gzip::detail::deflate_libdeflate(in, n, 6, threads) == one);
    EXPECT(gzip::deflate(in, n, 6) == one);
    EXPECT(raw_inflate(one.substr(10, one.size() - 18)) == data->substr(0, n));  // one stream, whole
    for (auto be : {gzip::Backend::Zlib, gzip::Backend::Libdeflate, gzip::Backend::Isal}) {
      if (be == gzip::Backend::Isal && !gzip::have_isal()) continue;
      const gzip::Buffer back =
          gzip::inflate(reinterpret_cast<const uint8_t*>(one.data()), one.size(), size_t(1) << 30, be);
      EXPECT(back.size() == n && std::memcmp(back.data(), in, n) == 0);
    }
  }
}

int main() { return check::run_all(); }
