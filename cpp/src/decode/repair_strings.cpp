// repair_strings: string codes past the table -> placeholders (see repair_strings.hpp).
#include "pprofcore/repair_strings.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace pprofcore {

StringRepair repair_string_codes(Profile& p) {
  StringRepair out;
  const int32_t n = static_cast<int32_t>(p.strings.size());
  std::unordered_map<int32_t, int32_t> placeholder;  // missing code -> appended code
  auto fix = [&](int32_t& code) {
    if (code < n) return;
    ++out.references;
    auto [it, added] = placeholder.emplace(code, 0);
    if (added) {
      it->second = static_cast<int32_t>(p.strings.size());
      p.strings.push_back("[missing string " + std::to_string(code) + "]");
      ++out.placeholders;
    }
    code = it->second;
  };
  auto fix_all = [&](std::vector<int32_t>& codes) {
    for (int32_t& c : codes) fix(c);
  };
  fix_all(p.sample_type_type);
  fix_all(p.sample_type_unit);
  fix(p.period_type_type);
  fix(p.period_type_unit);
  fix_all(p.comments);
  fix(p.default_sample_type);
  fix(p.doc_url);
  // A placeholder is no regex to prune by: these become "unset".
  for (int32_t* regex : {&p.drop_frames, &p.keep_frames}) {
    if (*regex >= n) {
      ++out.references;
      *regex = 0;
    }
  }
  fix_all(p.labels.key);
  for (int32_t& c : p.labels.str)
    if (c >= 0) fix(c);
  fix_all(p.labels.num_unit);
  fix_all(p.functions.name);
  fix_all(p.functions.system_name);
  fix_all(p.functions.filename);
  fix_all(p.mappings.filename);
  fix_all(p.mappings.build_id);
  return out;
}

}  // namespace pprofcore
