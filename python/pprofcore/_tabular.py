"""Columns to tables: NumPy arrays, dictionary-coded strings (:class:`Codes`),
masked integers and string lists become ``pandas.DataFrame`` / ``pyarrow.Table``
columns without per-row Python loops. Knows nothing of profiles."""

from __future__ import annotations

from typing import Dict, List, Tuple, Union

import numpy as np

from ._optional import require_pandas, require_pyarrow


class Codes:
    """A string column: ``int32`` codes into ``categories`` (``-1`` = missing)."""

    __slots__ = ("codes", "categories")

    def __init__(self, codes: np.ndarray, categories: List[str]):
        self.codes = codes
        self.categories = categories


#: A label column: string values as :class:`Codes`, numbers as (values, missing mask).
LabelColumn = Union[Codes, Tuple[np.ndarray, np.ndarray]]


def _from_codes(pd, c: Codes):
    cats = pd.Index(c.categories, dtype=object)
    try:  # codes come from the string table, so validation is redundant (pandas >= 2.1)
        return pd.Categorical.from_codes(c.codes, categories=cats, validate=False)
    except TypeError:
        return pd.Categorical.from_codes(c.codes, categories=cats)


def to_pandas_columns(cols: Dict[str, object]):
    """A DataFrame from columns: arrays, :class:`Codes`, (values, mask) pairs or lists of str."""
    pd = require_pandas()
    data = {}
    for k, c in cols.items():
        if isinstance(c, Codes):
            data[k] = _from_codes(pd, c)
        elif isinstance(c, tuple):
            data[k] = pd.arrays.IntegerArray(c[0], c[1])
        elif isinstance(c, list):
            data[k] = pd.Categorical(c)
        else:
            data[k] = c
    return pd.DataFrame(data, copy=False)


def to_arrow_columns(cols: Dict[str, object]):
    """A pyarrow.Table from the same column kinds (strings dictionary-encoded)."""
    pa = require_pyarrow()
    arrays: list = []
    names: List[str] = []
    dictionaries: Dict[int, object] = {}
    for k, c in cols.items():
        if isinstance(c, Codes):
            d = dictionaries.get(id(c.categories))
            if d is None:
                d = dictionaries[id(c.categories)] = pa.array(c.categories, type=pa.string())
            idx = pa.array(c.codes.astype(np.int32), mask=c.codes < 0)
            arrays.append(pa.DictionaryArray.from_arrays(idx, d))
        elif isinstance(c, tuple):
            arrays.append(pa.array(c[0], mask=c[1]))
        elif isinstance(c, list):
            arrays.append(pa.array(c, type=pa.string()).dictionary_encode())
        else:
            arrays.append(pa.array(np.ascontiguousarray(c)))
        names.append(k)
    return pa.Table.from_arrays(arrays, names=names)
