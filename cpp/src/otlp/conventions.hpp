// conventions: the attribute and label names of pprofcore's OTLP <-> pprof
// mapping, shared by the reader and the writer so the two cannot drift. The
// pprof.* and process.* names are OpenTelemetry semantic conventions; the one
// pprofcore.* name is ours, for the pprof field no convention covers yet.
#pragma once

namespace pprofcore::otlp::names {

// Labels made from what OTLP keeps outside attributes (docs/otlp.md).
constexpr const char* kTimestampLabel = "timestamp_ns";  // Sample.timestamps_unix_nano
constexpr const char* kNanoseconds = "nanoseconds";      // its num_unit
constexpr const char* kTraceIdLabel = "trace_id";        // Link.trace_id, lowercase hex
constexpr const char* kSpanIdLabel = "span_id";          // Link.span_id, lowercase hex

// Semantic conventions, registry "pprof".
constexpr const char* kIsFolded = "pprof.location.is_folded";
constexpr const char* kHasFunctions = "pprof.mapping.has_functions";
constexpr const char* kHasFilenames = "pprof.mapping.has_filenames";
constexpr const char* kHasLineNumbers = "pprof.mapping.has_line_numbers";
constexpr const char* kHasInlineFrames = "pprof.mapping.has_inline_frames";
constexpr const char* kComment = "pprof.profile.comment";
constexpr const char* kDropFrames = "pprof.profile.drop_frames";
constexpr const char* kKeepFrames = "pprof.profile.keep_frames";
constexpr const char* kDocUrl = "pprof.profile.doc_url";
// Not in the conventions: pprof's default_sample_type (a sample type name).
constexpr const char* kDefaultSampleType = "pprofcore.default_sample_type";

// Build ids (registry "process"): read in this order, written as the first.
constexpr const char* kBuildIds[] = {"process.executable.build_id.gnu", "process.executable.build_id.go",
                                     "process.executable.build_id.htlhash", "process.executable.build_id.profiling"};

}  // namespace pprofcore::otlp::names
