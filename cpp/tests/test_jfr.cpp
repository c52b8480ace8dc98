// C++ unit tests of the JFR reader (cpp/src/jfr): the integers of a chunk,
// strings, timestamps, constant pools, several chunks and damaged input.
// Recordings are written here (a small writer after the chunk format); the
// Python tests compare JDK recordings with `jfr print --json`.
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../src/jfr/chunk.hpp"
#include "check.hpp"
#include "pprofcore/errors.hpp"
#include "pprofcore/jfr.hpp"

using namespace pprofcore;
using jfr::Chunk;
using jfr::Reader;

namespace {

// The integers and strings of a chunk, varints (compressed) or big-endian.
struct Writer {
  bool compressed = true;
  std::string out;

  void byte(uint8_t b) { out.push_back(static_cast<char>(b)); }
  void varint(uint64_t v) {  // 9 bytes at most, the 9th holding 8 bits
    for (int i = 0; i < 8 && v >= 0x80; ++i, v >>= 7) byte(static_cast<uint8_t>((v & 0x7f) | 0x80));
    byte(static_cast<uint8_t>(v));
  }
  void fixed(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i32(int32_t v) { compressed ? varint(static_cast<uint32_t>(v)) : fixed(static_cast<uint32_t>(v), 4); }
  void i64(int64_t v) { compressed ? varint(static_cast<uint64_t>(v)) : fixed(static_cast<uint64_t>(v), 8); }
  void str(std::string_view s) {
    byte(3);  // UTF-8 bytes
    i32(static_cast<int32_t>(s.size()));
    out += s;
  }
};

struct FieldDef {
  const char* name;
  int64_t type;
  bool pool = false, array = false;
};

struct ClassDef {
  int64_t id;
  const char* name;
  std::vector<FieldDef> fields;
};

enum : int64_t {
  kLong = 10,
  kInt = 11,
  kBoolean = 12,
  kString = 13,
  kThread = 20,
  kSymbol = 21,
  kClass = 22,
  kMethod = 23,
  kFrameType = 24,
  kFrame = 25,
  kStack = 26,
  kExecutionSample = 100,
  kAllocationSample = 101,
  kUndescribed = 77,
};

const std::vector<ClassDef>& types() {
  static const std::vector<ClassDef> t = {
      {kLong, "long", {}},
      {kInt, "int", {}},
      {kBoolean, "boolean", {}},
      {kString, "java.lang.String", {}},
      {kThread, "java.lang.Thread", {{"osName", kString}, {"javaName", kString}, {"javaThreadId", kLong}}},
      {kSymbol, "jdk.types.Symbol", {{"string", kString}}},
      {kClass, "java.lang.Class", {{"name", kSymbol, true}}},
      {kMethod, "jdk.types.Method", {{"type", kClass, true}, {"name", kSymbol, true}, {"descriptor", kSymbol, true}}},
      {kFrameType, "jdk.types.FrameType", {{"description", kString}}},
      {kFrame,
       "jdk.types.StackFrame",
       {{"method", kMethod, true}, {"lineNumber", kInt}, {"bytecodeIndex", kInt}, {"type", kFrameType, true}}},
      {kStack, "jdk.types.StackTrace", {{"truncated", kBoolean}, {"frames", kFrame, false, true}}},
      {kExecutionSample,
       "jdk.ExecutionSample",
       {{"startTime", kLong}, {"sampledThread", kThread, true}, {"stackTrace", kStack, true}}},
      {kAllocationSample,
       "jdk.ObjectAllocationSample",
       {{"startTime", kLong},
        {"eventThread", kThread, true},
        {"stackTrace", kStack, true},
        {"objectClass", kClass, true},
        {"weight", kLong}}},
  };
  return t;
}

// An event: its size (four varint bytes, as the JDK pads it), type id, body.
std::string event(bool compressed, int64_t type, const std::string& body) {
  Writer w{compressed};
  w.i64(type);
  const std::string inner = w.out + body;
  const auto size = static_cast<uint32_t>(inner.size() + 4);
  Writer head{compressed};
  if (compressed) {
    for (int i = 0; i < 3; ++i) head.byte(static_cast<uint8_t>(((size >> (7 * i)) & 0x7f) | 0x80));
    head.byte(static_cast<uint8_t>(size >> 21));
  } else {
    head.fixed(size, 4);
  }
  return head.out + inner;
}

std::string metadata(bool compressed) {
  std::vector<std::string> strings;
  const auto code = [&](const std::string& s) {
    for (size_t i = 0; i < strings.size(); ++i)
      if (strings[i] == s) return static_cast<int32_t>(i);
    strings.push_back(s);
    return static_cast<int32_t>(strings.size() - 1);
  };
  Writer tree{compressed};
  const auto element = [&](const char* name, const std::vector<std::pair<std::string, std::string>>& attributes,
                           size_t children) {
    tree.i32(code(name));
    tree.i32(static_cast<int32_t>(attributes.size()));
    for (const auto& [k, v] : attributes) tree.i32(code(k)), tree.i32(code(v));
    tree.i32(static_cast<int32_t>(children));
  };
  element("root", {}, 1);
  element("metadata", {}, types().size());
  for (const ClassDef& c : types()) {
    element("class", {{"name", c.name}, {"id", std::to_string(c.id)}}, c.fields.size());
    for (const FieldDef& f : c.fields) {
      std::vector<std::pair<std::string, std::string>> a = {{"name", f.name}, {"class", std::to_string(f.type)}};
      if (f.pool) a.emplace_back("constantPool", "true");
      if (f.array) a.emplace_back("dimension", "1");
      element("field", a, 0);
    }
  }
  Writer w{compressed};
  w.i64(0), w.i64(0), w.i64(1);  // start time, duration, metadata id
  w.i32(static_cast<int32_t>(strings.size()));
  for (const std::string& s : strings) w.str(s);
  return event(compressed, 0, w.out + tree.out);
}

constexpr int64_t kStartNanos = 1700000000000000000, kStartTicks = 5000, kTicksPerSecond = 1000000;

// A chunk of `body` (events and checkpoints) with its header and metadata.
std::string chunk(bool compressed, const std::string& body) {
  const std::string meta = metadata(compressed);
  Writer h{false};
  h.out = std::string("FLR\0", 4);
  h.fixed(2, 2), h.fixed(0, 2);  // version 2.0
  h.fixed(68 + body.size() + meta.size(), 8);
  h.fixed(68, 8);  // the first checkpoint (not read: every event is scanned)
  h.fixed(68 + body.size(), 8);
  h.fixed(kStartNanos, 8), h.fixed(1000000000, 8), h.fixed(kStartTicks, 8), h.fixed(kTicksPerSecond, 8);
  h.fixed(compressed ? 1 : 0, 4);
  return h.out + body + meta;
}

// A checkpoint of pools, each (type id, entry count, entries as written).
std::string checkpoint(bool compressed, const std::vector<std::tuple<int64_t, int, std::string>>& pools) {
  Writer w{compressed};
  w.i64(0), w.i64(0), w.i64(0);
  w.byte(1);  // a flush
  w.i32(static_cast<int32_t>(pools.size()));
  for (const auto& [type, n, entries] : pools) {
    w.i64(type);
    w.i32(n);
    w.out += entries;
  }
  return event(compressed, 1, w.out);
}

// The constant pools of a recording of one program: threads 1 (main) and 2
// (a worker known by its OS name only); stack 1 is A.leaf inlined into A.mid
// called by A.main, stack 2 a truncated A.main. `tag` is added to the thread
// names, so that each chunk of a recording can have its own.
std::string program_pools(bool compressed, const std::string& tag = "") {
  Writer threads{compressed}, symbols{compressed}, classes{compressed}, methods{compressed}, frame_types{compressed},
      stacks{compressed};
  threads.i64(1), threads.str("main-os" + tag), threads.str("main" + tag), threads.i64(1);
  threads.i64(2), threads.str("w-os" + tag), threads.byte(0), threads.i64(7);  // no Java name (null)
  const char* names[] = {"com/example/A", "leaf", "mid", "main", "()V", "java/lang/String"};
  for (int i = 0; i < 6; ++i) symbols.i64(i + 1), symbols.str(names[i]);
  classes.i64(1), classes.i64(1);
  classes.i64(2), classes.i64(6);
  for (int m = 1; m <= 3; ++m) methods.i64(m), methods.i64(1), methods.i64(m + 1), methods.i64(5);
  const char* kinds[] = {"Interpreted", "Inlined", "JIT compiled"};
  for (int i = 0; i < 3; ++i) frame_types.i64(i + 1), frame_types.str(kinds[i]);
  const auto frame = [&](int64_t method, int32_t line, int64_t type) {
    stacks.i64(method), stacks.i32(line), stacks.i32(0), stacks.i64(type);
  };
  stacks.i64(1), stacks.byte(0), stacks.i32(3);
  frame(1, 5, 2), frame(2, 10, 3), frame(3, 20, 1);
  stacks.i64(2), stacks.byte(1), stacks.i32(1);
  frame(3, 21, 1);
  return checkpoint(compressed, {{kThread, 2, threads.out},
                                 {kSymbol, 6, symbols.out},
                                 {kClass, 2, classes.out},
                                 {kMethod, 3, methods.out},
                                 {kFrameType, 3, frame_types.out},
                                 {kStack, 2, stacks.out}});
}

std::string cpu_sample(bool compressed, int64_t ticks, int64_t thread, int64_t stack) {
  Writer w{compressed};
  w.i64(ticks), w.i64(thread), w.i64(stack);
  return event(compressed, kExecutionSample, w.out);
}

std::string allocation(bool compressed, int64_t ticks, int64_t thread, int64_t stack, int64_t klass, int64_t weight) {
  Writer w{compressed};
  w.i64(ticks), w.i64(thread), w.i64(stack), w.i64(klass), w.i64(weight);
  return event(compressed, kAllocationSample, w.out);
}

Profile read(const std::string& s) { return jfr::read(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

// The error reading `s` raises (offset -2: none).
DecodeError error_of(const std::string& s) {
  try {
    read(s);
  } catch (const DecodeError& e) {
    return e;
  }
  return DecodeError("(no error)", "", -2);
}

// The string label `key` of sample i ("" if none) and a numeric one (-1).
std::string label(const Profile& p, size_t i, std::string_view key) {
  for (auto j = p.label_offsets[i]; j < p.label_offsets[i + 1]; ++j)
    if (p.str(p.labels.key[static_cast<size_t>(j)]) == key && p.labels.str[static_cast<size_t>(j)] >= 0)
      return std::string(p.str(p.labels.str[static_cast<size_t>(j)]));
  return "";
}
int64_t number(const Profile& p, size_t i, std::string_view key) {
  for (auto j = p.label_offsets[i]; j < p.label_offsets[i + 1]; ++j)
    if (p.str(p.labels.key[static_cast<size_t>(j)]) == key && p.labels.str[static_cast<size_t>(j)] < 0)
      return p.labels.num[static_cast<size_t>(j)];
  return -1;
}

// The function names of sample i's stack, leaf first, inline lines as "a+b".
std::vector<std::string> frames(const Profile& p, size_t i) {
  std::vector<std::string> out;
  for (auto k = p.stack_offsets[i]; k < p.stack_offsets[i + 1]; ++k) {
    const auto loc = static_cast<size_t>(p.stack_locations[static_cast<size_t>(k)]);
    std::string f;
    for (auto l = p.locations.line_offsets[loc]; l < p.locations.line_offsets[loc + 1]; ++l)
      f += (f.empty() ? "" : "+") +
           std::string(p.str(p.functions.name[static_cast<size_t>(p.lines.function[static_cast<size_t>(l)])]));
    out.push_back(f);
  }
  return out;
}

// Bytes to read, and a Reader over them from `at` (a prefix of zeros stands
// for what precedes them in a file, so offsets are as in one).
struct Input {
  std::string bytes;
  Reader reader(bool compressed, size_t at = 0) const {
    return Reader(reinterpret_cast<const uint8_t*>(bytes.data()), at, bytes.size(), compressed);
  }
};

}  // namespace

TEST(varints_of_every_length) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128}, uint64_t{16383}, uint64_t{16384},
                     uint64_t{1} << 35, (uint64_t{1} << 56) - 1, uint64_t{1} << 56, ~uint64_t{0}}) {
    Writer w;
    w.varint(v);
    const Input in{w.out};  // outlives the reader, which points into it
    Reader r = in.reader(true);
    EXPECT(r.varint() == v);
    EXPECT(r.pos() == w.out.size());
  }
  // Nine bytes at most: the ninth holds eight bits, its high bit is no continuation.
  const std::string nine(9, '\xff');
  const Input in{nine + "\x05"};
  Reader r = in.reader(true);
  EXPECT(r.varint() == ~uint64_t{0} && r.pos() == 9);
  // An int's varint wraps to 32 bits, a short's to 16, as the JDK writes them.
  Writer w;
  w.varint(0xffffffffu), w.varint(0xffff);
  const Input ints{w.out};
  Reader s = ints.reader(true);
  EXPECT(s.i32() == -1 && s.i16() == -1);
}

