"""Node tables of a name filter's output derived from its input's
(``_core.derived_aggregate``: the input's cum less the dropped samples', flat
and the inline labels from one light pass), which Top after focus, ignore,
hide or show uses when the input's table is cached (the explorer's case).
Held to the table aggregated anew, column for column, and Top's text to the
Top of the same filter on a fresh copy of the profile (nothing cached):
Hypothesis profiles (several sample types, inline frames, empty stacks),
the bundled examples, and corpus files."""

from __future__ import annotations

import gc
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import name_regexes, valid_profiles
from testenv import CORPUS

import pprofcore
from pprofcore import _core
from pprofcore.errors import FilterWarning, ProfileError
from pprofcore.reports._nodes import nodes

EXAMPLES = [pprofcore.__path__[0] + "/data/example-cpu.pb.gz", pprofcore.__path__[0] + "/data/example-heap.pb.gz"]
GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"]
OPTIONS = ("focus", "ignore", "hide", "show")


def filtered(p, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FilterWarning)
        return p.filter(**kwargs)


def assert_same_tables(a, b) -> None:
    ca, cb = a.columns(), b.columns()
    assert ca.keys() == cb.keys()
    for k in ca:
        assert np.array_equal(ca[k], cb[k]), k
    assert a.printable_names() == b.printable_names() and a.files() == b.files()


def derived_table(child, key):
    """The derived table of ``key``, or None where the C++ side declines."""
    parent_ref, kept, hidden = child._derived.filter_origin
    parent = parent_ref()
    by, inline, label_type, divisor = key
    parent_t = nodes(parent, by, inline, label_type, mean=divisor == 0)
    return _core.derived_aggregate(child._core, parent._core, parent_t, kept, hidden, *key)


def check_filter(data: bytes, kwargs: dict, by: str, label_type: int = -1, mean: bool = False) -> bool:
    """Derived table == aggregated one, and Top's text == a fresh profile's.
    Returns whether the table was derived (not declined)."""
    p = pprofcore.loads(data)
    if not p.sample_types:
        return False
    child = filtered(p, kwargs)
    if child._derived.filter_origin is None:  # nothing filtered: the input itself
        return False
    key = (by, True, label_type, 0 if mean else -1)
    got = derived_table(child, key)
    if got is not None:
        assert_same_tables(got, _core.aggregate(child._core, *key))
    ti = len(p.sample_types) - 1
    fresh = filtered(pprofcore.loads(data), kwargs)
    try:
        want = fresh.top(sample_type=ti, by=by).to_text()
    except ProfileError:  # sums past int64: refused alike
        with pytest.raises(ProfileError):
            child.top(sample_type=ti, by=by)
        return got is not None
    nodes(p, by)  # cached on the input, so the child's Top derives its table
    assert filtered(p, kwargs).top(sample_type=ti, by=by).to_text() == want
    return got is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles(), st.data())
def test_derived_tables_equal_aggregated_ones(msg, data):
    rx = name_regexes(msg)
    kwargs = {o: data.draw(st.sampled_from(rx)) for o in data.draw(st.sets(st.sampled_from(OPTIONS), min_size=1))}
    by = data.draw(st.sampled_from(GRANULARITIES))
    check_filter(msg.SerializeToString(), kwargs, by, data.draw(st.sampled_from([-1, 0])), data.draw(st.booleans()))


@pytest.mark.parametrize("path", EXAMPLES, ids=["cpu", "heap"])
@pytest.mark.parametrize("by", ["functions", "lines", "files"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"ignore": "sha256"},
        {"focus": "main"},
        {"hide": "runtime"},
        {"show": "main|crypto"},
        {"ignore": "x", "show": "."},
    ],
    ids=["ignore", "focus", "hide", "show", "ignore-show"],
)
def test_examples_derive_their_filtered_tables(path, by, kwargs):
    with open(path, "rb") as f:
        data = f.read()
    p = pprofcore.load(path)
    nodes(p, by)
    child = filtered(p, kwargs)
    origin = child._derived.filter_origin
    if "hide" not in kwargs and "show" not in kwargs:  # only hide and show can change a location's lines
        assert origin is not None and origin[2] is None
    check_filter(data, kwargs, by)


def test_a_derived_table_is_used_by_top():
    p = pprofcore.load(EXAMPLES[0])
    nodes(p, "functions")
    child = filtered(p, {"ignore": "sha256"})
    key = ("functions", True, -1, -1)
    assert derived_table(child, key) is not None
    child.top()
    assert_same_tables(child._derived.nodes[key], _core.aggregate(child._core, *key))


def test_a_filtered_profile_does_not_keep_its_input_alive():
    p = pprofcore.load(EXAMPLES[0])
    nodes(p, "functions")
    child = filtered(p, {"ignore": "sha256"})
    want = child.top().to_text()
    del p
    gc.collect()
    assert child._derived.filter_origin[0]() is None
    child._derived.nodes.clear()  # aggregated anew now: the same table
    assert child.top().to_text() == want


CORPUS_FILES = ["go/generated/gen-bigheap-150k.raw.pb"]


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_tables_derive_like_pprofcore_aggregates(name):
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"corpus file {name} not found under {CORPUS}")
    p = pprofcore.load(path)
    names = list(p.top(by="functions")["name"])
    derived = 0
    for kwargs in ({"ignore": re.escape(names[2])}, {"hide": re.escape(names[0])}, {"show": "main"}):
        child = filtered(p, kwargs)
        if child._derived.filter_origin is None:
            continue
        for by in ("functions", "lines"):
            key = (by, True, -1, -1)
            got = derived_table(child, key)
            if got is not None:
                derived += 1
                assert_same_tables(got, _core.aggregate(child._core, *key))
    assert derived > 0
