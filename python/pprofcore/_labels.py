"""Label operations: pprof's tag filters (tagfocus/tagignore with ranges and
units, tagshow/taghide), tagroot/tagleaf frames, set/remove/rename a label, and
splitting or grouping samples by label values. Regexes and predicates are
evaluated once per distinct string; the per-sample work is in C++."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _args, _core
from ._frames import num_label_units
from ._match import compile_filter, filter_regex, filtered, string_mask, warn_no_match
from ._units import scale, scaled_label
from ._units import scale_factor as _scale_factor

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile


# ---------------------------------------------------------------- tag filters
def _key_rows(p: "Profile", key: str) -> np.ndarray:
    """Boolean per label row: is the row's key ``key``? (Compares strings, not
    codes: a string table may hold duplicates.)"""
    keys = p.labels.key
    return string_mask(p, keys, lambda s: s == key)[keys]


_RANGE_RX = re.compile(r"([+-]?[0-9]+)([A-Za-z]+)?")


def _parse_range(text: str):
    """pprof's parseTagFilterRange: (lo, hi, unit) in scaled units, or None."""
    ms = list(_RANGE_RX.finditer(text))[:2]
    if not ms:
        return None
    v1, unit = scale(int(ms[0].group(1)), ms[0].group(2) or "", ms[0].group(2) or "")
    if len(ms) == 1:
        m = ms[0].group(0)
        if text == m:
            return v1, v1, unit
        if text == m + ":":
            return v1, None, unit
        if text == ":" + m:
            return None, v1, unit
        return None
    if text != ms[0].group(0) + ":" + ms[1].group(0):
        return None
    v2, unit2 = scale(int(ms[1].group(1)), ms[1].group(2) or "", unit)
    if unit2 != unit:
        return None
    return v1, v2, unit


class TagFilter:
    """A parsed ``-tagfocus``/``-tagignore`` expression (see :func:`parse_tag_filter`)."""

    def __init__(self, text: str, key: str, regexes: Optional[List["re.Pattern[str]"]], num_range):
        self.text, self.key, self.regexes, self.range = text, key, regexes, num_range

    def sample_mask(self, p: "Profile", units: Optional[Dict[str, str]] = None) -> np.ndarray:
        """Boolean per sample: does the sample satisfy the expression?"""
        lab = p.labels
        if self.range is not None:
            return self._range_mask(p, units if units is not None else num_label_units(p))
        if self.key:
            rows = _key_rows(p, self.key) & (lab.str >= 0)
            rx = self.regexes or []
            hit = string_mask(p, lab.str[rows], lambda s: any(r.search(s) for r in rx))
            row_match = np.zeros(len(lab), dtype=np.uint8)
            row_match[rows] = hit[lab.str[rows]]
            return _core.samples_with_label(p._core, row_match).astype(bool)
        # Bare regexes: each must match "key:value" of some string label (AND).
        string_rows = np.flatnonzero(lab.str >= 0)
        pairs = lab.key[string_rows].astype(np.int64) << 32 | lab.str[string_rows].astype(np.int64)
        uniq, inv = np.unique(pairs, return_inverse=True)
        texts = [p._core.string(int(u >> 32)) + ":" + p._core.string(int(u & 0xFFFFFFFF)) for u in uniq.tolist()]
        out = np.ones(len(p), dtype=bool)
        for r in self.regexes or []:
            hit = np.array([r.search(t) is not None for t in texts], dtype=bool)
            row_match = np.zeros(len(lab), dtype=np.uint8)
            if len(string_rows):
                row_match[string_rows] = hit[inv.reshape(-1)]
            out &= _core.samples_with_label(p._core, row_match).astype(bool)
        return out

    def _range_mask(self, p: "Profile", units: Dict[str, str]) -> np.ndarray:
        lo, hi, unit = self.range
        lab = p.labels
        rows = lab.str < 0
        if self.key:
            rows &= _key_rows(p, self.key)
        mul = np.zeros(p._core.num_strings)
        div = np.ones(p._core.num_strings)
        ok = np.zeros(p._core.num_strings, dtype=bool)
        for k in np.flatnonzero(np.bincount(lab.key[rows], minlength=1)).tolist():  # the few keys, no sort
            m, d, u = _scale_factor(units.get(p._core.string(k), ""), unit)
            mul[k], div[k], ok[k] = m, d, u == unit
        keys = lab.key
        v = lab.num.astype(np.float64) * mul[keys] / div[keys]
        match = rows & ok[keys]
        if lo is not None:
            match &= v >= lo
        if hi is not None:
            match &= v <= hi
        return _core.samples_with_label(p._core, match.astype(np.uint8)).astype(bool)