TEST(integers_that_run_out_name_their_offset) {
  const Input in{std::string(1000, '\0') + "\x80\x80"};
  Reader r = in.reader(true, 1000);
  try {
    r.varint();
    EXPECT(false);
  } catch (const DecodeError& e) {
    EXPECT(e.offset() == 1002);
    EXPECT(std::string(e.what()).find("inside an integer") != std::string::npos);
  }
  const Input short_int{std::string("\x00\x00\x01", 3)};
  Reader fixed = short_int.reader(false);
  EXPECT_THROWS(fixed.i32(), DecodeError, "inside an integer");
  // Counts: never negative, never more than the bytes left (offset: the count's).
  Writer w;
  w.varint(0xffffffffu);
  const Input negative{std::string(7, '\0') + w.out};
  Reader neg = negative.reader(true, 7);
  try {
    neg.count("array", "frames");
    EXPECT(false);
  } catch (const DecodeError& e) {
    EXPECT(e.offset() == 7);
    EXPECT(std::string(e.what()).find("array frames count -1") != std::string::npos);
  }
  const Input too_many{"\x05\x01\x02"};
  Reader big = too_many.reader(true);
  EXPECT_THROWS(big.count("string byte"), DecodeError, "larger than the rest of the chunk");
}

TEST(big_endian_integers) {
  Writer w{false};
  w.i32(-2), w.i64(int64_t{1} << 40), w.fixed(0x1234, 2);
  const Input in{w.out};
  Reader r = in.reader(false);
  EXPECT(r.i32() == -2 && r.i64() == int64_t{1} << 40 && r.i16() == 0x1234 && r.pos() == 14);
}

