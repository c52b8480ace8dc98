// merge: the incremental Merger (pprof's Merge/Compact semantics), merge of a
// list, and parallel decode+merge of files. Owns the content keys and their
// hash tables; does not scale, harmonize units or compute deltas.
#include "pprofcore/merge.hpp"
#include "pprofcore/arith.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <condition_variable>
#include <memory>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <sys/stat.h>

#include "pprofcore/errors.hpp"
#include "pprofcore/fork_join.hpp"
#include "pprofcore/io.hpp"

namespace pprofcore {

namespace {

std::string describe_types(const Profile& p) {
  std::string s = "[";
  for (size_t i = 0; i < p.num_types(); ++i) {
    if (i) s += " ";
    s += std::string(p.str(p.sample_type_type[i])) + "/" + std::string(p.str(p.sample_type_unit[i]));
  }
  return s + "]";
}

std::string describe_period(const Profile& p) {
  if (!p.has_period_type) return "(none)";
  return std::string(p.str(p.period_type_type)) + "/" + std::string(p.str(p.period_type_unit));
}

bool same_str(const Profile& a, int32_t ca, const Profile& b, int32_t cb) { return a.str(ca) == b.str(cb); }

// pprof's compatible(): same period type and identical sample types (type and unit).
void check_compatible(const Profile& first, const Profile& p, size_t index) {
  bool period_ok = same_str(first, first.has_period_type ? first.period_type_type : 0, p,
                            p.has_period_type ? p.period_type_type : 0) &&
                   same_str(first, first.has_period_type ? first.period_type_unit : 0, p,
                            p.has_period_type ? p.period_type_unit : 0);
  if (!period_ok)
    throw ProfileError("cannot merge profile " + std::to_string(index) + ": incompatible period types " +
                       describe_period(first) + " and " + describe_period(p));
  bool types_ok = first.num_types() == p.num_types();
  for (size_t i = 0; types_ok && i < p.num_types(); ++i)
    types_ok = same_str(first, first.sample_type_type[i], p, p.sample_type_type[i]) &&
               same_str(first, first.sample_type_unit[i], p, p.sample_type_unit[i]);
  if (!types_ok)
    throw ProfileError("cannot merge profile " + std::to_string(index) + ": incompatible sample types " +
                       describe_types(first) + " and " + describe_types(p) +
                       " (use compatible='intersect' to keep the common ones)");
}

bool all_zero(const int64_t* v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (v[i] != 0) return false;
  return true;
}

// A sample key's hash: one multiply per four words (wyhash's step, 128
// bits in), in two chains over alternate blocks of four, so a key of some
// forty words costs about a dozen multiplies. Its quality only matters for
// the table's probe lengths: every match is checked word for word.
uint64_t hash_key(const uint32_t* w, size_t n) {
  constexpr uint64_t k0 = 0xa0761d6478bd642fULL, k1 = 0xe7037ed1a0b428dbULL, k2 = 0x8ebc6af09c88c6e3ULL,
                     k3 = 0x589965cc75374cc3ULL;
  auto mum = [](uint64_t a, uint64_t b) {
    const __uint128_t m = static_cast<__uint128_t>(a) * b;
    return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
  };
  // Two words as one: a single 8-byte load where the words' order in memory
  // is that value's (little-endian), else the two loads it stands for.
  auto pair = [w](size_t i) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    std::memcpy(&x, w + i, sizeof x);
    return x;
#else
    return uint64_t(w[i]) | (uint64_t(w[i + 1]) << 32);
#endif
  };
  uint64_t a = k0 ^ n, b = k1 ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    a = mum(pair(i) ^ k0, pair(i + 2) ^ a);
    b = mum(pair(i + 4) ^ k1, pair(i + 6) ^ b);
  }
  if (i + 4 <= n) {
    a = mum(pair(i) ^ k0, pair(i + 2) ^ a);
    i += 4;
  }
  const size_t rest = n - i;  // 0 to 3 words; n is in the seed, so zeros pad unambiguously
  const uint64_t x = rest >= 2 ? pair(i) : rest == 1 ? w[i] : 0, y = rest == 3 ? w[i + 2] : 0;
  a = mum(x ^ k2, y ^ a);
  return mum(a ^ k3, b ^ k2);
}

// The number of a label key's words 2 and 3 (append_key's layout).
inline int64_t key_number(const uint32_t* w) { return static_cast<int64_t>(uint64_t(w[2]) | (uint64_t(w[3]) << 32)); }

// Makes room for `extra` more elements of a merged column that has taken
// `done` of `total` inputs (this one included): when it must grow, to what it
// would hold at the end if every input added as much as those so far, but at
// most 8 times what it needs now, since the files of a fleet that overlap add
// fewer new rows than the first ones did. Eight times is some three
// reallocations for a thousand distinct files where doubling took ten.
template <class T>
void reserve_projected(std::vector<T>& column, size_t extra, size_t done, size_t total) {
  const size_t need = column.size() + extra;
  if (need <= column.capacity()) return;
  constexpr size_t kMaxGrowth = 8;
  const double projected = double(need) * double(total) / double(done);
  column.reserve(std::max(need, size_t(std::min(projected, double(need) * kMaxGrowth))));
}

