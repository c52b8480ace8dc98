"""How the assertions of :mod:`pprofcore.testing` word their failures.

Owns the one place an ``AssertionError`` is raised (:func:`raise_assertion_error`,
hidden from pytest's tracebacks as polars' helper is), the "... and N more"
cap shared with the pytest plugin's explanations (:func:`cap_lines`), and the
aligned text of the regression and comparison tables. No profile logic.
"""

from __future__ import annotations

from typing import Callable, List, NoReturn, Optional, Sequence

import numpy as np

from .. import _units
from ..reports.table import ReportTable

MAX_DIFFERENCES = 10  # differences listed in a failure message before "... and N more"


def raise_assertion_error(title: str, lines: Sequence[str] = ()) -> NoReturn:
    """Raise ``AssertionError`` with ``title`` then ``lines`` as its message,
    one per line. Every assertion of the package fails through here."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    raise AssertionError("\n".join([title, *lines]))


def cap_lines(lines: Sequence[str], limit: int = MAX_DIFFERENCES) -> List[str]:
    """``lines`` cut to ``limit``, then "... and N more" when some were cut."""
    if len(lines) <= limit:
        return list(lines)
    return list(lines[:limit]) + [f"... and {len(lines) - limit} more"]


def fmt_share(x: float) -> str:
    return f"{100 * x:.2f}%"


def value_format(t: ReportTable, digits: int) -> Callable[..., str]:
    """Formats a value of ``t``: a share in % with ``digits`` decimals when the
    table is normalized, else in the sample type's unit; ``sign`` adds a "+"."""
    norm, unit = t.meta["normalize"], t.meta["sample_unit"]

    def fmt(v: float, sign: bool = False) -> str:
        s = f"{100 * v:.{digits}f}%" if norm else _units.scaled_label(v, unit)
        return ("+" + s) if sign and v > 0 else s

    return fmt


def table_text(t: ReportTable, n: Optional[int], names: List[str], row: Callable[[int], List[str]]) -> str:
    """The header, then the first ``n`` rows (all when None) as aligned cells."""
    rows = len(t) if n is None else min(n, len(t))
    cells = [names] + [row(i) for i in range(rows)]
    return "\n".join(list(t.header) + align(cells) + ([f"... {len(t) - rows} more rows"] if rows < len(t) else []))


def align(cells: List[List[str]]) -> List[str]:
    """Rows of text cells: the first column left-aligned, the others right."""
    widths = [np.max([len(r[j]) for r in cells]) for j in range(len(cells[0]))]
    return [
        "  " + "  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in cells
    ]
