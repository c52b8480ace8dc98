"""A name filter's output whose kept samples stay in its input until read
(``apply_filters(defer_copy=True)``, what the explorer asks for: the
``_deferred`` room). Held to the copying path: the same header, tables,
lengths, totals and Top text before the copy, the same profile after it
(Hypothesis profiles with several sample types, inline frames and empty
stacks, the bundled examples, a corpus file), Top read without the copy,
and one copy when several threads ask at once."""

from __future__ import annotations

import re
import threading
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pbprofile import name_regexes, valid_profiles
from testenv import CORPUS

import pprofcore
from pprofcore import _core
from pprofcore._frames import num_label_units
from pprofcore.errors import FilterWarning, ProfileError
from pprofcore.reports._nodes import nodes

EXAMPLES = [pprofcore.__path__[0] + "/data/example-cpu.pb.gz", pprofcore.__path__[0] + "/data/example-heap.pb.gz"]
GRANULARITIES = ["functions", "filefunctions", "files", "lines", "addresses"]
OPTIONS = ("focus", "ignore", "hide", "show")
TABLES = ("locations", "lines", "functions", "mappings")


def filtered(p, kwargs, defer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FilterWarning)
        return p.filter(**kwargs, defer_copy=defer)


def is_deferred(p) -> bool:
    return p._own_core is None


def assert_same_before_the_copy(lazy, copy) -> None:
    """What a deferred output answers from its input equals the copy's."""
    assert len(lazy) == len(copy)
    assert lazy.sample_types == copy.sample_types
    for ti in range(len(copy.sample_types)):
        assert lazy.total(ti) == copy.total(ti)
    for attr in ("period_type", "period", "time_nanos", "duration_nanos", "comments", "drop_frames", "keep_frames"):
        assert getattr(lazy, attr) == getattr(copy, attr), attr
    assert list(lazy.strings) == list(copy.strings)
    for name in TABLES:
        a, b = getattr(lazy, name), getattr(copy, name)
        assert a.columns == b.columns
        for k in a.columns:
            assert np.array_equal(a[k], b[k]), (name, k)
    assert is_deferred(lazy)


def check(data: bytes, kwargs: dict, by: str) -> bool:
    """Returns whether the output was deferred."""
    p = pprofcore.loads(data)
    if not p.sample_types:
        return False
    copy = filtered(pprofcore.loads(data), kwargs, False)
    nodes(p, by)  # cached on the input: Top derives the output's table from it, as the explorer does
    lazy = filtered(p, kwargs, True)
    deferred = is_deferred(lazy)
    if deferred:
        assert_same_before_the_copy(lazy, copy)
        # the tags report (the explorer's Labels view) reads the kept label rows in the input
        for t in range(len(p.sample_types)):
            assert lazy.tags(sample_type=t).to_text() == copy.tags(sample_type=t).to_text(), t
        assert num_label_units(lazy) == num_label_units(copy)
        assert is_deferred(lazy)
    ti = len(p.sample_types) - 1
    try:
        want = copy.top(sample_type=ti, by=by).to_text()
    except ProfileError:  # sums past int64: refused alike
        with pytest.raises(ProfileError):
            lazy.top(sample_type=ti, by=by)
        want = None
    else:
        assert lazy.top(sample_type=ti, by=by).to_text() == want
    assert lazy == copy  # copied now (equality reads the samples)
    assert not is_deferred(lazy)
    if want is not None:
        cum = copy.top(sample_type=ti, by=by, sort="cum").to_text()
        assert lazy.top(sample_type=ti, by=by, sort="cum").to_text() == cum
    return deferred


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_profiles(), st.data())
def test_deferred_outputs_equal_copied_ones(msg, data):
    rx = name_regexes(msg)
    kwargs = {o: data.draw(st.sampled_from(rx)) for o in data.draw(st.sets(st.sampled_from(OPTIONS), min_size=1))}
    check(msg.SerializeToString(), kwargs, data.draw(st.sampled_from(GRANULARITIES)))


@pytest.mark.parametrize("path", EXAMPLES, ids=["cpu", "heap"])
@pytest.mark.parametrize("by", ["functions", "lines", "files"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"ignore": "sha256"},
        {"focus": "main"},
        {"focus": "runtime", "ignore": "gc"},
        {"hide": "runtime"},
        {"show": "main|crypto"},
    ],
    ids=["ignore", "focus", "focus-ignore", "hide", "show"],
)
def test_examples(path, by, kwargs):
    with open(path, "rb") as f:
        data = f.read()
    assert check(data, kwargs, by)  # hide and show remove lines here: only the output's tables are made


