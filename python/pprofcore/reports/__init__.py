"""pprof's text reports as tables: top, peek and the call tree, traces, tags,
by_label, folded stacks, the -top profile (topproto), callgrind output and
the weblist's source and instructions.
Each report is a function of a profile that returns a :class:`ReportTable`
(or text); ``Profile`` methods delegate here. The disassembly, the weblist
(which bring the symbolizer's modules), callgrind output and the -top
profile (profile.proto's field enums) are imported on first use
(``LAZY_IMPORTS``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List

from .._lazy import lazy_import
from .folded import to_folded
from .frames import frames_table
from .listing import source_listing
from .packages import package_of
from .peek import peek, tree
from .table import ReportTable
from .tags import by_label, tags
from .top import top
from .traces import traces

if TYPE_CHECKING:  # what LAZY_IMPORTS gives, for type checkers and editors
    from ._weblist import Weblist as Weblist
    from ._weblist import weblist as weblist
    from .callgrind import to_callgrind as to_callgrind
    from .disasm import disassembly as disassembly
    from .topproto import top_profile as top_profile

#: The reports whose modules are imported when the name is first read
#: (PEP 562): the explorer's first page does not load the symbolizer.
LAZY_IMPORTS = {
    "disassembly": ".disasm:disassembly",
    "to_callgrind": ".callgrind:to_callgrind",
    "top_profile": ".topproto:top_profile",
    "Weblist": "._weblist:Weblist",
    "weblist": "._weblist:weblist",
}

__all__ = [
    "ReportTable",
    "by_label",
    "disassembly",
    "frames_table",
    "source_listing",
    "package_of",
    "peek",
    "tags",
    "to_callgrind",
    "to_folded",
    "top",
    "top_profile",
    "traces",
    "tree",
    "Weblist",
    "weblist",
]


def __getattr__(name: str) -> Any:
    if name not in LAZY_IMPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = lazy_import(LAZY_IMPORTS, name, __name__)
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(LAZY_IMPORTS))
