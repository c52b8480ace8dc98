"""Text exports of profiles with hostile function names: folded text keeps one
line per stack and its totals through :func:`pprofcore.from_folded`, callgrind
one name per ``fn=``/``cfn=`` line (issue 27, item 7)."""

from __future__ import annotations

import re

import wirebuild as wb
from hostile import STACKS, named_profile
from hypothesis import HealthCheck, given, settings

import pprofcore


def ended_lines(text: str) -> list:
    """The lines of an export, each (the last included) ended by one newline."""
    lines = text.split("\n")
    assert lines[-1] == "", "the text does not end with a newline"
    return lines[:-1]


# ------------------------------------------------------------------ folded
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STACKS)
def test_folded_round_trip_keeps_totals_and_one_line_per_stack(stacks):
    p = named_profile(stacks)
    text = p.to_folded()
    lines = ended_lines(text)
    distinct = {tuple(names) for names, _ in stacks}
    assert len(lines) == len(distinct)
    assert len(text.splitlines()) == len(distinct)  # no other line breaks either
    for line in lines:
        assert re.fullmatch(r"[^\n]* [0-9]+", line)
        # one frame per name: the stack's ;-count is its depth minus one
        assert line.rsplit(" ", 1)[0].count(";") + 1 in {len(k) for k in distinct}
    q = pprofcore.from_folded(text)
    assert q.total() == p.total() == sum(v for _, v in stacks)
    assert len(q) == len(distinct)


def test_folded_escapes_what_splits_lines_and_frames():
    p = named_profile([(["main", "a;b", "x\ny 1000000"], 6), (["#root", "tab\there"], 1)])
    text = p.to_folded()
    assert text.splitlines() == ["\\x23root;tab\there 1", "main;a\\x3bb;x\\x0ay 1000000 6"]
    assert pprofcore.from_folded(text).total() == 7


def test_folded_escapes_a_comment_mark_after_leading_whitespace():
    for name in (" #x", "\t#x", "\u3000#x", "\xa0 \u2003#x"):
        p = named_profile([([name, "a"], 5)])
        text = p.to_folded()
        assert text == name.replace("#", "\\x23") + ";a 5\n"
        assert pprofcore.from_folded(text).total() == 5


def test_folded_label_prefixes_are_escaped():
    data = wb.small(strings=(*wb.SMALL_STRINGS[:7], "wor\nker;x", wb.SMALL_STRINGS[8], "thr;ead\n5 5"))
    p = pprofcore.loads(data)
    text = p.to_folded(labels=["thr;ead\n5 5"])
    assert len(text.splitlines()) == len(text.split("\n")) - 1
    assert pprofcore.from_folded(text).total() == p.total()
    assert "thr\\x3bead\\x0a5 5=wor\\x0aker\\x3bx;" in text


# --------------------------------------------------------------- callgrind
_CALLGRIND_LINE = re.compile(
    r"|positions: instr line|events: .*|(ob|fl|fn|cfl|cfn)=(\(\d+\)( .*)?)?"
    r"|calls=0 \S+ -?\d+|(\*|[+-]\d+|0x[0-9a-f]+) (\*|-?\d+) -?\d+"
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STACKS)
def test_callgrind_has_one_name_per_line(stacks):
    p = named_profile(stacks)
    text = p.to_callgrind()
    lines = ended_lines(text)
    for line in lines:
        assert _CALLGRIND_LINE.fullmatch(line), line
    assert len(text.splitlines()) == len(lines)
    defined = re.findall(r"^c?fn=\((\d+)\) ", text, re.M)
    named = {n for names, _ in stacks for n in names if n}
    assert len(set(defined)) == len(defined) == len(named)
