// filter: focus/ignore/hide/show, show_from, prune_from and sample/label
// selection on precomputed name masks (see filter.hpp). Follows
// google/pprof profile/filter.go and prune.go (PruneFrom) line by line in
// semantics; the per-location decisions are made once, then applied to stacks.
#include "pprofcore/filter.hpp"

#include <algorithm>
#include <cstring>

#include "pprofcore/errors.hpp"
#include "pprofcore/rebuild.hpp"

namespace pprofcore {

namespace {

void require_sizes(const Profile& p, const NameMatch& m, const char* what) {
  if (!m.active) return;
  if (m.function.size() != p.functions.size() || m.mapping.size() != p.mappings.size())
    throw InternalError(std::string(what) + ": mask sizes do not match the profile's functions/mappings");
}

bool mapping_matches(const Profile& p, const NameMatch& m, size_t loc) {
  const int32_t map = p.locations.mapping[loc];
  return map >= 0 && m.mapping[static_cast<size_t>(map)];
}

bool function_matches(const Profile& p, const NameMatch& m, int64_t line) {
  return m.function[static_cast<size_t>(p.lines.function[static_cast<size_t>(line)])] != 0;
}

// Location matches if any line's function or the mapping matches (matchesName).
bool location_matches(const Profile& p, const NameMatch& m, size_t loc) {
  const auto& lo = p.locations.line_offsets;
  for (int64_t i = lo[loc]; i < lo[loc + 1]; ++i)
    if (function_matches(p, m, i)) return true;
  return mapping_matches(p, m, loc);
}

// Locations whose matches count for the "matched" flags (see filter.hpp).
std::vector<uint8_t> referenced_locations(const Profile& p, const std::vector<uint8_t>* universe) {
  if (universe) {
    if (universe->size() != p.locations.size()) throw InternalError("universe mask size mismatch");
    return *universe;
  }
  return used_locations(p);
}

// Per sample of p: 1 when its stack holds a focused location (state > 0),
// no ignored one (state < 0) and, with `hidden` (per location, empty when
// none), one that is not hidden: the samples filter_by_name keeps.
template <bool kHiding>
void mark_kept(const Profile& p, const std::vector<int8_t>& state, const uint8_t* hidden, std::vector<uint8_t>& kept) {
  const int32_t* stack = p.stack_locations.data();
  for (size_t s = 0; s < p.num_samples(); ++s) {
    bool focused = false, shown = !kHiding;
    for (const int32_t *it = stack + p.stack_offsets[s], *e = stack + p.stack_offsets[s + 1]; it != e; ++it) {
      const int8_t st = state[static_cast<size_t>(*it)];
      if (st < 0) {
        focused = false;
        break;
      }
      focused = focused || st > 0;
      if constexpr (kHiding) shown = shown || !hidden[static_cast<size_t>(*it)];
    }
    kept[s] = focused && shown ? 1 : 0;
  }
}

std::vector<uint8_t> kept_samples(const Profile& p, const std::vector<int8_t>& state,
                                  const std::vector<uint8_t>& hidden) {
  std::vector<uint8_t> kept(p.num_samples(), 0);
  if (hidden.empty())  // the loop without the hidden check: a focus or ignore reads every frame of big profiles
    mark_kept<false>(p, state, nullptr, kept);
  else
    mark_kept<true>(p, state, hidden.data(), kept);
  return kept;
}

// Appends the samples marked by `keep` unchanged, each run as one block.
void add_kept_runs(SampleAppender& app, const std::vector<uint8_t>& keep) {
  const size_t ns = keep.size();
  for (size_t s = 0; s < ns;) {
    if (!keep[s]) {
      ++s;
      continue;
    }
    size_t e = s + 1;
    while (e < ns && keep[e]) ++e;
    app.add_range(s, e);
    s = e;
  }
}

}  // namespace

std::vector<uint8_t> used_locations(const Profile& p) {
  std::vector<uint8_t> used(p.locations.size(), 0);
  for (int32_t l : p.stack_locations) used[static_cast<size_t>(l)] = 1;
  return used;
}

NameFilterResult filter_by_name(const Profile& p, const NameMatch& focus, const NameMatch& ignore,
                                const NameMatch& hide, const NameMatch& show, const std::vector<uint8_t>* universe,
                                bool defer_unchanged, bool defer_changed) {
  require_sizes(p, focus, "focus");
  require_sizes(p, ignore, "ignore");
  require_sizes(p, hide, "hide");
  require_sizes(p, show, "show");
  NameFilterResult r;
  const size_t nloc = p.locations.size();
  const auto& lo = p.locations.line_offsets;
  std::vector<int8_t> state(nloc, 0);  // +1 focused, -1 ignored, 0 neither
  std::vector<uint8_t> hidden(nloc, 0);
  std::vector<uint8_t> line_keep(p.lines.size(), 1);
  bool any_hidden = false, lines_changed = false;
  const std::vector<uint8_t> used = referenced_locations(p, universe);

  for (size_t l = 0; l < nloc; ++l) {
    const bool u = used[l] != 0;
    if (ignore.active && location_matches(p, ignore, l)) {
      r.ignore_matched = r.ignore_matched || u;
      state[l] = -1;
    } else if (!focus.active || location_matches(p, focus, l)) {
      r.focus_matched = r.focus_matched || u;
      state[l] = 1;
    }
    size_t remaining = static_cast<size_t>(lo[l + 1] - lo[l]);
    if (hide.active && location_matches(p, hide, l)) {
      r.hide_matched = r.hide_matched || u;
      const bool whole = mapping_matches(p, hide, l);
      for (int64_t i = lo[l]; i < lo[l + 1]; ++i) {
        if (whole || function_matches(p, hide, i)) {
          line_keep[static_cast<size_t>(i)] = 0;
          --remaining;
          lines_changed = true;
        }
      }
      if (remaining == 0) hidden[l] = 1;
    }
    if (show.active) {
      if (!mapping_matches(p, show, l)) {
        for (int64_t i = lo[l]; i < lo[l + 1]; ++i) {
          auto& k = line_keep[static_cast<size_t>(i)];
          if (k && !function_matches(p, show, i)) {
            k = 0;
            --remaining;
            lines_changed = true;
          }
        }
      }
      if (remaining == 0)
        hidden[l] = 1;
      else
        r.show_matched = r.show_matched || u;
    }
    any_hidden = any_hidden || hidden[l];
  }

  r.deferred = defer_unchanged && (defer_changed || (!lines_changed && !any_hidden));
  if (r.deferred) {
    if (any_hidden) r.hidden = std::move(hidden);
    r.kept = kept_samples(p, state, r.hidden);
    if (lines_changed) {  // the output's own tables; its samples stay in p
      r.profile = copy_without_samples(p);
      keep_lines(r.profile, p, line_keep);
      r.own_tables = true;
    }
    return r;
  }
  r.profile = copy_without_samples(p);
  if (lines_changed) keep_lines(r.profile, p, line_keep);
  r.kept.assign(p.num_samples(), 0);
  auto keep_run = [&](size_t first, size_t last) {
    std::fill(r.kept.begin() + static_cast<ptrdiff_t>(first), r.kept.begin() + static_cast<ptrdiff_t>(last), 1);
  };
  SampleAppender out(p, r.profile);
  std::vector<int32_t> stack;
  // With no frame hidden, kept samples are copied unchanged in runs: an
  // ignore or focus that keeps most samples copies a few long blocks.
  size_t run_start = 0;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int32_t* b = p.stack_locations.data() + p.stack_offsets[s];
    const int32_t* e = p.stack_locations.data() + p.stack_offsets[s + 1];
    bool focused = false, ignored = false;
    for (const int32_t* it = b; it != e; ++it) {
      const int8_t st = state[static_cast<size_t>(*it)];
      if (st < 0) {
        ignored = true;
        break;
      }
      focused = focused || st > 0;
    }
    if (!any_hidden) {
      if (!focused || ignored) {
        out.add_range(run_start, s);
        keep_run(run_start, s);
        run_start = s + 1;
      }
      continue;
    }
    if (!focused || ignored) continue;
    stack.clear();
    for (const int32_t* it = b; it != e; ++it)
      if (!hidden[static_cast<size_t>(*it)]) stack.push_back(*it);
    if (stack.empty()) continue;
    out.add(s, stack.data(), stack.size());
    keep_run(s, s + 1);
  }
  if (!any_hidden) {
    out.add_range(run_start, p.num_samples());
    keep_run(run_start, p.num_samples());
  }
  if (any_hidden) r.hidden = std::move(hidden);
  return r;
}

