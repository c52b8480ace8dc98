"""Filters, pruning and label operations (pprof's focus/ignore/hide/show,
show_from, tag filters, tagroot/tagleaf, prune_from, drop_frames/keep_frames).

Semantics follow google/pprof (``profile/filter.go``, ``profile/prune.go``,
``internal/driver/driver_focus.go``, ``internal/driver/tagroot.go``). Each regex
is evaluated here once per *unique* function name, file name, mapping file or
label string; the per-sample and per-frame work happens in C++ on the
resulting boolean masks (``pprofcore._core``), with the GIL released.

Regexes are Python :mod:`re` patterns, searched (unanchored) like Go's
``MatchString``; RE2 and ``re`` agree on the common syntax, but RE2-only
constructs such as ``[[:alpha:]]`` are not translated.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import TYPE_CHECKING, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _args, _core
from ._units import scale, scaled_label
from ._units import scale_factor as _scale_factor

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

Pattern = Union[str, "re.Pattern[str]"]

__all__ = ["FilterWarning", "apply_filters", "parse_tag_filter"]


class FilterWarning(UserWarning):
    """An expression given to a filter matched nothing (pprof prints
    "... expression matched no samples" in the same situation)."""


def _warn_no_match(option: str, expr) -> None:
    text = expr.pattern if isinstance(expr, re.Pattern) else expr
    # Point the warning at the first caller outside the pprofcore package.
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(0), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    warnings.warn(f"{option} expression {text!r} matched no samples", FilterWarning, stacklevel=level)


def _compile(option: str, expr: Optional[Pattern]) -> Optional["re.Pattern[str]"]:
    if expr is None or (isinstance(expr, str) and expr == ""):
        return None
    if isinstance(expr, re.Pattern):
        return expr
    try:
        return re.compile(expr)
    except re.error as e:
        raise ValueError(f"parsing {option} regexp {expr!r}: {e}") from None


def _wrap(core) -> "Profile":
    from ._profile import Profile

    return Profile._wrap(core)


def _filtered(p: "Profile", core, *options) -> "Profile":
    """A Profile of ``core`` that remembers it is ``p`` filtered by the given
    ``(option, expression)`` pairs (None expressions skipped), for report
    percentages and "Active filters" lines."""
    from ._report_base import carry

    return carry(p, _wrap(core), [(n, e) for n, e in options if e is not None])


# ----------------------------------------------------------------- name masks
def _string_mask(p: "Profile", codes: np.ndarray, pred: Callable[[str], bool]) -> np.ndarray:
    """Boolean per string code (only the codes in ``codes`` are evaluated)."""
    hit = np.zeros(p._core.num_strings, dtype=bool)
    string = p._core.string
    for c in np.unique(codes).tolist():
        hit[c] = bool(pred(string(c)))
    return hit


def _name_match(p: "Profile", rx: Optional["re.Pattern[str]"]):
    """(function mask, mapping mask) for a regex matched against function names,
    function file names and mapping files; None when there is no regex."""
    if rx is None:
        return None
    fn, ff, mf = p.functions.name, p.functions.filename, p.mappings.filename
    hit = _string_mask(p, np.concatenate([fn, ff, mf]), lambda s: rx.search(s) is not None)
    return (hit[fn] | hit[ff]).astype(np.uint8), hit[mf].astype(np.uint8)


_RESERVED = ("(anonymous namespace)", "operator()")
_BRACKET_RX = re.compile("|".join(re.escape(n) for n in _RESERVED + ("(",)))


def simplify_function_name(name: str) -> str:
    """pprof's ``simplifyFunc``: strips a leading ``.`` and the argument list
    (from the first ``(`` that does not start ``(anonymous namespace)`` or
    ``operator()``)."""
    name = name[1:] if name.startswith(".") else name
    for m in _BRACKET_RX.finditer(name):
        if m.group(0) not in _RESERVED:
            return name[: m.start()]
    return name


def _simplified_mask(p: "Profile", pred: Callable[[str], bool]) -> np.ndarray:
    """Per function row: name non-empty and pred(simplified name)."""
    fn = p.functions.name
    hit = _string_mask(p, fn, lambda s: s != "" and pred(simplify_function_name(s)))
    return hit[fn].astype(np.uint8)


# --------------------------------------------------------------- name filters
def _used_locations(p: "Profile") -> np.ndarray:
    """Per location: is it in some sample's stack? (What counts as a match for
    the warnings: pprof's loaded profiles hold only such locations.)"""
    used = np.zeros(len(p.locations), dtype=np.uint8)
    used[p.stack_locations] = 1
    return used


def filter_by_name(p: "Profile", focus=None, ignore=None, hide=None, show=None, *, warn: bool = True,
                   universe=None) -> "Profile":
    rx = [_compile(n, e) for n, e in (("focus", focus), ("ignore", ignore), ("hide", hide), ("show", show))]
    core, *matched = _core.filter_by_name(p._core, *(_name_match(p, r) for r in rx), universe)
    if warn:
        for name, r, m in zip(("Focus", "Ignore", "Hide", "Show"), rx, matched):
            if r is not None and not m:
                _warn_no_match(name, r)
    return _filtered(p, core, *zip(("focus", "ignore", "hide", "show"), rx))


def show_from(p: "Profile", expr: Pattern, *, warn: bool = True, universe=None) -> "Profile":
    rx = _compile("show_from", expr)
    if rx is None:
        return p
    core, matched = _core.show_from(p._core, _name_match(p, rx), universe)
    if warn and not matched:
        _warn_no_match("ShowFrom", rx)
    return _filtered(p, core, ("show_from", rx))


def prune_from(p: "Profile", expr: Pattern) -> "Profile":
    rx = _compile("prune_from", expr)
    if rx is None:
        return p
    return _filtered(p, _core.prune_from(p._core, _simplified_mask(p, lambda s: rx.search(s) is not None)),
                     ("prune_from", rx))


def _full(option: str, expr: Optional[Pattern]) -> Optional["re.Pattern[str]"]:
    if expr is None or (isinstance(expr, str) and expr == ""):
        return None
    text = expr.pattern if isinstance(expr, re.Pattern) else expr
    try:
        return re.compile("(" + text + ")")
    except re.error as e:
        raise ValueError(f"failed to compile {option} regexp {text!r}: {e}") from None


def prune(p: "Profile", drop: Optional[Pattern], keep: Optional[Pattern] = None) -> "Profile":
    d, k = _full("drop", drop), _full("keep", keep)
    if d is None:
        return p
    mask = _simplified_mask(p, lambda s: d.fullmatch(s) is not None and (k is None or k.fullmatch(s) is None))
    return _wrap(_core.prune(p._core, mask))


def remove_uninteresting(p: "Profile") -> "Profile":
    if not p.drop_frames:
        return p
    return prune(p, p.drop_frames, p.keep_frames or None)


# ---------------------------------------------------------------- tag filters
def _key_rows(p: "Profile", key: str) -> np.ndarray:
    """Boolean per label row: is the row's key ``key``? (Compares strings, not
    codes: a string table may hold duplicates.)"""
    keys = p.labels.key
    return _string_mask(p, keys, lambda s: s == key)[keys]


def num_label_units(p: "Profile") -> Dict[str, str]:
    """pprof's ``NumLabelUnits``: the unit of each numeric label key (the first
    unit seen; ``"bytes"`` for ``alignment``/``request`` and the key itself
    when no label of the key has a unit)."""
    lab = p.labels
    numeric = lab.str < 0
    keys = np.unique(lab.key[numeric])
    with_unit = numeric & (lab.num_unit != 0)
    k, first = np.unique(lab.key[with_unit], return_index=True)
    units = dict(zip(k.tolist(), lab.num_unit[with_unit][first].tolist()))
    out = {}
    for key in keys.tolist():
        name = p._core.string(key)
        if key in units:
            out[name] = p._core.string(units[key])
        else:
            out[name] = "bytes" if name in ("alignment", "request") else name
    return out


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
            rx = self.regexes
            hit = _string_mask(p, lab.str[rows], lambda s: any(r.search(s) for r in rx))
            row_match = np.zeros(len(lab), dtype=np.uint8)
            row_match[rows] = hit[lab.str[rows]]
            return _core.samples_with_label(p._core, row_match).astype(bool)
        # Bare regexes: each must match "key:value" of some string label (AND).
        rows = np.flatnonzero(lab.str >= 0)
        pairs = lab.key[rows].astype(np.int64) << 32 | lab.str[rows].astype(np.int64)
        uniq, inv = np.unique(pairs, return_inverse=True)
        texts = [p._core.string(int(u >> 32)) + ":" + p._core.string(int(u & 0xFFFFFFFF)) for u in uniq.tolist()]
        out = np.ones(len(p), dtype=bool)
        for r in self.regexes:
            hit = np.array([r.search(t) is not None for t in texts], dtype=bool)
            row_match = np.zeros(len(lab), dtype=np.uint8)
            if len(rows):
                row_match[rows] = hit[inv.reshape(-1)]
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
        for k in np.unique(lab.key[rows]).tolist():
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
    regexes = []
    for part in value.split(","):
        try:
            regexes.append(re.compile(part))
        except re.error as e:
            raise ValueError(f"parsing {option} regexp {part!r}: {e}") from None
    return TagFilter(text, key, regexes, None)


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
            _warn_no_match("TagFocus", f.text)
        if i is not None and not ignored.any():
            _warn_no_match("TagIgnore", i.text)
    return _filtered(p, _core.keep_samples(p._core, (focused & ~ignored).astype(np.uint8)),
                     ("tagfocus", f), ("tagignore", i))


def filter_tags_by_name(p: "Profile", tagshow=None, taghide=None, *, warn: bool = True) -> "Profile":
    show, hide = _compile("tagshow", tagshow), _compile("taghide", taghide)
    if show is None and hide is None:
        return p
    lab = p.labels
    keys = np.unique(lab.key)
    shown = _string_mask(p, keys, lambda s: show is None or show.search(s) is not None)
    hidden = _string_mask(p, keys, lambda s: hide is not None and hide.search(s) is not None)
    if warn:
        if show is not None and not shown[keys].any():
            _warn_no_match("TagShow", show)
        if hide is not None and not hidden[keys].any():
            _warn_no_match("TagHide", hide)
    keep = shown[lab.key] & ~hidden[lab.key]
    return _filtered(p, _core.keep_labels(p._core, keep.astype(np.uint8)), ("tagshow", show), ("taghide", hide))


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
    table = {}
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
        codes = [code(scaled_label(int(nums[q // len(units_)]), p._core.string(int(units_[q % len(units_)])), unit))
                 for q in uniq.tolist()]
        text[numeric] = np.asarray(codes, dtype=np.int32)[inv.reshape(-1)]
    rk = [code(k) for k in root_keys]
    lk = [code(k) for k in leaf_keys]
    core, rm, lm = _core.add_label_frames(p._core, rk, lk, text, list(extra))
    if warn:
        if root_keys and not rm:
            _warn_no_match("TagRoot", ",".join(root_keys))
        if leaf_keys and not lm:
            _warn_no_match("TagLeaf", ",".join(leaf_keys))
    return _wrap(core)


# ---------------------------------------------------------------- entry point
def apply_filters(p: "Profile", focus=None, ignore=None, hide=None, show=None, show_from_=None, tagfocus=None,
                  tagignore=None, tagshow=None, taghide=None, prune_from_=None, tagroot=None, tagleaf=None,
                  warn: bool = True) -> "Profile":
    """All of pprof's filters in pprof's order (internal/driver: tagroot/tagleaf,
    then applyFocus)."""
    # Compile everything first so a bad expression fails before any work.
    for name, e in (("focus", focus), ("ignore", ignore), ("hide", hide), ("show", show),
                    ("show_from", show_from_), ("tagshow", tagshow), ("taghide", taghide), ("prune_from", prune_from_)):
        _compile(name, e)
    tf = parse_tag_filter("tagfocus", tagfocus) if isinstance(tagfocus, str) else tagfocus
    ti = parse_tag_filter("tagignore", tagignore) if isinstance(tagignore, str) else tagignore
    units = num_label_units(p) if (tf is not None and tf.range) or (ti is not None and ti.range) else None
    p = add_label_frames(p, tagroot, tagleaf, warn=warn)
    # pprof judges "matched" against all locations of the profile it started
    # from; later steps keep the location table, so one mask serves them all.
    universe = _used_locations(p)
    p = filter_by_name(p, focus, ignore, hide, show, warn=warn, universe=universe)
    p = show_from(p, show_from_, warn=warn, universe=universe)
    p = filter_by_tag(p, tf, ti, units=units, warn=warn)
    p = filter_tags_by_name(p, tagshow, taghide, warn=warn)
    p = prune_from(p, prune_from_)
    return p


# ------------------------------------------------------- labels and sample types
def remove_label(p: "Profile", key: str) -> "Profile":
    return _wrap(_core.keep_labels(p._core, (~_key_rows(p, key)).astype(np.uint8)))


def set_label(p: "Profile", key: str, values: Union[str, Sequence[str]]) -> "Profile":
    if isinstance(values, str):
        values = [values]
    return _wrap(_core.set_label(p._core, key, list(values)))


def rename_label(p: "Profile", old: str, new: str) -> "Profile":
    return _wrap(_core.rename_label(p._core, old, new))


def select_sample_types(p: "Profile", types: Sequence[Union[int, str]]) -> "Profile":
    if isinstance(types, (str, int)):
        types = [types]
    return _wrap(_core.select_sample_types(p._core, [p.sample_type_index(t) for t in types]))


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
        out[name] = _wrap(_core.keep_samples(p._core, (inv == g).astype(np.uint8)))
    return out
