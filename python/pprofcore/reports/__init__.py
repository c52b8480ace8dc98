"""pprof's text reports as tables: top, peek and the call tree, traces, tags,
by_label, folded stacks, the -top profile (topproto), callgrind output and
the weblist's source and instructions.
Each report is a function of a profile that returns a :class:`ReportTable`
(or text); ``Profile`` methods delegate here."""

from .callgrind import to_callgrind
from .disasm import disassembly
from .folded import to_folded
from .frames import frames_table
from .listing import source_listing
from .packages import package_of
from .peek import peek, tree
from .table import ReportTable
from .tags import by_label, tags
from .top import top
from .topproto import top_profile
from .traces import traces
from .weblist import Weblist, weblist

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
