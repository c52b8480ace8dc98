// strings: the profile's string table, stored as one byte buffer plus offsets
// (CSR). Code 0 is always "". Owns interning for builders; does not decode UTF-8.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pprofcore {

struct StringTable {
  std::string data;                 // all strings back to back
  std::vector<int64_t> offsets{0};  // size() + 1 entries

  size_t size() const { return offsets.size() - 1; }
  std::string_view operator[](size_t i) const {
    return std::string_view(data.data() + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  void push_back(std::string_view s) {
    data.append(s.data(), s.size());
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  void clear() {
    data.clear();
    offsets.assign(1, 0);
  }
  bool operator==(const StringTable& o) const { return data == o.data && offsets == o.offsets; }
};

// Builds a string table with deduplication; code 0 is "".
class StringInterner {
 public:
  StringInterner() { intern(std::string_view()); }
  int32_t intern(std::string_view s);
  StringTable take() {
    index_.clear();
    return std::move(table_);
  }
  const StringTable& table() const { return table_; }

 private:
  StringTable table_{{}, {0}};
  std::unordered_map<std::string, int32_t> index_;
};

}  // namespace pprofcore
