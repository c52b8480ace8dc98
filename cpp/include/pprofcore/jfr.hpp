// jfr: Java Flight Recorder recordings (as the JDK and async-profiler write
// them) to one profile. A recording is a sequence of chunks; each has a
// header, a metadata event describing every type (so no table of the JDK's
// types is needed), checkpoint events holding the constant pools (threads,
// stack traces, methods, classes, symbols) and the events. The events that
// become samples and their sample types are listed in docs/formats.md; the
// Python side (_from_jfr) splits the result into one profile per kind.
// Reads bytes only: no files, no gzip (the caller inflates).
#pragma once
#include <cstddef>
#include <cstdint>

#include "pprofcore/profile.hpp"

namespace pprofcore::jfr {

// Whether `data` opens a JFR chunk (magic "FLR\0").
bool looks_like_jfr(const uint8_t* data, size_t n);

// Every sample of every event kind read (cpu, wall, alloc, lock) in one
// profile, the present kinds' sample types side by side in that order (a
// sample has values in its kind's columns only; the first kind is the
// default sample type). Malformed input throws DecodeError with the byte
// offset; a recording without any event read is refused by name.
Profile read(const uint8_t* data, size_t n);

}  // namespace pprofcore::jfr
