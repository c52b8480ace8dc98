"""Every importer of another profiler's format (issue 32, and jemalloc's heap_v2
text of tests/producers/jemalloc) under damaged input:
truncations, byte flips, deletions and huge or bad numbers inserted into a
valid file of each format. Whatever hypothesis makes, ``loads`` returns a
profile or raises a DecodeError naming where (a byte offset, a line or a JSON
path), never another exception, and never runs away (an alarm stops it).
The JFR and jemalloc readers are C++: fuzz/jfr_fuzzer.cpp and fuzz/legacy_fuzzer.cpp
fuzz them natively as well.
tools/fuzz-smoke.sh runs this file longer and with fresh random examples
(PPROFCORE_FUZZ_EXAMPLES examples per format; 100, the same each run, here)."""

from __future__ import annotations

import pytest
from fuzz_checks import FUZZ_SETTINGS, loads_or_placed_error, seeds_read
from hypothesis import given
from hypothesis import strategies as st
from testenv import DATA

FIXTURES = {
    "jfr": "small.jfr",
    "cpuprofile": "small.cpuprofile",
    "chrome trace": "small.trace.json",
    "firefox": "small.firefox.json",
    "gecko": "small.gecko.json",
    "scalene": "small.scalene.json",
    "dhat": "small.dhat.json",
    "massif": "small.massif.out",
    "heaptrack": "small.heaptrack",
    "callgrind": "small.callgrind.out",
    "pyinstrument": "small.pyinstrument.json",
    "perf script": "small.perf.txt",
    "speedscope": "small.speedscope.json",
    "collapsed (austin)": "austin.txt",
    "collapsed (py-spy raw)": "pyspy.raw.txt",
    "pstats": "small.prof",
    "stackprof": "small.stackprof.dump",
    "sentry": "small.sentry.json",
    "async-profiler": "small.async-profiler.txt",
    "jemalloc": "small.jemalloc.heap",
}

# Numbers too large for any field, negative counts, bad varints, JSON and
# text punctuation that breaks a structure.
NASTY = [
    b"99999999999999999999999",
    b"-1",
    b"1e999",
    b"NaN",
    b"\xff" * 10,
    b"\x7f\xff\xff\xff",
    b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01",
    b"\n",
    b";",
    b"{",
    b"]",
    b"\0",
]


MUTATION = st.one_of(
    st.tuples(st.just("cut"), st.floats(0, 1)),
    st.tuples(st.just("flip"), st.floats(0, 1), st.integers(0, 255)),
    st.tuples(st.just("insert"), st.floats(0, 1), st.sampled_from(NASTY)),
    st.tuples(st.just("delete"), st.floats(0, 1), st.integers(1, 64)),
)


def mutate(data: bytes, mutations) -> bytes:
    d = bytearray(data)
    for op, where, *arg in mutations:
        at = int(where * max(len(d) - 1, 0))
        if op == "cut":
            del d[at:]
        elif op == "flip" and d:
            d[at] = arg[0]
        elif op == "insert":
            d[at:at] = arg[0]
        elif op == "delete":
            del d[at : at + arg[0]]
    return bytes(d)


@pytest.mark.parametrize("fmt", FIXTURES)
@FUZZ_SETTINGS
@given(mutations=st.lists(MUTATION, min_size=1, max_size=4))
def test_damaged_input_is_a_decode_error(fmt, mutations):
    loads_or_placed_error(mutate((DATA / "producers" / FIXTURES[fmt]).read_bytes(), mutations))


def test_every_fixture_reads_undamaged():
    seeds_read(DATA / "producers", FIXTURES.values())
