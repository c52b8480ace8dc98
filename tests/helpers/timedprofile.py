"""Small generated profiles with per-sample times (the `timestamp_ns` label)
and a thread label: the input of the timeline view and exports tests."""

from __future__ import annotations

import random

from pbprofile import profile_class

import pprofcore

BASE = 1_700_000_000_000_000_000  # 2023-11-14T22:13:20Z
FUNCS = ("main", "a", "b", "c", "d", "e")


def timed_profile(
    n: int = 60, seed: int = 7, threads: int = 3, unit: str = "nanoseconds", untimed: int = 0
) -> pprofcore.Profile:
    """``n`` samples on ``threads`` threads (no thread label when 0) at random
    times within 2 s, random stacks over six functions under ``main``
    (recursion included), random values of type cpu/``unit``; ``untimed``
    more samples without a time."""
    rng = random.Random(seed)
    msg = profile_class(True)()
    head = [b"", b"cpu", unit.encode(), b"timestamp_ns", b"thread", b"nanoseconds"]
    lanes = [f"t{k}".encode() for k in range(threads)]
    msg.string_table.extend(head + [f.encode() for f in FUNCS] + lanes)
    first_func, first_lane = len(head), len(head) + len(FUNCS)
    msg.sample_type.add(type=1, unit=2)
    for k in range(len(FUNCS)):
        msg.function.add(id=k + 1, name=first_func + k)
        msg.location.add(id=k + 1).line.add(function_id=k + 1)
    times = sorted(rng.randrange(0, 2_000_000_000) for _ in range(n))
    for k, t in enumerate(times + [None] * untimed):
        stack = [rng.randrange(2, len(FUNCS) + 1) for _ in range(rng.randrange(0, 5))][::-1] + [1]  # leaf first
        s = msg.sample.add(location_id=stack, value=[rng.randrange(1, 100) * 1000])
        if t is not None:
            s.label.add(key=3, num=BASE + t, num_unit=5)
        if threads:
            s.label.add(key=4, str=first_lane + rng.randrange(threads))
    return pprofcore.loads(msg.SerializeToString())


def top_of(p: pprofcore.Profile) -> dict:
    """name -> (flat, cum) of every function with a value in Profile.top()."""
    df = p.top(n=None, nodefraction=0).to_pandas()
    return {r.name: (int(r.flat), int(r.cum)) for r in df.itertuples() if r.flat or r.cum}
