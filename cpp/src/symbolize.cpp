// symbolize: rebuilding a profile's lines and functions from resolved frames.
#include "pprofcore/symbolize.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "pprofcore/errors.hpp"
#include "pprofcore/hashing.hpp"
#include "pprofcore/rebuild.hpp"

namespace pprofcore {

namespace {

void check_input(const Profile& p, const ResolvedFrames& r) {
  const size_t nf = r.name.size();
  if (r.frame_offsets.size() != r.location.size() + 1 || r.frame_offsets.front() != 0 ||
      static_cast<size_t>(r.frame_offsets.back()) != nf)
    throw ProfileError("symbolize: frame_offsets must have one entry per location plus one, from 0 to the frame count");
  if (r.system_name.size() != nf || r.filename.size() != nf || r.line.size() != nf || r.column.size() != nf ||
      r.start_line.size() != nf)
    throw ProfileError("symbolize: frame columns differ in length");
  for (size_t i = 0; i + 1 < r.frame_offsets.size(); ++i)
    if (r.frame_offsets[i] > r.frame_offsets[i + 1]) throw ProfileError("symbolize: frame_offsets not monotone");
  for (int32_t l : r.location)
    if (l < 0 || static_cast<size_t>(l) >= p.locations.size())
      throw ProfileError("symbolize: location row " + std::to_string(l) + " out of range");
  const auto ns = static_cast<int64_t>(r.strings.size());
  for (const auto* col : {&r.name, &r.system_name, &r.filename})
    for (int32_t c : *col)
      if (c < 0 || c >= ns) throw ProfileError("symbolize: string code " + std::to_string(c) + " out of range");
  if (!r.mapping_flags.empty() && r.mapping_flags.size() != p.mappings.size())
    throw ProfileError("symbolize: mapping_flags needs one entry per mapping");
}

struct FunctionKey {
  int32_t name, system_name, filename;
  int64_t start_line;
  bool operator==(const FunctionKey& o) const {
    return std::tie(name, system_name, filename, start_line) ==
           std::tie(o.name, o.system_name, o.filename, o.start_line);
  }
};
struct FunctionKeyHash {
  size_t operator()(const FunctionKey& k) const {
    uint64_t h = hash_mix(static_cast<uint32_t>(k.name), static_cast<uint32_t>(k.system_name));
    h = hash_mix(h, static_cast<uint32_t>(k.filename));
    return static_cast<size_t>(hash_mix(h, static_cast<uint64_t>(k.start_line)));
  }
};

}  // namespace

Profile apply_symbols(const Profile& p, const ResolvedFrames& r) {
  check_input(p, r);
  Profile out = p;

  // The resolved strings' codes in out's table: existing strings are reused.
  std::unordered_map<std::string_view, int32_t> existing;
  existing.reserve(p.strings.size());
  for (size_t i = 0; i < p.strings.size(); ++i) existing.emplace(p.strings[i], static_cast<int32_t>(i));
  std::vector<int32_t> code(r.strings.size());
  for (size_t i = 0; i < r.strings.size(); ++i) {
    auto it = existing.find(r.strings[i]);
    if (it != existing.end()) {
      code[i] = it->second;
    } else {
      code[i] = static_cast<int32_t>(out.strings.size());
      out.strings.push_back(r.strings[i]);
      // r.strings outlives this function's map, so its views stay valid
      existing.emplace(r.strings[i], code[i]);
    }
  }

  // One new function per distinct frame identity (pprof dedupes the new ones
  // among themselves and leaves the old ones in place).
  std::unordered_map<FunctionKey, int32_t, FunctionKeyHash> functions;
  uint64_t next_id = 1;
  for (uint64_t id : p.functions.id) next_id = std::max(next_id, id + 1);
  std::vector<int32_t> frame_function(r.name.size());
  for (size_t f = 0; f < r.name.size(); ++f) {
    FunctionKey k{code[static_cast<size_t>(r.name[f])], code[static_cast<size_t>(r.system_name[f])],
                  code[static_cast<size_t>(r.filename[f])], r.start_line[f]};
    auto [it, added] = functions.emplace(k, static_cast<int32_t>(out.functions.size()));
    if (added) {
      out.functions.id.push_back(next_id++);
      out.functions.name.push_back(k.name);
      out.functions.system_name.push_back(k.system_name);
      out.functions.filename.push_back(k.filename);
      out.functions.start_line.push_back(k.start_line);
    }
    frame_function[f] = it->second;
  }

  // Lines rebuilt location by location: resolved ones take their frames.
  std::vector<int64_t> resolved(p.locations.size(), -1);  // index into r.location
  for (size_t i = 0; i < r.location.size(); ++i) {
    auto& slot = resolved[static_cast<size_t>(r.location[i])];
    if (slot >= 0) throw ProfileError("symbolize: location row " + std::to_string(r.location[i]) + " given twice");
    slot = static_cast<int64_t>(i);
  }
  Lines lines;
  std::vector<int64_t> offsets{0};
  offsets.reserve(p.locations.size() + 1);
  const auto& lo = p.locations.line_offsets;
  for (size_t l = 0; l < p.locations.size(); ++l) {
    if (resolved[l] < 0) {
      for (int64_t i = lo[l]; i < lo[l + 1]; ++i) {
        const auto row = static_cast<size_t>(i);
        Lines::visit_columns([row](const char*, auto& to, const auto& from) { to.push_back(from[row]); }, lines,
                             p.lines);
      }
    } else {
      const auto i = static_cast<size_t>(resolved[l]);
      for (int64_t f = r.frame_offsets[i]; f < r.frame_offsets[i + 1]; ++f) {
        const auto row = static_cast<size_t>(f);
        lines.function.push_back(frame_function[row]);
        lines.line.push_back(r.line[row]);
        lines.column.push_back(r.column[row]);
      }
      out.locations.is_folded[l] = 0;
    }
    offsets.push_back(static_cast<int64_t>(lines.size()));
  }
  out.lines = std::move(lines);
  out.locations.line_offsets = std::move(offsets);

  for (size_t m = 0; m < r.mapping_flags.size(); ++m) {
    const uint8_t f = r.mapping_flags[m];
    if (f & kHasFunctions) out.mappings.has_functions[m] = 1;
    if (f & kHasFilenames) out.mappings.has_filenames[m] = 1;
    if (f & kHasLineNumbers) out.mappings.has_line_numbers[m] = 1;
    if (f & kHasInlineFrames) out.mappings.has_inline_frames[m] = 1;
  }
  return out;
}

Profile with_main_mapping(const Profile& p, std::string_view exec_name) {
  Profile out = p;
  Mappings& m = out.mappings;
  if (m.size() == 0) {  // pprof's placeholder: id 1, no range, no file, no flags
    m.id.push_back(1);
    for (auto* col : {&m.memory_start, &m.memory_limit, &m.file_offset}) col->push_back(0);
    for (auto* col : {&m.filename, &m.build_id}) col->push_back(0);
    for (auto* col : {&m.has_functions, &m.has_filenames, &m.has_line_numbers, &m.has_inline_frames}) col->push_back(0);
    std::fill(out.locations.mapping.begin(), out.locations.mapping.end(), 0);
  }
  if (!exec_name.empty()) m.filename[0] = find_or_add_string(out, exec_name);
  return out;
}

namespace {

// Sets column[rows[i]] to the code of names[i] in out's strings (an existing
// string keeps its first code), for with_function_names and with_mapping_files.
void set_string_column(Profile& out, std::vector<int32_t>& column, const std::vector<int32_t>& rows,
                       const std::vector<std::string>& names, const char* what) {
  if (rows.size() != names.size()) throw ProfileError(std::string(what) + ": rows and names differ in length");
  for (int32_t r : rows)
    if (r < 0 || static_cast<size_t>(r) >= column.size())
      throw ProfileError(std::string(what) + ": row " + std::to_string(r) + " out of range");
  if (rows.empty()) return;
  std::unordered_map<std::string_view, int32_t> code;  // first code of each string
  code.reserve(out.strings.size() + names.size());
  for (size_t i = 0; i < out.strings.size(); ++i) code.emplace(out.strings[i], static_cast<int32_t>(i));
  std::vector<std::string> added;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto it = code.find(names[i]);
    int32_t c;
    if (it != code.end()) {
      c = it->second;
    } else {
      c = static_cast<int32_t>(out.strings.size() + added.size());
      code.emplace(names[i], c);  // keyed by names[i], which outlives the map
      added.push_back(names[i]);
    }
    column[static_cast<size_t>(rows[i])] = c;
  }
  for (const auto& a : added) out.strings.push_back(a);
}

}  // namespace