uint64_t round_up_4k(uint64_t size) {
  size += 0xfff;
  return size - size % 0x1000;
}

// What a location without a mapping hashes in place of its mapping's key.
constexpr uint64_t kNoMapping = 0x6e6f206d6170ULL;

}  // namespace

size_t Merger::memory_bytes() const {
  return out_.memory_bytes() + strings_.memory_bytes() + functions_.memory_bytes() + mappings_.memory_bytes() +
         locations_.memory_bytes() + samples_.memory_bytes() +
         (str_map_.capacity() + fn_map_.capacity() + map_map_.capacity() + loc_map_.capacity() + next_.capacity()) * 4 +
         map_offset_.capacity() * 8 + (loc_keys_.capacity() + block_words_.capacity()) * 4 +
         loc_key_off_.capacity() * 8 + sample_prints_.capacity() * sizeof(Fingerprint) + own_prep_.memory_bytes();
}

int32_t Merger::intern(std::string_view s, uint64_t h) {
  int32_t row = strings_.find(h, [&](int32_t r) { return out_.strings[static_cast<size_t>(r)] == s; });
  if (row >= 0) return row;
  row = static_cast<int32_t>(out_.strings.size());
  out_.strings.push_back(s);
  strings_.insert(h, row);
  return row;
}

int32_t Merger::map_new_string(int32_t code) {
  const std::string_view s = src_->str(code);
  const uint64_t h = src_prep_ ? src_prep_->strings[static_cast<size_t>(code)] : hash_bytes(s);
  return str_map_[static_cast<size_t>(code)] = intern(s, h);
}

namespace {

// pprof groups labels by key (map), keeping each key's values in order, and
// encodes string labels, then numeric labels, each part by key string
// (sort.Strings): a stable sort by (is numeric, key's rank) gives that order.
void order_labels(const Profile& p, PreparedSource& out) {
  // The rank of each label key by its string; a string held under two codes
  // is one key: one rank.
  // Keys are marked first and collected by code after: a store a label, with
  // no branch on whether its key was seen.
  const size_t ncodes = p.strings.size();
  out.key_rank.assign(ncodes, -1);
  out.ranked_keys.clear();
  int32_t* mark = out.key_rank.data();
  for (const int32_t k : p.labels.key)
    if (static_cast<size_t>(k) < ncodes) mark[k] = 0;
  for (size_t c = 0; c < ncodes; ++c)
    if (mark[c] == 0) out.ranked_keys.push_back(static_cast<int32_t>(c));
  std::sort(out.ranked_keys.begin(), out.ranked_keys.end(), [&](int32_t a, int32_t b) { return p.str(a) < p.str(b); });
  int32_t rank = 0;
  for (size_t i = 0; i < out.ranked_keys.size(); ++i) {
    if (i > 0 && p.str(out.ranked_keys[i - 1]) != p.str(out.ranked_keys[i])) ++rank;
    out.key_rank[static_cast<size_t>(out.ranked_keys[i])] = rank;
  }
  const int32_t* key_rank = out.key_rank.data();
  const Labels& l = p.labels;
  out.label_order.resize(l.size());
  uint32_t* order = out.label_order.data();
  // A label's place among a sample's: string labels first, then by key rank.
  const uint64_t ranks = uint64_t(rank) + 1;
  auto place = [&](size_t i) { return uint64_t(l.str[i] < 0) * ranks + uint64_t(key_rank[l.key[i]]); };
  // The general way: each label as one integer, its place then its row. The
  // integers of a sample are distinct, so sorting them plainly is the stable
  // sort by place, and a comparison reads no column. Insertion sort for a
  // handful of labels, std::sort beyond (a million labels are not quadratic).
  auto sort_sample = [&](size_t lb, size_t le) {
    out.label_keys.resize(le - lb);
    uint64_t* keys = out.label_keys.data();
    const size_t n = le - lb;
    for (size_t i = 0; i < n; ++i) keys[i] = (place(lb + i) << 32) | uint64_t(lb + i);
    constexpr size_t kInsertionSortMax = 32;
    if (n > kInsertionSortMax) {
      std::sort(keys, keys + n);
    } else {
      for (size_t i = 1; i < n; ++i) {
        const uint64_t x = keys[i];
        size_t j = i;
        for (; j > 0 && x < keys[j - 1]; --j) keys[j] = keys[j - 1];
        keys[j] = x;
      }
    }
    for (size_t i = 0; i < n; ++i) order[lb + i] = static_cast<uint32_t>(keys[i]);
  };
  // The usual way, when every place fits a 64-bit mask: a sample whose keys
  // are distinct (each key once, as most samples hold them) writes each row
  // at its place's bit and reads the rows back in bit order, without any
  // comparison; a key seen twice in a sample falls back to the sort.
  const bool by_mask = 2 * ranks <= 64;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const size_t lb = static_cast<size_t>(p.label_offsets[s]), le = static_cast<size_t>(p.label_offsets[s + 1]);
    if (le - lb < 2) {
      if (le > lb) order[lb] = static_cast<uint32_t>(lb);
      continue;
    }
    if (!by_mask || le - lb > 64) {
      sort_sample(lb, le);
      continue;
    }
    uint32_t row_at[64];
    uint64_t seen = 0, twice = 0;
    for (size_t i = lb; i < le; ++i) {
      const uint64_t at = place(i), bit = uint64_t(1) << at;
      twice |= seen & bit;
      seen |= bit;
      row_at[at] = static_cast<uint32_t>(i);
    }
    if (twice) {
      sort_sample(lb, le);
      continue;
    }
    for (uint32_t* w = order + lb; seen; seen &= seen - 1) *w++ = row_at[__builtin_ctzll(seen)];
  }
}

}  // namespace

