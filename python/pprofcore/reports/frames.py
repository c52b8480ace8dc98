"""A profile's rows (samples, frames, locations, functions, mappings) as a
:class:`ReportTable`, for ``Profile.table``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._frames import columns
from .table import ReportTable

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def frames_table(profile: "Profile", kind: str = "samples") -> ReportTable:
    return ReportTable(columns(profile, kind), [f"{kind} of {profile!r}"], meta={"kind": kind})