TEST(timestamps_match_exact_wide_arithmetic) {
  // floor((ticks - start) * 1e9 / tps) + start_nanos, wrapped to 64 bits:
  // the 64-bit shortcuts must agree with 128-bit arithmetic everywhere.
  const auto reference = [](__int128 a, int64_t tps) {
    const __int128 num = a * 1000000000;
    __int128 q = num / tps;
    if (num % tps != 0 && ((num < 0) != (tps < 0))) --q;
    return static_cast<uint64_t>(q);
  };
  std::mt19937_64 rng(5);
  Chunk c;
  for (int64_t tps : {int64_t{1000000000}, int64_t{1000000}, int64_t{2899999999}, int64_t{1}, int64_t{30000000000},
                      int64_t{-7}, INT64_MAX}) {
    c.ticks_per_second = tps;
    for (int i = 0; i < 2000; ++i) {
      const auto ticks = static_cast<int64_t>(rng() >> (rng() % 64)) * (rng() % 2 ? 1 : -1);
      c.start_ticks = i % 3 == 0 ? 0 : static_cast<int64_t>(rng() >> (rng() % 64));
      c.start_nanos = static_cast<int64_t>(rng());
      const uint64_t want =
          static_cast<uint64_t>(c.start_nanos) + reference(static_cast<__int128>(ticks) - c.start_ticks, tps);
      EXPECT(static_cast<uint64_t>(c.ticks_to_nanos(ticks)) == want);
      EXPECT(static_cast<uint64_t>(c.duration_nanos(ticks)) == reference(ticks, tps));
    }
  }
  c.ticks_per_second = 0;  // a header without a clock: nanoseconds
  c.start_ticks = 10, c.start_nanos = 100;
  EXPECT(c.ticks_to_nanos(15) == 105 && c.duration_nanos(-3) == -3);
}

