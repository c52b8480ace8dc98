"""What the importer fuzz tests ask of every damaged input: an answer within
a time limit (``alarm``), and a DecodeError that says where
(``names_a_place``)."""

from __future__ import annotations

import re
import signal
from contextlib import contextmanager

from pprofcore import DecodeError

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
