"""cProfile/profile dumps (``python -m cProfile -o out.prof``,
``pstats.Stats.dump_stats``) to a profile.

The dump is a marshalled dict ``{(file, line, function): (primitive calls,
calls, self seconds, cumulative seconds, callers)}`` whose ``callers`` maps
each caller to the same four numbers for that edge. A deterministic profiler
records no stacks, so, as gprof2dot does, each caller edge becomes a sample
whose stack has depth two (caller, then callee) and each function nobody
called becomes a one-frame sample. Sample types: ``calls/count`` (all calls,
primitive or not), ``time/nanoseconds`` (self time, the default) and
``cumulative_time/nanoseconds``. Flat values per function are what ``pstats``
prints (ncalls, tottime, cumtime); cum across more than one level is not
known, so ``-cum`` over deeper paths undercounts: a limit of the format.
Built-ins (file ``~``) keep their ``<built-in ...>`` names.
"""

from __future__ import annotations

import math
from typing import Dict, Tuple

from ._build import NO_SYSTEM_NAME, ProfileBuilder, input_error
from ._marshal_subset import MarshalError, loads
from ._profile import Profile

FORMAT = "cProfile/pstats dump"


def looks_like_pstats(head: bytes) -> bool:
    """Whether ``head`` opens a marshalled dict whose first key is a tuple
    (marshal's ``{`` with or without its reference flag, then ``(`` or ``)``)."""
    return len(head) >= 2 and head[0] in (0x7B, 0xFB) and head[1] in (0x28, 0x29, 0xA8, 0xA9)


def _key(k, where: str) -> Tuple[str, int, str]:
    if not (isinstance(k, tuple) and len(k) == 3 and isinstance(k[0], str) and isinstance(k[2], str)):
        raise input_error(FORMAT, f"{where}: key {k!r:.80} is not (file, line, function)")
    if isinstance(k[1], bool) or not isinstance(k[1], int):
        raise input_error(FORMAT, f"{where}: line {k[1]!r:.40} is not an integer")
    return k


def _numbers(v, where: str) -> Tuple[int, int, float, float]:
    ok = isinstance(v, tuple) and len(v) >= 4
    ok = ok and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v[:4])
    if not ok:
        raise input_error(FORMAT, f"{where}: expected (calls, calls, tottime, cumtime), got {v!r:.80}")
    return v[0], v[1], v[2], v[3]


def _ns(seconds: float, where: str) -> int:
    x = seconds * 1e9
    if not (math.isfinite(x) and -(2**63) <= round(x) < 2**63):
        raise input_error(FORMAT, f"{where}: time {seconds!r} s is outside the int64 range of nanoseconds")
    return round(x)


def _calls(n: float, where: str) -> int:
    if not (math.isfinite(n) and -(2**63) <= int(n) < 2**63):
        raise input_error(FORMAT, f"{where}: call count {n!r} is outside the int64 range")
    return int(n)


def read_pstats_bytes(data: bytes) -> Profile:
    """Build a Profile from a cProfile/pstats dump (see the module docstring)."""
    try:
        stats = loads(data)  # not marshal.loads, which can crash on damaged input
    except MarshalError as e:
        raise input_error(FORMAT, f"not a valid marshal dump ({e})") from None
    if not isinstance(stats, dict):
        raise input_error(FORMAT, "the dump is not a dict of functions")
    b = ProfileBuilder([("calls", "count"), ("time", "nanoseconds"), ("cumulative_time", "nanoseconds")])
    b.default_sample_type = "time"
    locs: Dict[Tuple[str, int, str], int] = {}

    def loc(k: Tuple[str, int, str]) -> int:
        lid = locs.get(k)
        if lid is None:
            file, line, name = k
            fid = b.function(name, file, NO_SYSTEM_NAME, max(line, 0))
            lid = locs[k] = b.location(fid, max(line, 0))
        return lid

    for i, (k, v) in enumerate(stats.items()):
        where = f"entry {i}"
        k = _key(k, where)
        if not (isinstance(v, tuple) and len(v) == 5 and isinstance(v[4], dict)):
            raise input_error(FORMAT, f"{where} ({k[2]}): expected (cc, nc, tt, ct, callers), got {v!r:.80}")
        _cc, nc, tt, ct = _numbers(v, where)
        callers = v[4]
        if not callers:
            b.add([loc(k)], [_calls(nc, where), _ns(tt, where), _ns(ct, where)])
            continue
        for caller, edge in callers.items():
            caller = _key(caller, f"{where} caller")
            if isinstance(edge, (int, float)) and not isinstance(edge, bool):
                edge = (edge, edge, 0.0, 0.0)  # the old profile module keeps a call count only
            # An edge is (calls, primitive calls, ...): the entry's first two, swapped.
            at = f"{where} caller {caller[2]}"
            enc, _ecc, ett, ect = _numbers(edge, at)
            if caller == k:
                ect = 0  # recursion: the outer call's cumulative time already holds it
            b.add([loc(k), loc(caller)], [_calls(enc, at), _ns(ett, at), _ns(ect, at)])
    return b.build()
