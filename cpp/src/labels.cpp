// labels: label pseudo-frames, set/rename labels, sample type selection.
#include "pprofcore/labels.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "pprofcore/errors.hpp"
#include "pprofcore/rebuild.hpp"

namespace pprofcore {

namespace {

// Code of `s` in out's string table, appending it when absent.

// Code of `s` or -1 when the table does not hold it.
int32_t find(const Profile& p, std::string_view s) {
  for (size_t i = 0; i < p.strings.size(); ++i)
    if (p.strings[i] == s) return static_cast<int32_t>(i);
  return -1;
}

}  // namespace

Profile add_label_frames(const Profile& p, const std::vector<int32_t>& root_keys, const std::vector<int32_t>& leaf_keys,
                         const std::vector<int32_t>& row_text, const std::vector<std::string>& extra_strings,
                         bool* root_matched, bool* leaf_matched) {
  if (row_text.size() != p.labels.size()) throw InternalError("add_label_frames: row_text size mismatch");
  *root_matched = *leaf_matched = false;
  const size_t nstr = p.strings.size();
  auto text = [&](int32_t code) -> std::string_view {
    if (code >= 0 && static_cast<size_t>(code) < nstr) return p.strings[static_cast<size_t>(code)];
    const size_t i = static_cast<size_t>(code) - nstr;
    if (code < 0 || i >= extra_strings.size()) throw InternalError("add_label_frames: text code out of range");
    return extra_strings[i];
  };

  Profile out = copy_without_samples(p);
  uint64_t next_fid = 1, next_lid = 1;
  for (uint64_t id : p.functions.id) next_fid = std::max(next_fid, id + 1);
  for (uint64_t id : p.locations.id) next_lid = std::max(next_lid, id + 1);
  std::unordered_map<std::string, int32_t> new_strings;
  auto intern = [&](const std::string& s) {
    auto it = new_strings.find(s);
    if (it != new_strings.end()) return it->second;
    const int32_t c = static_cast<int32_t>(out.strings.size());
    out.strings.push_back(s);
    new_strings.emplace(s, c);
    return c;
  };
  // (key code, value text codes...) as raw bytes -> location row; the joined
  // name is only built for new combinations.
  std::unordered_map<std::string, int32_t> loc_of;
  std::map<std::pair<std::string, int32_t>, int32_t> loc_of_name;  // pprof interns by (name, key)
  auto intern_loc = [&](const std::string& sig, const std::string& name, int32_t key) {
    auto named = loc_of_name.find(std::make_pair(name, key));
    if (named != loc_of_name.end()) {
      loc_of.emplace(sig, named->second);
      return named->second;
    }
    const auto f = static_cast<int32_t>(out.functions.size());
    out.functions.id.push_back(next_fid++);
    out.functions.name.push_back(intern(name));
    out.functions.system_name.push_back(0);
    // A key absent from the table (code past its end) is added as a string.
    out.functions.filename.push_back(static_cast<size_t>(key) < nstr ? key : intern(std::string(text(key))));
    out.functions.start_line.push_back(0);
    const auto l = static_cast<int32_t>(out.locations.size());
    out.locations.id.push_back(next_lid++);
    out.locations.mapping.push_back(-1);
    out.locations.address.push_back(0);
    out.locations.is_folded.push_back(0);
    out.lines.function.push_back(f);
    out.lines.line.push_back(0);
    out.lines.column.push_back(0);
    out.locations.line_offsets.push_back(static_cast<int64_t>(out.lines.size()));
    loc_of.emplace(sig, l);
    loc_of_name.emplace(std::make_pair(name, key), l);
    return l;
  };

  // Frames for `keys`, last key first (so the first key ends up outermost).
  std::string joined, sig;
  std::vector<int32_t> codes;
  auto frames_for = [&](size_t s, const std::vector<int32_t>& keys, std::vector<int32_t>& frames, bool* matched) {
    frames.clear();
    const int64_t b = p.label_offsets[s], e = p.label_offsets[s + 1];
    for (size_t i = keys.size(); i-- > 0;) {
      const int32_t key = keys[i];
      codes.clear();
      int64_t last_num = -1;
      for (int64_t r = b; r < e; ++r) {
        if (p.labels.key[static_cast<size_t>(r)] != key) continue;
        if (p.labels.str[static_cast<size_t>(r)] >= 0)
          codes.push_back(row_text[static_cast<size_t>(r)]);
        else
          last_num = r;
      }
      // pprof keeps numeric values only when its unit list lines up with them,
      // i.e. when the key's last numeric label carries a unit.
      if (last_num >= 0 && p.labels.num_unit[static_cast<size_t>(last_num)] != 0)
        for (int64_t r = b; r < e; ++r)
          if (p.labels.key[static_cast<size_t>(r)] == key && p.labels.str[static_cast<size_t>(r)] < 0)
            codes.push_back(row_text[static_cast<size_t>(r)]);
      if (!codes.empty()) *matched = true;
      sig.assign(reinterpret_cast<const char*>(&key), sizeof key);
      sig.append(reinterpret_cast<const char*>(codes.data()), codes.size() * sizeof(int32_t));
      auto it = loc_of.find(sig);
      if (it != loc_of.end()) {
        frames.push_back(it->second);
        continue;
      }
      joined.clear();
      for (size_t j = 0; j < codes.size(); ++j) {
        if (j) joined.push_back(',');
        std::string_view t = text(codes[j]);
        joined.append(t.data(), t.size());
      }
      frames.push_back(intern_loc(sig, joined, key));
    }
  };

  SampleAppender app(p, out);
  std::vector<int32_t> roots, leaves, stack;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    frames_for(s, root_keys, roots, root_matched);
    frames_for(s, leaf_keys, leaves, leaf_matched);
    stack.assign(leaves.begin(), leaves.end());
    stack.insert(stack.end(), p.stack_locations.begin() + p.stack_offsets[s],
                 p.stack_locations.begin() + p.stack_offsets[s + 1]);
    stack.insert(stack.end(), roots.begin(), roots.end());
    app.add(s, stack.data(), stack.size());
  }
  return out;
}

