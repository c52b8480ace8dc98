// rebuild: copying a profile's tables around rewritten samples and lines.
#include "pprofcore/rebuild.hpp"

#include "pprofcore/memory.hpp"

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
  // Room for every sample of src, in huge pages where the columns are big:
  // a filter writes tens of megabytes of fresh memory, and page faults were
  // a third of its time. Pages never written stay unmapped.
  reserve_huge(dst_.values, src.values.size());
  reserve_huge(dst_.stack_offsets, src.num_samples() + 1);
  reserve_huge(dst_.label_offsets, src.num_samples() + 1);
  reserve_huge(dst_.stack_locations, src.stack_locations.size());
  Labels::visit_columns([](const char*, auto& to, const auto& from) { reserve_huge(to, from.size()); }, dst_.labels,
                        src.labels);
}

void SampleAppender::add(size_t s, const int32_t* stack, size_t n, const std::vector<uint8_t>* label_keep) {
  const size_t nt = src_.num_types();
  append(s, src_.values.data() + s * nt, nt, stack, n, label_keep);
}

void SampleAppender::add_with_values(size_t s, const int64_t* values, size_t n_values) {
  append(s, values, n_values, src_.stack_locations.data() + src_.stack_offsets[s],
         static_cast<size_t>(src_.stack_offsets[s + 1] - src_.stack_offsets[s]), nullptr);
}

void SampleAppender::add_range(size_t first, size_t last) {
  if (first >= last) return;
  const size_t nt = src_.num_types();
  dst_.values.insert(dst_.values.end(), src_.values.begin() + static_cast<std::ptrdiff_t>(first * nt),
                     src_.values.begin() + static_cast<std::ptrdiff_t>(last * nt));
  // Offsets shift by where the block starts in dst instead of where it started in src.
  auto append_offsets = [first, last](std::vector<int64_t>& to, const std::vector<int64_t>& from) {
    const int64_t shift = to.back() - from[first];
    for (size_t s = first + 1; s <= last; ++s) to.push_back(from[s] + shift);
  };
  const auto block = [](const std::vector<int64_t>& offsets, size_t s) {
    return static_cast<std::ptrdiff_t>(offsets[s]);
  };
  dst_.stack_locations.insert(dst_.stack_locations.end(),
                              src_.stack_locations.begin() + block(src_.stack_offsets, first),
                              src_.stack_locations.begin() + block(src_.stack_offsets, last));
  append_offsets(dst_.stack_offsets, src_.stack_offsets);
  const std::ptrdiff_t lb = block(src_.label_offsets, first), le = block(src_.label_offsets, last);
  Labels::visit_columns(
      [lb, le](const char*, auto& to, const auto& from) { to.insert(to.end(), from.begin() + lb, from.begin() + le); },
      dst_.labels, src_.labels);
  append_offsets(dst_.label_offsets, src_.label_offsets);
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