def parse_tag_filter(option: str, text: str) -> Optional[TagFilter]:
    """Parses pprof's tag filter syntax.

    - ``key=regex1,regex2``: samples with a string label ``key`` whose value
      matches any of the regexes;
    - ``regex1,regex2``: every regex must match ``key:value`` of some string label;
    - numeric ranges, optionally after ``key=``: ``32kb`` (equal), ``:64kb``
      (at most), ``4mb:`` (at least), ``12kb:64mb`` (inclusive), compared with
      numeric labels converted to the label key's unit.
    """
    _args.check_str(option, text, optional=True)
    if not text:
        return None
    key, value = "", text
    if "=" in text:
        key, value = text.split("=", 1)
    rng = _parse_range(value)
    if rng is not None:
        return TagFilter(text, key, None, rng)
    return TagFilter(text, key, [filter_regex(option, part) for part in value.split(",")], None)


def filter_by_tag(p: "Profile", tagfocus=None, tagignore=None, *, units=None, warn: bool = True) -> "Profile":
    f = tagfocus if isinstance(tagfocus, TagFilter) else parse_tag_filter("tagfocus", tagfocus)
    i = tagignore if isinstance(tagignore, TagFilter) else parse_tag_filter("tagignore", tagignore)
    if f is None and i is None:
        return p
    if units is None and ((f is not None and f.range) or (i is not None and i.range)):
        units = num_label_units(p)
    focused = f.sample_mask(p, units) if f is not None else np.ones(len(p), dtype=bool)
    ignored = i.sample_mask(p, units) if i is not None else np.zeros(len(p), dtype=bool)
    if warn:
        if f is not None and not focused.any():
            warn_no_match("TagFocus", f.text)
        if i is not None and not ignored.any():
            warn_no_match("TagIgnore", i.text)
    return filtered(
        p, _core.keep_samples(p._core, (focused & ~ignored).astype(np.uint8)), ("tagfocus", f), ("tagignore", i)
    )


def filter_tags_by_name(p: "Profile", tagshow=None, taghide=None, *, warn: bool = True) -> "Profile":
    show, hide = compile_filter("tagshow", tagshow), compile_filter("taghide", taghide)
    if show is None and hide is None:
        return p
    lab = p.labels
    keys = np.unique(lab.key)
    shown = string_mask(p, keys, lambda s: show is None or show.search(s) is not None)
    hidden = string_mask(p, keys, lambda s: hide is not None and hide.search(s) is not None)
    if warn:
        if show is not None and not shown[keys].any():
            warn_no_match("TagShow", show)
        if hide is not None and not hidden[keys].any():
            warn_no_match("TagHide", hide)
    keep = shown[lab.key] & ~hidden[lab.key]
    return filtered(p, _core.keep_labels(p._core, keep.astype(np.uint8)), ("tagshow", show), ("taghide", hide))


def _keys(keys: Union[str, Iterable[str], None]) -> List[str]:
    if keys is None:
        return []
    if isinstance(keys, str):
        keys = keys.split(",")
    return [k for k in keys if k]


