// goroutine_dump: Go's goroutine dumps read as a goroutine profile. Owns the text
// the runtime prints for every goroutine: runtime/pprof's goroutine profile with
// debug=2, runtime.Stack(buf, true), a panic's or fatal error's traceback
// (GOTRACEBACK=all/system/crash) and the SIGQUIT dump. The result looks like
// runtime/pprof's own goroutine profile (sample type goroutine/count, one sample of
// value 1 per goroutine, stacks leaf first with inlined calls sharing a location),
// with names, files and lines taken from the text (locations carry no addresses)
// and the header's facts as labels: `state`, `goid`, `wait` (minutes),
// `locked_to_thread`, `created_by`, `parent_goid`, `detail`.
//
// Not read: the `created by` frame is a label, not a frame (the debug=0 profile
// has no such frame either); the frames of a `runtime stack:` section and of
// `[originating from goroutine N]` ancestors are skipped; register dumps are
// skipped. Text before the dump (a test runner's output) is skipped and counted
// in a comment; the crash header (`panic: ...`, `fatal error: ...`, `SIGQUIT:
// quit`) becomes the profile's comments.
#pragma once
#include <cstddef>

#include "pprofcore/profile.hpp"

namespace pprofcore {

// Returns false when `data` holds no goroutine dump (no line starting a crash
// header or "goroutine <N> "); otherwise fills `out` and returns true. Throws
// DecodeError naming the line when a recognised dump is malformed or truncated.
bool decode_goroutine_dump(const char* data, size_t n, Profile& out);

}  // namespace pprofcore
