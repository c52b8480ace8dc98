"""Profiles whose function names hold anything a producer can write (newlines,
``;``, spaces, trailing digits, control characters, U+FFFE) for the export
tests: a Hypothesis strategy of such names and stacks, and a builder."""

from __future__ import annotations

import wirebuild as wb
from hypothesis import strategies as st

import pprofcore

HOSTILE = ["\n", "\r\n", "\r", ";", " ", " 12", "\x00", "\x1b", "\x01", "\ufffe", "\uffff", "\x85", "\u2028",
           "\x0b", "\x0c", "\x1c", "#", "\t", "<&>\"'", "\\n", "(1) ", " #", "\u3000#", "\xa0"]  # fmt: skip

# Any unicode but lone surrogates (a profile's strings are UTF-8), hostile pieces more often.
NAMES = st.lists(
    st.one_of(st.sampled_from(HOSTILE), st.text(st.characters(blacklist_categories=("Cs",)), max_size=3)),
    max_size=4,
).map("".join)


def named_profile(stacks):
    """A profile from ``[(names root first, value), ...]``: one function and one
    location per distinct name, one sample per entry."""
    ids = {}
    for names, _ in stacks:
        for n in names:
            ids.setdefault(n, len(ids) + 1)
    strings = ["", "samples", "count", *ids]
    code = {n: i + 3 for i, n in enumerate(ids)}
    return pprofcore.loads(
        wb.profile(
            sample_types=[wb.value_type(1, 2)],
            samples=[wb.sample([ids[n] for n in reversed(names)], [v]) for names, v in stacks],
            locations=[wb.location(i, 0, 0x1000 * i, [wb.line(i, 1)]) for i in ids.values()],
            functions=[wb.function(i, code[n], code[n]) for n, i in ids.items()],
            strings=strings,
        )
    )


STACKS = st.lists(st.tuples(st.lists(NAMES, min_size=1, max_size=5), st.integers(1, 10**6)), min_size=1, max_size=8)