void prepare_source_into(const Profile& p, PreparedSource& out) {
  out.strings.resize(p.strings.size());
  for (size_t i = 0; i < out.strings.size(); ++i) out.strings[i] = hash_bytes(p.strings[i]);
  const uint64_t* str = out.strings.data();
  const Functions& f = p.functions;
  out.functions.resize(f.size());
  for (size_t r = 0; r < f.size(); ++r)
    out.functions[r] =
        hash_mix(hash_mix(hash_mix(hash_mix(5, str[f.name[r]]), str[f.system_name[r]]), str[f.filename[r]]),
                 uint64_t(f.start_line[r]));
  // map_mapping's key: size rounded up to 4 KiB, file offset, build id or
  // else file name (by their bytes).
  const Mappings& m = p.mappings;
  out.mappings.resize(m.size());
  for (size_t r = 0; r < m.size(); ++r) {
    const uint64_t size = round_up_4k(m.memory_limit[r] - m.memory_start[r]);
    const int32_t bof = !p.str(m.build_id[r]).empty() ? m.build_id[r] : m.filename[r];
    out.mappings[r] = hash_mix(hash_mix(hash_mix(6, size), m.file_offset[r]), str[bof]);
  }
  // map_location's key: address from the mapping's start, the mapping,
  // is_folded, then function and line per line.
  const Locations& l = p.locations;
  out.locations.resize(l.size());
  for (size_t r = 0; r < l.size(); ++r) {
    const int32_t mr = l.mapping[r];
    const uint64_t key_addr = l.address[r] - (mr >= 0 ? m.memory_start[size_t(mr)] : 0);
    const int64_t lb = l.line_offsets[r], le = l.line_offsets[r + 1];
    uint64_t h = hash_mix(hash_mix(hash_mix(7, key_addr), mr >= 0 ? out.mappings[size_t(mr)] : kNoMapping),
                          uint64_t(l.is_folded[r]) | (uint64_t(le - lb) << 8));
    for (int64_t q = lb; q < le; ++q)
      h = hash_mix(hash_mix(h, out.functions[size_t(p.lines.function[size_t(q)])]), uint64_t(p.lines.line[size_t(q)]));
    out.locations[r] = h;
  }
  order_labels(p, out);
}

PreparedSource prepare_source(const Profile& p) {
  PreparedSource prep;
  prepare_source_into(p, prep);
  return prep;
}

int32_t Merger::map_function(int32_t row) {
  int32_t& memo = fn_map_[static_cast<size_t>(row)];
  if (memo >= 0) return memo;
  const Functions& f = src_->functions;
  const size_t r = static_cast<size_t>(row);
  int32_t name = map_string(f.name[r]), sys = map_string(f.system_name[r]), file = map_string(f.filename[r]);
  int64_t start = f.start_line[r];
  uint64_t h =
      hash_mix(hash_mix(hash_mix(hash_mix(1, uint64_t(name)), uint64_t(sys)), uint64_t(file)), uint64_t(start));
  Functions& o = out_.functions;
  int32_t got = functions_.find(h, [&](int32_t k) {
    size_t q = static_cast<size_t>(k);
    return o.name[q] == name && o.system_name[q] == sys && o.filename[q] == file && o.start_line[q] == start;
  });
  if (got < 0) {
    got = static_cast<int32_t>(o.size());
    o.id.push_back(uint64_t(got) + 1);
    o.name.push_back(name);
    o.system_name.push_back(sys);
    o.filename.push_back(file);
    o.start_line.push_back(start);
    functions_.insert(h, got);
  }
  return memo = got;
}

