"""The :class:`Profile` class: an immutable, columnar pprof profile."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import (
    _args,
    _atomic,
    _core,
    _filter,
    _frames,
    _labels,
    _timestamps,
    _transform,
    reports,
)
from . import web as _web
from ._columns import StringTable, Table
from ._deferred import DeferredSamples
from ._demangle import demangle as demangle_profile
from ._lazy import lazy_function, lazy_module
from .display import callgraph as _callgraph
from .display import flamegraph as _flamegraph
from .display import notebook as _notebook
from .display import timeline as _timeline
from .errors import unknown_sample_type

if TYPE_CHECKING:  # pragma: no cover
    from . import _comments, _go_repairs, _to_chrome_trace, _to_firefox, _to_otlp
    from . import symbolize as _symbolize
    from ._core import Profile as CoreProfile
    from ._report_base import ReportBase
    from .display import calltree_callgrind
else:
    # Used by a few methods, imported on first use (a first page never does).
    _comments = lazy_module("pprofcore._comments")
    _go_repairs = lazy_module("pprofcore._go_repairs")
    _to_chrome_trace = lazy_module("pprofcore._to_chrome_trace")
    _to_firefox = lazy_module("pprofcore._to_firefox")
    _to_otlp = lazy_module("pprofcore._to_otlp")
    _symbolize = lazy_module("pprofcore.symbolize")
    calltree_callgrind = lazy_module("pprofcore.display.calltree_callgrind")

_PICKLE_VERSION = 1


class Profile:
    """An immutable pprof profile held as columnar tables in C++.

    Create one with :func:`pprofcore.load`, :func:`pprofcore.loads` or
    :func:`pprofcore.load_many`. Every array attribute is a read-only, zero-copy
    NumPy view that keeps the profile alive; string columns are ``int32`` codes
    into :attr:`strings`; cross references are dense row indices (the original
    pprof ids are kept in the ``id`` columns).

    Tables (see ``docs/data-model.md``):

    - samples: :attr:`values` (``n_samples x n_types``), :attr:`stack_offsets` +
      :attr:`stack_locations` (CSR, leaf first), :attr:`label_offsets` into
      :attr:`labels` (``key``, ``str`` (-1 = numeric), ``num``, ``num_unit``);
    - :attr:`locations` (``id``, ``mapping`` (-1 = none), ``address``,
      ``is_folded``, ``line_offsets`` into :attr:`lines`);
    - :attr:`lines` (``function``, ``line``, ``column``), leaf-most inline frame first;
    - :attr:`functions` (``id``, ``name``, ``system_name``, ``filename``, ``start_line``);
    - :attr:`mappings` (``id``, ``memory_start``, ``memory_limit``, ``file_offset``,
      ``filename``, ``build_id``, ``has_functions``, ``has_filenames``,
      ``has_line_numbers``, ``has_inline_frames``).

    ``len(profile)`` is the number of samples. Profiles compare equal when every
    column and the string table are identical. A profile pickles as its pprof
    bytes, so Dask, multiprocessing and Ray can move it.

    Examples
    --------
    >>> p = pprofcore.load(pprofcore.example_path())
    >>> len(p), p.sample_types
    (496, [('samples', 'count'), ('cpu', 'nanoseconds')])
    >>> p.values.shape, p.values.flags.writeable
    ((496, 2), False)
    >>> p.total("cpu")
    5030000000
    >>> pprofcore.loads(p.to_bytes()) == p
    True
    """

    __slots__ = (
        "_own_core",
        "_deferred",
        "_cols_cache",
        "_strings",
        "_derived",
        "_report_base",
        "_types_cache",
        "__weakref__",
    )
    # Set by _wrap (the only constructor); declared for type checkers.
    _own_core: "Optional[CoreProfile]"
    _deferred: Optional[DeferredSamples]
    _cols_cache: Optional[dict]
    _strings: Optional[StringTable]
    _derived: _frames.Derived
    _report_base: Optional["ReportBase"]
    _types_cache: Optional[tuple]

    def __init__(self, *args, **kwargs):
        raise TypeError("use pprofcore.load(), loads() or load_many() to create a Profile")

    @classmethod
    def _wrap(cls, core: "Optional[CoreProfile]") -> "Profile":
        self = object.__new__(cls)
        self._own_core = core
        self._deferred = None  # set instead of the core by _derive_deferred
        self._cols_cache = None  # views are built on first use: batch loads wrap thousands of profiles
        self._strings = None
        self._derived = _frames.Derived()  # results computed once: column tables, node tables, stack ids
        self._report_base = None  # set by filters: totals before filtering (see _report_base.py)
        self._types_cache = None  # (sample_types, {type name: first index}), built on first use
        return self

    def _derive(self, core: "CoreProfile") -> "Profile":
        """A profile of the same class over ``core``: how rooms return results
        without importing this module (boost-histogram's ``_new_hist``)."""
        return type(self)._wrap(core)

    def _derive_deferred(
        self, kept: np.ndarray, hidden: Optional[np.ndarray] = None, *, tables: "Optional[CoreProfile]" = None
    ) -> "Profile":
        """A profile of this one's samples marked by ``kept`` (one byte per
        sample), in order, their stacks without the locations ``hidden``
        marks (one byte per location, None: none), over the header and tables
        of ``tables`` (a C++ profile without samples; None: this one's): a
        name filter's output, whose samples are copied only when something
        asks for its C++ profile (:mod:`._deferred`)."""
        out = type(self)._wrap(None)
        out._deferred = DeferredSamples(self._core, kept, hidden, tables)
        return out

    @property
    def _core(self) -> "CoreProfile":
        """The C++ profile (a deferred filter output copies its samples here)."""
        core = self._own_core
        if core is None:
            core = self._own_core = self._deferred.build()  # type: ignore[union-attr]
        return core

    @property
    def _pending(self) -> Optional[DeferredSamples]:
        """The deferred samples of a filter output not copied yet; None once
        copied, or for any other profile."""
        return self._deferred if self._own_core is None else None

    @property
    def _tables_core(self) -> "CoreProfile":
        """A C++ profile with this one's header and tables: its own, or, while
        a deferred filter output has not copied its samples, its input's."""
        pending = self._pending
        return pending.tables if pending is not None else self._core

    def _sample_source(self) -> "Tuple[CoreProfile, Optional[np.ndarray]]":
        """(C++ profile, None) whose samples are this profile's; or, while a
        deferred filter output that hid no location has not copied its
        samples, (its input's C++ profile, the kept mask, one byte per input
        sample). A deferred output that hid locations copies them here (see
        :meth:`_stack_source`)."""
        source, kept, hidden = self._stack_source()
        if hidden is not None:
            return self._core, None
        return source, kept

    def _uncopied_in(self, parent: "Profile") -> bool:
        """Whether this is a deferred filter output whose samples are still
        ``parent``'s, not copied: what is derived from ``parent`` reads them
        there (with :meth:`_tables_core` for this one's tables)."""
        pending = self._pending
        return pending is not None and parent._pending is None and pending.source is parent._core

    def _deferred_tables(self) -> "Optional[CoreProfile]":
        """The C++ profile holding a deferred filter output's tables (its
        input's, or its own without samples), whether its samples were
        copied since or not; None for any other profile. Trees derived for
        the output before the copy were built for it."""
        return self._deferred.tables if self._deferred is not None else None

    def _stack_source(self) -> "Tuple[CoreProfile, Optional[np.ndarray], Optional[np.ndarray]]":
        """:meth:`_sample_source` and the locations a deferred output's
        stacks leave out of its input's (one byte per location; None when
        none or not deferred): (C++ profile, None, None) whose samples are
        this profile's, or (input's C++ profile, kept, hidden)."""
        pending = self._pending
        if pending is not None:
            return pending.source, pending.kept, pending.hidden
        return self._core, None, None

    @property
    def _cols(self) -> dict:
        if self._cols_cache is None:
            self._cols_cache = self._core.columns()
        return self._cols_cache

    @property
    def _table_cols(self) -> dict:
        """The header and table columns of :attr:`_cols` (and, once copied,
        the sample columns), without copying a deferred output's samples."""
        pending = self._pending
        if self._cols_cache is None and pending is not None:
            return pending.table_columns()
        return self._cols

    # ------------------------------------------------------------------ header
    def _s(self, code: int) -> str:
        return self._tables_core.string(code)

    @property
    def sample_types(self) -> List[Tuple[str, str]]:
        """``(type, unit)`` of each value column, e.g. ``[("cpu", "nanoseconds")]``."""
        return list(self._types()[0])

    def _types(self) -> tuple:
        # Built once: the profile is immutable, and callers look types up in loops.
        if self._types_cache is None:
            types = tuple(
                (self._s(t), self._s(u))
                for t, u in zip(self._table_cols["sample_type.type"], self._table_cols["sample_type.unit"])
            )
            index: dict = {}
            for i, (t, _) in enumerate(types):
                index.setdefault(t, i)
            self._types_cache = (types, index)
        return self._types_cache

    @property
    def period_type(self) -> Optional[Tuple[str, str]]:
        """``(type, unit)`` of :attr:`period`, or ``None`` when the profile has none."""
        if not self._tables_core.has_period_type:
            return None
        t, u = self._tables_core.period_type_codes
        return (self._s(t), self._s(u))

    @property
    def period(self) -> int:
        """Sampling period in units of :attr:`period_type`."""
        return self._tables_core.period

    @property
    def time_nanos(self) -> int:
        """Collection time, nanoseconds since the Unix epoch (0 = unknown)."""
        return self._tables_core.time_nanos

    @property
    def duration_nanos(self) -> int:
        """Duration of the collection in nanoseconds."""
        return self._tables_core.duration_nanos

    @property
    def comments(self) -> List[str]:
        """Free-form comments attached to the profile."""
        return [self._s(int(c)) for c in self._table_cols["comments"]]

    @property
    def drop_frames(self) -> str:
        """Regex of frames the producer wants dropped (with their callees); ``""`` if none."""
        return self._s(self._tables_core.drop_frames_code)

    @property
    def keep_frames(self) -> str:
        """Regex of frames exempt from :attr:`drop_frames`; ``""`` if none."""
        return self._s(self._tables_core.keep_frames_code)

    @property
    def default_sample_type(self) -> str:
        """Name of the sample type to show by default; ``""`` if unset."""
        return self._s(self._tables_core.default_sample_type_code)

    @property
    def doc_url(self) -> str:
        """Documentation link for the profile's sample types; ``""`` if unset."""
        return self._s(self._tables_core.doc_url_code)

    @property
    def strings(self) -> StringTable:
        """The string table (a sequence of ``str``; code 0 is ``""``)."""
        if self._strings is None:
            self._strings = StringTable(
                self._tables_core, self._table_cols["strings.data"], self._table_cols["strings.offsets"]
            )
        return self._strings

    # ----------------------------------------------------------------- columns
    @property
    def values(self) -> np.ndarray:
        """Sample values, ``int64`` of shape ``(n_samples, n_types)``, C-contiguous."""
        return self._cols["values"]

    @property
    def stack_offsets(self) -> np.ndarray:
        """``int64``, ``n_samples + 1``: sample ``i``'s stack is
        ``stack_locations[stack_offsets[i]:stack_offsets[i+1]]``."""
        return self._cols["stack_offsets"]

    @property
    def stack_locations(self) -> np.ndarray:
        """``int32`` location rows of all stacks, leaf first."""
        return self._cols["stack_locations"]

    @property
    def label_offsets(self) -> np.ndarray:
        """``int64``, ``n_samples + 1``: sample ``i``'s labels are rows
        ``label_offsets[i]:label_offsets[i+1]`` of :attr:`labels`."""
        return self._cols["label_offsets"]

    def _table(self, name: str) -> Table:
        t = self._derived.tables.get(name)
        if t is None:
            prefix = name + "."
            cols = self._cols if name == "labels" else self._table_cols  # labels: one row per sample label
            t = Table(name, {k[len(prefix) :]: v for k, v in cols.items() if k.startswith(prefix)})
            self._derived.tables[name] = t
        return t

    @property
    def labels(self) -> Table:
        """Sample labels: ``key``, ``str`` (-1 for numeric labels), ``num``, ``num_unit``."""
        return self._table("labels")

    @property
    def locations(self) -> Table:
        """Locations: ``id``, ``mapping``, ``address``, ``is_folded``, ``line_offsets``."""
        return self._table("locations")

    @property
    def lines(self) -> Table:
        """Lines of all locations: ``function``, ``line``, ``column``."""
        return self._table("lines")

    @property
    def functions(self) -> Table:
        """Functions: ``id``, ``name``, ``system_name``, ``filename``, ``start_line``."""
        return self._table("functions")

    @property
    def mappings(self) -> Table:
        """Mappings (binaries and libraries)."""
        return self._table("mappings")

    def stack(self, i: int) -> np.ndarray:
        """Location rows of sample ``i``'s stack, leaf first (``i`` may be negative;
        ``TypeError`` for a non-int, ``ValueError`` out of range).

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> rows = p.stack(0)  # location rows, leaf first
        >>> p.strings[p.functions.name[p.lines.function[p.locations.line_offsets[rows[0]]]]]
        'runtime.mapassign_faststr'
        """
        i = _args.check_int("i", i)
        n = len(self)
        if not -n <= i < n:
            raise ValueError(f"sample index {i} out of range for {n} samples")
        i %= n
        o = self.stack_offsets
        return self.stack_locations[o[i] : o[i + 1]]

    def sample_type_index(self, sample_type: Union[int, str, None] = None) -> int:
        """Index of a sample type given by index or ``type`` name.

        ``None`` follows pprof: :attr:`default_sample_type` when set, else the last type.
        Raises ``TypeError`` for anything but an int or a str, ``ValueError`` for an
        index out of range and :class:`ProfileError` (a ``ValueError``) for an
        unknown name (the message lists the types).
        """
        types, index = self._types()
        if sample_type is None:
            default = self._default_type_index()
            if default is not None:
                return default
            sample_type = len(types) - 1
        if isinstance(sample_type, (bool, np.bool_)) or not isinstance(sample_type, (int, np.integer, str)):
            raise TypeError(f"sample_type must be an index or a type name, not {type(sample_type).__name__}")
        if isinstance(sample_type, (int, np.integer)):
            i = int(sample_type)
            if not -len(types) <= i < len(types):
                raise ValueError(f"sample_type index {i} out of range for {len(types)} types")
            return i % len(types)
        if sample_type in index:
            return index[sample_type]
        raise unknown_sample_type(sample_type, (t for t, _ in types))

    def _default_type_index(self) -> Optional[int]:
        """The first type named by ``default_sample_type``, compared as bytes
        as pprof compares it (two names of invalid UTF-8 may show alike as
        ``str``); None when it is unset, ``ValueError`` when it names no type."""
        code = int(self._tables_core.default_sample_type_code)
        data, offsets = self.strings.data, self.strings.offsets
        raw = lambda c: data[offsets[c] : offsets[c + 1]].tobytes()  # noqa: E731
        if code <= 0 or offsets[code + 1] == offsets[code]:
            return None
        want = raw(code)
        for i, t in enumerate(self._table_cols["sample_type.type"].tolist()):
            if raw(t) == want:
                return i
        types = self._types()[0]
        raise ValueError(f"no sample_type {self.default_sample_type!r}; have {', '.join(t for t, _ in types)}")

    def total(self, sample_type: Union[int, str, None] = None) -> int:
        """Sum of one sample type's values (default: pprof's default type).

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> p.total("cpu"), p.total("samples")
        (5030000000, 503)
        """
        if len(self) == 0:
            return 0
        ti = self.sample_type_index(sample_type)
        pending = self._pending
        if pending is not None:  # summed in the input, not copied
            return pending.total(ti)
        return int(self.values[:, ti].sum(dtype=np.int64))

    @property
    def memory_bytes(self) -> int:
        """Approximate bytes held by the profile's C++ columns."""
        return self._core.memory_bytes()

    def __len__(self) -> int:
        pending = self._pending
        return pending.num_samples if pending is not None else self._core.num_samples

    # ----------------------------------------------------------------- filters
    # Logic lives in _filter.py and _labels.py; see docs/filters.md. Every method returns a new
    # Profile and warns (pprofcore.FilterWarning) when its expression matched nothing.
    filter = _filter.apply_filters  # p.filter(...) is apply_filters(p, ...)

    def focus(self, regex) -> "Profile":
        """Keeps samples with a frame (function name, file or mapping) matching ``regex``.

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> p.focus("sha256").total("cpu")
        1150000000
        """
        return _filter.filter_by_name(self, focus=regex)

    def ignore(self, regex) -> "Profile":
        """Drops samples with a frame (function name, file or mapping) matching ``regex``."""
        return _filter.filter_by_name(self, ignore=regex)

    def hide(self, regex) -> "Profile":
        """Removes frames matching ``regex`` from stacks (samples left empty are dropped)."""
        return _filter.filter_by_name(self, hide=regex)

    def show(self, regex) -> "Profile":
        """Keeps only frames matching ``regex`` in stacks (samples left empty are dropped)."""
        return _filter.filter_by_name(self, show=regex)

    def show_from(self, regex) -> "Profile":
        """Drops frames above (callers of) the root-most frame matching ``regex``;
        samples without a match are dropped."""
        return _filter.apply_show_from(self, regex)

    def symbolize(
        self,
        *,
        binaries=None,
        search_path=None,
        tool: str = "auto",
        demangle: str = "simplified",
        force: bool = False,
        cache=None,
        debuginfod: bool = True,
    ) -> Tuple["Profile", "object"]:
        """Resolves addresses to functions, files and lines with llvm-symbolizer or
        addr2line; returns ``(profile, report)``. See :func:`pprofcore.symbolize.symbolize`
        (``cache``: a :class:`pprofcore.symbolize.SymbolCache` shared by a fleet)."""
        return _symbolize.symbolize(
            self,
            binaries=binaries,
            search_path=search_path,
            tool=tool,
            demangle=demangle,
            force=force,
            cache=cache,
            debuginfod=debuginfod,
        )

    def demangle(self, mode: str = "simplified", *, force: bool = False, tool_required: bool = True) -> "Profile":
        """Function names demangled as ``go tool pprof`` shows them (its symbolizer
        demangles every profile it reads): C++ and Rust system names in ``mode``
        ("simplified": no parameters or template arguments; "templates";
        "full"; "none"), names that look like demangled C++ shortened the same
        way. System names are kept. See :func:`pprofcore.symbolize.demangle`
        (``force``; ``tool_required=False`` keeps mangled names when binutils'
        ``c++filt`` is missing).

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> p.demangle() == p  # Go names are left as they are
        True
        """
        return demangle_profile(self, mode, force=force, tool_required=tool_required)

    def prune_from(self, regex) -> "Profile":
        """Drops frames beneath (callees of) the leaf-most frame whose simplified
        function name matches ``regex``."""
        return _filter.apply_prune_from(self, regex)

    def prune(self, drop, keep=None) -> "Profile":
        """pprof's drop_frames/keep_frames: removes the root-most frame whose
        simplified name fully matches ``drop`` (and not ``keep``) and everything
        beneath it; frames before the first non-matching frame from the root stay."""
        return _filter.prune(self, drop, keep)

    def remove_uninteresting(self) -> "Profile":
        """Applies the profile's own :attr:`drop_frames`/:attr:`keep_frames` (as pprof does on load)."""
        return _filter.remove_uninteresting(self)

    def tagfocus(self, expr: str) -> "Profile":
        """Keeps samples whose labels satisfy a pprof tag filter (see :meth:`filter`)."""
        return _labels.filter_by_tag(self, tagfocus=expr)

    def tagignore(self, expr: str) -> "Profile":
        """Drops samples whose labels satisfy a pprof tag filter (see :meth:`filter`)."""
        return _labels.filter_by_tag(self, tagignore=expr)

    def tagshow(self, regex) -> "Profile":
        """Keeps only labels whose key matches ``regex``."""
        return _labels.filter_tags_by_name(self, tagshow=regex)

    def taghide(self, regex) -> "Profile":
        """Removes labels whose key matches ``regex``."""
        return _labels.filter_tags_by_name(self, taghide=regex)

    def tagroot(self, keys, unit: str = "minimum") -> "Profile":
        """Adds a pseudo-frame ``value`` (file = key) per label key at the root of
        every stack; the first key becomes the root."""
        return _labels.add_label_frames(self, root=keys, unit=unit)

    def tagleaf(self, keys, unit: str = "minimum") -> "Profile":
        """Adds a pseudo-frame per label key at the leaf of every stack; the last key becomes the leaf."""
        return _labels.add_label_frames(self, leaf=keys, unit=unit)

    def set_label(self, key: str, values) -> "Profile":
        """Sets string label ``key`` to ``values`` (a str or list of str) on every sample."""
        return _labels.set_label(self, key, values)

    def remove_label(self, key: str) -> "Profile":
        """Removes every label (string or numeric) with key ``key``."""
        return _labels.remove_label(self, key)

    def rename_label(self, old: str, new: str) -> "Profile":
        """Renames label key ``old`` to ``new`` on every sample."""
        return _labels.rename_label(self, old, new)

    def select_sample_types(self, types) -> "Profile":
        """Keeps the given value columns (names or indices, in that order)."""
        return _transform.select_sample_types(self, types)

    def split_by_label(self, key: str) -> "dict":
        """``{value: Profile}`` of the samples per value of label ``key`` (first
        value of each sample; samples without the label under ``""``)."""
        return _labels.split_by_label(self, key)

    def group_by_label(self, keys) -> "dict":
        """``{(value, ...): Profile}`` of the samples per combination of values of ``keys``."""
        return _labels.group_by_label(self, keys)

    def add_comment(self, comments) -> "Profile":
        """A copy with ``comments`` (a string or several) appended to :attr:`comments`,
        like ``pprof -add_comment``."""
        return _comments.add_comment(self, comments)

    # --------------------------------------------- compact/diff/scale (see _transform.py)
    def compact(self) -> "Profile":
        """pprof's ``Compact``: drop unreferenced rows and all-zero samples,
        deduplicate by content and renumber ids (equal to ``merge([self])``)."""
        return _transform.compact(self)

    def scale(self, ratio: float) -> "Profile":
        """pprof's ``Scale``: every value becomes ``round(v * ratio)`` (half away
        from zero); samples whose values all become zero are dropped.

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> p.scale(2).total("cpu") == 2 * p.total("cpu")
        True
        """
        return _transform.scale(self, ratio)

    def scale_n(self, ratios) -> "Profile":
        """pprof's ``ScaleN``: one ratio per sample type; a sample is kept only if
        one of its scaled (ratio != 1) values is non-zero."""
        return _transform.scale_n(self, ratios)

    def normalize(self, base: "Profile") -> "Profile":
        """pprof's ``Normalize``: scale each sample type so its total equals ``base``'s."""
        return _transform.normalize(self, base)

    def diff(self, base: "Profile", mode: str = "diff_base", normalize: bool = False) -> "Profile":
        """Compare against ``base`` the way ``go tool pprof`` does.

        ``mode="diff_base"`` (``-diff_base``): base samples get the label
        ``pprof::base=true`` and negated values, so they never cancel the new
        profile's samples (reports take totals from the base).
        ``mode="base"`` (``-base``): the base is subtracted; equal samples cancel
        and all-zero results are dropped. ``normalize=True`` first scales this
        profile to the base's totals (``-normalize``).

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> half = p.scale(0.5)
        >>> p.diff(half).total("cpu") == p.total("cpu") - half.total("cpu")
        True
        """
        return _transform.diff(self, base, mode, normalize)

    def repair_truncated_stacks(self, depth: Optional[int] = None, window: int = 8) -> Tuple["Profile", "object"]:
        """Go stacks cut at the runtime's depth, completed from stacks that share
        their root-most frames; ``(profile, report)``. See
        :func:`pprofcore._go_repairs.repair_truncated_stacks` and docs/repairs.md."""
        return _go_repairs.repair_truncated_stacks(self, depth, window)

    def drop_type_params(self) -> Tuple["Profile", "object"]:
        """Go generic type parameters (``[...]``) dropped from function names, so
        one generic function is one row; ``(profile, report)``."""
        return _go_repairs.drop_type_params(self)

    def drop_negative(self, sample_type=None) -> "Profile":
        """Drop samples with a negative value (of ``sample_type``, or of any type)."""
        return _transform.drop_negative(self, sample_type)

    # ------------------------------------------------------------------ output
    def to_bytes(self, compress: bool = True, level: Optional[int] = None) -> bytes:
        """Serialize to ``profile.proto`` bytes, gzip-compressed unless ``compress=False``.

        Output is deterministic: equal profiles give identical bytes, and
        ``loads(p.to_bytes()) == p``. ``level`` is the gzip level (1..12, None =
        the default 6), or ``"fast"``: the fastest deflate of the build (ISA-L's
        level 1 when built with ISA-L; several times faster, a little larger).
        Outputs of 2 MiB or more are deflated in 1 MiB pieces on several
        cores, joined into one gzip member (the same bytes on any machine).
        Level 6 writes 2-6% less than Go's ``compress/gzip`` default (what
        pprof writes); ``level=4`` about as much, faster (docs/io.md).

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> data = p.to_bytes()
        >>> data[:2] == b"\\x1f\\x8b", pprofcore.loads(data) == p
        (True, True)
        """
        return self._core.encode(bool(compress), _args.check_level(level))

    def save(
        self,
        path: Union[str, "os.PathLike[str]"],
        compress: Optional[bool] = None,
        level: Optional[int] = None,
        format: str = "pprof",
    ) -> None:
        """Write the profile to ``path``.

        ``format`` is ``"pprof"`` (profile.proto, gzip-compressed unless
        ``compress=False``), ``"otlp"`` (OpenTelemetry ``ProfilesData``
        protobuf, :meth:`to_otlp`; raw unless ``compress=True``),
        ``"chrome-trace"`` (:meth:`to_chrome_trace`) or ``"firefox"``
        (:meth:`to_firefox_profiler`), both JSON, raw unless ``compress=True``.

        The write is atomic: the bytes go to a temporary file beside ``path``
        that is then renamed over it, so a failed write (a full disk, a kill)
        leaves an existing ``path`` as it was, even when it is the input.

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> p.save("copy.pb.gz")
        >>> pprofcore.load("copy.pb.gz") == p
        True
        """
        if format == "pprof":
            data = self.to_bytes(compress=True if compress is None else compress, level=level)
        elif format == "otlp":
            data = self.to_otlp(compress=bool(compress), level=level)
        elif format in ("chrome-trace", "firefox"):
            write = (
                _to_chrome_trace.chrome_trace_bytes if format == "chrome-trace" else _to_firefox.firefox_profiler_bytes
            )
            data = write(self)
            if compress:
                data = _core.gzip(data, _args.check_level(level))
        else:
            raise ValueError(f"format must be 'pprof', 'otlp', 'chrome-trace' or 'firefox', not {format!r}")
        _atomic.write_bytes(path, data)

    def to_otlp(
        self,
        *,
        resource: Optional[Mapping[str, Any]] = None,
        scope_name: str = "pprofcore",
        scope_version: str = "",
        compress: bool = False,
        level: Optional[int] = None,
    ) -> bytes:
        """Serialize to OpenTelemetry OTLP ``ProfilesData`` protobuf bytes
        (opentelemetry-proto v1.11.0, profiles v1development), gzip-compressed
        when ``compress=True``.

        One resource (``resource``: attribute names to str, bool, int, float,
        bytes, list or dict values), one scope, one OTLP profile per sample type.
        Labels become attributes, a ``timestamp_ns`` label (nanoseconds) the
        sample's timestamp, ``trace_id``/``span_id`` hex labels its link; pprof
        fields OTLP lacks use the ``pprof.*`` attributes (docs/otlp.md).
        :func:`pprofcore.loads` gives back an equal profile (canonically: ids,
        table order and unused rows aside).
        """
        return _to_otlp.to_otlp(self, resource, scope_name, scope_version, compress, level)

    # -------------------------------------------------------------------- time
    def timeline(self, lane: Optional[str] = None, sample_type=None, title: str = ""):
        """A flame chart over time (needs :attr:`timestamps`): one lane per value
        of the label ``lane`` (default: the first of ``thread.name``, ``thread``,
        ``thread_id``, ``goroutine``... the profile has), each sample's stack
        drawn root first until the lane's next sample. ``.save("t.html")`` writes
        the self-contained page; Jupyter shows it inline."""
        return _timeline.timeline(self, lane, sample_type, title)

    def to_chrome_trace(self, lane: Optional[str] = None, sample_type=None, title: str = "") -> dict:
        """The samples in the Chrome trace event format, as a JSON-ready dict
        (``json.dump`` it, or ``save(path, format="chrome-trace")``): Perfetto
        UI and chrome://tracing draw it as a flame chart per lane. Needs
        :attr:`timestamps` (ValueError without).

        One thread per value of the label ``lane`` (default as :meth:`timeline`);
        each sample's stack becomes nested complete (``"X"``) events lasting until
        the lane's next sample, a frame still on the stack at the next sample
        continuing as one event. ``args.value``/``args.self`` of an event are the
        values (of ``sample_type``) of the samples under it and of those it is
        the leaf of: summed per function they give :meth:`top`'s cum and flat.
        Times are microseconds since the first sample, whose time is
        ``otherData.start_time_ns``."""
        return _to_chrome_trace.to_chrome_trace(self, lane, sample_type, title)

    def to_firefox_profiler(self, lane: Optional[str] = None, sample_type=None, title: str = "") -> dict:
        """The samples in the Firefox Profiler's processed profile format
        (version 58), as a JSON-ready dict (``save(path, format="firefox")``
        writes it); profiler.firefox.com opens the file. Needs
        :attr:`timestamps` (ValueError without).

        One thread per value of the label ``lane`` (default as :meth:`timeline`);
        each sample keeps its time and its value (of ``sample_type``) as its
        weight: milliseconds for a time unit (``tracing-ms``), ``bytes`` for
        bytes, a count otherwise."""
        return _to_firefox.to_firefox_profiler(self, lane, sample_type, title)

    @property
    def timestamps(self) -> Optional[np.ndarray]:
        """Per sample, its time as int64 nanoseconds since the Unix epoch, or
        None when the profile has none.

        Read from the numeric label ``timestamp_ns`` (what the OTLP, JFR, perf
        and .cpuprofile readers write), else Datadog's ``end_timestamp_ns``; a
        sample without it holds NaT (the smallest int64, ``NaT`` once viewed as
        ``datetime64[ns]``). :meth:`timestamps_from` reads another label."""
        return _timestamps.timestamps(self)

    def timestamps_from(self, label: str) -> Optional[np.ndarray]:
        """Like :attr:`timestamps` but from the numeric label ``label`` (its
        num_unit converts: ``milliseconds``, ``seconds``...; none means nanoseconds)."""
        return _timestamps.timestamps(self, label)

    def window(self, start=None, end=None, *, label: Optional[str] = None) -> "Profile":
        """The samples whose time is in ``[start, end)``; samples without a time
        are dropped. Bounds are int nanoseconds since the epoch, ``datetime``
        (naive means UTC), ``numpy.datetime64`` or ``pandas.Timestamp``; None is
        open. ``label`` picks the time label as :meth:`timestamps_from` does.
        Raises ValueError when the profile has no timestamps."""
        return _timestamps.window(self, start, end, label)

    # ----------------------------------------------------------------- reports
    # The reports that need nothing of the class are methods as they are:
    # p.top(...) is reports.top(p, ...), one signature and one docstring.
    top = reports.top
    peek = reports.peek
    tree = reports.tree
    traces = reports.traces
    list = reports.source_listing
    if TYPE_CHECKING:
        top_profile = reports.top_profile
        disasm = reports.disassembly
        weblist = reports.weblist
    else:  # the report's function itself once read; its module (and the symbolizer's) imported then
        top_profile = lazy_function("pprofcore.reports.topproto", "top_profile")
        disasm = lazy_function("pprofcore.reports.disasm", "disassembly")
        weblist = lazy_function("pprofcore.reports._weblist", "weblist")
    callgraph = _callgraph.callgraph

    def tags(
        self, sample_type: Union[int, str, None] = None, unit: Optional[str] = None, relative_percentages: bool = False
    ):
        """Label breakdown like current upstream ``pprof -tags``: per key and value,
        the total of one sample type and its share (``share``, percent) of the
        report total (numeric values in their units). ``relative_percentages``:
        see :meth:`top`."""
        return reports.tags(self, sample_type=sample_type, unit=unit, relative_percentages=relative_percentages)

    def by_label(self, key: str):
        """Sample count (``num_samples``) and totals of every sample type per value of label ``key``,
        with a row (value ``None``) for samples without the label."""
        return reports.by_label(self, key)

    def to_folded(
        self,
        sample_type: Union[int, str, None] = None,
        lines: bool = False,
        labels: Optional[List[str]] = None,
        inline: bool = True,
    ) -> str:
        """Collapsed stacks (Brendan Gregg's folded format): ``root;...;leaf VALUE`` per line.

        One line per distinct stack, sorted; frame names are pprof's function
        names (``lines=True``: ``name file:line``); ``labels`` lists label keys
        written as leading ``key=value`` frames; ``inline=False`` drops inlined
        frames. Read it back with :func:`pprofcore.from_folded`. Control
        characters (not tab), ``;`` and Unicode line separators in names are
        written as visible escapes (``\\x0a``, ``\\x3b``, ``\\u2028``) and a
        leading ``#`` as ``\\x23``, so one stack is one line and the totals read
        back whatever the names (docs/reports.md, "Names in text exports").
        Raises ProfileError when the type's values add up past int64.

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> print(p.to_folded().splitlines()[0][:36])
        main.cpuPhase.func1;runtime/pprof.Do
        """
        return reports.to_folded(self, sample_type=sample_type, lines=lines, labels=labels, inline=inline)

    def to_callgrind(
        self,
        sample_type: Union[int, str, None] = None,
        unit: Optional[str] = None,
        inline: bool = True,
        *,
        sort: str = "flat",
        mean: bool = False,
        call_tree: bool = False,
    ) -> str:
        """pprof's ``-callgrind`` text (KCachegrind/QCachegrind): cost per address
        and call edges, values in one unit (``unit``, default pprof's choice),
        nodes in ``sort`` ("flat" or "cum") order. ``mean``: flat costs divided
        by the count sample type (pprof's ``-mean``); ``call_tree``: a node per
        calling context (pprof's ``-call_tree``; ``inline`` must stay True).
        Line breaks in names are written as visible escapes (``\\x0a``)."""
        if call_tree:
            if not inline:
                raise ValueError("call_tree=True keeps inlined frames (pprof's -call_tree ignores -noinlines)")
            return calltree_callgrind.calltree_callgrind(self, sample_type, unit, sort=sort, mean=mean)
        return reports.to_callgrind(self, sample_type=sample_type, unit=unit, inline=inline, sort=sort, mean=mean)

    def flamegraph(
        self,
        sample_type: Union[int, str, None] = None,
        *,
        by: str = "functions",
        inverted: bool = False,
        base: Optional["Profile"] = None,
        normalize: bool = True,
        min_fraction: Optional[float] = None,
        title: Optional[str] = None,
    ):
        """The flame graph of one sample type: a :class:`pprofcore.display.flamegraph.FlameGraph`.

        One node per frame on each root-to-leaf path (inline frames are frames,
        recursion gives new nodes); ``by`` is pprof's granularity as in :meth:`top`;
        ``inverted=True`` puts the leaf functions under the root. Nodes narrower
        than ``min_fraction`` of the root (default
        ``pprofcore.display.flamegraph.DEFAULT_MIN_FRACTION``; 0 keeps all) are
        merged into one ``"..."`` node per parent. With ``base=`` it is a diff
        flame graph: widths from this profile, colours from the change against
        ``base`` (scaled to this profile's total unless ``normalize=False``).
        Shows itself in notebooks; see ``docs/flamegraphs.md``.
        """
        return _flamegraph.flamegraph(
            self,
            sample_type,
            by=by,
            inverted=inverted,
            base=base,
            normalize=normalize,
            min_fraction=_flamegraph.DEFAULT_MIN_FRACTION if min_fraction is None else min_fraction,
            title=title,
        )

    def explore(self, view: str = "flamegraph", *, base: Optional["Profile"] = None, source_path=None, **state):
        """The explorer (pprof's web UI, as ``pprofcore -http``) as a Jupyter widget
        (needs anywidget). ``view``: ``"graph"``, ``"top"``, ``"flamegraph"``,
        ``"peek"``, ``"source"``, ``"disasm"`` or ``"labels"``; ``base``: show
        every view as the difference against it; ``state``: the initial
        :class:`pprofcore.web.State` fields (``si``, ``focus``, ``ignore``,
        ``hide``, ``show``, ``show_from``, ``tagfocus``, ... ``granularity``,
        ``search``). The widget's ``state`` is readable and settable, its
        ``profile`` is this profile refined by the state. See ``docs/explorer.md``."""
        return _web.explore(self, view, base=base, source_path=source_path, **state)

    def to_pandas(self, kind: str = "samples"):
        """A table of the profile as a ``pandas.DataFrame`` (needs pandas).

        ``kind`` is ``"samples"`` (one row per sample: a column per sample type,
        ``leaf_function``, ``stack_id``, ``depth`` and one column per label key),
        ``"frames"`` (one row per sample x frame, inline frames expanded: ``sample``,
        ``depth`` (0 = leaf), ``location``, ``address``, ``function``, ``file``,
        ``line``, ``inline``), ``"locations"``, ``"functions"`` or ``"mappings"``.
        String columns are ``pd.Categorical`` built from the string table's codes.

        Examples
        --------
        >>> p = pprofcore.load(pprofcore.example_path())
        >>> df = p.to_pandas()
        >>> df.shape, df.columns[:3].tolist()
        ((496, 9), ['samples', 'cpu', 'leaf_function'])
        """
        return _frames.to_pandas(self, kind)

    def table(self, kind: str = "samples"):
        """The :meth:`to_pandas` table as a :class:`ReportTable` without converting it:
        it speaks the Arrow PyCapsule interface (``polars.DataFrame(p.table())``,
        ``pyarrow.table(p.table("frames"))``, duckdb) and has ``to_pandas``/``to_arrow``."""
        return reports.frames_table(self, kind)

    def to_arrow(self, kind: str = "samples"):
        """Like :meth:`to_pandas` but a ``pyarrow.Table`` with dictionary-encoded strings."""
        return _frames.to_arrow(self, kind)

    # --------------------------------------------------------------- protocols
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Profile):
            return NotImplemented
        return self._core.equals(other._core)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):
        return (_unpickle, (_PICKLE_VERSION, self.to_bytes(compress=False)))

    def __repr__(self) -> str:
        return _notebook.profile_repr(self)

    def _repr_html_(self) -> str:
        return _notebook.profile_html(self)


def _unpickle(version: int, data: bytes) -> Profile:
    if version != _PICKLE_VERSION:
        raise ValueError(f"unsupported pickled Profile version {version}")
    return Profile._wrap(_core.decode(data, len(data) + 1, "auto"))
