"""Java Flight Recorder recordings (``.jfr``, as the JDK writes them with
``-XX:StartFlightRecording`` or ``jcmd JFR.dump``, and as async-profiler
writes them) to profiles.

The core reads the recording (``cpp/src/jfr``: chunks, metadata, constant
pools, compressed integers, stack traces); this module detects it and splits
the one profile the core returns by event kind.

Events read, by kind (``load_all`` keys, and the sample types of each):

- ``cpu``: ``jdk.ExecutionSample`` (JDK and async-profiler CPU samples) as
  ``cpu_samples/count``;
- ``wall``: ``jdk.NativeMethodSample`` (threads in native code) and
  async-profiler's ``profiler.WallClockSample`` (its ``samples``: the ticks
  one event stands for) as ``wall_samples/count``;
- ``alloc``: ``jdk.ObjectAllocationInNewTLAB`` (weight: the TLAB size),
  ``jdk.ObjectAllocationOutsideTLAB`` (the allocation size) and
  ``jdk.ObjectAllocationSample`` (its ``weight``) as ``alloc_objects/count``
  and ``alloc_space/bytes``, with string labels ``class`` (the allocated
  class) and ``allocation`` (``in_new_tlab``, ``outside_tlab``, ``sample``);
- ``lock``: ``jdk.JavaMonitorEnter``, ``jdk.ThreadPark`` and async-profiler's
  ``profiler.NativeLock`` as ``contentions/count`` and ``delay/nanoseconds``
  (the event's duration), with ``class`` (the monitor or parked-on class) and
  ``event`` labels;
- ``cpu_time``: the JDK 25 CPU-time sampler's ``jdk.CPUTimeSample`` as
  ``cpu_time_samples/count`` and ``cpu_time/nanoseconds`` (its
  ``samplingPeriod``: the CPU time one sample stands for);
- ``malloc``: async-profiler's native allocations (``profiler.Malloc``, its
  ``size``) as ``malloc_objects/count`` and ``malloc_space/bytes``;
- ``live``: async-profiler's live objects (``profiler.LiveObject``, its
  ``allocationSize``, ``class`` label) as ``live_objects/count`` and
  ``live_space/bytes``.

Every sample has the labels ``thread`` (the Java thread name, else the OS
one), ``thread_id`` (the Java thread id) and ``timestamp_ns`` (the event's
start time, Unix epoch nanoseconds from the chunk's clock). A frame's
function is ``package.Class.method`` (system name with the JVM descriptor),
its line the frame's line number; frames of type ``Inlined`` become inline
lines of the location of the frame they were inlined into, as in pprof.
:func:`pprofcore.load` returns one profile with the sample types of every
kind present side by side (a sample has values in its own kind's columns
only; the first kind is the default sample type, so ``-sample_index`` picks
another in the CLI); :func:`pprofcore.load_all` returns each kind as its own
profile, with its samples only.
"""

from __future__ import annotations

from typing import Dict

from . import _core
from ._profile import Profile

MAGIC = b"FLR\0"
KINDS = ["cpu", "wall", "alloc", "lock", "cpu_time", "malloc", "live"]
# The sample types of each kind, as the core names them.
_TYPES = {
    "cpu": ["cpu_samples"],
    "wall": ["wall_samples"],
    "alloc": ["alloc_objects", "alloc_space"],
    "lock": ["contentions", "delay"],
    "cpu_time": ["cpu_time_samples", "cpu_time"],
    "malloc": ["malloc_objects", "malloc_space"],
    "live": ["live_objects", "live_space"],
}


def looks_like_jfr(head: bytes) -> bool:
    """Whether ``head`` opens a JFR chunk (magic ``FLR\\0``)."""
    return head[:4] == MAGIC


def read_jfr_bytes(data: bytes) -> Profile:
    """One profile of every event kind the recording holds: their sample
    types side by side (in the order of :data:`KINDS`; each sample has values
    in its kind's columns only), the first present kind the default."""
    return Profile._wrap(_core.read_jfr(data))


def split_kinds(p: Profile) -> Dict[str, Profile]:
    """``{kind: Profile}`` of a profile :func:`read_jfr_bytes` made: each
    kind's sample types, and only the samples of that kind (compacted)."""
    out = {}
    names = [t for t, _ in p.sample_types]
    for kind in KINDS:
        types = _TYPES[kind]
        if types[0] not in names:
            continue
        q = p.select_sample_types(types)
        keep = (q.values[:, 0] != 0).astype("uint8")
        out[kind] = q._derive(_core.keep_samples(q._core, keep)).compact()
    return out