int32_t Merger::map_mapping(int32_t row) {
  int32_t& memo = map_map_[static_cast<size_t>(row)];
  if (memo >= 0) return memo;
  const Mappings& m = src_->mappings;
  const size_t r = static_cast<size_t>(row);
  const uint64_t size = round_up_4k(m.memory_limit[r] - m.memory_start[r]);
  const uint64_t offset = m.file_offset[r];
  int32_t bof = !src_->str(m.build_id[r]).empty()   ? map_string(m.build_id[r])
                : !src_->str(m.filename[r]).empty() ? map_string(m.filename[r])
                                                    : 0;
  uint64_t h = hash_mix(hash_mix(hash_mix(2, size), offset), uint64_t(bof));
  Mappings& o = out_.mappings;
  auto key_of = [&](size_t q) {
    const uint64_t s = round_up_4k(o.memory_limit[q] - o.memory_start[q]);
    int32_t b = o.build_id[q] != 0 ? o.build_id[q] : o.filename[q];
    return std::make_tuple(s, o.file_offset[q], b);
  };
  int32_t got = mappings_.find(
      h, [&](int32_t k) { return key_of(static_cast<size_t>(k)) == std::make_tuple(size, offset, bof); });
  if (got >= 0) {
    map_offset_[r] = static_cast<int64_t>(o.memory_start[static_cast<size_t>(got)] - m.memory_start[r]);
  } else {
    got = static_cast<int32_t>(o.size());
    o.id.push_back(uint64_t(got) + 1);
    o.memory_start.push_back(m.memory_start[r]);
    o.memory_limit.push_back(m.memory_limit[r]);
    o.file_offset.push_back(offset);
    o.filename.push_back(map_string(m.filename[r]));
    o.build_id.push_back(map_string(m.build_id[r]));
    o.has_functions.push_back(m.has_functions[r]);
    o.has_filenames.push_back(m.has_filenames[r]);
    o.has_line_numbers.push_back(m.has_line_numbers[r]);
    o.has_inline_frames.push_back(m.has_inline_frames[r]);
    mappings_.insert(h, got);
    map_offset_[r] = 0;
  }
  return memo = got;
}

int32_t Merger::map_location(int32_t row) {
  int32_t& memo = loc_map_[static_cast<size_t>(row)];
  if (memo >= 0) return memo;
  const Locations& l = src_->locations;
  const size_t r = static_cast<size_t>(row);
  const int32_t src_map = l.mapping[r];
  int32_t mapping = -1;
  uint64_t key_addr = l.address[r];
  int64_t shift = 0;
  if (src_map >= 0) {
    const int32_t known = map_map_[static_cast<size_t>(src_map)];  // every location but a few: no call
    mapping = known >= 0 ? known : map_mapping(src_map);
    key_addr -= src_->mappings.memory_start[static_cast<size_t>(src_map)];
    shift = map_offset_[static_cast<size_t>(src_map)];
  }
  // Found by the content hash and compared field by field: a location seen
  // before needs neither its functions mapped nor their strings interned.
  const uint64_t h = src_prep_->locations[r];
  int32_t got = locations_.find(h, [&](int32_t k) { return same_location(k, r, key_addr, mapping); });
  if (got < 0) got = add_location(r, key_addr, mapping, shift, h);
  return memo = got;
}

bool Merger::same_location(int32_t k, size_t row, uint64_t key_addr, int32_t mapping) {
  const Locations& l = src_->locations;
  const int64_t lb = l.line_offsets[row], le = l.line_offsets[row + 1];
  const size_t b = size_t(loc_key_off_[size_t(k)]), e = size_t(loc_key_off_[size_t(k) + 1]);
  const uint32_t* w = loc_keys_.data() + b;
  if (e - b != 4 + 3 * size_t(le - lb) || w[0] != static_cast<uint32_t>(key_addr) ||
      w[1] != static_cast<uint32_t>(key_addr >> 32) || w[2] != static_cast<uint32_t>(mapping) ||
      w[3] != l.is_folded[row])
    return false;
  w += 4;
  for (int64_t q = lb; q < le; ++q, w += 3) {
    const uint64_t line = static_cast<uint64_t>(src_->lines.line[size_t(q)]);
    if (w[1] != static_cast<uint32_t>(line) || w[2] != static_cast<uint32_t>(line >> 32) ||
        !same_function(src_->lines.function[size_t(q)], static_cast<int32_t>(w[0])))
      return false;
  }
  return true;
}

bool Merger::same_function(int32_t row, int32_t k) {
  const size_t r = static_cast<size_t>(row), q = static_cast<size_t>(k);
  if (fn_map_[r] >= 0) return fn_map_[r] == k;
  const Functions& f = src_->functions;
  const Functions& o = out_.functions;
  if (f.start_line[r] != o.start_line[q] || !same_string(f.name[r], o.name[q]) ||
      !same_string(f.system_name[r], o.system_name[q]) || !same_string(f.filename[r], o.filename[q]))
    return false;
  fn_map_[r] = k;
  return true;
}

bool Merger::same_string(int32_t code, int32_t k) {
  const size_t c = static_cast<size_t>(code);
  if (str_map_[c] >= 0) return str_map_[c] == k;
  if (src_->str(code) != out_.strings[static_cast<size_t>(k)]) return false;
  str_map_[c] = k;
  return true;
}

