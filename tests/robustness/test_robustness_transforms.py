"""Every transform either refuses its arguments (TypeError/ValueError) or returns
a profile that survives encoding: ``loads(q.to_bytes()) == q``. A transform that
builds something profile.proto cannot hold (samples without sample types, a
label whose value is the empty string) would otherwise lose data silently on
the next save."""

from __future__ import annotations

import pytest
import wirebuild as wb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pprofcore
from pprofcore import ProfileError

pytestmark = pytest.mark.filterwarnings("ignore::pprofcore.FilterWarning")

BASES = {
    "small": pprofcore.loads(wb.small()),
    "cpu": pprofcore.load(pprofcore.example_path("cpu")),
    "heap": pprofcore.load(pprofcore.example_path("heap")),
}

NAMES = st.sampled_from(["main", "worker", "runtime", ".", "^$", "x", "thread", ""])
LABEL_TEXT = st.text(alphabet="ab \x00é", max_size=3)
RATIOS = st.sampled_from([0.0, -1.0, 0.5, 2.0, 1e-9, 3.5])


def _types(p):
    return st.lists(st.sampled_from([t for t, _ in p.sample_types]), max_size=3)


TRANSFORMS = {
    "focus": lambda p: NAMES.map(lambda n: lambda q: q.focus(n)),
    "ignore": lambda p: NAMES.map(lambda n: lambda q: q.ignore(n)),
    "hide": lambda p: NAMES.map(lambda n: lambda q: q.hide(n)),
    "show": lambda p: NAMES.map(lambda n: lambda q: q.show(n)),
    "show_from": lambda p: NAMES.map(lambda n: lambda q: q.show_from(n)),
    "prune_from": lambda p: NAMES.map(lambda n: lambda q: q.prune_from(n)),
    "tagshow": lambda p: NAMES.map(lambda n: lambda q: q.tagshow(n)),
    "taghide": lambda p: NAMES.map(lambda n: lambda q: q.taghide(n)),
    "tagroot": lambda p: LABEL_TEXT.map(lambda k: lambda q: q.tagroot([k or "thread"])),
    "set_label": lambda p: st.tuples(LABEL_TEXT, st.lists(LABEL_TEXT, max_size=3)).map(
        lambda a: lambda q: q.set_label(*a)
    ),
    "remove_label": lambda p: LABEL_TEXT.map(lambda k: lambda q: q.remove_label(k)),
    "rename_label": lambda p: st.tuples(st.sampled_from(["thread", "bytes", "x"]), LABEL_TEXT).map(
        lambda a: lambda q: q.rename_label(*a)
    ),
    "select_sample_types": lambda p: _types(p).map(lambda t: lambda q: q.select_sample_types(t)),
    "compact": lambda p: st.just(lambda q: q.compact()),
    "scale": lambda p: RATIOS.map(lambda r: lambda q: q.scale(r)),
    "scale_n": lambda p: st.lists(RATIOS, min_size=len(p.sample_types), max_size=len(p.sample_types)).map(
        lambda r: lambda q: q.scale_n(r)
    ),
    "drop_negative": lambda p: st.just(lambda q: q.drop_negative()),
    "diff-self": lambda p: st.just(lambda q: q.diff(q)),
    "merge-self": lambda p: st.just(lambda q: pprofcore.merge([q, q])),
}


def _round_trips(q: pprofcore.Profile) -> None:
    again = pprofcore.loads(q.to_bytes())
    assert again == q, "the transform's output changed through to_bytes/loads"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_chain_of_transforms_round_trips(data):
    p = BASES[data.draw(st.sampled_from(sorted(BASES)))]
    for _ in range(data.draw(st.integers(1, 3))):
        name = data.draw(st.sampled_from(sorted(TRANSFORMS)))
        fn = data.draw(TRANSFORMS[name](p))
        try:
            p = fn(p)
        except (TypeError, ValueError):
            continue  # refused: nothing to encode
        _round_trips(p)


@pytest.mark.parametrize("base", sorted(BASES))
def test_select_no_sample_types_is_refused(base):
    with pytest.raises(ProfileError, match="no sample types given"):
        BASES[base].select_sample_types([])


@pytest.mark.parametrize("values", [[""], ["a", ""], ""], ids=["empty", "one-of-two-empty", "bare-empty-string"])
def test_set_label_to_empty_string_is_refused(values):
    with pytest.raises(ProfileError, match="must not be empty strings"):
        BASES["small"].set_label("k", values)


def test_set_label_with_empty_key_round_trips():
    _round_trips(BASES["small"].set_label("", ["v"]))
