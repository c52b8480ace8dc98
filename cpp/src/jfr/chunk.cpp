// chunk: see chunk.hpp. The layout follows the JDK's chunk format (header of
// 68 bytes, events of size + type id, type 0 the metadata, type 1 a
// checkpoint of constant pools).
#include "chunk.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "pprofcore/errors.hpp"

namespace pprofcore::jfr {

namespace {

constexpr size_t kHeaderSize = 68;
constexpr int kMaxDepth = 32;

uint64_t be(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

void append_utf8(std::string& out, uint32_t c) {
  if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;  // a lone UTF-16 surrogate
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xc0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    out += static_cast<char>(0xe0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (c & 0x3f));
  }
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// UTF-8 text with every invalid byte replaced by U+FFFD.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      append_utf8(out, 0xfffd);
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

std::optional<int64_t> parse_int(const std::string& s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -v : v;
}

Primitive primitive_of(const std::string& name) {
  static const std::unordered_map<std::string, Primitive> kNames = {
      {"boolean", Primitive::kBoolean}, {"byte", Primitive::kByte},     {"char", Primitive::kChar},
      {"short", Primitive::kShort},     {"int", Primitive::kInt},       {"long", Primitive::kLong},
      {"float", Primitive::kFloat},     {"double", Primitive::kDouble}, {"java.lang.String", Primitive::kString}};
  auto it = kNames.find(name);
  return it == kNames.end() ? Primitive::kNone : it->second;
}

// One element of the metadata tree: name, attributes, children (string rows).
struct Element {
  int32_t name = 0;
  std::vector<std::pair<int32_t, int32_t>> attributes;
  std::vector<Element> children;
};

struct MetadataStrings {
  std::vector<std::optional<std::string>> rows;
  const std::string& at(Reader& r, int32_t i) const {
    if (i < 0 || static_cast<size_t>(i) >= rows.size() || !rows[static_cast<size_t>(i)])
      r.fail("the metadata refers to string " + std::to_string(i) + " of " + std::to_string(rows.size()));
    return *rows[static_cast<size_t>(i)];
  }
};

// The first of n fresh slots of `out`.
size_t take_slots(Reader& r, Values& out, size_t n) {
  if (out.max_slots != 0 && out.slots.size() + n > out.max_slots)
    r.fail("the values of the chunk take more memory than its size allows");
  const size_t base = out.slots.size();
  out.slots.resize(base + n);
  return base;
}

Element read_element(Reader& r, const MetadataStrings& strings, int depth) {
  if (depth > kMaxDepth) r.fail("the metadata nests too deep");
  Element e;
  e.name = r.i32();
  strings.at(r, e.name);
  for (size_t n = r.count("metadata attribute"); n > 0; --n) {
    const int32_t k = r.i32();
    strings.at(r, k);
    const int32_t v = r.i32();
    strings.at(r, v);
    e.attributes.emplace_back(k, v);
  }
  for (size_t n = r.count("metadata element"); n > 0; --n) e.children.push_back(read_element(r, strings, depth + 1));
  return e;
}

}  // namespace

void Reader::fail(const std::string& reason, size_t at) const {
  throw DecodeError("JFR: " + reason, "", static_cast<int64_t>(at));
}

size_t Reader::count(const char* what, std::string_view name) {
  const size_t at = pos_;
  const int32_t n = i32();
  if (n < 0 || static_cast<size_t>(n) > end_ - pos_)
    fail(std::string(what) + (name.empty() ? "" : " ") + std::string(name) + " count " + std::to_string(n) +
             " is negative or larger than the rest of the chunk",
         at);
  return static_cast<size_t>(n);
}

int Class::find(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  return -1;
}

void Chunk::read(const uint8_t* data, size_t n, size_t start, const std::function<bool(std::string_view)>& wanted) {
  Chunk& c = *this;
  classes.clear();
  string_type = -1;
  string_class = nullptr;
  pools.clear();
  pool_values.clear();
  events.clear();
  const auto fail = [&](const std::string& reason) {
    throw DecodeError("JFR: " + reason, "", static_cast<int64_t>(start));
  };
  if (n - start < kHeaderSize) fail("the chunk header is truncated");
  const uint8_t* h = data + start;
  if (std::memcmp(h, "FLR\0", 4) != 0) fail("a chunk does not start with the magic FLR\\0");
  const uint64_t major = be(h + 4, 2);
  if (major != 1 && major != 2)
    fail("unsupported format version " + std::to_string(major) + " (pprofcore reads versions 1 and 2)");
  const auto size = static_cast<int64_t>(be(h + 8, 8));
  const auto meta = static_cast<int64_t>(be(h + 24, 8));
  c.start_nanos = static_cast<int64_t>(be(h + 32, 8));
  c.start_ticks = static_cast<int64_t>(be(h + 48, 8));
  c.ticks_per_second = static_cast<int64_t>(be(h + 56, 8));
  c.compressed = (be(h + 64, 4) & 1) != 0;
  if (size < static_cast<int64_t>(kHeaderSize) || static_cast<uint64_t>(size) > n - start)
    fail("chunk size " + std::to_string(size) + " runs past the end of the input (" + std::to_string(n) + " bytes)");
  if (meta < static_cast<int64_t>(kHeaderSize) || meta >= size)
    fail("metadata offset " + std::to_string(meta) + " is outside the chunk");
  c.start = start;
  c.end = start + static_cast<size_t>(size);
  // Nested values of no bytes (records without fields) are the only way to
  // grow the arena faster than the input; a bound keeps memory linear.
  c.pool_values.max_slots = 16 * static_cast<size_t>(size) + (1 << 16);
  Reader r(data, start, c.end, c.compressed);
  c.read_metadata(r, start + static_cast<size_t>(meta));
  std::vector<int64_t> want;  // a few type ids: a list beats a map
  for (const auto& [id, cls] : c.classes)
    if (wanted(cls.name)) want.push_back(id);
  for (size_t pos = start + kHeaderSize; pos < c.end;) {
    r.limit(c.end);
    r.seek(pos);
    const int32_t event_size = r.i32();
    if (event_size <= 0 || static_cast<size_t>(event_size) > c.end - pos)
      r.fail("event size " + std::to_string(event_size) + " is outside the chunk", pos);
    const size_t event_end = pos + static_cast<size_t>(event_size);
    r.limit(event_end);  // an event never reads past its own size
    const int64_t type = r.i64();
    if (type == 1) {
      c.read_checkpoint(r);
    } else if (type != 0) {
      if (std::find(want.begin(), want.end(), type) != want.end()) c.events.push_back({r.pos(), event_end, type});
    }
    pos = event_end;
  }
}

void Chunk::read_metadata(Reader& r, size_t at) {
  r.seek(at);
  r.i32();  // size
  if (r.i64() != 0) r.fail("the chunk header's metadata offset does not point to a metadata event", at);
  r.i64(), r.i64(), r.i64();  // start time, duration, metadata id
  MetadataStrings strings;
  Values scratch;
  for (size_t n = r.count("metadata string"); n > 0; --n) {
    scratch.clear();
    const Str& s = scratch.strings[static_cast<size_t>(parse_string(r, scratch))];
    strings.rows.push_back(s.null || s.pooled ? std::nullopt : std::optional<std::string>(s.text()));
  }
  const Element root = read_element(r, strings, 0);
  const auto attribute = [&](const Element& e, std::string_view key) -> const std::string* {
    for (const auto& [k, v] : e.attributes)
      if (*strings.rows[static_cast<size_t>(k)] == key) return &*strings.rows[static_cast<size_t>(v)];
    return nullptr;
  };
  const auto named = [&](const Element& e, std::string_view name) {
    return *strings.rows[static_cast<size_t>(e.name)] == name;
  };
  for (const Element& section : root.children) {
    if (!named(section, "metadata")) continue;
    for (const Element& ce : section.children) {
      if (!named(ce, "class")) continue;
      const std::string* id = attribute(ce, "id");
      const std::optional<int64_t> type = id ? parse_int(*id) : std::nullopt;
      if (!type) r.fail("a metadata class has no numeric id");
      Class cls;
      if (const std::string* name = attribute(ce, "name")) cls.name = *name;
      for (const Element& fe : ce.children) {
        if (!named(fe, "field")) continue;
        Field f;
        if (const std::string* name = attribute(fe, "name")) f.name = *name;
        const std::string* ftype = attribute(fe, "class");
        const std::optional<int64_t> t = ftype ? parse_int(*ftype) : std::nullopt;
        if (!t) r.fail("field " + f.name + " of " + cls.name + " has no numeric class");
        f.type = *t;
        const std::string* pool = attribute(fe, "constantPool");
        f.pool = pool && *pool == "true";
        const std::string* dim = attribute(fe, "dimension");
        f.array = dim && *dim == "1";
        cls.fields.push_back(std::move(f));
      }
      if (cls.fields.empty()) cls.primitive = primitive_of(cls.name);
      if (cls.name == "java.lang.String") string_type = *type;
      classes[*type] = std::move(cls);
    }
  }
  // Nodes of an unordered_map stay put: each field keeps its class's address.
  for (auto& [id, cls] : classes)
    for (Field& f : cls.fields) f.cls = find_class(f.type);
  string_class = find_class(string_type);
}

void Chunk::read_checkpoint(Reader& r) {
  r.i64(), r.i64(), r.i64();  // start time, duration, delta to the next checkpoint
  r.byte();                   // checkpoint type (flush, chunk header, statics, thread)
  for (size_t pools_left = r.count("constant pool"); pools_left > 0; --pools_left) {
    const int64_t type = r.i64();
    auto& pool = pools[type];
    for (size_t n = r.count("constant pool entry"); n > 0; --n) {
      const int64_t key = r.i64();
      pool[key] = parse(r, type, pool_values, 0);
    }
  }
}

int64_t Chunk::parse_string(Reader& r, Values& out) const {
  const size_t at = r.pos();
  const uint8_t encoding = r.byte();
  Str s;
  const auto keep = [&](std::string text) {
    out.converted.push_back(std::move(text));
    s.data = out.converted.back().data();
    s.size = out.converted.back().size();
  };
  switch (encoding) {
    case 0:
      s.null = true;
      break;
    case 1:
      break;
    case 2:
      s.pooled = true;
      s.key = r.i64();
      break;
    case 3: {
      const std::string_view bytes = r.bytes(r.count("string byte"));
      if (is_valid_utf8(bytes)) {
        s.data = bytes.data();
        s.size = bytes.size();
      } else {
        keep(valid_utf8(bytes));
      }
      break;
    }
    case 5: {
      std::string text;
      for (char ch : r.bytes(r.count("string byte"))) append_utf8(text, static_cast<uint8_t>(ch));
      keep(std::move(text));
      break;
    }
    case 4: {
      std::string text;
      for (size_t n = r.count("string char"); n > 0; --n)
        append_utf8(text, static_cast<uint16_t>(r.compressed() ? r.varint() : r.fixed(2)));
      keep(std::move(text));
      break;
    }
    default:
      r.fail("unknown string encoding " + std::to_string(encoding), at);
  }
  out.strings.push_back(s);
  return static_cast<int64_t>(out.strings.size() - 1);
}

int64_t Chunk::parse(Reader& r, int64_t type, Values& out, int depth) const {
  return parse(r, find_class(type), type, out, depth);
}

int64_t Chunk::parse(Reader& r, const Class* cls, int64_t type, Values& out, int depth) const {
  if (cls == nullptr)
    r.fail("a field refers to type id " + std::to_string(type) + ", which the metadata does not describe");
  switch (cls->primitive) {
    case Primitive::kBoolean:
      return r.byte() != 0;
    case Primitive::kByte:
      return r.byte();
    case Primitive::kChar:
      return static_cast<uint16_t>(r.i16());
    case Primitive::kShort:
      return r.i16();
    case Primitive::kInt:
      return r.i32();
    case Primitive::kLong:
      return r.i64();
    case Primitive::kFloat:
      return static_cast<int64_t>(r.raw(4));
    case Primitive::kDouble:
      return static_cast<int64_t>(r.raw(8));
    case Primitive::kString:
      return parse_string(r, out);
    case Primitive::kNone:
      break;
  }
  if (depth > kMaxDepth) r.fail("type " + cls->name + " nests deeper than " + std::to_string(kMaxDepth) + " levels");
  const size_t base = take_slots(r, out, cls->fields.size());
  for (size_t i = 0; i < cls->fields.size(); ++i) {
    const int64_t slot = parse_field(r, cls->fields[i], out, depth + 1);
    out.slots[base + i] = slot;
  }
  return static_cast<int64_t>(base);
}

int64_t Chunk::parse_other_field(Reader& r, const Field& f, Values& out, int depth) const {
  if (!f.array) return f.pool ? r.i64() : parse(r, f.cls, f.type, out, depth);
  const size_t n = r.count("array", f.name);
  const size_t first = take_slots(r, out, n + 1);
  out.slots[first] = static_cast<int64_t>(n);
  for (size_t k = 0; k < n; ++k) {
    const int64_t e = f.pool ? r.i64() : parse(r, f.cls, f.type, out, depth);
    out.slots[first + 1 + k] = e;
  }
  return static_cast<int64_t>(first);
}

Handle Chunk::value(const Values& vals, const Class* cls, int64_t type, int64_t slot) const {
  Handle h;
  h.type = type;
  h.values = &vals;
  h.cls = cls;
  if (cls == nullptr) return h;
  switch (cls->primitive) {
    case Primitive::kNone:
      h.kind = Handle::kRecord;
      h.v = slot;
      return h;
    case Primitive::kString: {
      const Str& s = vals.strings[static_cast<size_t>(slot)];
      if (s.null) return h;
      if (s.pooled) {
        h.kind = Handle::kRef;
        h.type = string_type;
        h.cls = string_class;
        h.v = s.key;
      } else {
        h.kind = Handle::kString;
        h.v = slot;
      }
      return h;
    }
    case Primitive::kFloat:
    case Primitive::kDouble:
      h.kind = Handle::kFloat;
      h.v = slot;
      return h;
    default:
      h.kind = Handle::kNumber;
      h.v = slot;
      return h;
  }
}

Handle Chunk::field(const Handle& record, int index) const {
  if (record.kind != Handle::kRecord || index < 0) return {};
  const int64_t slot = record.values->slots[static_cast<size_t>(record.v + index)];
  return field_value(record.cls->fields[static_cast<size_t>(index)], slot, *record.values);
}

Handle Chunk::field_value(const Field& f, int64_t slot, const Values& vals) const {
  if (f.array) return Handle{Handle::kArray, f.pool, f.type, slot, &vals, f.cls};
  if (f.pool) return slot == 0 ? Handle{} : Handle{Handle::kRef, true, f.type, slot, &vals, f.cls};
  return value(vals, f.cls, f.type, slot);
}

Handle Chunk::field(const Handle& record, std::string_view name) const {
  if (record.kind != Handle::kRecord) return {};
  return field(record, record.cls->find(name));
}

size_t Chunk::length(const Handle& array) const {
  return array.kind == Handle::kArray ? static_cast<size_t>(array.values->slots[static_cast<size_t>(array.v)]) : 0;
}

Handle Chunk::element(const Handle& array, size_t i) const {
  const int64_t slot = array.values->slots[static_cast<size_t>(array.v) + 1 + i];
  if (array.pool) return slot == 0 ? Handle{} : Handle{Handle::kRef, true, array.type, slot, array.values, array.cls};
  return value(*array.values, array.cls, array.type, slot);
}

Handle Chunk::resolve(const Handle& h) const {
  if (h.kind != Handle::kRef) return h;
  auto pool = pools.find(h.type);
  if (pool == pools.end()) return {};
  auto it = pool->second.find(h.v);
  if (it == pool->second.end()) return {};
  return value(pool_values, h.cls, h.type, it->second);
}

std::string_view Chunk::text(Handle h) const {
  for (int i = 0; i < 4; ++i) {  // a reference, a symbol's string, a reference again
    if (h.kind == Handle::kRef) {
      h = resolve(h);
    } else if (h.kind == Handle::kRecord) {
      const int index = h.cls->find("string");
      if (index < 0) break;
      h = field(h, index);
    } else {
      break;
    }
  }
  if (h.kind != Handle::kString) return {};
  return h.values->strings[static_cast<size_t>(h.v)].text();
}

namespace {

// floor(a * b / c) wrapped to 64 bits, as Python's // then the int64 cast.
int64_t scale(__int128 a, int64_t b, int64_t c) {
  if (c == b) return static_cast<int64_t>(static_cast<uint64_t>(a));  // ticks of a nanosecond
  // 64-bit arithmetic where it is exact (a 128-bit division was the slow
  // part of every event's timestamp): a = whole * c + rest, 0 <= rest < c.
  if (b > 0 && c > 0 && a >= INT64_MIN && a <= INT64_MAX) {
    const auto a64 = static_cast<int64_t>(a);
    int64_t whole = a64 / c, rest = a64 % c, high, low, q;
    if (rest < 0) rest += c, --whole;
    if (!__builtin_mul_overflow(whole, b, &high) && !__builtin_mul_overflow(rest, b, &low) &&
        !__builtin_add_overflow(high, low / c, &q))
      return q;
  }
  const __int128 wide = a * b;
  __int128 q = wide / c;
  if ((wide % c != 0) && ((wide < 0) != (c < 0))) --q;
  return static_cast<int64_t>(static_cast<uint64_t>(q));
}

}  // namespace

int64_t Chunk::ticks_to_nanos(int64_t ticks) const {
  const int64_t tps = ticks_per_second != 0 ? ticks_per_second : 1000000000;
  const int64_t q = scale(static_cast<__int128>(ticks) - start_ticks, 1000000000, tps);
  return static_cast<int64_t>(static_cast<uint64_t>(start_nanos) + static_cast<uint64_t>(q));
}

int64_t Chunk::duration_nanos(int64_t ticks) const {
  return scale(ticks, 1000000000, ticks_per_second != 0 ? ticks_per_second : 1000000000);
}

}  // namespace pprofcore::jfr
