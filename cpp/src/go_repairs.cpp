// go_repairs: see go_repairs.hpp.
#include "pprofcore/go_repairs.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pprofcore/errors.hpp"
#include "pprofcore/rebuild.hpp"

namespace pprofcore {
namespace {

using Stack = std::vector<int32_t>;

struct StackHash {
  size_t operator()(const Stack& s) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int32_t v : s) h = (h ^ static_cast<uint32_t>(v)) * 0x100000001b3ull;
    return static_cast<size_t>(h);
  }
};

bool is_go_limit(int64_t n) { return n == 32 || n == 64 || n == 128; }

int64_t weight(const Profile& p, size_t sample) {
  // The heaviest continuation wins ties: the sum of the sample's values, by
  // magnitude (a delta profile may hold negative values).
  int64_t w = 0;
  const size_t nt = p.num_types();
  for (size_t t = 0; t < nt; ++t) {
    const int64_t v = p.values[sample * nt + t];
    const int64_t a = v < 0 ? -v : v;
    w = a > INT64_MAX - w ? INT64_MAX : w + a;
  }
  return w;
}

}  // namespace

Profile repair_truncated_stacks(const Profile& p, int64_t depth, int64_t window, TruncatedStacksReport& report) {
  report = TruncatedStacksReport{};
  if (window < 1) throw ProfileError("window must be at least 1 frame");
  if (depth < 0) throw ProfileError("depth must be 0 (automatic) or a positive frame count");
  const size_t n = p.num_samples();
  const auto& off = p.stack_offsets;
  const auto& loc = p.stack_locations;
  int64_t longest = 0;
  for (size_t s = 0; s < n; ++s) longest = std::max(longest, off[s + 1] - off[s]);
  if (depth == 0) depth = is_go_limit(longest) ? longest : 0;
  Profile out = copy_without_samples(p);
  SampleAppender append(p, out);
  if (depth == 0 || window > depth) {
    for (size_t s = 0; s < n; ++s) append.add(s);
    return out;
  }
  report.depth = depth;
  const auto w = static_cast<size_t>(window);

  // The root-most `window` frames of each truncated stack: the key to look for.
  std::unordered_map<Stack, size_t, StackHash> key_index;  // key -> row in `keys`
  std::vector<Stack> keys;
  std::vector<int64_t> key_of(n, -1);
  for (size_t s = 0; s < n; ++s) {
    if (off[s + 1] - off[s] != depth) continue;
    ++report.truncated;
    Stack key(loc.begin() + off[s + 1] - static_cast<int64_t>(w), loc.begin() + off[s + 1]);
    auto [it, added] = key_index.emplace(std::move(key), keys.size());
    if (added) keys.push_back(it->first);
    key_of[s] = static_cast<int64_t>(it->second);
  }

  // For every key, the root parts that follow it in untruncated stacks (the key
  // at any position that leaves frames above it), weighted by their samples.
  // Stacks are compared window by window with a hash of the window first.
  std::vector<std::unordered_map<Stack, int64_t, StackHash>> continuations(keys.size());
  std::unordered_set<uint64_t> key_hashes;
  auto window_hash = [&](const int32_t* f) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < w; ++i) h = (h ^ static_cast<uint32_t>(f[i])) * 0x100000001b3ull;
    return h;
  };
  for (const auto& k : keys) key_hashes.insert(window_hash(k.data()));
  for (size_t s = 0; s < n; ++s) {
    const int64_t len = off[s + 1] - off[s];
    if (len == depth || len <= window) continue;  // a truncated stack has no root to give
    const int32_t* f = loc.data() + off[s];
    for (size_t j = 0; j + w < static_cast<size_t>(len); ++j) {
      if (!key_hashes.count(window_hash(f + j))) continue;
      Stack key(f + j, f + j + w);
      auto it = key_index.find(key);
      if (it == key_index.end()) continue;
      Stack rest(f + j + w, f + len);
      auto& slot = continuations[it->second][rest];
      const int64_t add = weight(p, s);
      slot = add > INT64_MAX - slot ? INT64_MAX : slot + add;
    }
  }
  // The chosen root part per key: the heaviest (then the shortest, then the
  // smallest, so the choice does not depend on hash order).
  std::vector<const Stack*> chosen(keys.size(), nullptr);
  std::vector<uint8_t> several(keys.size(), 0);
  for (size_t k = 0; k < keys.size(); ++k) {
    const std::pair<const Stack, int64_t>* best = nullptr;
    for (const auto& c : continuations[k]) {
      if (!best || std::make_tuple(-c.second, c.first.size(), c.first) <
                       std::make_tuple(-best->second, best->first.size(), best->first))
        best = &c;
    }
    if (best) chosen[k] = &best->first;
    several[k] = continuations[k].size() > 1;
  }

  Stack stack;
  for (size_t s = 0; s < n; ++s) {
    if (key_of[s] < 0 || !chosen[static_cast<size_t>(key_of[s])]) {
      append.add(s);
      continue;
    }
    const auto k = static_cast<size_t>(key_of[s]);
    const Stack& rest = *chosen[k];
    stack.assign(loc.begin() + off[s], loc.begin() + off[s + 1]);
    stack.insert(stack.end(), rest.begin(), rest.end());
    append.add(s, stack.data(), stack.size());
    ++report.repaired;
    report.ambiguous += several[k];
    report.frames_added += static_cast<int64_t>(rest.size());
  }
  return out;
}

