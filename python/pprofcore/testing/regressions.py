"""One profile against a baseline, key by key.

Owns :func:`regression_table` (the keys that grew, in flat and in cum, ranked
by the larger change) and :func:`assert_no_regression`, whose message is that
table. One run on each side; for groups of repeated runs with a statistical
test see :mod:`.statistics`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Union

import numpy as np

from .. import _units
from ..reports.table import ReportTable
from . import _format, _keys

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


MAX_REGRESSION_ROWS = 20  # rows of assert_no_regression's message when there are more than twice as many
MEASURES = ("flat", "cum")


def _regressed(b, n, shares, rel, abs, min_share) -> np.ndarray:
    """Per key: held ``min_share`` in either profile and grew by the rule."""
    delta = n - b
    grew = (np.maximum(shares[0], shares[1]) >= min_share) & (delta > 0)
    if rel is not None:
        grew &= delta > rel * np.abs(b)
    if abs is not None:
        grew &= delta > abs
    return grew


def regression_table(
    base: "Profile",
    new: "Profile",
    *,
    rel: Optional[float] = 0.1,
    abs: Optional[float] = None,
    min_share: float = 0.01,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    normalize: bool = True,
    cum: bool = False,
) -> ReportTable:
    """The keys that regressed from ``base`` to ``new`` under
    :func:`assert_no_regression`'s rules, in ``flat`` or in ``cum``, as a
    :class:`ReportTable`.

    Columns: ``name``; ``flat_base, flat_new, flat_delta, flat_delta%`` and
    the same for ``cum`` (shares when ``normalize``, else values in the sample
    type's unit; ``delta%`` is ``inf`` for keys absent from ``base``); and
    ``regressed``: ``"flat"``, ``"cum"`` or ``"flat,cum"``, the measures in
    which the key broke the rule. Rows are ranked by the larger of their flat
    and cum change, so a function that grew through its callees (its cum)
    comes before the leaves that grew a little each. ``cum`` picks the
    measure that fails :func:`assert_no_regression` (``meta["failures"]``
    counts those keys); the other measure's keys are listed to explain.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> slower = pprofcore.merge([p, p.focus("sha256").scale(0.5)])  # more time in sha256
    >>> t = pprofcore.testing.regression_table(p, slower)
    >>> t["name"][2], t["regressed"][2]
    ('crypto/sha256.block', 'flat,cum')
    """
    _keys.check_by(by)
    if rel is not None and rel < 0 or abs is not None and abs < 0:
        raise ValueError("rel and abs must be >= 0")
    name, unit, idx = _keys.resolve_type([base, new], sample_type)
    columns: Dict[str, object] = {}
    per = {}
    for measure in MEASURES:
        keys, m, totals = _keys.key_matrix([base, new], idx, by, measure == "cum")
        shares = _keys.as_shares(m, totals)
        vals = shares if normalize else m
        per[measure] = (vals[0], vals[1], _regressed(vals[0], vals[1], shares, rel, abs, min_share))
    hit = per["flat"][2] | per["cum"][2]
    rows = np.flatnonzero(hit)
    change = np.maximum(per["flat"][1] - per["flat"][0], per["cum"][1] - per["cum"][0])
    rows = rows[np.lexsort((rows, -change[rows]))]
    columns["name"] = [keys[i] for i in rows.tolist()]
    for measure in MEASURES:
        b, n, _ = per[measure]
        delta = n[rows] - b[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            pct = np.where(b[rows] != 0, delta / np.abs(b[rows]) * 100, np.where(delta != 0, np.inf, 0.0))
        columns.update(
            {f"{measure}_base": b[rows], f"{measure}_new": n[rows], f"{measure}_delta": delta, f"{measure}_delta%": pct}
        )
    columns["regressed"] = [",".join(m for m in MEASURES if per[m][2][i]) for i in rows.tolist()]
    gate = "cum" if cum else "flat"
    failures = int(per[gate][2].sum())
    rule = []
    if rel is not None:
        rule.append(f"delta > {rel:.0%} of base")
    if abs is not None:
        rule.append(f"delta > {_format.fmt_share(abs) if normalize else _units.scaled_label(abs, unit)}")
    other = len(rows) - failures
    header = [
        f"{failures} of {len(keys)} {by} regressed ({gate} {name}"
        f"{' share' if normalize else ''}; {' and '.join(rule) or 'any growth'};"
        f" holding >= {_format.fmt_share(min_share)})"
        + (f"; {other} more grew in {'flat' if cum else 'cum'} only" if other else "")
        + ("; ranked by the larger of the flat and cum change" if len(rows) else "")
    ]
    meta = {
        "sample_type": name,
        "sample_unit": unit,
        "normalize": normalize,
        "granularity": by,
        "cum": cum,
        "failures": failures,
    }
    return ReportTable(columns, header, _regression_text, meta)


def _regression_text(t: ReportTable, n: Optional[int]) -> str:
    fmt = _format.value_format(t, 2)

    def pct(p: float) -> str:
        return "new" if np.isinf(p) else f"{p:+.1f}%"

    def row(i: int) -> List[str]:
        cells = [t["name"][i]]
        for m in MEASURES:
            cells += [
                fmt(float(t[f"{m}_base"][i])),
                fmt(float(t[f"{m}_new"][i])),
                fmt(float(t[f"{m}_delta"][i]), True),
                pct(float(t[f"{m}_delta%"][i])),
            ]
        return cells + [t["regressed"][i]]

    names = ["name"] + [f"{m} {c}" for m in MEASURES for c in ("base", "new", "delta", "delta %")] + ["regressed"]
    return _format.table_text(t, n, names, row)


def assert_no_regression(
    base: "Profile",
    new: "Profile",
    *,
    rel: Optional[float] = 0.1,
    abs: Optional[float] = None,
    min_share: float = 0.01,
    by: str = "functions",
    sample_type: Union[int, str, None] = None,
    normalize: bool = True,
    cum: bool = False,
) -> None:
    """Assert that no key (function, file, line ... per ``by``) grew from
    ``base`` to ``new``.

    A key fails when it holds at least ``min_share`` of the total in either
    profile and its value grew by more than ``rel`` times its base value (and,
    when given, by more than ``abs``). With ``normalize`` (default) values are
    shares of each profile's total, so a longer run is not a regression and
    ``abs`` is a share (0.01 = one percentage point); otherwise values are in
    the sample type's unit. ``cum=False`` compares ``flat`` values (time in
    the function itself), ``cum=True`` ``cum``. ``rel=None`` checks ``abs``
    only. Keys absent from ``base`` that reach ``min_share`` fail as new.

    The message is the table of :func:`regression_table`: every offender
    with its flat and cum base, new, delta and delta %, and the keys that
    broke the rule in the other measure (a function slowed down through its
    callees grows in cum, not in flat), ranked by the larger change; the
    first 20 rows when there are more than 40.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> slower = pprofcore.merge([p, p.focus("sha256").scale(0.5)])  # more time in sha256
    >>> pprofcore.testing.assert_no_regression(p, p)
    >>> pprofcore.testing.assert_no_regression(p, slower)
    Traceback (most recent call last):
        ...
    AssertionError: Profile regressed
    1 of 233 functions regressed (flat cpu share; delta > 10% of base; holding >= 1.00%); ...
    """
    __tracebackhide__ = True
    t = regression_table(
        base, new, rel=rel, abs=abs, min_share=min_share, by=by, sample_type=sample_type, normalize=normalize, cum=cum
    )
    if t.meta["failures"]:
        # callers of a regressed leaf all grow in cum: the first rows tell the story
        _format.raise_assertion_error(
            "Profile regressed", [t.to_text(n=MAX_REGRESSION_ROWS if len(t) > 2 * MAX_REGRESSION_ROWS else None)]
        )
