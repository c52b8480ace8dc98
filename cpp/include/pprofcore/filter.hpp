// filter: pprof's sample filters on precomputed matches — focus/ignore/hide/show
// (profile/filter.go FilterSamplesByName), show_from, prune_from, and the
// sample/label selections behind the tag filters. Regexes are NOT evaluated
// here: callers evaluate each regex once per unique name and pass per-function
// and per-mapping (or per-label-row) boolean masks. drop_frames/keep_frames
// live in prune.hpp; label rewriting in labels.hpp.
#pragma once
#include <cstdint>
#include <vector>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// One regex evaluated against a profile: does it match function row f (its name
// or its file name) and mapping row m (its file name)? Inactive = no regex given.
struct NameMatch {
  bool active = false;
  std::vector<uint8_t> function;  // size = functions.size()
  std::vector<uint8_t> mapping;   // size = mappings.size()
};

struct NameFilterResult {
  Profile profile;
  bool focus_matched = false, ignore_matched = false, hide_matched = false, show_matched = false;
  // What the filter did: `kept`, per input sample, 1 when it is in
  // `profile`; `hidden`, per location, 1 when it left every stack (its lines
  // all hidden; empty when none did). A report's node table is derived from
  // the input's with them (aggregate_derived.hpp).
  std::vector<uint8_t> kept, hidden;
  // Set when the filter was asked to defer (see filter_by_name): the kept
  // samples were not copied, and kept_output(input, kept, hidden, tables) is
  // the profile it stands for, where `tables` is `profile` (the output's
  // header and tables, no sample) when a line left some location, else null
  // (`profile` empty: the input's tables; `own_tables` says which).
  bool deferred = false, own_tables = false;
};

// The "matched" results follow pprof's, which look at every location of the
// profile pprof loaded (merged, so each is used by some sample). `universe`,
// when given (one entry per location), says which locations count; when null,
// the locations used by p's own samples count.
//
// pprof's FilterSamplesByName: keeps samples with a location matching `focus`
// (every location when focus is inactive) and none matching `ignore`; removes
// lines matching `hide` and lines not matching `show` (a mapping match covers
// all lines of a location), drops locations left without lines from stacks,
// and samples left without locations. Samples with empty stacks never survive.
//
// `defer_unchanged`: when the filter removes no line (focus and ignore, or a
// hide/show that matched nothing), the kept samples are not copied (see
// NameFilterResult::deferred): the copy of a big profile is mostly the
// kernel clearing fresh pages, and most reports of a filtered profile can be
// read off its input's samples and `kept`. With `defer_changed` too, a hide
// or show that removed lines defers as well: only the output's tables are
// made, and its stacks are the input's kept ones without the `hidden`
// locations (the location rows are the input's).
NameFilterResult filter_by_name(const Profile& p, const NameMatch& focus, const NameMatch& ignore,
                                const NameMatch& hide, const NameMatch& show,
                                const std::vector<uint8_t>* universe = nullptr, bool defer_unchanged = false,
                                bool defer_changed = false);

// The profile a deferred filter_by_name result stands for: p's samples marked
// by `kept`, each stack without the locations marked by `hidden` (empty: none),
// over the header and tables of `tables` (null: p's). Equal to the result the
// filter gives when it does not defer.
Profile kept_output(const Profile& p, const std::vector<uint8_t>& kept, const std::vector<uint8_t>& hidden,
                    const Profile* tables);

// pprof's ShowFrom: drops the frames above (callers of) the root-most matching
// frame; samples with no matching frame are dropped. Returns whether any
// location matched.
Profile show_from(const Profile& p, const NameMatch& match, bool* matched,
                  const std::vector<uint8_t>* universe = nullptr);

// pprof's PruneFrom: `function_match` per function row (callers pass full
// matches on simplified, non-empty names). Drops the frames beneath (callees
// of) the leaf-most matching frame of each sample.
Profile prune_from(const Profile& p, const std::vector<uint8_t>& function_match);

// Per location: 1 when some sample's stack holds it (the default `universe`
// above). One byte per stack entry written, no counts: cheap on 10M entries.
std::vector<uint8_t> used_locations(const Profile& p);

// Keeps the samples whose `keep` entry is non-zero (each run of kept samples
// copied as one block per column).
Profile keep_samples(const Profile& p, const std::vector<uint8_t>& keep);

// Per sample: does any of its label rows have a non-zero `row_match`?
std::vector<uint8_t> samples_with_label(const Profile& p, const std::vector<uint8_t>& row_match);

// The parent row of each of child's samples, for a child a filter made by
// keeping some of parent's samples as they were (focus, ignore, a label
// filter): matched in order by stack and values. Empty, with ok false, when
// some child sample has no such parent sample left.
std::vector<size_t> matching_samples(const Profile& child, const Profile& parent, bool& ok);

// Keeps the label rows whose `keep` entry is non-zero (samples unchanged).
Profile keep_labels(const Profile& p, const std::vector<uint8_t>& keep);

}  // namespace pprofcore
