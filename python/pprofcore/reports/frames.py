"""A profile's rows (samples, frames, locations, functions, mappings) as a
:class:`ReportTable`, for ``Profile.table``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._frames import columns
from .table import ReportTable

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def frames_table(profile: "Profile", kind: str = "samples") -> ReportTable:
    """The profile as one table: a row per sample (``kind="samples"``) with its
    values, leaf frame and label columns, or a row per sample and frame
    (``kind="frames"``), as :meth:`Profile.to_pandas` returns it.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> t = pprofcore.reports.frames_table(p)
    >>> t.columns[:3]
    ['samples', 'cpu', 'leaf_function']
    """
    return ReportTable(columns(profile, kind), [f"{kind} of {profile!r}"], meta={"kind": kind})
