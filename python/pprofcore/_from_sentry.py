"""Sentry's sampled profiles (the Python, JavaScript, PHP, Cocoa and Android
SDKs' ``profile`` envelope item, and what Sentry's UI downloads) to a profile.

The ``profile`` object holds ``frames`` (``function``, ``abs_path`` or
``filename``, ``lineno``, ``colno``, ``module`` or ``package``,
``instruction_addr``), ``stacks`` (lists of frame indexes, the leaf first),
``samples`` and ``thread_metadata`` ({thread id: {``name``}}). Two versions:

- ``"version": "1"`` (a transaction's profile): each sample's
  ``elapsed_since_start_ns`` counts from the document's ``timestamp`` (ISO
  8601, the transaction's start).
- ``"version": "2"`` (a continuous profiling chunk): each sample's
  ``timestamp`` is seconds since the Unix epoch (read to the microsecond).

A sample is one look at one thread's stack (``stack_id``). Sample types
``samples/count`` and ``wall/nanoseconds``: the time until that thread's
next sample (its last sample: the median of its gaps), as a sampler at a
steady rate sees it; ``timestamp_ns``, ``thread`` (the name from
``thread_metadata``) and ``tid`` are labels. A document that is the
``profile`` object alone is read too. Names are kept as written (no system
name, so pprof's demangler heuristics leave ``<locals>`` and ``<module>``
alone).
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any, Dict, List, Optional

import numpy as np

from ._build import NO_SYSTEM_NAME, TIMESTAMP, ProfileBuilder, input_error, json_document
from ._profile import Profile
from ._timestamps import to_nanoseconds

FORMAT = "Sentry profile"


def looks_like_sentry(head: bytes) -> bool:
    """A JSON object with ``"frames"`` and a key only Sentry's profiles have:
    a frame's ``"in_app"`` (the frames come first and may fill the head),
    or a sample's ``"stack_id"``, the ``"thread_metadata"``..."""
    text = head.lstrip()
    keys = (b'"in_app"', b'"stack_id"', b'"thread_metadata"', b'"elapsed_since_start_ns"', b'"profiler_id"')
    return text[:1] == b"{" and b'"frames"' in text and any(k in text for k in keys)


def _int(v: Any, where: str) -> int:
    """A non-negative integer, also as Sentry's SDKs write large ones: a
    decimal string."""
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**63:
        raise input_error(FORMAT, f"{where} = {v!r:.40} is not an integer of 0 or more")
    return v


def _start_ns(doc: dict) -> Optional[int]:
    """The document's ``timestamp`` (ISO 8601, UTC) in nanoseconds."""
    ts = doc.get("timestamp")
    if not isinstance(ts, str):
        return None
    try:
        t = _dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        raise input_error(FORMAT, f"timestamp = {ts!r:.40} is not an ISO 8601 time") from None
    return to_nanoseconds(t)  # naive: UTC


def _list(prof: dict, key: str) -> list:
    v = prof.get(key)
    if not isinstance(v, list):
        raise input_error(FORMAT, f"profile.{key} must be a list")
    return v


class _Frames:
    def __init__(self, b: ProfileBuilder, frames: Any):
        if not isinstance(frames, list):
            raise input_error(FORMAT, "profile.frames must be a list")
        self.b, self.frames = b, frames
        self._ids: Dict[int, int] = {}

    def location(self, i: Any, where: str) -> int:
        got = self._ids.get(i) if type(i) is int else None
        if got is not None:
            return got
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.frames):
            raise input_error(FORMAT, f"{where} = {i!r:.40} is not an index into profile.frames")
        f = self.frames[i]
        at = f"profile.frames[{i}]"
        if not isinstance(f, dict):
            raise input_error(FORMAT, f"{at} is not an object")
        name = f.get("function") or f.get("symbol")
        file = f.get("abs_path") or f.get("filename") or f.get("module") or f.get("package") or ""
        if not isinstance(file, str):
            raise input_error(FORMAT, f"{at}: 'abs_path' must be a string")
        line = f.get("lineno") or 0
        column = f.get("colno") or 0
        if isinstance(line, bool) or not isinstance(line, int) or not 0 <= line < 2**31:
            raise input_error(FORMAT, f"{at}: 'lineno' = {line!r:.40} is not a line number")
        if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < 2**31:
            raise input_error(FORMAT, f"{at}: 'colno' = {column!r:.40} is not a column number")
        address = 0
        addr = f.get("instruction_addr")
        if isinstance(addr, str):
            try:
                address = int(addr, 16)
            except ValueError:
                raise input_error(FORMAT, f"{at}: 'instruction_addr' = {addr!r:.40} is not hexadecimal") from None
            if not 0 <= address < 2**64:
                raise input_error(FORMAT, f"{at}: 'instruction_addr' is outside 64 bits")
        if not isinstance(name, str) or not name:
            name = f"0x{address:x}" if address else "(unknown)"
        fid = self.b.function(name, file, NO_SYSTEM_NAME)
        got = self._ids[i] = self.b.location(fid, line, column, address)
        return got