TEST(strings_in_every_encoding) {
  Chunk c;
  c.classes[kString] = jfr::Class{"java.lang.String", {}, jfr::Primitive::kString};
  c.string_type = kString;
  c.string_class = &c.classes[kString];
  Writer w;
  w.byte(0);             // null
  w.byte(1);             // empty
  w.str("caf\xc3\xa9");  // UTF-8
  w.byte(3), w.i32(3),
      w.out +=
      "a\xff"
      "b";                                                                 // invalid UTF-8
  w.byte(5), w.i32(2), w.out += "\xe9\x41";                                // Latin-1
  w.byte(4), w.i32(3), w.varint(0x20ac), w.varint(0xd800), w.varint('z');  // UTF-16 units, a lone surrogate
  jfr::Values vals;
  const Input in{w.out};
  Reader r = in.reader(true);
  std::vector<std::string> got;
  for (int i = 0; i < 6; ++i) got.emplace_back(c.text(c.value(vals, kString, c.parse(r, kString, vals, 0))));
  EXPECT(got[0].empty() && got[1].empty());
  EXPECT(got[2] == "caf\xc3\xa9");
  EXPECT(got[3] ==
         "a\xef\xbf\xbd"
         "b");
  EXPECT(got[4] ==
         "\xc3\xa9"
         "A");
  EXPECT(got[5] == "\xe2\x82\xac\xef\xbf\xbdz");
  EXPECT(r.pos() == w.out.size());
  const Input unknown{"\x09"};
  Reader bad = unknown.reader(true);
  EXPECT_THROWS(c.parse(bad, kString, vals, 0), DecodeError, "unknown string encoding 9");
}