// A new merged location for source location `row`: its functions are mapped
// (added when new) in line order, as the key needs them.
int32_t Merger::add_location(size_t r, uint64_t key_addr, int32_t mapping, int64_t shift, uint64_t h) {
  const Locations& l = src_->locations;
  const uint8_t folded = l.is_folded[r];
  const int64_t lb = l.line_offsets[r], le = l.line_offsets[r + 1];
  // The key: [address - mapping start (two words), mapping, is_folded, then
  // per line function, line (two words)].
  const size_t nlines = static_cast<size_t>(le - lb);
  loc_probe_.resize(4 + 3 * nlines);
  uint32_t* w = loc_probe_.data();
  w[0] = static_cast<uint32_t>(key_addr);
  w[1] = static_cast<uint32_t>(key_addr >> 32);
  w[2] = static_cast<uint32_t>(mapping);
  w[3] = folded;
  w += 4;
  for (size_t i = 0; i < nlines; ++i, w += 3) {
    const size_t q = static_cast<size_t>(lb) + i;
    const uint64_t line = static_cast<uint64_t>(src_->lines.line[q]);
    w[0] = static_cast<uint32_t>(map_function(src_->lines.function[q]));
    w[1] = static_cast<uint32_t>(line);
    w[2] = static_cast<uint32_t>(line >> 32);
  }
  Locations& o = out_.locations;
  const int32_t got = static_cast<int32_t>(o.size());
  o.id.push_back(uint64_t(got) + 1);
  o.mapping.push_back(mapping);
  o.address.push_back(static_cast<uint64_t>(static_cast<int64_t>(l.address[r]) + shift));
  o.is_folded.push_back(folded);
  for (size_t i = 0; i < nlines; ++i) {
    const size_t q = static_cast<size_t>(lb) + i;
    out_.lines.function.push_back(static_cast<int32_t>(loc_probe_[4 + 3 * i]));
    out_.lines.line.push_back(src_->lines.line[q]);
    out_.lines.column.push_back(src_->lines.column[q]);
  }
  o.line_offsets.push_back(static_cast<int64_t>(out_.lines.size()));
  loc_keys_.insert(loc_keys_.end(), loc_probe_.begin(), loc_probe_.end());
  loc_key_off_.push_back(static_cast<int64_t>(loc_keys_.size()));
  locations_.insert(h, got);
  return got;
}

void Merger::begin_source(const Profile& src, const PreparedSource* prep) {
  src_ = &src;
  if (!prep) {
    prepare_source_into(src, own_prep_);
    prep = &own_prep_;
  }
  src_prep_ = prep;
  str_map_.assign(src.strings.size(), -1);
  fn_map_.assign(src.functions.size(), -1);
  map_map_.assign(src.mappings.size(), -1);
  map_offset_.assign(src.mappings.size(), 0);
  loc_map_.assign(src.locations.size(), -1);
  previous_ = -1;
  guess_ = first_;
  // pprof: the first mapping seen is the main binary and stays first.
  if (out_.mappings.size() == 0 && src.mappings.size() > 0) map_mapping(0);
}

void Merger::reserve_for(const Profile& src) {
  const size_t ns = num_samples() + src.num_samples();
  // Keep::Samples keeps no keys apart from the merged rows (same_sample),
  // whose columns grow as needed.
  if (keep_ == Keep::KeysOnly) sample_prints_.reserve(ns);
  next_.reserve(ns);
  samples_.reserve(ns);
}

// Whether merged sample k has the key key[0, n) (append_key's layout): its
// merged row itself is the key (no copy of the keys is kept), stack then labels.
bool Merger::same_sample(int32_t k, const uint32_t* key, size_t n) const {
  const size_t r = static_cast<size_t>(k);
  const size_t nloc = key[0], nlab = (n - 1 - nloc) / kLabelWords;
  const int64_t sb = out_.stack_offsets[r], lb = out_.label_offsets[r];
  if (static_cast<size_t>(out_.stack_offsets[r + 1] - sb) != nloc ||
      static_cast<size_t>(out_.label_offsets[r + 1] - lb) != nlab ||
      (nloc != 0 && std::memcmp(out_.stack_locations.data() + sb, key + 1, nloc * sizeof(int32_t)) != 0))
    return false;
  const Labels& l = out_.labels;
  const uint32_t* w = key + 1 + nloc;
  for (size_t i = 0; i < nlab; ++i, w += kLabelWords) {
    const size_t q = static_cast<size_t>(lb) + i;
    if (l.key[q] != static_cast<int32_t>(w[0]) || l.str[q] != static_cast<int32_t>(w[1]) || l.num[q] != key_number(w) ||
        l.num_unit[q] != static_cast<int32_t>(w[4]))
      return false;
  }
  return true;
}

void Merger::append_key(size_t row, KeyWords& words) {
  const Profile& s = *src_;
  const int64_t sb = s.stack_offsets[row], se = s.stack_offsets[row + 1];
  const int64_t lb = s.label_offsets[row], le = s.label_offsets[row + 1];
  // Sized once and written through a pointer (no capacity check per word).
  const size_t nloc = static_cast<size_t>(se - sb), nlab = static_cast<size_t>(le - lb);
  const size_t base = words.size();
  words.resize(base + 1 + nloc + kLabelWords * nlab);
  uint32_t* key = words.data() + base;
  *key++ = static_cast<uint32_t>(nloc);
  const int32_t* stack = s.stack_locations.data() + sb;
  for (size_t i = 0; i < nloc; ++i) {
    const int32_t memo = loc_map_[static_cast<size_t>(stack[i])];  // mapped earlier in this source: no call
    *key++ = static_cast<uint32_t>(memo >= 0 ? memo : map_location(stack[i]));
  }
  // The labels in pprof's order (see label_order); strings are interned in
  // that order (compact(compact(p)) == compact(p), and a merge of merged
  // profiles interns keys as the merge of their inputs did).
  const uint32_t* order = src_prep_->label_order.data() + lb;
  for (size_t i = 0; i < nlab; ++i, key += kLabelWords) {
    const size_t q = order[i];
    const int32_t str = s.labels.str[q];
    const uint64_t num = static_cast<uint64_t>(s.labels.num[q]);
    key[0] = static_cast<uint32_t>(map_string(s.labels.key[q]));
    key[1] = static_cast<uint32_t>(str < 0 ? -1 : map_string(str));
    key[2] = static_cast<uint32_t>(num);
    key[3] = static_cast<uint32_t>(num >> 32);
    key[4] = static_cast<uint32_t>(map_string(s.labels.num_unit[q]));
  }
}

