"""The explorer's view state: what one URL of the explorer means.

One typed value (:class:`State`) with one parser per spelling: pprof's URL
query (``?si=alloc_space&f=main&g=lines``, the parameter names of
``go tool pprof -http``), the command line's parsed flags, and Python keywords
(the notebook widget). :meth:`State.filters` gives the
:meth:`pprofcore.Profile.filter` keywords, so the server, the widget and the
CLI all refine a profile through the same call. Source paths are not part of
the state: no URL can change where source files are read from.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import urlencode

GRANULARITIES = ("functions", "filefunctions", "files", "lines", "addresses")
VIEWS = ("graph", "top", "flamegraph", "peek", "source", "disasm", "labels", "timeline")

# State field -> pprof's URL parameter (internal/driver/config.go); q, p and cmp are ours.
# Booleans are written "t" as pprof shortens them; numbers as Python prints them.
URL_PARAMS = {
    "si": "si",
    "focus": "f",
    "ignore": "i",
    "hide": "h",
    "show": "s",
    "show_from": "sf",
    "tagfocus": "tf",
    "tagignore": "ti",
    "tagshow": "ts",
    "taghide": "th",
    "prune_from": "prunefrom",
    "granularity": "g",
    "sort": "sort",
    "nodecount": "n",
    "nodefraction": "nf",
    "edgefraction": "ef",
    "noinlines": "noinlines",
    "mean": "mean",
    "unit": "unit",
    "relative_percentages": "rel",
    "search": "q",
    "profile": "p",
    "compare": "cmp",
    "timewindow": "tw",
}
FILTERS = (
    "focus",
    "ignore",
    "hide",
    "show",
    "show_from",
    "tagfocus",
    "tagignore",
    "tagshow",
    "taghide",
    "prune_from",
)
# tw=START-END: ns since the epoch, either side may be empty (open).
_WINDOW = re.compile(r"(-?\d{1,19})?-(-?\d{1,19})?")
# Longest value accepted from a URL: a regex longer than this is a mistake or an attack.
MAX_PARAM = 4096


_KINDS = {
    "nodecount": int,
    "profile": int,
    "compare": int,
    "nodefraction": float,
    "edgefraction": float,
    "noinlines": bool,
    "mean": bool,
    "relative_percentages": bool,
}


def _truth(v: str) -> bool:
    """A boolean parameter as Go's strconv.ParseBool reads it (pprof writes "t"/"f")."""
    low = v.lower()
    if low in ("1", "t", "true"):
        return True
    if low in ("0", "f", "false"):
        return False
    raise ValueError(v)


@dataclasses.dataclass(frozen=True)
class State:
    """One view of a profile: sample type, Refine filters, granularity, search.

    ``si`` is a sample type name or index (``None``: the profile's default);
    ``search`` is the regex highlighted in every view; ``profile``/``compare``
    pick among several sources (``compare``: show the difference against that one);
    ``timewindow`` (``tw=START-END``, ns since the epoch, a side may be empty)
    keeps the samples of that time range in every view (:meth:`Profile.window`).

    Examples
    --------
    >>> from pprofcore.web import State
    >>> state = State(focus="sha256", hide="runtime")
    >>> state.to_query()
    'f=sha256&h=runtime'
    >>> state.replace(focus="").focus
    ''
    """

    si: Optional[str] = None
    focus: str = ""
    ignore: str = ""
    hide: str = ""
    show: str = ""
    show_from: str = ""
    tagfocus: str = ""
    tagignore: str = ""
    tagshow: str = ""
    taghide: str = ""
    prune_from: str = ""
    granularity: str = "functions"
    sort: str = "flat"
    nodecount: Optional[int] = None
    nodefraction: float = 0.005
    edgefraction: float = 0.001
    noinlines: bool = False
    mean: bool = False
    unit: str = ""
    relative_percentages: bool = False
    search: str = ""
    profile: int = 0
    compare: Optional[int] = None
    timewindow: str = ""

    def __post_init__(self) -> None:
        if self.granularity not in GRANULARITIES:
            raise ValueError(f"granularity must be one of {', '.join(GRANULARITIES)}, got {self.granularity!r}")
        if self.sort not in ("flat", "cum", "name"):
            raise ValueError(f"sort must be flat, cum or name, got {self.sort!r}")
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, str) and len(v) > MAX_PARAM:
                raise ValueError(f"{f.name} is longer than {MAX_PARAM} characters")
        if self.timewindow and not _WINDOW.fullmatch(self.timewindow):
            raise ValueError(f"tw= must be START-END in nanoseconds since the epoch, got {self.timewindow[:40]!r}")
        if self.nodecount is not None and self.nodecount < 0:
            raise ValueError("nodecount must be >= 0")
        for name in ("nodefraction", "edgefraction"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {getattr(self, name)}")

    # ---------------------------------------------------------------- parsers
    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> "State":
        """The state of a URL query (pprof's parameter names); unknown ones are ignored."""
        kw: Dict[str, Any] = {}
        for field, name in URL_PARAMS.items():
            v = params.get(name)
            if v is None or v == "":
                continue
            kind = _KINDS.get(field, str)
            try:
                kw[field] = _truth(v) if kind is bool else kind(v)
            except ValueError:
                raise ValueError(f"{name}= must be a {kind.__name__}, got {v[:40]!r}") from None
        return cls(**kw)

    @classmethod
    def from_args(cls, args: Any) -> "State":
        """The initial state from the command line's parsed flags (``serve``)."""
        kw: Dict[str, Any] = {f: getattr(args, f) or "" for f in FILTERS if getattr(args, f, None)}
        if getattr(args, "sample_index", None):
            kw["si"] = str(args.sample_index)
        if getattr(args, "granularity", None):
            kw["granularity"] = args.granularity
        if getattr(args, "cum", False):
            kw["sort"] = "cum"
        if getattr(args, "nodecount", None) is not None:
            kw["nodecount"] = args.nodecount
        for f in ("nodefraction", "edgefraction", "noinlines", "mean", "relative_percentages"):
            if getattr(args, f, None) is not None:
                kw[f] = getattr(args, f)
        if getattr(args, "unit", None):
            kw["unit"] = args.unit
        return cls(**kw)

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> "State":
        """The state of Python keywords (the widget): the field names of :class:`State`."""
        return cls(**kwargs)

    # ---------------------------------------------------------------- writers
    def to_query(self) -> str:
        """The URL query of this state, defaults left out (as pprof's makeURL does)."""
        default = State()
        pairs = []
        for field, name in URL_PARAMS.items():
            v = getattr(self, field)
            if v != getattr(default, field) and v is not None:
                pairs.append((name, ("t" if v else "f") if isinstance(v, bool) else str(v)))
        return urlencode(pairs)

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> "State":
        return dataclasses.replace(self, **changes)

    def filters(self) -> Dict[str, str]:
        """The :meth:`pprofcore.Profile.filter` keywords this state sets."""
        return {f: getattr(self, f) for f in FILTERS if getattr(self, f)}

    def window(self) -> Optional[Tuple[Optional[int], Optional[int]]]:
        """``timewindow`` as :meth:`Profile.window`'s (start, end), None without one."""
        if not self.timewindow:
            return None
        m = _WINDOW.fullmatch(self.timewindow)
        assert m is not None  # checked in __post_init__
        return tuple(int(g) if g else None for g in m.groups())  # type: ignore[return-value]

    def sample_type(self):
        """``si`` as :meth:`Profile.sample_type_index` takes it (an index when numeric)."""
        if self.si is None:
            return None
        return int(self.si) if self.si.lstrip("-").isdigit() else self.si
