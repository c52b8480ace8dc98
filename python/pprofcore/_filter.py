"""Name filters and pruning (pprof's focus/ignore/hide/show, show_from,
prune_from, drop_frames/keep_frames), and :func:`apply_filters`, which runs
these and the label filters of :mod:`._labels` in pprof's order.

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

import re
import weakref
from typing import TYPE_CHECKING, Callable, Optional, Tuple

import numpy as np

from . import _core
from ._labels import add_label_frames, filter_by_tag, filter_tags_by_name, num_label_units, parse_tag_filter
from ._match import Pattern, compile_filter, filtered, string_mask, warn_no_match

if TYPE_CHECKING:  # pragma: no cover
    from ._profile import Profile

__all__ = ["apply_filters", "simplify_function_name"]


# ----------------------------------------------------------------- name masks
def _name_match(p: "Profile", rx: Optional["re.Pattern[str]"]):
    """(function mask, mapping mask) for a regex matched against function names,
    function file names and mapping files; None when there is no regex."""
    if rx is None:
        return None
    fn, ff, mf = p.functions.name, p.functions.filename, p.mappings.filename
    hit = string_mask(p, np.concatenate([fn, ff, mf]), lambda s: rx.search(s) is not None)
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
    hit = string_mask(p, fn, lambda s: s != "" and pred(simplify_function_name(s)))
    return hit[fn].astype(np.uint8)


# --------------------------------------------------------------- name filters
def used_locations(p: "Profile") -> np.ndarray:
    """Per location: is it in some sample's stack? (What counts as a match for
    the warnings: pprof's loaded profiles hold only such locations.) Kept on
    the profile: the explorer filters one profile many times."""
    used = p._derived.used_locations
    if used is None:
        used = p._derived.used_locations = _core.used_locations(p._core)
    return used


def has_empty_stacks(p: "Profile") -> bool:
    """Whether some sample has no location (the name filter drops those)."""
    offsets = p.stack_offsets
    return bool((offsets[1:] == offsets[:-1]).any())


def same_samples(p: "Profile") -> "Profile":
    """What the name filter gives when it would keep every sample as it is: a
    new profile over the same C++ profile (no copy), sharing what ``p``
    computed (node tables, totals), since that depends on the samples alone."""
    out = p._derive(p._core)
    out._derived = p._derived
    return out


def filter_by_name(
    p: "Profile",
    focus=None,
    ignore=None,
    hide=None,
    show=None,
    *,
    warn: bool = True,
    universe=None,
    defer_copy: bool = False,
) -> "Profile":
    """pprof's FilterSamplesByName (see :func:`apply_filters`). ``defer_copy``:
    the kept samples stay in ``p`` until something reads them
    (:mod:`._deferred`); a hide or show that removed lines makes only the
    output's tables, and its stacks are ``p``'s without the hidden locations."""
    rx = [compile_filter(n, e) for n, e in (("focus", focus), ("ignore", ignore), ("hide", hide), ("show", show))]
    if all(r is None for r in rx) and not has_empty_stacks(p):
        return same_samples(p)
    focus_m, ignore_m, hide_m, show_m = (_name_match(p, r) for r in rx)
    core, *matched, kept, hidden = _core.filter_by_name(
        p._core, focus_m, ignore_m, hide_m, show_m, universe, defer_unchanged=defer_copy, defer_changed=defer_copy
    )
    if warn:
        for name, r, m in zip(("Focus", "Ignore", "Hide", "Show"), rx, matched):
            if r is not None and not m:
                warn_no_match(name, r)
    deferred = (kept, hidden) if defer_copy else None
    out = filtered(p, core, *zip(("focus", "ignore", "hide", "show"), rx), deferred=deferred)
    # Reports derive their node tables from p's; a weak reference, so the
    # filtered profile does not keep its input alive.
    out._derived.filter_origin = (weakref.ref(p), kept, hidden)
    return out


def filter_masks_from(p: "Profile", parent: "Profile") -> Optional[Tuple[np.ndarray, Optional[np.ndarray]]]:
    """``(kept, hidden)``, the record of the :func:`filter_by_name` that made
    ``p`` from ``parent``: which parent samples it kept (one byte each) and
    which locations left every stack (one byte each; None when none did).
    None when ``p`` was not made from ``parent`` that way."""
    origin = p._derived.filter_origin
    if origin is None:
        return None
    parent_ref, kept, hidden = origin
    return (kept, hidden) if parent_ref() is parent else None


def samples_kept_from(p: "Profile", parent: "Profile") -> Optional[np.ndarray]:
    """Which of ``parent``'s samples ``p`` holds unchanged, in order (one byte
    per parent sample), when :func:`filter_by_name` made ``p`` from ``parent``
    and hid no location; None otherwise. Lets a view take the dropped samples
    away from ``parent``'s results without matching the samples again."""
    masks = filter_masks_from(p, parent)
    return masks[0] if masks is not None and masks[1] is None else None