TEST(a_written_recording_in_both_integer_encodings) {
  for (bool compressed : {true, false}) {
    const Profile p =
        read(chunk(compressed, cpu_sample(compressed, kStartTicks + 1000, 1, 1) + program_pools(compressed) +
                                   cpu_sample(compressed, kStartTicks + 2000, 2, 2) +
                                   allocation(compressed, kStartTicks + 3000, 1, 1, 2, 1024)));
    check_invariants(p);
    EXPECT(p.num_samples() == 3 && p.num_types() == 3);
    EXPECT(p.str(p.sample_type_type[0]) == "cpu_samples" && p.str(p.sample_type_type[2]) == "alloc_space");
    EXPECT((p.values == std::vector<int64_t>{1, 0, 0, 1, 0, 0, 0, 1, 1024}));
    // A.leaf inlined into A.mid: one location of two lines, innermost first.
    EXPECT((frames(p, 0) == std::vector<std::string>{"com.example.A.leaf+com.example.A.mid", "com.example.A.main"}));
    EXPECT((frames(p, 1) == std::vector<std::string>{"com.example.A.main", "[truncated]"}));
    EXPECT(label(p, 0, "thread") == "main" && number(p, 0, "thread_id") == 1);
    EXPECT(label(p, 1, "thread") == "w-os" && number(p, 1, "thread_id") == 7);  // no Java name: the OS one
    EXPECT(label(p, 2, "class") == "java.lang.String" && label(p, 2, "allocation") == "sample");
    // One tick per microsecond from the chunk's start.
    EXPECT(number(p, 0, "timestamp_ns") == kStartNanos + 1000000 &&
           number(p, 2, "timestamp_ns") == kStartNanos + 3000000);
    EXPECT(p.time_nanos == kStartNanos + 1000000 && p.duration_nanos == 2000000);
  }
}