def read_sentry(doc: Any) -> Profile:
    """Build a Profile from a parsed Sentry profile (see the module's docstring)."""
    if not isinstance(doc, dict):
        raise input_error(FORMAT, "the document is not an object")
    prof = doc.get("profile", doc)
    if not isinstance(prof, dict):
        raise input_error(FORMAT, "'profile' must be an object")
    samples, stacks = _list(prof, "samples"), _list(prof, "stacks")
    b = ProfileBuilder([("samples", "count"), ("wall", "nanoseconds")])
    b.default_sample_type = "wall"
    frames = _Frames(b, prof.get("frames"))
    meta = prof.get("thread_metadata")
    names = {str(k): v.get("name") for k, v in meta.items() if isinstance(v, dict)} if isinstance(meta, dict) else {}
    start = _start_ns(doc)
    absolute = start is not None  # sample times on the epoch's clock (else relative to an unknown start)
    encoded: List[bytes] = []  # each stack used, in order of first use
    position: Dict[int, int] = {}  # stack_id -> its place in encoded
    # Per sample: its time (ns), its stack's place in encoded, its thread.
    times: List[int] = []
    stack_of: List[int] = []
    threads: List[str] = []
    for i, s in enumerate(samples):
        at = f"profile.samples[{i}]"
        if not isinstance(s, dict):
            raise input_error(FORMAT, f"{at} is not an object")
        k = _int(s.get("stack_id"), f"{at}.stack_id")
        if k >= len(stacks):
            raise input_error(FORMAT, f"{at}.stack_id = {k} is not an index into profile.stacks ({len(stacks)})")
        if k not in position:
            stack = stacks[k]
            if not isinstance(stack, list):
                raise input_error(FORMAT, f"profile.stacks[{k}] is not a list")
            position[k] = len(encoded)
            encoded.append(
                b.stack_bytes([frames.location(x, f"profile.stacks[{k}][{j}]") for j, x in enumerate(stack)])
            )
        if "elapsed_since_start_ns" in s:
            t = _int(s["elapsed_since_start_ns"], f"{at}.elapsed_since_start_ns") + (start or 0)
        else:
            ts = s.get("timestamp")
            if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not math.isfinite(ts) or not 0 <= ts < 9e9:
                raise input_error(FORMAT, f"{at}.timestamp = {ts!r:.40} is not seconds since the epoch")
            t = round(ts * 1e6) * 1000  # to the microsecond: a double holds no finer at today's times
            absolute = True
        thread = s.get("thread_id", "")
        times.append(t)
        stack_of.append(position[k])
        threads.append(str(thread) if isinstance(thread, (str, int)) and not isinstance(thread, bool) else "")
    t_ns = np.array(times, np.int64)
    _add_samples(b, t_ns, stack_of, threads, encoded, names, timed=absolute)
    for key in ("platform", "release", "environment"):
        if isinstance(doc.get(key), str) and doc[key]:
            b.comments.append(f"{key}: {doc[key]}")
    transactions = doc.get("transactions")
    for tr in transactions if isinstance(transactions, list) else []:
        if isinstance(tr, dict) and isinstance(tr.get("name"), str):
            b.comments.append(f"transaction: {tr['name']}")
    if t_ns.size:
        b.duration_nanos = int(t_ns.max() - t_ns.min())
        if absolute:
            b.time_nanos = start if start is not None else int(t_ns.min())
    b.comments.insert(0, f"Sentry profile (version {doc.get('version', '?')})")
    return b.build()


def _add_samples(b: ProfileBuilder, t_ns: np.ndarray, stack_of, threads, encoded, names, timed: bool) -> None:
    """The samples in file order (times ``t_ns``, stacks ``encoded[stack_of[i]]``,
    threads), each thread's wall time the gap to its next sample (its last:
    the median gap, 0 alone)."""
    n = len(t_ns)
    if not n:
        return
    distinct = sorted(set(threads))
    code = {t: j for j, t in enumerate(distinct)}
    tcodes = np.array([code[t] for t in threads], np.int64)
    wall = np.zeros(n, np.int64)
    for j in range(len(distinct)):
        idx = np.flatnonzero(tcodes == j)
        order = idx[np.argsort(t_ns[idx], kind="stable")]
        gaps = np.diff(t_ns[order])
        wall[order] = np.append(gaps, int(np.median(gaps)) if len(gaps) else 0)
    values = np.stack([np.ones(n, np.int64), wall], axis=1)
    tid = np.array([b.string(t) if t else 0 for t in distinct], np.int64)
    name = np.array([b.string(str(names[t])) if names.get(t) else 0 for t in distinct], np.int64)
    nums = [(TIMESTAMP, t_ns, "nanoseconds")] if timed else []
    b.add_many(
        encoded,
        np.array(stack_of, np.int64),
        values,
        num_labels=nums,
        str_labels=[("tid", tid[tcodes]), ("thread", name[tcodes])],
    )


def read_sentry_bytes(data: bytes) -> Profile:
    """Parse a Sentry profile's JSON; damage raises a :class:`DecodeError`
    naming the byte offset or the place."""
    return read_sentry(json_document(FORMAT, data))