@pytest.mark.parametrize(
    "kwargs", [{"ignore": "sha256"}, {"hide": "runtime"}, {"show": "main|crypto"}], ids=["ignore", "hide", "show"]
)
def test_top_reads_the_input_without_a_copy(kwargs):
    p = pprofcore.load(EXAMPLES[0])
    nodes(p, "functions")
    lazy = filtered(p, kwargs, True)
    text = lazy.top().to_text()
    assert is_deferred(lazy)  # the table derived, its sums and edges read in p's samples
    assert text == filtered(pprofcore.load(EXAMPLES[0]), kwargs, False).top().to_text()


def test_the_copy_is_made_once_for_threads_asking_together():
    p = pprofcore.load(EXAMPLES[1])
    lazy = filtered(p, {"focus": "main"}, True)
    assert is_deferred(lazy)
    got: list = []
    barrier = threading.Barrier(4)

    def read():
        barrier.wait()
        got.append(lazy._core)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and all(c is got[0] for c in got)
    assert lazy == filtered(p, {"focus": "main"}, False)


def test_a_deferred_output_outlives_its_input_name():
    p = pprofcore.load(EXAMPLES[0])
    want = filtered(p, {"ignore": "sha256"}, False)
    lazy = filtered(p, {"ignore": "sha256"}, True)
    del p  # the output holds the input's C++ profile until it copies its samples
    assert lazy.total() == want.total() and lazy == want


def test_the_explorer_defers_the_name_filters():
    from pprofcore.web import Session
    from pprofcore.web._state import State
    from pprofcore.web._views import view

    p = pprofcore.load(EXAMPLES[0])
    session = Session([("cpu", p)])
    copies = Session([("cpu", pprofcore.load(EXAMPLES[0]))])
    for query in ({"i": "sha256"}, {"f": "main"}, {"h": "runtime"}, {"s": "main|crypto"}):
        state = State.from_query(query)
        lazy, _ = session.refined(state)
        assert is_deferred(lazy), query
        got = view(session, "labels", state)  # label rows read in the input
        assert is_deferred(lazy), query
        copy, _ = copies.refined(state)
        copy.values  # noqa: B018 (copies its samples)
        assert not is_deferred(copy)
        assert got == view(copies, "labels", state), query


def test_core_filter_defers_unchanged_samples_and_with_defer_changed_every_output():
    p = pprofcore.load(EXAMPLES[0])
    fn = np.zeros(len(p.functions), np.uint8)
    fn[0] = 1
    match = (fn, np.zeros(len(p.mappings), np.uint8))
    core, *_, kept, hidden = _core.filter_by_name(p._core, None, match, None, None, None, defer_unchanged=True)
    assert core is None and hidden is None
    copied, *_, kept2, _ = _core.filter_by_name(p._core, None, match, None, None, None)
    assert np.array_equal(kept, kept2) and _core.keep_samples(p._core, kept).equals(copied)
    assert _core.kept_output(p._core, kept).equals(copied)
    core, *_ = _core.filter_by_name(p._core, None, None, match, None, None, defer_unchanged=True)
    assert core is not None and core.num_samples > 0
    # hide removed lines: copied unless every output defers; then only the tables are made
    copied, *_, kept, hidden = _core.filter_by_name(p._core, None, None, match, None, None)
    tables, *_, kept2, hidden2 = _core.filter_by_name(
        p._core, None, None, match, None, None, defer_unchanged=True, defer_changed=True
    )
    assert tables is not None and tables.num_samples == 0 and copied.num_samples > 0
    assert np.array_equal(kept, kept2) and np.array_equal(hidden, hidden2)
    assert _core.kept_output(p._core, kept2, hidden2, tables).equals(copied)


CORPUS_FILE = "go/generated/gen-bigheap-150k.raw.pb"


def test_corpus_file():
    path = CORPUS / CORPUS_FILE
    if not path.exists():
        pytest.skip(f"corpus file {CORPUS_FILE} not found under {CORPUS}")
    with open(path, "rb") as f:
        data = f.read()
    p = pprofcore.loads(data)
    names = list(p.top(by="functions")["name"])
    for kwargs in ({"ignore": re.escape(names[2])}, {"focus": "main"}, {"hide": re.escape(names[0])}, {"show": "main"}):
        assert check(data, kwargs, "functions")


def test_the_filters_of_one_input_share_its_label_pairs():
    from pprofcore._frames import label_rows

    p = pprofcore.load(pprofcore.example_path())
    a = p.filter(hide="runtime", defer_copy=True)
    b = p.filter(show="main", defer_copy=True)
    assert is_deferred(a) and is_deferred(b)
    assert label_rows(a).pairs()[1] is label_rows(b).pairs()[1] is label_rows(p).pairs()[1]
    for q, kwargs in ((a, dict(hide="runtime")), (b, dict(show="main"))):
        copy = p.filter(**kwargs)
        for t in range(len(p.sample_types)):
            assert q.tags(sample_type=t).to_text() == copy.tags(sample_type=t).to_text()
