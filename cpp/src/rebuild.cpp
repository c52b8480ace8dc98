// rebuild: copying a profile's tables around rewritten samples and lines.
#include "pprofcore/rebuild.hpp"

namespace pprofcore {

int32_t find_or_add_string(Profile& out, std::string_view s) {
  for (size_t i = 0; i < out.strings.size(); ++i)
    if (out.strings[i] == s) return static_cast<int32_t>(i);
  out.strings.push_back(s);
  return static_cast<int32_t>(out.strings.size() - 1);
}

Profile copy_without_samples(const Profile& p) {
  Profile out;
  Profile::visit_scalars([](const char*, auto& to, const auto& from) { to = from; }, out, p);
  out.sample_type_type = p.sample_type_type;
  out.sample_type_unit = p.sample_type_unit;
  out.comments = p.comments;
  out.locations = p.locations;
  out.lines = p.lines;
  out.functions = p.functions;
  out.mappings = p.mappings;
  out.strings = p.strings;
  return out;
}

void keep_lines(Profile& out, const Profile& src, const std::vector<uint8_t>& keep) {
  Lines lines;
  const size_t nl = src.lines.size();
  size_t kept = 0;
  for (size_t i = 0; i < nl; ++i) kept += keep[i] != 0;
  lines.for_each_column([kept](const char*, auto& col) { col.reserve(kept); });
  std::vector<int64_t> offsets;
  offsets.reserve(src.locations.size() + 1);
  offsets.push_back(0);
  const auto& lo = src.locations.line_offsets;
  for (size_t l = 0; l < src.locations.size(); ++l) {
    for (int64_t i = lo[l]; i < lo[l + 1]; ++i) {
      const auto row = static_cast<size_t>(i);
      if (!keep[row]) continue;
      Lines::visit_columns([row](const char*, auto& to, const auto& from) { to.push_back(from[row]); }, lines,
                           src.lines);
    }
    offsets.push_back(static_cast<int64_t>(lines.size()));
  }
  out.lines = std::move(lines);
  out.locations.line_offsets = std::move(offsets);
}

SampleAppender::SampleAppender(const Profile& src, Profile& dst) : src_(src), dst_(dst) {
  dst_.stack_offsets.assign(1, 0);
  dst_.label_offsets.assign(1, 0);
  dst_.values.reserve(src.values.size());
  dst_.stack_offsets.reserve(src.num_samples() + 1);
  dst_.label_offsets.reserve(src.num_samples() + 1);
  dst_.stack_locations.reserve(src.stack_locations.size());
}

void SampleAppender::add(size_t s, const int32_t* stack, size_t n, const std::vector<uint8_t>* label_keep) {
  const size_t nt = src_.num_types();
  append(s, src_.values.data() + s * nt, nt, stack, n, label_keep);
}

void SampleAppender::add_with_values(size_t s, const int64_t* values, size_t n_values) {
  append(s, values, n_values, src_.stack_locations.data() + src_.stack_offsets[s],
         static_cast<size_t>(src_.stack_offsets[s + 1] - src_.stack_offsets[s]), nullptr);
}

void SampleAppender::append(size_t s, const int64_t* v, size_t nt, const int32_t* stack, size_t n,
                            const std::vector<uint8_t>* label_keep) {
  dst_.values.insert(dst_.values.end(), v, v + nt);
  dst_.stack_locations.insert(dst_.stack_locations.end(), stack, stack + n);
  dst_.stack_offsets.push_back(static_cast<int64_t>(dst_.stack_locations.size()));
  const Labels& a = src_.labels;
  Labels& b = dst_.labels;
  for (int64_t r = src_.label_offsets[s]; r < src_.label_offsets[s + 1]; ++r) {
    const auto i = static_cast<size_t>(r);
    if (label_keep && !(*label_keep)[i]) continue;
    Labels::visit_columns([i](const char*, auto& to, const auto& from) { to.push_back(from[i]); }, b, a);
  }
  dst_.label_offsets.push_back(static_cast<int64_t>(b.size()));
}

}  // namespace pprofcore