Profile show_from(const Profile& p, const NameMatch& match, bool* matched, const std::vector<uint8_t>* universe) {
  require_sizes(p, match, "show_from");
  *matched = false;
  if (!match.active) return p;
  const size_t nloc = p.locations.size();
  const auto& lo = p.locations.line_offsets;
  std::vector<uint8_t> shown(nloc, 0);
  std::vector<uint8_t> line_keep(p.lines.size(), 1);
  bool lines_changed = false;
  for (size_t l = 0; l < nloc; ++l) {
    if (mapping_matches(p, match, l)) {
      shown[l] = 1;
      continue;
    }
    for (int64_t i = lo[l + 1] - 1; i >= lo[l]; --i) {
      if (function_matches(p, match, i)) {
        shown[l] = 1;
        for (int64_t j = i + 1; j < lo[l + 1]; ++j) line_keep[static_cast<size_t>(j)] = 0;
        lines_changed = lines_changed || i + 1 < lo[l + 1];
        break;
      }
    }
  }
  const std::vector<uint8_t> used = referenced_locations(p, universe);
  for (size_t l = 0; l < nloc; ++l) *matched = *matched || (shown[l] && used[l]);
  // Each stack up to its root-most shown frame; a stack without one goes.
  return with_cut_stacks(p, lines_changed ? &line_keep : nullptr,
                         [&](const int32_t* b, size_t n) -> std::optional<std::pair<size_t, size_t>> {
                           for (size_t j = n; j-- > 0;)
                             if (shown[static_cast<size_t>(b[j])]) return std::make_pair(size_t{0}, j + 1);
                           return std::nullopt;
                         });
}

