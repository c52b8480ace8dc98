"""Wrong arguments raise TypeError or ValueError (pprofcore's own errors are
ValueError subclasses) naming the argument, never AttributeError, KeyError,
IndexError, OverflowError or re.error from deep inside; and the CLI turns every
such error into one line on stderr and exit status 2.

The sweep calls every public callable of the module, Profile, Merger and
DeltaComputer with each bad value in each parameter, the other parameters valid.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import warnings

import pytest
import wirebuild as wb
from testenv import pprofcore_env

import pprofcore
from pprofcore import Profile

SMALL = pprofcore.loads(wb.small())
OTHER = pprofcore.loads(wb.small(period=20_000_000))

BAD = {
    "None": None,
    "True": True,
    "-1": -1,
    "2**70": 2**70,
    "-2**70": -(2**70),
    "1.5": 1.5,
    "nan": float("nan"),
    "inf": float("inf"),
    "'x'": "x",
    "'('": "(",
    "''": "",
    "b'x'": b"x",
    "[]": [],
    "['x']": ["x"],
    "[None]": [None],
    "[[1]]": [[1]],
    "{}": {},
    "{'a': 1}": {"a": 1},
    "object()": object(),
    "Profile": SMALL,
}

# Valid values for parameters without a default.
GOOD = {
    "base": OTHER,
    "regex": "main",
    "expr": "thread=main",
    "key": "thread",
    "keys": ["thread"],
    "values": ["v"],
    "old": "thread",
    "new": "t2",
    "types": ["samples"],
    "ratio": 2.0,
    "ratios": [1.0, 2.0],
    "drop": "main",
    "i": 0,
    "path": "p.pb.gz",
    "profile": SMALL,
    "profiles": [SMALL, OTHER],
    "text": "a;b 1\n",
    "data": wb.small(),
    "source": "p.pb.gz",
    "paths": ["p.pb.gz"],
}

# Callables that read or write files may also raise OSError for a path value.
PATH_PARAMS = {"path", "source", "paths", "directory"}
SKIP = {
    ("Profile.save", "path"),  # any str is a valid file name
    ("merge_files", "progress"),  # progress callbacks are another suite's subject
    ("open_store", "external_access"),  # needs a real store: test_fleet_store_reliability checks it
}


def _callables():
    out = []
    for name in sorted(pprofcore.__all__):
        obj = getattr(pprofcore, name)
        if inspect.isfunction(obj) and name != "example_path":
            out.append((name, lambda obj=obj: obj))
    for name, fn in inspect.getmembers(Profile, inspect.isfunction):
        if not name.startswith("_"):
            out.append((f"Profile.{name}", lambda name=name: getattr(SMALL, name)))
    for cls, make in ((pprofcore.Merger, pprofcore.Merger), (pprofcore.DeltaComputer, pprofcore.DeltaComputer)):
        for name, fn in inspect.getmembers(cls, inspect.isfunction):
            if not name.startswith("_"):
                out.append((f"{cls.__name__}.{name}", lambda make=make, name=name: getattr(make(), name)))
    out.append(("Merger()", lambda: pprofcore.Merger))
    out.append(("DeltaComputer()", lambda: pprofcore.DeltaComputer))
    return out


def _cases():
    cases = []
    for qualname, get in _callables():
        sig = inspect.signature(get())
        params = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        for param in params:
            if (qualname, param.name) in SKIP:
                continue
            cases.append(pytest.param(qualname, get, param.name, id=f"{qualname}-{param.name}"))
    return cases


def _call(get, param_name, value):
    fn = get()
    sig = inspect.signature(fn)
    args, kwargs = [], {}
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name == param_name:
            v = value
        elif p.default is not p.empty:
            continue
        else:
            v = GOOD[p.name]
        if p.kind == p.KEYWORD_ONLY:
            kwargs[p.name] = v
        else:
            args.append(v)
    return fn(*args, **kwargs)


@pytest.mark.parametrize("qualname, get, param", _cases())
def test_bad_values_raise_type_or_value_errors(qualname, get, param, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    SMALL.save("p.pb.gz")  # the file that path parameters name
    allowed = (TypeError, ValueError) + ((OSError,) if param in PATH_PARAMS else ())
    wrong = []
    for label, value in BAD.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _call(get, param, value)
        except allowed:
            pass
        except Exception as e:  # noqa: BLE001 - the point is to catch the wrong kinds
            wrong.append(f"{param}={label}: {type(e).__name__}: {e}"[:200])
    assert not wrong, f"{qualname}: " + "; ".join(wrong)


# ---------------------------------------------------------------- examples that once escaped


@pytest.mark.parametrize(
    "call, exc, fragment",
    [
        (lambda: SMALL.diff("x"), TypeError, "base"),
        (lambda: SMALL.top(unit=["ms"]), TypeError, "unit"),
        (lambda: SMALL.top(sample_type="nope"), ValueError, "no sample_type 'nope'"),
        (lambda: SMALL.total(7), ValueError, "sample_type index 7"),
        (lambda: SMALL.stack("x"), TypeError, "i"),
        (lambda: SMALL.stack(99), ValueError, "sample index 99"),
        (lambda: SMALL.peek("("), ValueError, "peek"),
        (lambda: SMALL.focus("("), ValueError, "focus"),
    ],
    ids=[
        "diff-str",
        "top-unit-list",
        "unknown-type",
        "type-index",
        "stack-str",
        "stack-range",
        "peek-regex",
        "focus-regex",
    ],
)
def test_examples_name_the_argument(call, exc, fragment):
    with pytest.raises(exc, match=fragment):
        call()


# ---------------------------------------------------------------- from_folded values


@pytest.mark.parametrize("value", [str(2**63), str(-(2**63) - 1), str(2**64 + 5)])
def test_from_folded_values_outside_int64_name_the_line(value):
    with pytest.raises(ValueError, match=f"folded line 2: value {value} is outside the int64 range"):
        pprofcore.from_folded(f"a;b 1\nmain;work {value}\n")


def test_from_folded_int64_extremes_are_kept():
    p = pprofcore.from_folded(f"a {2**63 - 1}\nb {-(2**63)}\n")
    assert sorted(p.values[:, 0].tolist()) == [-(2**63), 2**63 - 1]


# ---------------------------------------------------------------- the CLI


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["top", "{path}", "--sample_index", "nope"], "sample"),
        (["top", "{path}", "--focus", "("], "focus"),
        (["peek", "(", "{path}"], "peek"),
        (["top", "{dir}"], ""),
        (["top", "{missing}"], ""),
    ],
    ids=["unknown-sample-type", "bad-focus-regex", "bad-peek-regex", "directory", "missing-file"],
)
def test_cli_errors_are_one_line_with_exit_2(argv, fragment, tmp_path):
    path = tmp_path / "p.pb.gz"
    SMALL.save(path)
    argv = [a.format(path=path, dir=tmp_path, missing=tmp_path / "nope.pb") for a in argv]
    r = subprocess.run(
        [sys.executable, "-m", "pprofcore", *argv], capture_output=True, text=True, timeout=120, env=pprofcore_env()
    )
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert fragment in lines[0]
