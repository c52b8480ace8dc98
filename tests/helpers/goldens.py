"""Golden files: expected output committed under tests/data/golden, compared
byte for byte. `pytest --update-goldens` rewrites them from the current output
(the `check_golden` fixture of conftest.py passes the option here); review the change
with `git diff tests/data/golden` before committing it."""

from __future__ import annotations

import difflib

import pytest
from testenv import DATA

GOLDEN = DATA / "golden"


def check(name: str, text: str, *, update: bool, test: str) -> None:
    """Compares `text` with the golden file `name`, or writes it when `update`.
    `test` is the node id the failure message tells the reader to rerun."""
    __tracebackhide__ = True
    path = GOLDEN / name
    if update:
        with open(path, "w", encoding="utf-8", newline="") as f:  # the bytes as given, no newline translation
            f.write(text)
        return
    rerun = f"python -m pytest '{test}' --update-goldens"
    if not path.exists():
        pytest.fail(f"{path} is missing: run {rerun}", pytrace=False)
    with open(path, encoding="utf-8", newline="") as f:
        want = f.read()
    if text == want:
        return
    diff = list(difflib.unified_diff(want.splitlines(), text.splitlines(), f"golden/{name}", "now", lineterm=""))
    shown = "\n".join(diff[:40]) + (f"\n... and {len(diff) - 40} more diff lines" if len(diff) > 40 else "")
    pytest.fail(
        f"{name} differs from its golden file; if the change is intended, run {rerun} and review the diff\n{shown}",
        pytrace=False,
    )


def first_difference(want: str, got: str) -> str:
    """Where pprof's text (``want``) and pprofcore's (``got``) first part, for a failure message."""
    for i, (a, b) in enumerate(zip(want.splitlines(), got.splitlines())):
        if a != b:
            return f"line {i + 1}:\n  pprof:     {a}\n  pprofcore: {b}"
    return f"lengths differ: pprof {len(want.splitlines())} lines, pprofcore {len(got.splitlines())} lines"