Fingerprint Merger::key_id(const uint32_t* key, size_t n) const {
  if (keep_ == Keep::KeysOnly) return fingerprint_words(key, n);
  return Fingerprint{hash_key(key, n), 0};
}

int32_t Merger::resolve(const uint32_t* key, size_t n, const Fingerprint& id) {
  // Profiles of one program list mostly the same samples in mostly the same
  // order: the merged sample that followed the previous one last time is tried
  // first, which skips the table and its cache miss whenever the order repeats.
  int32_t got = -1;
  if (keep_ == Keep::KeysOnly) {
    auto same = [&](int32_t k) { return sample_prints_[size_t(k)] == id; };
    if (guess_ >= 0 && same(guess_)) {
      got = guess_;
    } else {
      got = samples_.find(id.lo, same);
      if (got < 0) got = add_sample(key, n, id);
    }
  } else if (guess_ >= 0 && same_sample(guess_, key, n)) {
    got = guess_;
  } else {
    got = samples_.find(id.lo, [&](int32_t k) { return same_sample(k, key, n); });
    if (got < 0) got = add_sample(key, n, id);
  }
  if (previous_ >= 0) {
    next_[size_t(previous_)] = got;
  } else {
    first_ = got;
  }
  previous_ = got;
  guess_ = next_[size_t(got)];
  return got;
}

int32_t Merger::map_sample(size_t row) {
  probe_.clear();
  append_key(row, probe_);
  return resolve(probe_.data(), probe_.size(), key_id(probe_.data(), probe_.size()));
}

// A new merged sample for the key key[0, n), with zero values.
int32_t Merger::add_sample(const uint32_t* key, size_t n, const Fingerprint& id) {
  const int32_t got = static_cast<int32_t>(num_samples());
  if (keep_ == Keep::Samples) {
    Profile& o = out_;
    const size_t nloc = key[0];
    o.stack_locations.insert(o.stack_locations.end(), key + 1, key + 1 + nloc);
    o.stack_offsets.push_back(static_cast<int64_t>(o.stack_locations.size()));
    for (const uint32_t* w = key + 1 + nloc; w < key + n; w += kLabelWords)
      o.labels.push_back(static_cast<int32_t>(w[0]), static_cast<int32_t>(w[1]), key_number(w),
                         static_cast<int32_t>(w[4]));
    o.label_offsets.push_back(static_cast<int64_t>(o.labels.size()));
    // push_back, not resize: a resize by two was an out-of-line fill_insert (the
    // column's room is made ahead, see reserve_samples).
    for (size_t t = 0; t < o.num_types(); ++t) o.values.push_back(0);
  }
  if (keep_ == Keep::KeysOnly) sample_prints_.push_back(id);
  samples_.insert(id.lo, got);
  next_.push_back(-1);
  return got;
}

void Merger::combine_header(const Profile& p) {
  const size_t index = inputs_;
  src_prep_ = nullptr;  // the header's strings are hashed as they are interned
  if (inputs_ == 0) {
    src_ = &p;
    str_map_.assign(p.strings.size(), -1);
    for (size_t i = 0; i < p.num_types(); ++i) {
      out_.sample_type_type.push_back(map_string(p.sample_type_type[i]));
      out_.sample_type_unit.push_back(map_string(p.sample_type_unit[i]));
    }
    out_.has_period_type = p.has_period_type;
    out_.period_type_type = map_string(p.period_type_type);
    out_.period_type_unit = map_string(p.period_type_unit);
    out_.drop_frames = map_string(p.drop_frames);
    out_.keep_frames = map_string(p.keep_frames);
  } else {
    check_compatible(out_, p, index);
  }
  src_ = &p;
  str_map_.assign(p.strings.size(), -1);
  // pprof's combineHeaders, including its quirk: a later zero time_nanos resets the
  // running minimum (the condition is `timeNanos == 0 || s.TimeNanos < timeNanos`).
  if (out_.time_nanos == 0 || p.time_nanos < out_.time_nanos) out_.time_nanos = p.time_nanos;
  out_.duration_nanos = wrapping_add(out_.duration_nanos, p.duration_nanos);
  if (out_.period == 0 || out_.period < p.period) out_.period = p.period;
  for (int32_t c : p.comments) {
    int32_t mc = map_string(c);
    if (std::find(out_.comments.begin(), out_.comments.end(), mc) == out_.comments.end()) out_.comments.push_back(mc);
  }
  if (out_.default_sample_type == 0) out_.default_sample_type = map_string(p.default_sample_type);
  if (out_.doc_url == 0) out_.doc_url = map_string(p.doc_url);
  ++inputs_;
}