TEST(constant_pool_references) {
  // A key with no entry is null, as `jfr print` shows it: no stack, no thread.
  Profile p = read(chunk(true, program_pools(true) + cpu_sample(true, kStartTicks, 9, 9)));
  EXPECT(p.num_samples() == 1 && p.stack_offsets[1] == 0 && label(p, 0, "thread").empty());
  // A pool of a type the metadata does not describe cannot be read past.
  Writer entry;
  entry.i64(1), entry.i64(5);
  const std::string undescribed = checkpoint(true, {{kUndescribed, 1, entry.out}});
  const std::string rec = chunk(true, undescribed + cpu_sample(true, kStartTicks, 1, 1));
  const DecodeError e = error_of(rec);
  EXPECT(std::string(e.what()).find("type id 77") != std::string::npos);
  EXPECT(e.offset() > 68 && e.offset() < 68 + static_cast<int64_t>(undescribed.size()));
  // An entry count beyond the checkpoint's bytes.
  Writer none;
  EXPECT(std::string(error_of(chunk(true, checkpoint(true, {{kThread, 1000, none.out}}))).what())
             .find("constant pool entry count 1000") != std::string::npos);
  // Entries of a later checkpoint join the pools of the chunk: a stack defined
  // after the events that use it still resolves.
  p = read(chunk(true, cpu_sample(true, kStartTicks, 1, 1) + program_pools(true)));
  EXPECT(frames(p, 0).size() == 2 && label(p, 0, "thread") == "main");
}

TEST(pool_keys_of_any_size) {
  // Small keys are cached in an array no longer than the chunk, others in a
  // hash index; -1 is a key too.
  Writer threads;
  const int64_t keys[] = {3, 70000, int64_t{1} << 40, -1};
  for (int64_t key : keys) threads.i64(key), threads.str("os"), threads.str("t" + std::to_string(key)), threads.i64(9);
  std::string events;
  for (int round = 0; round < 2; ++round)
    for (int64_t key : keys) events += cpu_sample(true, kStartTicks, key, 1);
  const Profile p = read(chunk(true, program_pools(true) + checkpoint(true, {{kThread, 4, threads.out}}) + events));
  EXPECT(p.num_samples() == 8);
  for (size_t i = 0; i < 8; ++i) EXPECT(label(p, i, "thread") == "t" + std::to_string(keys[i % 4]));
}

TEST(truncated_and_damaged_chunks) {
  const std::string rec = chunk(true, program_pools(true) + cpu_sample(true, kStartTicks + 1, 1, 1));
  DecodeError e = error_of(rec.substr(0, 40));
  EXPECT(std::string(e.what()).find("chunk header is truncated") != std::string::npos && e.offset() == 0);
  e = error_of(rec.substr(0, rec.size() - 1));
  EXPECT(std::string(e.what()).find("runs past the end of the input") != std::string::npos && e.offset() == 0);
  std::string bad_magic = rec;
  bad_magic[1] = 'X';
  EXPECT(std::string(error_of(bad_magic).what()).find("magic") != std::string::npos);
  // An event whose size runs past the chunk: the error is at that event.
  std::string oversized = rec;
  oversized[68] = '\xff', oversized[69] = '\xff', oversized[70] = '\xff', oversized[71] = '\x7f';
  e = error_of(oversized);
  EXPECT(std::string(e.what()).find("event size") != std::string::npos && e.offset() == 68);
  // Every cut of the chunk's declared size is an error naming an offset in it, never a crash.
  for (size_t cut = 68; cut < rec.size(); cut += 3) {
    std::string shorter = rec.substr(0, cut);
    Writer size{false};
    size.fixed(cut, 8);
    shorter.replace(8, 8, size.out);
    e = error_of(shorter);
    EXPECT(e.offset() >= 0 && e.offset() <= static_cast<int64_t>(cut));
  }
}

