"""Profile summaries: totals, counts and producer hints, shared by ``repr``,
``_repr_html_`` and ``pprofcore info``."""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Dict, List

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

#: The profile's header: the Profile attributes of profile.proto's scalar and
#: comment fields (everything but the sample types and the tables), in the
#: order equality reports and stores them.
HEADER_FIELDS = (
    "period_type",
    "period",
    "time_nanos",
    "duration_nanos",
    "comments",
    "drop_frames",
    "keep_frames",
    "default_sample_type",
    "doc_url",
)

# File-name suffixes of function source files -> language/runtime.
_SUFFIX_RUNTIME = {
    ".go": "Go",
    ".java": "Java",
    ".kt": "Kotlin",
    ".scala": "Scala",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".ts": "TypeScript",
    ".py": "Python",
    ".rb": "Ruby",
    ".rs": "Rust",
    ".php": "PHP",
    ".jl": "Julia",
    ".cs": ".NET",
    ".c": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".h": "C/C++",
    ".hpp": "C++",
    ".cairo": "Cairo",
}

_SAMPLE_TYPE_HINTS = [
    ({"samples/count", "cpu/nanoseconds"}, "Go runtime/pprof CPU profile"),
    ({"alloc_objects/count", "alloc_space/bytes", "inuse_objects/count", "inuse_space/bytes"}, "Go heap profile"),
    ({"contentions/count", "delay/nanoseconds"}, "Go mutex/block profile"),
    ({"goroutine/count"}, "Go goroutine profile"),
    ({"threadcreate/count"}, "Go threadcreate profile"),
    ({"wall/nanoseconds"}, "wall-clock profile"),
]


# The first comment the readers of other profilers' files write -> producer.
_COMMENT_HINTS = [
    ("Firefox Profiler processed profile", "Firefox Profiler processed profile (samply, profiler.firefox.com)"),
    ("Gecko profile", "Firefox Gecko profile"),
    ("DHAT ", "Valgrind DHAT heap profile"),
    ("Massif ", "Valgrind Massif heap snapshot"),
    ("Callgrind profile", "Callgrind/Cachegrind profile"),
    ("heaptrack profile", "heaptrack heap profile"),
    ("Scalene profile", "Scalene profile"),
    ("stackprof, mode", "stackprof profile (Ruby)"),
    ("Sentry profile", "Sentry profile"),
    ("memray capture of", "memray capture (Python memory)"),
    ("async-profiler text output", "async-profiler text output (Java)"),
    ("JFR events", "Java Flight Recorder recording"),
    ("pyinstrument", "pyinstrument profile"),
    ("speedscope:", "speedscope file"),
]


def producer_hints(p: "Profile") -> List[str]:
    """Best-effort guesses of what produced ``p``, most specific first."""
    hints: List[str] = []
    comments = p.comments
    for prefix, hint in _COMMENT_HINTS:
        if any(c.startswith(prefix) for c in comments):
            hints.append(hint)  # a reader of another profiler's file said so
            break
    types = {f"{t}/{u}" for t, u in p.sample_types}
    if not hints:  # guessed from the sample types only when no reader named the producer
        for needed, hint in _SAMPLE_TYPE_HINTS:
            if needed <= types and (len(needed) > 1 or types == needed):
                hints.append(hint)
                break
    strings = p.strings
    counts: Counter = Counter()
    for code in np.unique(p.functions.filename):
        name = strings[int(code)]
        ext = os.path.splitext(name)[1].lower()
        if ext in _SUFFIX_RUNTIME:
            counts[_SUFFIX_RUNTIME[ext]] += 1
    names = [strings[int(c)] for c in np.unique(p.functions.name)[:2000]]
    if any(n.startswith("runtime.") for n in names):
        counts["Go"] += 5
    if any(n.startswith(("java.", "java/", "jdk.", "sun.")) for n in names):
        counts["Java"] += 5
    if any(n.startswith("System.") for n in names):
        counts[".NET"] += 5
    if counts:
        hints.append("language: " + ", ".join(lang for lang, _ in counts.most_common(3)))
    mapping_files = [strings[int(c)] for c in p.mappings.filename]
    if any("kernel" in f for f in mapping_files) or any(n.endswith("[kernel.kallsyms]") for n in names):
        hints.append("kernel frames (eBPF/perf)")
    if len(p.functions) == 0 and len(p.locations) > 0:
        hints.append("unsymbolized (addresses only)")
    return hints


def totals(p: "Profile") -> Dict[str, int]:
    """Sum of each sample type's values, keyed ``"type/unit"``."""
    sums = p.values.sum(axis=0, dtype=np.int64) if len(p) else np.zeros(len(p.sample_types), np.int64)
    return {f"{t}/{u}": int(v) for (t, u), v in zip(p.sample_types, sums)}


def format_duration(nanos: int) -> str:
    if nanos == 0:
        return "0s"
    for unit, scale in (("h", 3600e9), ("min", 60e9), ("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(nanos) >= scale:
            return f"{nanos / scale:.3g}{unit}"
    return f"{nanos}ns"


def format_time(nanos: int) -> str:
    if nanos == 0:
        return "-"
    import datetime

    return datetime.datetime.fromtimestamp(nanos / 1e9, tz=datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def summary(p: "Profile") -> Dict[str, object]:
    """A dict describing ``p`` (used by ``pprofcore info --format json``)."""
    return {
        "sample_types": [f"{t}/{u}" for t, u in p.sample_types],
        "period_type": "/".join(p.period_type) if p.period_type else None,
        "period": p.period,
        "totals": totals(p),
        "samples": len(p),
        "locations": len(p.locations),
        "functions": len(p.functions),
        "mappings": len(p.mappings),
        "strings": len(p.strings),
        "labels": sorted({p.strings[int(k)] for k in np.unique(p.labels.key)}),
        "time_nanos": p.time_nanos,
        "duration_nanos": p.duration_nanos,
        "comments": list(p.comments),
        "default_sample_type": p.default_sample_type or None,
        "memory_bytes": p.memory_bytes,
        "producer_hints": producer_hints(p),
    }