Profile set_label(const Profile& p, const std::string& key, const std::vector<std::string>& values) {
  Profile out = copy_without_samples(p);
  // profile.proto cannot hold an empty string label: its str is code 0, and a
  // label with no string, number or unit is dropped on decoding (as pprof does).
  for (const auto& v : values)
    if (v.empty())
      throw ProfileError(
          "set_label: label values must not be empty strings (profile.proto cannot hold them: "
          "decoding drops such a label); use remove_label to drop '" +
          key + "'");
  const int32_t k = find_or_add_string(out, key);
  std::vector<int32_t> codes;
  for (const auto& v : values) codes.push_back(find_or_add_string(out, v));
  std::vector<uint8_t> keep(p.labels.size());
  for (size_t r = 0; r < keep.size(); ++r) keep[r] = !(p.labels.key[r] == k && p.labels.str[r] >= 0);
  SampleAppender app(p, out);
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int32_t* b = p.stack_locations.data() + p.stack_offsets[s];
    app.add(s, b, static_cast<size_t>(p.stack_offsets[s + 1] - p.stack_offsets[s]), &keep);
    for (int32_t c : codes) {
      out.labels.push_back(k, c, 0, 0);
    }
    out.label_offsets.back() = static_cast<int64_t>(out.labels.size());
  }
  return out;
}

Profile rename_label(const Profile& p, const std::string& from, const std::string& to) {
  const int32_t f = find(p, from);
  if (f < 0) return p;
  Profile out = p;
  const int32_t t = find_or_add_string(out, to);
  for (auto& k : out.labels.key)
    if (k == f) k = t;
  return out;
}

Profile select_sample_types(const Profile& p, const std::vector<int64_t>& indices) {
  const size_t nt = p.num_types();
  // Samples need at least one value: a profile without sample types but with
  // samples cannot be encoded so that it loads again.
  if (indices.empty()) throw ProfileError("select_sample_types: no sample types given (a profile needs at least one)");
  for (int64_t i : indices)
    if (i < 0 || static_cast<size_t>(i) >= nt) throw ProfileError("select_sample_types: index out of range");
  Profile out = p;
  out.sample_type_type.clear();
  out.sample_type_unit.clear();
  for (int64_t i : indices) {
    out.sample_type_type.push_back(p.sample_type_type[static_cast<size_t>(i)]);
    out.sample_type_unit.push_back(p.sample_type_unit[static_cast<size_t>(i)]);
  }
  const size_t k = indices.size(), ns = p.num_samples();
  out.values.assign(ns * k, 0);
  for (size_t s = 0; s < ns; ++s)
    for (size_t j = 0; j < k; ++j) out.values[s * k + j] = p.values[s * nt + static_cast<size_t>(indices[j])];
  // A default sample type that is no longer present is cleared.
  bool present = false;
  for (int32_t t : out.sample_type_type) present = present || p.str(t) == p.str(p.default_sample_type);
  if (!present) out.default_sample_type = 0;
  return out;
}

}  // namespace pprofcore
