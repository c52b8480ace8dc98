// strings: interning for profiles built in memory (transforms, builders).
#include "pprofcore/strings.hpp"

namespace pprofcore {

int32_t StringInterner::intern(std::string_view s) {
  auto it = index_.find(std::string(s));
  if (it != index_.end()) return it->second;
  int32_t code = static_cast<int32_t>(table_.size());
  table_.push_back(s);
  index_.emplace(std::string(s), code);
  return code;
}

}  // namespace pprofcore
