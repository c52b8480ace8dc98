// stacks: the call tree's entry point and what its two builds share (the frame
// table, the source checks, the trimming rule). The builds themselves are in
// stacks_trie.cpp (the whole trie, then trimmed) and stacks_pruned.cpp (only
// the nodes that survive trimming).
#include "pprofcore/stacks.hpp"

#include <string>

#include "pprofcore/errors.hpp"
#include "stacks_internal.hpp"

namespace pprofcore {

namespace stacks {

FrameTable::FrameTable(CallTree& out) : out_(out) { add("root", "", 0, hash_bytes("root")); }

int32_t FrameTable::intern(std::string_view name, std::string_view file, int64_t line) {
  const uint64_t h = hash_bytes(name);
  // Row 0 ("root") is never matched, so a function named "root" gets its own frame.
  int32_t f = index_.find(h, [&](int32_t r) { return r != 0 && out_.frame_name[static_cast<size_t>(r)] == name; });
  if (f >= 0) return f;
  return add(name, file, line, h);
}

int32_t FrameTable::ellipsis() { return add_ellipsis(out_); }

int32_t add_ellipsis(CallTree& out) {
  if (out.ellipsis_frame < 0) {
    // Not in the name index: a function named "..." keeps a frame of its own.
    out.ellipsis_frame = static_cast<int32_t>(out.frame_name.size());
    out.frame_name.push_back("...");
    out.frame_file.push_back("");
    out.frame_line.push_back(0);
    for (auto* v : {&out.frame_self, &out.frame_total, &out.frame_base_self, &out.frame_base_total}) v->push_back(0);
  }
  return out.ellipsis_frame;
}

void FrameTable::reserve(const NodeTable& nodes) {
  const size_t n = out_.frame_name.size() + nodes.size();
  out_.frame_name.data.reserve(out_.frame_name.data.size() + nodes.printable.data.size());
  out_.frame_name.offsets.reserve(n + 1);
  out_.frame_file.offsets.reserve(n + 1);
  out_.frame_line.reserve(n);
  index_.reserve(n);
}

int32_t FrameTable::add(std::string_view name, std::string_view file, int64_t line, uint64_t h) {
  const int32_t f = static_cast<int32_t>(out_.frame_name.size());
  out_.frame_name.push_back(name);
  out_.frame_file.push_back(file);
  out_.frame_line.push_back(line);
  index_.insert(h, f);
  return f;
}

std::vector<int32_t> frames_of(const StackSource& src, FrameTable& frames) {
  const Profile& p = *src.profile;
  const NodeTable& t = *src.nodes;
  std::vector<int32_t> out(t.size());
  frames.reserve(t);
  for (size_t n = 0; n < t.size(); ++n) {
    std::string_view file = t.file[n];
    int64_t line = t.lineno[n];
    const int32_t fn = t.function[n];
    if (fn >= 0 && static_cast<size_t>(fn) < p.functions.size()) {
      if (file.empty()) file = p.str(p.functions.filename[static_cast<size_t>(fn)]);
      if (line == 0) line = p.functions.start_line[static_cast<size_t>(fn)];
    }
    out[n] = frames.intern(t.printable[n], file, line);
  }
  return out;
}

void check_source(const StackSource& src, const char* what) {
  if (!src.profile || !src.nodes) throw InternalError(std::string(what) + ": missing profile or node table");
  if (src.type >= src.profile->num_types())
    throw ProfileError(std::string(what) + ": sample type index " + std::to_string(src.type) + " out of range for " +
                       std::to_string(src.profile->num_types()) + " types");
  if (src.nodes->loc_node_offsets.size() != src.profile->locations.size() + 1)
    throw ProfileError(std::string(what) + ": node table was built from another profile");
  check_sums_fit(*src.profile, src.type);  // then no node's self or total can wrap
}

TrimRule::TrimRule(double min_fraction_, int64_t root_total, int64_t root_base_total, bool with_base_)
    : min_fraction(min_fraction_),
      thr(min_fraction_ * static_cast<double>(abs64(root_total))),
      bthr(min_fraction_ * static_cast<double>(abs64(root_base_total))),
      with_base(with_base_) {}

}  // namespace stacks

CallTree build_call_tree(const StackSource& cur, const StackSource* base, const CallTreeOptions& opt) {
  stacks::check_source(cur, "profile");
  if (base) stacks::check_source(*base, "base profile");
  if (!(opt.min_fraction >= 0.0 && opt.min_fraction <= 1.0)) throw ProfileError("min_fraction must be between 0 and 1");
  CallTree out;
  out.with_base = base != nullptr;
  const bool pruned = opt.method == CallTreeOptions::Method::Pruned ||
                      (opt.method == CallTreeOptions::Method::Auto && opt.min_fraction > 0.0);
  if (pruned && !base && opt.kept && opt.kept->sums.profile == cur.profile && opt.kept->sums.nodes == cur.nodes &&
      opt.kept->sums.inverted == opt.inverted && opt.kept->covers(cur.type, opt.min_fraction)) {
    stacks::emit_kept(*opt.kept, cur.type, opt.min_fraction, out);
  } else if (opt.kept && opt.kept->sums.tables_only) {
    throw InternalError("call_tree: a deferred filter output's kept tree does not cover this tree");
  } else if (pruned && opt.kept) {
    CallTreeOptions with_sums = opt;  // what the kept tree does not cover is split from its sums
    with_sums.sums = &opt.kept->sums;
    stacks::build_pruned(cur, base, with_sums, out);
  } else if (pruned) {
    stacks::build_pruned(cur, base, opt, out);
  } else {
    stacks::build_trie(cur, base, opt, out);
  }
  if (!base) {
    out.base_self.clear();
    out.base_total.clear();
    out.frame_base_self.clear();
    out.frame_base_total.clear();
  }
  return out;
}

}  // namespace pprofcore