Profile with_function_names(const Profile& p, const std::vector<int32_t>& rows, const std::vector<std::string>& names) {
  Profile out = p;
  set_string_column(out, out.functions.name, rows, names, "with_function_names");
  return out;
}

Profile with_mapping_files(const Profile& p, const std::vector<int32_t>& rows, const std::vector<std::string>& files) {
  Profile out = p;
  set_string_column(out, out.mappings.filename, rows, files, "with_mapping_files");
  return out;
}

std::vector<int32_t> demangle_candidates(const Profile& p, bool force) {
  // per string code: 0 not looked at yet, 1 left as it is, 2 may change
  std::vector<uint8_t> state(p.strings.size(), 0);
  auto may_change = [&](int32_t code) {
    uint8_t& st = state[static_cast<size_t>(code)];
    if (st == 0) {
      const std::string_view s = p.str(code);
      const bool mangled = s.rfind("_Z", 0) == 0 || s.rfind("__Z", 0) == 0 || s.rfind("_R", 0) == 0;
      const bool cpp_like = s.find_first_of("<>[]") != std::string_view::npos || s.find("::") != std::string_view::npos;
      st = mangled || cpp_like ? 2 : 1;
    }
    return st == 2;
  };
  std::vector<int32_t> rows;
  const auto& f = p.functions;
  for (size_t r = 0; r < f.size(); ++r) {
    const std::string_view name = p.str(f.name[r]), system = p.str(f.system_name[r]);
    const bool same = f.name[r] == f.system_name[r] || name == system;
    if (name.empty() || (force && !system.empty() && !same) || (same && may_change(f.system_name[r])))
      rows.push_back(static_cast<int32_t>(r));
  }
  return rows;
}

}  // namespace pprofcore
