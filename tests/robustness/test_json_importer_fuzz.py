"""Every reader of a JSON format under damage that keeps the JSON valid: a
value replaced by one of another type or range (null, a list where a number
was, a number past int64, NaN, a long string), a key or a list element
dropped, an element repeated. Byte-level damage (test_importer_fuzz.py)
mostly breaks the JSON syntax, which the parser reports; this reaches the
readers' own checks. ``loads`` returns a profile or raises a DecodeError
naming where, never another exception (a TypeError from a list used as a
key, say), and never runs away.

PPROFCORE_FUZZ_EXAMPLES examples per format (100, the same each run, here).
The seeds are tests/data/producers' files; small.otlp.json is the bundled
example profile focused on ``sort.Float64Slice.Less``, written by
``to_otlp`` and printed by protobuf's ``json_format``, as an OTLP exporter's
JSON encoding is; small.stackprof.json is ``stackprof --json`` of
small.stackprof.dump, stackprof's dump of a two-method Ruby program (its
source path made relative, the dump written again by Ruby's Marshal)."""

from __future__ import annotations

import copy
import json
import math

import pytest
from fuzz_checks import FUZZ_SETTINGS, loads_or_placed_error, names_a_place, seeds_read
from hypothesis import given
from hypothesis import strategies as st
from testenv import DATA

import pprofcore
from pprofcore import DecodeError

FIXTURES = {
    "cpuprofile": "small.cpuprofile",
    "heapprofile": "small.heapprofile",
    "chrome trace": "small.trace.json",
    "firefox": "small.firefox.json",
    "gecko": "small.gecko.json",
    "scalene": "small.scalene.json",
    "dhat": "small.dhat.json",
    "pyinstrument": "small.pyinstrument.json",
    "speedscope": "small.speedscope.json",
    "otlp json": "small.otlp.json",
    "stackprof": "small.stackprof.json",
    "sentry": "small.sentry.json",
}

# Values of every JSON type, and numbers a reader must refuse or bound.
REPLACEMENTS = [
    None,
    True,
    -1,
    0,
    2**70,
    -(2**70),
    1.5,
    math.nan,
    math.inf,
    10**9,
    "",
    "x",
    "0x10",
    "a" * 1000,
    [],
    [1, 2],
    [[0]],
    {},
    {"a": 1},
]


# (which node, what to do, which replacement)
DAMAGE = st.tuples(
    st.floats(0, 1, exclude_max=True),
    st.sampled_from(["replace", "replace", "replace", "drop", "repeat", "nudge"]),
    st.integers(0, len(REPLACEMENTS) - 1),
)


def _places(doc):
    """Every (parent, key) of the document, depth first."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        yield doc, k
        yield from _places(v)


def damage(doc, damages):
    for where, op, pick in damages:
        places = list(_places(doc))
        if not places:
            break
        parent, key = places[int(where * len(places))]
        if op == "replace":
            parent[key] = copy.deepcopy(REPLACEMENTS[pick])  # a copy: no value shared by two places
        elif op == "drop":
            del parent[key]
        elif op == "repeat" and isinstance(parent, list):
            parent.insert(key, parent[key])
        elif op == "nudge":  # a number off by a little or a lot: an index past its table, a negative count
            v = parent[key]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                parent[key] = v + (-1, 1, -1000, 1000, 2**40)[pick % 5]
    return doc


@pytest.mark.parametrize("fmt", FIXTURES)
@FUZZ_SETTINGS
@given(damages=st.lists(DAMAGE, min_size=1, max_size=3))
def test_damaged_document_is_a_decode_error(fmt, damages):
    doc = damage(json.loads((DATA / "producers" / FIXTURES[fmt]).read_bytes()), damages)
    loads_or_placed_error(json.dumps(doc).encode())  # NaN and Infinity as JavaScript writes them


def test_every_seed_reads_undamaged():
    seeds_read(DATA / "producers", FIXTURES.values())


def _gecko_stack(d, value):
    samples = d["threads"][0]["samples"]
    samples["data"][0][samples["schema"]["stack"]] = value


def _trace_event(d, i: int, key: str, value):
    d["traceEvents"][i][key] = value


# Damage the fuzz above once found leaking a TypeError or an AttributeError:
# lists and objects where a reader used a value as a key or as an object.
FOUND = {
    "gecko, samples.schema a number": ("small.gecko.json", lambda d: d["threads"][0]["samples"].update(schema=5)),
    "gecko, a stack index a list": ("small.gecko.json", lambda d: _gecko_stack(d, [0])),
    "dhat, a frame index an object": ("small.dhat.json", lambda d: d["pps"][0]["fs"].__setitem__(0, {})),
    "chrome trace, args a list": ("small.trace.json", lambda d: _trace_event(d, 2, "args", [1])),
    "chrome trace, id an object": ("small.trace.json", lambda d: _trace_event(d, 2, "id", {})),
    "chrome trace, a chunk's args a number": ("small.trace.json", lambda d: _trace_event(d, 3, "args", 3)),
    "speedscope, a frame a list": (
        "small.speedscope.json",
        lambda d: d["profiles"][0]["samples"].__setitem__(0, [[0], 1]),
    ),
}


@pytest.mark.parametrize("case", FOUND)
def test_found_damage_is_a_decode_error(case):
    name, edit = FOUND[case]
    doc = json.loads((DATA / "producers" / name).read_bytes())
    edit(doc)
    with pytest.raises(DecodeError) as info:
        pprofcore.loads(json.dumps(doc).encode())
    assert names_a_place(info.value), str(info.value)
