// chunk: one JFR chunk read generically, as its metadata describes it: the
// header, the classes and their fields, the constant pools, and where each
// event of a wanted type lies. Values are kept in an arena of int64 slots
// (Values) and reached through Handles; nothing here knows what an event
// means (to_profile.cpp does).
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pprofcore::jfr {

// Reads the integers of one chunk: LEB128 varints when the chunk says so,
// else big-endian. Every read stays below `end`; errors name the byte offset
// in the whole input.
class Reader {
 public:
  Reader(const uint8_t* data, size_t pos, size_t end, bool compressed)
      : data_(data), pos_(pos), end_(end), compressed_(compressed) {}

  [[noreturn]] void fail(const std::string& reason, size_t at) const;
  [[noreturn]] void fail(const std::string& reason) const { fail(reason, pos_); }

  uint8_t byte() {
    if (pos_ >= end_) fail("unexpected end of the chunk");
    return data_[pos_++];
  }
  // An unsigned LEB128 of up to 9 bytes (the 9th holds 8 bits).
  uint64_t varint() {
    if (pos_ < end_ && data_[pos_] < 0x80) return data_[pos_++];
    uint64_t v = 0;
    for (int i = 0; i < 9; ++i) {
      if (pos_ >= end_) fail("unexpected end of the chunk inside an integer");
      const uint8_t b = data_[pos_++];
      if (i == 8) return v | (static_cast<uint64_t>(b) << 56);
      v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if (b < 0x80) break;
    }
    return v;
  }
  uint64_t fixed(size_t n) {
    if (end_ - pos_ < n) fail("unexpected end of the chunk inside an integer");
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | data_[pos_ + i];
    pos_ += n;
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(compressed_ ? varint() : fixed(8)); }
  int32_t i32() { return static_cast<int32_t>(static_cast<uint32_t>(compressed_ ? varint() : fixed(4))); }
  int16_t i16() { return static_cast<int16_t>(static_cast<uint16_t>(compressed_ ? varint() : fixed(2))); }
  // A length or count: never negative, never more than the bytes left; the
  // error names `what` (and `name`, e.g. the array's field).
  size_t count(const char* what, std::string_view name = {});
  // Raw big-endian bytes (floats and doubles are never varints).
  uint64_t raw(size_t n) {
    if (end_ - pos_ < n) fail("unexpected end of the chunk inside a number");
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | data_[pos_ + i];
    pos_ += n;
    return v;
  }
  std::string_view bytes(size_t n) {  // n is a count(): within the chunk
    std::string_view s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }

  size_t pos() const { return pos_; }
  size_t end() const { return end_; }
  bool compressed() const { return compressed_; }
  void seek(size_t pos) { pos_ = pos; }
  void limit(size_t end) { end_ = end; }

 private:
  const uint8_t* data_;
  size_t pos_, end_;
  bool compressed_;
};

// How a type without fields is read.
enum class Primitive : uint8_t { kNone, kBoolean, kByte, kChar, kShort, kInt, kLong, kFloat, kDouble, kString };

struct Class;

struct Field {
  std::string name;
  int64_t type = 0;
  const Class* cls = nullptr;  // the class of `type` (null: the metadata does not describe it)
  bool pool = false;           // the value is a key into the constant pool of `type`
  bool array = false;          // a count, then that many values
};

struct Class {
  std::string name;
  std::vector<Field> fields;
  Primitive primitive = Primitive::kNone;
  // The field named `name`, or -1.
  int find(std::string_view name) const;
};

// A string value: null, a reference into the string pool, or UTF-8 text (in
// the input when it is valid UTF-8 there, else in Values::converted).
struct Str {
  bool null = false, pooled = false;
  int64_t key = 0;
  const char* data = nullptr;
  size_t size = 0;
  std::string_view text() const { return {data, size}; }
};

// The arena of parsed values. A slot holds a number, a pool key (0: null), a
// row of `strings`, the first slot of a record (one slot per field) or the
// first slot of an array (its length, then one slot per element).
struct Values {
  std::vector<int64_t> slots;
  std::vector<Str> strings;
  std::deque<std::string> converted;  // a deque: its strings stay put as it grows
  size_t max_slots = 0;               // beyond this the input is refused (nested empty values)
  void clear() {
    slots.clear();
    strings.clear();
    converted.clear();
  }
};

// A value of a given type somewhere in a Values arena.
struct Handle {
  enum Kind : uint8_t { kNull, kNumber, kFloat, kString, kRef, kRecord, kArray };
  Kind kind = kNull;
  bool pool = false;  // arrays: elements are pool keys
  int64_t type = 0;   // the type id of the value (of the elements for arrays)
  int64_t v = 0;      // number, key, string row or first slot
  const Values* values = nullptr;
  const Class* cls = nullptr;  // the class of `type` (null: not described)
};

class Chunk {
 public:
  size_t start = 0, end = 0;
  int64_t start_nanos = 0, start_ticks = 0, ticks_per_second = 0;
  bool compressed = false;
  std::unordered_map<int64_t, Class> classes;
  int64_t string_type = -1;  // the type id of java.lang.String
  const Class* string_class = nullptr;
  // Type id -> key -> the value's slot (see Values).
  std::unordered_map<int64_t, std::unordered_map<int64_t, int64_t>> pools;
  Values pool_values;
  struct Event {
    size_t pos, end;  // after the event's size and type id; its end
    int64_t type;
  };
  std::vector<Event> events;  // of the wanted types, in file order

  // Reads the chunk at `start` of data[0, n): header, metadata, every
  // checkpoint, and the place of each event whose type name `wanted` accepts.
  // Replaces what an earlier read held (its buffers are reused).
  void read(const uint8_t* data, size_t n, size_t start, const std::function<bool(std::string_view)>& wanted);

  // Parses the value of `type` at r into `out` and returns its slot.
  int64_t parse(Reader& r, int64_t type, Values& out, int depth) const;
  int64_t parse(Reader& r, const Class* cls, int64_t type, Values& out, int depth) const;
  // Parses one field's value (a pool key, an array or a value) and returns
  // its slot; field_value() reads it back.
  int64_t parse_field(Reader& r, const Field& f, Values& out, int depth) const {
    // Most fields are pool keys or longs: read here, without a call.
    if (!f.array && (f.pool || (f.cls != nullptr && f.cls->primitive == Primitive::kLong))) return r.i64();
    return parse_other_field(r, f, out, depth);
  }

  // Navigation; a missing field, a null or a dangling key gives kNull.
  Handle value(const Values& vals, int64_t type, int64_t slot) const {
    return value(vals, find_class(type), type, slot);
  }
  Handle value(const Values& vals, const Class* cls, int64_t type, int64_t slot) const;
  Handle field(const Handle& record, int index) const;
  Handle field_value(const Field& f, int64_t slot, const Values& vals) const;
  Handle field(const Handle& record, std::string_view name) const;
  size_t length(const Handle& array) const;
  Handle element(const Handle& array, size_t i) const;
  Handle resolve(const Handle& h) const;  // a pool key's value (one level)
  // A string, resolved through the string and symbol pools ("" if none).
  std::string_view text(Handle h) const;
  int64_t ticks_to_nanos(int64_t ticks) const;
  int64_t duration_nanos(int64_t ticks) const;
  const Class* find_class(int64_t type) const {
    auto it = classes.find(type);
    return it == classes.end() ? nullptr : &it->second;
  }

 private:
  int64_t parse_string(Reader& r, Values& out) const;
  int64_t parse_other_field(Reader& r, const Field& f, Values& out, int depth) const;
  void read_metadata(Reader& r, size_t at);
  void read_checkpoint(Reader& r);
};

}  // namespace pprofcore::jfr