std::string drop_go_type_params(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  size_t i = 0;
  while (i < name.size()) {
    const char c = name[i];
    const bool after_ident =
        !out.empty() && (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_' ||
                         out.back() == ')' || static_cast<unsigned char>(out.back()) >= 0x80);
    if (c == '[' && after_ident) {
      // Skip to the matching ']' (type lists nest: Map[K comparable, V []T]).
      size_t level = 0, j = i;
      for (; j < name.size(); ++j) {
        if (name[j] == '[') ++level;
        if (name[j] == ']' && --level == 0) break;
      }
      if (j < name.size() && j > i + 1) {  // `[]` is not a list (C++'s operator[])
        i = j + 1;
        continue;
      }
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

Profile drop_type_params(const Profile& p, TypeParamsReport& report) {
  report = TypeParamsReport{};
  Profile out = p;
  // New names are appended to a copy of the table; a name that already exists
  // reuses its (first) code, so equal functions compare equal by code.
  std::unordered_map<std::string_view, int32_t> existing;
  for (size_t i = 0; i < p.strings.size(); ++i) existing.emplace(p.strings[i], static_cast<int32_t>(i));
  std::unordered_map<std::string, int32_t> appended;
  std::unordered_map<int32_t, int32_t> renamed;  // old code -> new code
  auto rename = [&](int32_t code) {
    auto it = renamed.find(code);
    if (it != renamed.end()) return it->second;
    const std::string_view old = p.str(code);
    int32_t now = code;
    if (old.find('[') != std::string_view::npos) {
      std::string cleaned = drop_go_type_params(old);
      if (cleaned != old) {
        if (auto e = existing.find(cleaned); e != existing.end()) {
          now = e->second;
        } else if (auto a = appended.find(cleaned); a != appended.end()) {
          now = a->second;
        } else {
          now = static_cast<int32_t>(out.strings.size());
          out.strings.push_back(cleaned);
          appended.emplace(std::move(cleaned), now);
        }
      }
    }
    renamed.emplace(code, now);
    return now;
  };
  auto& f = out.functions;
  for (size_t r = 0; r < f.size(); ++r) {
    const int32_t name = rename(f.name[r]), system = rename(f.system_name[r]);
    report.functions_renamed += name != f.name[r] || system != f.system_name[r];
    f.name[r] = name;
    f.system_name[r] = system;
  }
  if (report.functions_renamed == 0) return out;
  // Merge functions that are now equal: keep the first row of each identity.
  std::unordered_map<Stack, int32_t, StackHash> first;
  std::vector<int32_t> row_of(f.size());
  Functions kept;
  for (size_t r = 0; r < f.size(); ++r) {
    Stack identity{f.name[r], f.system_name[r], f.filename[r], static_cast<int32_t>(f.start_line[r]),
                   static_cast<int32_t>(f.start_line[r] >> 32)};
    auto [it, added] = first.emplace(std::move(identity), static_cast<int32_t>(kept.size()));
    if (added) {
      Functions::visit_columns([r](const char*, auto& to, const auto& from) { to.push_back(from[r]); }, kept, f);
    } else {
      ++report.functions_merged;
    }
    row_of[r] = it->second;
  }
  out.functions = std::move(kept);
  for (auto& fn : out.lines.function) fn = row_of[static_cast<size_t>(fn)];
  return out;
}

}  // namespace pprofcore