TEST(several_chunks_each_with_its_own_pools) {
  // The same pool keys mean other threads in the second chunk.
  const std::string first = chunk(true, program_pools(true, "-1") + cpu_sample(true, kStartTicks, 1, 1));
  const std::string second = chunk(
      false, program_pools(false, "-2") + cpu_sample(false, kStartTicks, 1, 2) + cpu_sample(false, kStartTicks, 2, 1));
  const Profile p = read(first + second + first);
  check_invariants(p);
  EXPECT(p.num_samples() == 4);
  EXPECT(label(p, 0, "thread") == "main-1" && label(p, 1, "thread") == "main-2");
  EXPECT(label(p, 2, "thread") == "w-os-2" && label(p, 3, "thread") == "main-1");
  EXPECT(frames(p, 1).size() == 2 && frames(p, 2).size() == 2 && frames(p, 1) != frames(p, 2));
  // Functions and locations are shared across chunks.
  EXPECT(p.functions.size() == 4 && p.locations.size() == 4);
  // An error in a later chunk names its offset in the whole input.
  std::string damaged = first + second;
  damaged[first.size() + 2] = 'X';
  const DecodeError e = error_of(damaged);
  EXPECT(std::string(e.what()).find("magic") != std::string::npos && e.offset() == static_cast<int64_t>(first.size()));
}

TEST(many_events_and_deep_stacks_over_chunks_of_different_sizes) {
  // Columns are sized ahead from the events per byte of the chunks read so
  // far: a small first chunk, then one of many events with stacks deeper
  // than the first guess, must still give every sample its own stack.
  Writer deep;
  deep.i64(3), deep.byte(0), deep.i32(100);
  for (int i = 0; i < 100; ++i) deep.i64(1 + i % 3), deep.i32(i + 1), deep.i32(0), deep.i64(1);
  const std::string pools = program_pools(true) + checkpoint(true, {{kStack, 1, deep.out}});
  std::string many;
  constexpr int kMany = 70000;
  for (int i = 0; i < kMany; ++i) many += cpu_sample(true, kStartTicks + i, 1 + i % 2, i % 5 == 0 ? 1 : 3);
  const Profile p = read(chunk(true, pools + cpu_sample(true, kStartTicks, 1, 1)) + chunk(true, pools + many));
  check_invariants(p);
  EXPECT(p.num_samples() == kMany + 1);
  bool depths = frames(p, 0).size() == 2;
  for (size_t i = 1; i <= kMany; ++i)
    depths = depths && p.stack_offsets[i + 1] - p.stack_offsets[i] == ((i - 1) % 5 == 0 ? 2 : 100);
  EXPECT(depths);
  EXPECT(number(p, kMany, "timestamp_ns") == kStartNanos + (kMany - 1) * 1000);
  EXPECT(label(p, kMany, "thread") == "w-os" && label(p, kMany - 1, "thread") == "main");
}

TEST(a_recording_without_the_events_read_is_refused_by_name) {
  EXPECT_THROWS(read(chunk(true, program_pools(true))), DecodeError, "jdk.ExecutionSample");
  EXPECT(jfr::looks_like_jfr(reinterpret_cast<const uint8_t*>("FLR\0\0"), 5));
  EXPECT(!jfr::looks_like_jfr(reinterpret_cast<const uint8_t*>("FLR"), 3));
}

int main() { return check::run_all(); }