void Merger::reserve_samples(const Profile& src) {
  if (expected_inputs_ < inputs_) return;  // unknown, or more inputs than announced: vector growth
  const size_t ns = src.num_samples(), done = inputs_, total = expected_inputs_;
  reserve_projected(out_.values, ns * src.num_types(), done, total);
  reserve_projected(out_.stack_offsets, ns, done, total);
  reserve_projected(out_.label_offsets, ns, done, total);
  reserve_projected(out_.stack_locations, src.stack_locations.size(), done, total);
  Labels::visit_columns([&](const char*, auto& column) { reserve_projected(column, src.labels.size(), done, total); },
                        out_.labels);
  // The sample table grows with the rows the values column was sized for:
  // one rehash per projection instead of one per doubling.
  if (const size_t nt = out_.num_types()) samples_.reserve(out_.values.capacity() / nt);
}

void Merger::add(const Profile& p, const PreparedSource* prep) {
  if (keep_ != Keep::Samples) throw InternalError("Merger::add on a keys-only Merger (it has no values to sum into)");
  combine_header(p);
  begin_source(p, prep);
  reserve_samples(p);
  const size_t nt = p.num_types(), ns = p.num_samples();
  // The keys of a block of samples are built (interning in sample order, as
  // one at a time would) and their table slots prefetched before any is looked
  // up: the sample table of a large merge is far bigger than the caches, and
  // each lookup would otherwise wait on its own miss.
  constexpr size_t kBlock = 16;
  for (size_t i = 0; i < ns;) {
    block_.clear();
    block_words_.clear();
    for (; i < ns && block_.size() < kBlock; ++i) {
      if (all_zero(p.values.data() + i * nt, nt)) continue;
      const size_t begin = block_words_.size();
      append_key(i, block_words_);
      const Fingerprint id = key_id(block_words_.data() + begin, block_words_.size() - begin);
      samples_.prefetch(id.lo);
      block_.push_back(PendingSample{i, begin, id});
    }
    for (size_t j = 0; j < block_.size(); ++j) {
      const PendingSample& k = block_[j];
      const size_t end = j + 1 < block_.size() ? block_[j + 1].begin : block_words_.size();
      const int32_t row = resolve(block_words_.data() + k.begin, end - k.begin, k.id);
      const int64_t* v = p.values.data() + k.row * nt;
      int64_t* dst = out_.values.data() + size_t(row) * nt;
      for (size_t t = 0; t < nt; ++t) dst[t] = wrapping_add(dst[t], v[t]);
    }
  }
  src_ = nullptr;
  src_prep_ = nullptr;
}

Profile Merger::result() const {
  const size_t nt = out_.num_types();
  for (size_t i = 0; i < out_.num_samples(); ++i)
    if (all_zero(out_.values.data() + i * nt, nt)) return compact(out_);  // pprof re-merges to drop them
  return out_;
}

Profile Merger::take_result() {
  const size_t nt = out_.num_types();
  for (size_t i = 0; i < out_.num_samples(); ++i)
    if (all_zero(out_.values.data() + i * nt, nt)) return compact(out_);
  Profile p = std::move(out_);
  *this = Merger();
  return p;
}

Profile merge(const std::vector<const Profile*>& profiles) {
  if (profiles.empty()) throw ProfileError("no profiles to merge");
  Merger m;
  m.expect_inputs(profiles.size());
  for (const Profile* p : profiles) m.add(*p);
  return m.take_result();
}

Profile compact(const Profile& p) {
  Merger m;
  m.add(p);
  return m.take_result();
}

namespace {

// The calling thread decodes a file itself, rather than wait for a worker, only
// when it is a regular file of at most this size: the caller also polls for
// Ctrl-C between files, and must never block on a pipe.
constexpr off_t kCallerDecodeMax = off_t(8) << 20;

bool quick_to_decode(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kCallerDecodeMax;
}

// The largest merged file (Profile::memory_bytes) merge_files hands back to
// a decoding thread to free.
constexpr size_t kHandBackMax = size_t(1) << 20;

// The most bytes a DecodedFile's byte buffers keep for the next file: a
// worker may hold one for half a window, and a large file's would raise the peak.
constexpr size_t kKeptBytesMax = size_t(1) << 20;

// A file decoded for merge_files, prepared by the thread that decoded it
// (see Merger::add). Once merged it serves the next decode: the file's bytes,
// the inflated bytes, the profile's columns and the prepared tables keep
// their capacity, so a file like the ones before allocates almost nothing.
struct DecodedFile {
  Profile profile;
  PreparedSource prep;
  LoadBuffers buffers;
};

}  // namespace

