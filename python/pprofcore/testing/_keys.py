"""A profile's values per key, shared by the share, regression and comparison checks.

A key is pprof's report node at a granularity (``by``): the nodes and totals
are the reports' own (``reports._nodes.nodes``, ``_report_base.total``), cached
on the profile. Owns sample-type lookup across profiles and the profiles x keys
matrix that :mod:`.regressions` and :mod:`.statistics` compare. No assertion
and no message text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Sequence, Tuple

import numpy as np

from .._report_base import total
from ..errors import ProfileError, unknown_sample_type
from ..reports._nodes import check_granularity, nodes_many

if TYPE_CHECKING:  # pragma: no cover
    from .._profile import Profile


def check_by(by: str) -> str:
    return check_granularity(by, "by=")


def type_index(p: "Profile", sample_type, what: str = "profile") -> int:
    try:
        return p.sample_type_index(sample_type)
    except (ValueError, IndexError, KeyError) as e:
        raise (ProfileError if isinstance(e, ProfileError) else ValueError)(f"{what}: {e}") from None


def resolve_type(profiles: Sequence["Profile"], sample_type) -> Tuple[str, str, List[int]]:
    """(type name, unit, index per profile) of one sample type across profiles,
    chosen in the first profile (pprof's default when ``sample_type`` is None)
    and found by name in the others."""
    first = profiles[0]
    ti = type_index(first, sample_type, "profile 0")
    name, unit = first.sample_types[ti]
    idx = [ti]
    for i, p in enumerate(profiles[1:], start=1):
        have = dict(p.sample_types)
        if name not in have:
            raise unknown_sample_type(name, have, f"profile {i}")
        if have[name] != unit:
            raise ValueError(f"profile {i}: sample type {name!r} is in {have[name]!r}, profile 0 in {unit!r}")
        idx.append(type_index(p, name, f"profile {i}"))
    return name, unit, idx


def key_matrix(
    profiles: Sequence["Profile"], type_idx: List[int], by: str, cum: bool
) -> Tuple[List[str], np.ndarray, np.ndarray]:
    """(key names, values: profiles x keys float64, totals per profile): every
    profile's pprof report nodes at granularity ``by``, aligned by name."""
    column = "cum" if cum else "flat"
    per: List[Tuple[np.ndarray, np.ndarray]] = []
    index: Dict[str, int] = {}
    add = index.setdefault
    for t, ti in zip(nodes_many(profiles, by), type_idx):
        names = t.printable_names()
        # One dict operation per name: its column, new names appended.
        pos = np.fromiter([add(n, len(index)) for n in names], dtype=np.int64, count=len(names))
        per.append((pos, t.columns()[column][:, ti]))
    keys = list(index)
    m = np.zeros((len(profiles), len(keys)), dtype=np.float64)
    for row, (pos, vals) in enumerate(per):
        m[row] = np.bincount(pos, weights=vals.astype(np.float64), minlength=len(keys))
    totals = np.array([total(p, ti) for p, ti in zip(profiles, type_idx)], dtype=np.float64)
    return keys, m, totals


def as_shares(m: np.ndarray, totals: np.ndarray) -> np.ndarray:
    safe = np.where(totals == 0, 1.0, totals)
    return np.where(totals[:, None] == 0, 0.0, m / safe[:, None])