Profile prune_from(const Profile& p, const std::vector<uint8_t>& function_match) {
  if (function_match.size() != p.functions.size()) throw InternalError("prune_from: mask size mismatch");
  const size_t nloc = p.locations.size();
  const auto& lo = p.locations.line_offsets;
  std::vector<uint8_t> beneath(nloc, 0);
  std::vector<uint8_t> line_keep(p.lines.size(), 1);
  bool lines_changed = false;
  for (size_t l = 0; l < nloc; ++l) {
    for (int64_t i = lo[l]; i < lo[l + 1]; ++i) {
      if (function_match[static_cast<size_t>(p.lines.function[static_cast<size_t>(i)])]) {
        beneath[l] = 1;
        for (int64_t j = lo[l]; j < i; ++j) line_keep[static_cast<size_t>(j)] = 0;
        lines_changed = lines_changed || i > lo[l];
        break;
      }
    }
  }
  // Each stack from its leaf-most matching frame up; without one, unchanged.
  return with_cut_stacks(p, lines_changed ? &line_keep : nullptr, [&](const int32_t* b, size_t n) {
    size_t j = 0;
    while (j < n && !beneath[static_cast<size_t>(b[j])]) ++j;
    return std::optional(std::make_pair(j == n ? 0 : j, n));
  });
}