Profile merge_files(const std::vector<std::string>& paths, unsigned threads, const DecodeOptions& options,
                    const std::function<void(size_t)>& on_file, const Poll& poll) {
  if (paths.empty()) throw ProfileError("no profiles to merge");
  // The calling thread merges, and decodes the next file whenever the one it
  // needs is not ready: one worker per other core keeps every core busy when
  // merging costs as much as decoding (a worker more only takes turns with the
  // merge), and the caller's help does when decoding costs more.
  if (threads == 0) threads = std::max(2u, hardware_threads()) - 1;
  const size_t n = paths.size();
  // Decoders run ahead of the merge by at most `window` files (bounded memory);
  // the calling thread merges in input order, so the result is identical to
  // merging sequentially, whatever the thread count. A worker that found the
  // window full waits until half of it is merged: one wake-up per half window
  // instead of one per file when decoding outpaces the merge.
  const size_t decoders = std::min<size_t>(threads, n);
  const size_t window = std::max<size_t>(8, 4 * decoders);
  // One thread per file: the decoders and the merge already use the cores.
  DecodeOptions per_file = options;
  if (n > 1) per_file.threads = 1;
  std::vector<std::unique_ptr<DecodedFile>> ready(n);
  // Merged files wait here for a worker to free them: freeing a profile costs
  // the thread that does it (and the decoder's allocator lock), and the
  // merging thread is the one the others wait for. Only small ones: a worker
  // may not come back for half a window, and large files would raise the peak.
  std::vector<std::unique_ptr<DecodedFile>> spent;
  std::vector<std::exception_ptr> errors(n);
  std::mutex mu;
  std::condition_variable cv_ready, cv_space;
  size_t next = 0, merged = 0;
  bool stop = false;

  // Decodes file i into ready[i], or its error into errors[i]. `p` (may be
  // null) is a merged file to reuse (see DecodedFile).
  auto decode_one = [&](size_t i, std::unique_ptr<DecodedFile> p) {
    std::exception_ptr e;
    try {
      try {
        if (p)
          p->buffers.decode.spent = std::move(p->profile);
        else
          p = std::make_unique<DecodedFile>();
        p->profile = load_file(paths[i], per_file, p->buffers);
        if (p->buffers.byte_capacity() > kKeptBytesMax) p->buffers = LoadBuffers();
        prepare_source_into(p->profile, p->prep);
      } catch (...) {
        rethrow_with_path(paths[i]);
      }
    } catch (...) {
      e = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      ready[i] = std::move(p);
      errors[i] = e;
    }
    cv_ready.notify_all();
  };
  auto worker = [&] {
    std::vector<std::unique_ptr<DecodedFile>> to_free;
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu);
        if (next >= merged + window)
          cv_space.wait(lock, [&] { return stop || next >= n || next <= merged + window / 2; });
        to_free.swap(spent);
        if (stop || next >= n) return;
        i = next++;
      }
      std::unique_ptr<DecodedFile> reuse;
      if (!to_free.empty()) {
        reuse = std::move(to_free.back());
        to_free.pop_back();
      }
      to_free.clear();
      decode_one(i, std::move(reuse));
    }
  };
  // Waits for file i, decoding the next unclaimed files meanwhile (file i
  // itself when no worker has taken it yet).
  auto take = [&](size_t i) {
    for (std::unique_lock<std::mutex> lock(mu);;) {
      if (errors[i]) std::rethrow_exception(errors[i]);
      if (ready[i]) return std::move(ready[i]);
      const size_t j = next;
      if (j < n && j < i + window) {
        lock.unlock();
        const bool quick = quick_to_decode(paths[j]);
        lock.lock();
        if (quick && next == j) {
          ++next;
          std::unique_ptr<DecodedFile> reuse;
          if (!spent.empty()) {
            reuse = std::move(spent.back());
            spent.pop_back();
          }
          lock.unlock();
          decode_one(j, std::move(reuse));
          if (poll) poll();
          lock.lock();
          continue;
        }
        if (next != j) continue;  // a worker took it meanwhile: look again
      }
      if (cv_ready.wait_for(lock, std::chrono::milliseconds(50), [&] { return ready[i] || errors[i]; })) continue;
      if (poll) {
        lock.unlock();
        poll();
        lock.lock();
      }
    }
  };
  std::vector<std::thread> pool;
  Merger m;
  m.expect_inputs(n);
  std::exception_ptr failure;
  // Whatever leaves this block (a bad file, an exception from on_file or poll,
  // bad_alloc), the workers are stopped and joined before it is rethrown: a
  // joinable std::thread being destroyed would end the process.
  try {
    for (size_t w = 0; w < decoders; ++w) pool.emplace_back(worker);
    for (size_t i = 0; i < n; ++i) {
      std::unique_ptr<DecodedFile> p = take(i);
      try {
        m.add(p->profile, &p->prep);
      } catch (const ProfileError& err) {
        throw ProfileError(paths[i] + ": " + err.what());
      }
      const bool hand_back = p->profile.memory_bytes() <= kHandBackMax;
      {
        std::lock_guard<std::mutex> lock(mu);
        merged = i + 1;
        if (hand_back) spent.push_back(std::move(p));
      }
      p.reset();
      cv_space.notify_all();
      if (on_file) on_file(i);
      if (poll) poll();
    }
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    stop = true;
  }
  cv_space.notify_all();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return m.take_result();
}

}  // namespace pprofcore