def add_label_frames(p: "Profile", root=None, leaf=None, unit: str = "minimum", *, warn: bool = True) -> "Profile":
    root_keys, leaf_keys = _keys(root), _keys(leaf)
    if not root_keys and not leaf_keys:
        return p
    # Keys are looked up by string; a key the table lacks gets a code past its
    # end, resolved through `extra` (no label has it, so it only names frames).
    table: Dict[str, int] = {}
    for c in np.unique(np.concatenate([p.labels.key, p.labels.num_unit])).tolist():
        table.setdefault(p._core.string(c), c)
    extra: Dict[str, int] = {}

    def code(s: str) -> int:
        if s in table:
            return table[s]
        return extra.setdefault(s, p._core.num_strings + len(extra))

    lab = p.labels
    text = lab.str.astype(np.int32, copy=True)
    numeric = np.flatnonzero(lab.str < 0)
    if len(numeric):
        # Unique (value, unit) pairs via 1-D uniques (np.unique(axis=0) is slow).
        nums, num_inv = np.unique(lab.num[numeric], return_inverse=True)
        units_, unit_inv = np.unique(lab.num_unit[numeric], return_inverse=True)
        pair = num_inv.reshape(-1).astype(np.int64) * len(units_) + unit_inv.reshape(-1)
        uniq, inv = np.unique(pair, return_inverse=True)
        codes = [
            code(scaled_label(int(nums[q // len(units_)]), p._core.string(int(units_[q % len(units_)])), unit))
            for q in uniq.tolist()
        ]
        text[numeric] = np.asarray(codes, dtype=np.int32)[inv.reshape(-1)]
    rk = [code(k) for k in root_keys]
    lk = [code(k) for k in leaf_keys]
    core, rm, lm = _core.add_label_frames(p._core, rk, lk, text, list(extra))
    if warn:
        if root_keys and not rm:
            warn_no_match("TagRoot", ",".join(root_keys))
        if leaf_keys and not lm:
            warn_no_match("TagLeaf", ",".join(leaf_keys))
    return p._derive(core)


# ------------------------------------------------------- labels and sample types
def remove_label(p: "Profile", key: str) -> "Profile":
    return p._derive(_core.keep_labels(p._core, (~_key_rows(p, key)).astype(np.uint8)))


def set_label(p: "Profile", key: str, values: Union[str, Sequence[str]]) -> "Profile":
    if isinstance(values, str):
        values = [values]
    return p._derive(_core.set_label(p._core, key, list(values)))


def rename_label(p: "Profile", old: str, new: str) -> "Profile":
    return p._derive(_core.rename_label(p._core, old, new))


def _first_values(p: "Profile", key: str) -> np.ndarray:
    """Per sample: code of the first string value of label ``key``, -1 if none."""
    out = np.full(len(p), -1, dtype=np.int64)
    if len(p) == 0:
        return out
    lab = p.labels
    rows = np.flatnonzero(_key_rows(p, key) & (lab.str >= 0))
    sample_of = np.searchsorted(p.label_offsets, rows, side="right") - 1
    s, first = np.unique(sample_of, return_index=True)
    out[s] = lab.str[rows[first]]
    return out


def split_by_label(p: "Profile", key: str) -> Dict[str, "Profile"]:
    return {k[0]: v for k, v in group_by_label(p, [key]).items()}


def group_by_label(p: "Profile", keys: Union[str, Sequence[str]]) -> Dict[Tuple[str, ...], "Profile"]:
    keys = [keys] if isinstance(keys, str) else list(keys)
    if not keys:
        raise ValueError("group_by_label needs at least one label key")
    cols = np.stack([_first_values(p, k) for k in keys], axis=1) if len(p) else np.zeros((0, len(keys)), np.int64)
    uniq, inv = np.unique(cols, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    out = {}
    for g, codes in enumerate(uniq.tolist()):
        name = tuple(p._core.string(int(c)) if c >= 0 else "" for c in codes)
        out[name] = p._derive(_core.keep_samples(p._core, (inv == g).astype(np.uint8)))
    return out
