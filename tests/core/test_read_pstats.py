"""cProfile/pstats dumps read by `load` (issue 32, item 4). cProfile is the
producer and `pstats.Stats` the oracle: flat calls, self time and cumulative
time per function are what pstats holds for it."""

from __future__ import annotations

import cProfile
import marshal
import pstats

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from testenv import DATA as DATA_ROOT
from testenv import go_pprof, requires_go

import pprofcore
from pprofcore import DecodeError
from pprofcore import _marshal_subset as marshal_subset

DATA = DATA_ROOT / "producers"


def _fib(n):
    return n if n < 2 else _fib(n - 1) + _fib(n - 2)


def _work():
    return [sum(i * i for i in range(2000)) for _ in range(30)] + [_fib(15)]


@pytest.fixture(scope="module")
def dump(tmp_path_factory):
    path = tmp_path_factory.mktemp("pstats") / "out.prof"
    prof = cProfile.Profile()
    prof.runcall(_work)
    prof.dump_stats(str(path))
    return path


def _flat(p, sample_type):
    df = p.to_pandas("samples")
    col = df.groupby("leaf_function", observed=True)[sample_type].sum()
    return {str(k): int(v) for k, v in col.items()}


def test_flat_values_are_what_pstats_holds(dump):
    p = pprofcore.load(dump)
    assert p.sample_types == [("calls", "count"), ("time", "nanoseconds"), ("cumulative_time", "nanoseconds")]
    assert p.default_sample_type == "time"
    stats = pstats.Stats(str(dump)).stats
    calls = _flat(p, "calls")
    self_ns = _flat(p, "time")
    cum_ns = _flat(p, "cumulative_time")
    for (_file, _line, name), (_cc, nc, tt, ct, _callers) in stats.items():
        if sum(1 for k in stats if k[2] == name) > 1:
            continue  # two functions of one name (e.g. <genexpr>) share a row of the flat table
        assert calls[name] == nc, name
        assert abs(self_ns[name] - tt * 1e9) <= len(_callers) + 1, name
        assert abs(cum_ns[name] - ct * 1e9) <= len(_callers) + 1, name
    assert calls["_fib"] == 1973  # fib(15) makes 1973 calls, 1972 of them recursive


def test_stacks_have_depth_two(dump):
    p = pprofcore.load(dump)
    df = p.to_pandas("samples")
    assert set(df["depth"]) <= {1, 2}
    assert "_work;_fib" in {line.rsplit(" ", 1)[0] for line in p.to_folded(sample_type="calls").splitlines()}


def test_small_dump_exactly(tmp_path):
    stats = {
        ("app.py", 1, "main"): (1, 1, 0.5, 2.0, {}),
        ("app.py", 5, "work"): (3, 3, 1.5, 1.5, {("app.py", 1, "main"): (3, 3, 1.5, 1.5)}),
    }
    path = tmp_path / "small.prof"
    path.write_bytes(marshal.dumps(stats))
    p = pprofcore.load(path)
    assert sorted(p.to_folded(sample_type="time").splitlines()) == ["main 500000000", "main;work 1500000000"]
    assert p.total("calls") == 4


def test_committed_fixture_loads():
    p = pprofcore.load(DATA / "small.prof")
    assert p.total("calls") == 4 and p.total("time") == 2_000_000_000


def test_cli_reads_it(dump, capsys):
    from pprofcore.cli import main

    assert main(["-top", str(dump)]) == 0
    assert "_fib" in capsys.readouterr().out


@pytest.mark.parametrize(
    "value, says",
    [
        ({("a", 1, "f"): (1, 1, 0.1)}, "expected (cc, nc, tt, ct, callers)"),
        ({("a", "x", "f"): (1, 1, 0.1, 0.1, {})}, "is not an integer"),
        ({("a", 1, "f"): (1, 1, float("inf"), 0.1, {})}, "outside the int64 range"),
        ({("a", 1): (1, 1, 0.1, 0.1, {})}, "is not (file, line, function)"),
    ],
    ids=["short", "line", "inf", "key"],
)
def test_bad_dumps_are_decode_errors(value, says):
    with pytest.raises(DecodeError, match="pstats") as e:
        pprofcore.loads(marshal.dumps(value))
    assert says in str(e.value)


def test_truncated_dump():
    data = marshal.dumps({("a", 1, "f"): (1, 1, 0.1, 0.1, {})})
    with pytest.raises(DecodeError, match="not a valid marshal dump"):
        pprofcore.loads(data[:-3])


# marshal.loads can crash the interpreter on damaged bytes, so dumps are read
# by pprofcore's own reader of marshal's data values; marshal is its oracle on
# every value marshal itself wrote.
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False),
    st.text(),
    st.binary(max_size=20),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(
            st.one_of(st.text(max_size=5), st.integers(), st.tuples(st.text(max_size=3), st.integers())),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(value=_values, version=st.integers(min_value=0, max_value=marshal.version))
def test_marshal_subset_reads_what_marshal_wrote(value, version):
    data = marshal.dumps(value, version)
    assert marshal_subset.loads(data) == marshal.loads(data)


@settings(max_examples=150, deadline=None)
@given(value=_values, cut=st.integers(min_value=0), byte=st.integers(0, 255))
def test_marshal_subset_damage_is_an_error_naming_the_offset(value, cut, byte):
    data = bytearray(marshal.dumps({("a.py", 1, "f"): (1, 1, 0.5, 0.5, {}), "v": value}))
    data[cut % len(data)] = byte
    try:
        marshal_subset.loads(bytes(data))
    except marshal_subset.MarshalError as e:
        assert 0 <= e.offset <= len(data) and f"byte offset {e.offset}" in str(e)


def test_a_dump_holding_code_is_refused_not_run():
    data = marshal.dumps({("a.py", 1, "f"): (1, 1, 0.5, 0.5, {compile("1", "x", "eval"): (1, 1, 0.1, 0.1)})})
    with pytest.raises(DecodeError, match=r"marshal type 'c' .* at byte offset \d+"):
        pprofcore.loads(data)


@requires_go
def test_python_names_survive_pprof_reports(dump, tmp_path):
    """``<listcomp>``, ``<genexpr>`` and ``<built-in method builtins.sum>``
    look like C++ template arguments to pprof's demangler, which cuts them to
    nothing (``<unknown>``) when a function's system name equals its name:
    the reader writes no system name, so both pprofcore's and google/pprof's
    reports show them whole."""
    p = pprofcore.load(dump)
    ours = str(p.top(n=50))
    out = tmp_path / "py.pb.gz"
    p.save(out)
    theirs = go_pprof("-top", "-nodecount=50", str(out))
    for text in (ours, theirs):
        assert "<genexpr>" in text and "<built-in method builtins.sum>" in text, text
        assert "<unknown>" not in text, text