Profile kept_output(const Profile& p, const std::vector<uint8_t>& kept, const std::vector<uint8_t>& hidden,
                    const Profile* tables) {
  if (hidden.empty() && !tables) return keep_samples(p, kept);
  if (kept.size() != p.num_samples() || (!hidden.empty() && hidden.size() != p.locations.size()) ||
      (tables && tables->locations.size() != p.locations.size()))
    throw InternalError("kept_output: the masks or tables do not fit the profile");
  Profile out = copy_without_samples(tables ? *tables : p);
  SampleAppender app(p, out);
  if (hidden.empty()) {  // lines left some locations, which all stay: the samples as they are
    add_kept_runs(app, kept);
    return out;
  }
  std::vector<int32_t> stack;
  for (size_t s = 0; s < p.num_samples(); ++s) {
    if (!kept[s]) continue;
    const int32_t* b = p.stack_locations.data() + p.stack_offsets[s];
    const int32_t* e = p.stack_locations.data() + p.stack_offsets[s + 1];
    stack.clear();
    for (const int32_t* it = b; it != e; ++it)
      if (!hidden[static_cast<size_t>(*it)]) stack.push_back(*it);
    app.add(s, stack.data(), stack.size());
  }
  return out;
}

Profile keep_samples(const Profile& p, const std::vector<uint8_t>& keep) {
  if (keep.size() != p.num_samples()) throw InternalError("keep_samples: mask size mismatch");
  Profile out = copy_without_samples(p);
  SampleAppender app(p, out);
  add_kept_runs(app, keep);
  return out;
}

std::vector<uint8_t> samples_with_label(const Profile& p, const std::vector<uint8_t>& row_match) {
  if (row_match.size() != p.labels.size()) throw InternalError("samples_with_label: mask size mismatch");
  std::vector<uint8_t> out(p.num_samples(), 0);
  for (size_t s = 0; s < p.num_samples(); ++s)
    for (int64_t r = p.label_offsets[s]; r < p.label_offsets[s + 1]; ++r)
      if (row_match[static_cast<size_t>(r)]) {
        out[s] = 1;
        break;
      }
  return out;
}

Profile keep_labels(const Profile& p, const std::vector<uint8_t>& keep) {
  if (keep.size() != p.labels.size()) throw InternalError("keep_labels: mask size mismatch");
  Profile out = copy_without_samples(p);
  SampleAppender app(p, out);
  for (size_t s = 0; s < p.num_samples(); ++s) {
    const int32_t* b = p.stack_locations.data() + p.stack_offsets[s];
    app.add(s, b, static_cast<size_t>(p.stack_offsets[s + 1] - p.stack_offsets[s]), &keep);
  }
  return out;
}

std::vector<size_t> matching_samples(const Profile& child, const Profile& parent, bool& ok) {
  const size_t nt = parent.num_types(), np = parent.num_samples();
  std::vector<size_t> rows;
  rows.reserve(child.num_samples());
  size_t i = 0;
  ok = false;
  for (size_t j = 0; j < child.num_samples(); ++j) {
    const int64_t cb = child.stack_offsets[j], len = child.stack_offsets[j + 1] - cb;
    const int32_t* cs = child.stack_locations.data() + cb;
    const int64_t* cv = child.values.data() + j * nt;
    for (;; ++i) {
      if (i == np) return {};
      const int64_t pb = parent.stack_offsets[i];
      if (parent.stack_offsets[i + 1] - pb != len) continue;
      if (std::memcmp(parent.stack_locations.data() + pb, cs, static_cast<size_t>(len) * sizeof(int32_t)) != 0)
        continue;
      if (std::memcmp(parent.values.data() + i * nt, cv, nt * sizeof(int64_t)) != 0) continue;
      break;
    }
    rows.push_back(i++);
  }
  ok = true;
  return rows;
}

}  // namespace pprofcore
