"""What a ProfileSet does to each profile as it reads it: symbolize (with one
:class:`~pprofcore.symbolize.SymbolCache` for the whole set, so each distinct
mapping is symbolized once per fleet) and then the opt-in Go repairs, keeping
each profile's report as flat columns for the set's ``profiles`` table and the
store's ``profiles`` rows."""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Union

from .. import _go_repairs
from .._profile import Profile
from ..symbolize import SymbolCache, symbolize

#: ``symbolize()`` keywords a set passes on (``cache`` is the set's own).
SYMBOLIZE_OPTIONS = ("binaries", "search_path", "tool", "demangle", "force")


def check_symbolize(symbolize: Union[None, bool, Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """``symbolize`` as the keywords of :func:`pprofcore.symbolize.symbolize`
    (None: do not symbolize): None/False, True (the defaults) or a dict of
    keywords; TypeError/ValueError name a bad value."""
    if symbolize is None or symbolize is False:
        return None
    if symbolize is True:
        return {}
    if not isinstance(symbolize, dict):
        raise TypeError(f"symbolize must be True, False or a dict of symbolize() options, not {symbolize!r}")
    unknown = sorted(set(symbolize) - set(SYMBOLIZE_OPTIONS))
    if unknown:
        raise ValueError(f"symbolize: unknown option {unknown[0]!r}; expected some of {', '.join(SYMBOLIZE_OPTIONS)}")
    return dict(symbolize)


class Prepare:
    """Prepare(repairs, symbolize)(row, profile) -> the profile to use for
    source row ``row``; ``reports[row]`` holds what it did (columns
    ``symbolize_resolved``, ``symbolize_missing``, ``repair_<name>_<field>``)."""

    def __init__(self, repairs=None, symbolize=None) -> None:
        self.repairs = _go_repairs.check_repairs(repairs)
        self.symbolize_options = check_symbolize(symbolize)
        self.cache: Optional[SymbolCache] = SymbolCache() if self.symbolize_options is not None else None
        self.reports: Dict[int, Dict[str, int]] = {}
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self.repairs) or self.symbolize_options is not None

    def __call__(self, row: int, p: Profile) -> Profile:
        cols: Dict[str, int] = {}
        if self.symbolize_options is not None:
            p, report = symbolize(p, cache=self.cache, **self.symbolize_options)
            cols["symbolize_resolved"] = report.resolved
            cols["symbolize_missing"] = len(report.missing)
        if self.repairs:
            p, reports = _go_repairs.apply_repairs(p, self.repairs)
            cols.update(_go_repairs.report_columns(reports))
        with self._lock:
            self.reports[row] = cols
        return p
