"""pprofcore._ruby_marshal (the Ruby Marshal subset stackprof's dumps use)
against Ruby's own Marshal.dump: fixed values at every boundary of the
integer encoding, links to symbols and objects, and a few hundred random
nested values; then what it refuses, with the byte offset."""

from __future__ import annotations

import json
import math
import random

import pytest
from ruby_runs import marshal_dumps

from pprofcore._ruby_marshal import RubyMarshalError, loads

FIXED = {
    "nil": None,
    "true": True,
    "false": False,
    "0": 0,
    "122": 122,
    "123": 123,
    "-123": -123,
    "-124": -124,
    "255": 255,
    "256": 256,
    "-256": -256,
    "-257": -257,
    "2**30 - 1": 2**30 - 1,
    "2**30": 2**30,
    "-(2**30)": -(2**30),
    "-(2**30) - 1": -(2**30) - 1,
    "2**62": 2**62,
    "-(2**64)": -(2**64),
    "2**100 + 7": 2**100 + 7,
    "1.5": 1.5,
    "-0.25": -0.25,
    "1e300": 1e300,
    "Float::INFINITY": math.inf,
    "-Float::INFINITY": -math.inf,
    '"plain"': "plain",
    '"\\u00fcnicode \\u2603"': "\u00fcnicode \u2603",
    '"bytes".b': "bytes",
    ":sym": "sym",
    "[:x, :x, :y, :x]": ["x", "x", "y", "x"],
    's = "shared"; [s, s, [s]]': ["shared", "shared", ["shared"]],
    "f = 2.5; [f, f]": [2.5, 2.5],
    "{a: 1, 'b' => [nil, true], 3 => {c: :d}}": {"a": 1, "b": [None, True], 3: {"c": "d"}},
    "h = Hash.new(0); h[:k] = 1; h": {"k": 1},
    "[[[[[1]]]]]": [[[[[1]]]]],
}


def test_fixed_values_equal_rubys():
    dumps = marshal_dumps(list(FIXED))
    for (expr, want), data in zip(FIXED.items(), dumps):
        assert loads(data) == want, expr


def _ruby(v) -> str:
    """A Ruby literal of a plain Python value."""
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v).replace("#", "\\#")  # Ruby's double quotes read JSON's escapes; no #{}
    if isinstance(v, list):
        return "[" + ", ".join(_ruby(x) for x in v) + "]"
    return "{" + ", ".join(f"{_ruby(k)} => {_ruby(x)}" for k, x in v.items()) + "}"


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(8 if depth < 4 else 6)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([rng.randrange(-300, 300), rng.randrange(-(2**70), 2**70), rng.randrange(2**31)])
    if kind == 2:
        return rng.choice([rng.uniform(-1e6, 1e6), 0.5, -3.25])
    if kind in (3, 4, 5):
        return "".join(rng.choice('ab#{}"\\\n\u00e9\u4e2d') for _ in range(rng.randrange(6)))
    if kind == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    keys = [rng.choice([rng.randrange(100), "k" + str(rng.randrange(100))]) for _ in range(rng.randrange(5))]
    return {k: _random_value(rng, depth + 1) for k in keys}


def test_random_values_equal_rubys():
    rng = random.Random(20261129)
    values = [_random_value(rng) for _ in range(300)]
    for v, data in zip(values, marshal_dumps([_ruby(v) for v in values])):
        assert loads(data) == v, _ruby(v)


@pytest.mark.parametrize(
    "data, reason, offset",
    [
        (b"\x04\x09[\x00", "not Ruby Marshal 4.8", 0),
        (b"\x04\x08[\x07i\x06", "ends early", 6),
        (b"\x04\x08o:\x08Foo\x00", "type 'o' is not plain data", 2),
        (b"\x04\x08u:\x08Foo\x00", "type 'u' is not plain data", 2),
        (b"\x04\x08[\x7f", "count of 122 is more than the data holds", 2),
        (b"\x04\x08@\x06", "object link 1 names no finished object", 2),
        (b"\x04\x08;\x00", "symbol link 0 names no symbol", 2),
        (b"\x04\x08[\x06@\x00", "object link 0 names no finished object", 4),
        (b"\x04\x08i\x06i\x06", "2 bytes follow the value", 4),
        (b"\x04\x08" + b"[\x06" * 300 + b"0", "nest deeper than", 2 + 2 * 257),
        (b"\x04\x08{\x06[\x00i\x06", "a hash key is a list or a hash", 2),
        (b"\x04\x08f\x08abc", "float 'abc' is not a number", 2),
    ],
)
def test_refusals_name_the_byte_offset(data, reason, offset):
    with pytest.raises(RubyMarshalError) as info:
        loads(data)
    assert reason in str(info.value) and info.value.offset == offset, str(info.value)