def hidden_locations_from(p: "Profile", parent: "Profile") -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """``(kept, hidden)``, the masks of the :func:`filter_by_name` that made
    ``p`` from ``parent`` when it took some locations out of every stack
    (hide, show); None otherwise."""
    masks = filter_masks_from(p, parent)
    if masks is None or masks[1] is None:
        return None
    return masks[0], masks[1]


def apply_show_from(p: "Profile", expr: Pattern, *, warn: bool = True, universe=None) -> "Profile":
    rx = compile_filter("show_from", expr)
    if rx is None:
        return p
    core, matched = _core.show_from(p._core, _name_match(p, rx), universe)
    if warn and not matched:
        warn_no_match("ShowFrom", rx)
    return filtered(p, core, ("show_from", rx))


def apply_prune_from(p: "Profile", expr: Pattern) -> "Profile":
    rx = compile_filter("prune_from", expr)
    if rx is None:
        return p
    return filtered(
        p, _core.prune_from(p._core, _simplified_mask(p, lambda s: rx.search(s) is not None)), ("prune_from", rx)
    )


def prune(p: "Profile", drop: Optional[Pattern], keep: Optional[Pattern] = None) -> "Profile":
    d, k = compile_filter("drop", drop, whole=True), compile_filter("keep", keep, whole=True)
    if d is None:
        return p
    mask = _simplified_mask(p, lambda s: d.fullmatch(s) is not None and (k is None or k.fullmatch(s) is None))
    return p._derive(_core.prune(p._core, mask))


def remove_uninteresting(p: "Profile") -> "Profile":
    if not p.drop_frames:
        return p
    return prune(p, p.drop_frames, p.keep_frames or None)


# ---------------------------------------------------------------- entry point
def apply_filters(
    p: "Profile",
    focus=None,
    ignore=None,
    hide=None,
    show=None,
    show_from=None,
    tagfocus=None,
    tagignore=None,
    tagshow=None,
    taghide=None,
    prune_from=None,
    tagroot=None,
    tagleaf=None,
    warn: bool = True,
    defer_copy: bool = False,
) -> "Profile":
    """Applies pprof's filters in pprof's order, like ``go tool pprof`` flags
    (internal/driver: tagroot/tagleaf, then applyFocus); ``p.filter(...)`` is
    ``apply_filters(p, ...)``.

    Order: ``tagroot``/``tagleaf``, then focus/ignore/hide/show, show_from,
    tagfocus/tagignore, tagshow/taghide, prune_from. As in pprof, samples
    with an empty stack are always dropped (the name filter runs even when
    no name expression is given).

    Parameters
    ----------
    focus, ignore, hide, show, show_from, prune_from : str or re.Pattern, optional
        Unanchored regexes on function names, file names and mapping files
        (prune_from: on simplified function names).
    tagfocus, tagignore : str, optional
        pprof tag filters: ``key=rx1,rx2``, ``rx1,rx2`` or numeric ranges
        such as ``1kb:64kb``, ``:100ms``, ``key=4096:``.
    tagshow, taghide : str or re.Pattern, optional
        Regexes on label keys to keep / remove.
    tagroot, tagleaf : str or list of str, optional
        Label keys turned into pseudo-frames at the root / leaf.
    warn : bool
        Emit :class:`pprofcore.FilterWarning` for expressions that matched nothing.
    defer_copy : bool
        Leave the samples focus/ignore/hide/show keep in ``p`` and copy them
        only when something reads them (hide and show: their stacks without
        the hidden locations): the result holds ``p``'s C++ profile while it
        lives. The explorer's reports read them in place.

    Returns
    -------
    Profile

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> q = p.filter(focus="sha256", hide="runtime")
    >>> len(p), len(q)
    (496, 115)
    """
    # Compile everything first so a bad expression fails before any work.
    for name, e in (
        ("focus", focus),
        ("ignore", ignore),
        ("hide", hide),
        ("show", show),
        ("show_from", show_from),
        ("tagshow", tagshow),
        ("taghide", taghide),
        ("prune_from", prune_from),
    ):
        compile_filter(name, e)
    tf = parse_tag_filter("tagfocus", tagfocus) if isinstance(tagfocus, str) else tagfocus
    ti = parse_tag_filter("tagignore", tagignore) if isinstance(tagignore, str) else tagignore
    units = num_label_units(p) if (tf is not None and tf.range) or (ti is not None and ti.range) else None
    p = add_label_frames(p, tagroot, tagleaf, warn=warn)
    # pprof judges "matched" against all locations of the profile it started
    # from; later steps keep the location table, so one mask serves them all.
    names = (focus, ignore, hide, show, show_from)
    universe = used_locations(p) if any(e is not None for e in names) else None
    p = filter_by_name(p, focus, ignore, hide, show, warn=warn, universe=universe, defer_copy=defer_copy)
    p = apply_show_from(p, show_from, warn=warn, universe=universe)
    p = filter_by_tag(p, tf, ti, units=units, warn=warn)
    p = filter_tags_by_name(p, tagshow, taghide, warn=warn)
    p = apply_prune_from(p, prune_from)
    return p
