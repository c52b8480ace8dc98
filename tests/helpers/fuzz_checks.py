"""What the importer fuzz tests ask of every damaged input: an answer within
a time limit (``alarm``), and a profile or a DecodeError that says where
(``names_a_place``, ``loads_or_placed_error``); and of their seeds, that
they read (``seeds_read``)."""

from __future__ import annotations

import os
import re
import signal
from contextlib import contextmanager

from hypothesis import HealthCheck, settings

import pprofcore
from pprofcore import DecodeError

# PPROFCORE_FUZZ_EXAMPLES fresh random examples per format (tools/fuzz-smoke.sh);
# without it, 100 and the same each run.
EXAMPLES = int(os.environ.get("PPROFCORE_FUZZ_EXAMPLES", "0"))
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES or 100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=not EXAMPLES,
    database=None,
)

# Reader messages that are about the whole input, not one place in it.
WHOLE_INPUT = re.compile(
    r"none of the events|not a valid marshal dump|no events|empty input|no samples"
    r"|holds no V8 CPU profile|holds \d+ profiles|holds no profile"
)
# A place: a byte offset, a line, an index, a quoted key or JSON path
# ('args.data'), or a field named before what is wrong with it
# ("meta.interval = -1 is not ...", "processes is not a list").
PLACE = re.compile(
    r"\bline \d+|byte offset \d+|\[\d+\]|'[\w.]+'|\bentry \d+|\bnode \d+"
    r"|: [\w.\[\]]+ (=|(is|are|has|must|needs)\b)"
)


@contextmanager
def alarm(seconds: int):
    """Fails the example that runs longer than ``seconds`` (a hang)."""

    def ring(*_):
        raise TimeoutError(f"no answer after {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def names_a_place(e: DecodeError) -> bool:
    text = str(e)
    return (
        getattr(e, "offset", None) is not None or PLACE.search(text) is not None or WHOLE_INPUT.search(text) is not None
    )


def loads_or_placed_error(data: bytes) -> None:
    """``loads`` of damaged ``data`` within 20 s: a profile whose values
    match its sample types, or a DecodeError that names where."""
    with alarm(20):
        try:
            p = pprofcore.loads(data)
        except DecodeError as e:
            assert names_a_place(e), str(e)
            return
    assert p.values.shape[1] == len(p.sample_types)


def seeds_read(directory, names) -> None:
    """Every undamaged seed reads: the damage, not the seed, makes the errors."""
    for name in names:
        assert pprofcore.loads((directory / name).read_bytes()).values.shape[0] > 0
