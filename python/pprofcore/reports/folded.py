"""Folded (collapsed) stacks: ``Profile.to_folded`` (C++ collapses the samples
and escapes the frames: see ``append_folded_frame`` in cpp/include/pprofcore/folded.hpp).
The reader, :func:`pprofcore.from_folded`, is in ``_from_folded.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Union

import numpy as np

from .._frames import label_columns
from .._tabular import Codes
from . import _nodes

if TYPE_CHECKING:
    from .._profile import Profile


def to_folded(
    profile: "Profile",
    sample_type: Union[int, str, None] = None,
    lines: bool = False,
    labels: Optional[Sequence[str]] = None,
    inline: bool = True,
) -> str:
    """Collapsed stacks, ``root;...;leaf VALUE`` per distinct stack:
    :meth:`Profile.to_folded`, whose parameters it takes.

    Examples
    --------
    >>> p = pprofcore.from_folded("main;work 3\\nmain;idle 1\\n", sample_type="cpu/nanoseconds")
    >>> print(pprofcore.reports.to_folded(p))
    main;idle 1
    main;work 3
    """
    ti = profile.sample_type_index(sample_type)
    nodes = _nodes.nodes(profile, "lines" if lines else "functions", inline)
    group: List[int] = []
    prefixes: List[List[str]] = []  # frames before the stack, escaped by the core like every frame
    if labels:
        cols = label_columns(profile)
        n = len(profile)
        parts = []
        texts: List[Callable[..., Optional[str]]] = []
        for key in labels:
            c = cols.get(key)
            if c is None:
                parts.append(np.full(n, -1, dtype=np.int64))
                texts.append(lambda code: None)
            elif isinstance(c, Codes):
                parts.append(c.codes.astype(np.int64))
                texts.append(lambda code, cats=c.categories, k=key: f"{k}={cats[code]}" if code >= 0 else None)
            else:
                vals, mask = c
                parts.append(np.where(mask, np.iinfo(np.int64).min, vals))
                texts.append(lambda v, k=key: None if v == np.iinfo(np.int64).min else f"{k}={v}")
        uniq, inverse = np.unique(np.stack(parts, axis=1), axis=0, return_inverse=True)
        group = inverse.reshape(-1).astype(np.int32).tolist()
        for row in uniq:
            fr = [t(int(v)) for t, v in zip(texts, row)]
            prefixes.append([f for f in fr if f is not None])
    return nodes.folded(profile._core, ti, group, prefixes)
