"""Deep stacks stay linear in depth (issue 27, item 9): the speedscope export of
a 10,000- and a 100,000-frame stack needs memory proportional to the depth (it
kept one path per node: 767 MiB at 10k frames, MemoryError at 100k). The page's
sandwich view is checked in chromium by tests/views/test_browser_exports.py."""

from __future__ import annotations

import json
import tracemalloc

import pytest

import pprofcore


def deep_flamegraph(depth: int):
    """A flame graph of one stack ``f0;f1;...`` ``depth`` frames deep, plus a
    short stack so the root has two children."""
    text = ";".join(f"f{i}" for i in range(depth)) + " 3\nf0;g 1\n"
    return pprofcore.from_folded(text).flamegraph(min_fraction=0)


def peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_speedscope_memory_is_linear_in_depth(depth):
    fg = deep_flamegraph(depth)
    peak = peak_bytes(fg.to_speedscope)
    # ~600 bytes per frame is ample (the output itself is ~25 bytes per frame);
    # one path per node needs depth**2 * 4 bytes: 400 MB at 10k.
    assert peak < 600 * depth + (8 << 20), f"{peak / 2**20:.1f} MiB for {depth} frames"


def test_speedscope_of_a_deep_stack_is_right():
    fg = deep_flamegraph(10_000)
    doc = json.loads(fg.to_speedscope())
    prof = doc["profiles"][0]
    names = [f["name"] for f in doc["shared"]["frames"]]
    stacks = sorted(([names[i] for i in s], w) for s, w in zip(prof["samples"], prof["weights"]))
    assert stacks == sorted([([f"f{i}" for i in range(10_000)], 3), (["f0", "g"], 1)])
    assert prof["endValue"] == 4
