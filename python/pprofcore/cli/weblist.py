"""pprof's ``-weblist=REGEX``: an HTML page of the matching functions' source,
each line with its flat and cum (``list``'s values), expandable to its machine
instructions (``disasm``'s rows) when the binary is found.

With ``-output`` the page goes to that file. Otherwise it is written to a new
temporary file whose path is printed; pprof then opens a browser, and so do we
when stdout is a terminal, unless ``-no_browser`` (Python's ``webbrowser``
honours ``$BROWSER`` as pprof does). Tests and pipes never open one."""

from __future__ import annotations

import os
import sys
import tempfile

from ..display.weblist import weblist_html
from ..reports import weblist
from . import _report_args as ra
from . import _symbolize_args as sa
from .listing import add_arguments as add_listing_arguments

HELP = "source and assembly of functions matching a regex as an HTML page (like pprof -weblist)"


def add_arguments(parser) -> None:
    add_listing_arguments(parser)
    parser.add_argument(
        "--no-browser", "--no_browser", dest="no_browser", action="store_true", help="do not open a browser"
    )


def page(args) -> str:
    """The HTML of the page the flags describe."""
    p = sa.symbolize(ra.load_all(args), args)
    w = weblist(p, args.regex, **ra.listing_options(args, source=True, objects=True))
    names = p.mappings["filename"].tolist() if len(p.mappings["filename"]) else []
    return weblist_html(w, os.path.basename(p.strings[names[0]]) if names else "")


def run(args) -> int:
    text = page(args)
    if getattr(args, "output", None):  # main() sends stdout to the -output file
        sys.stdout.write(text)
        return 0
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", prefix="pprofcore", suffix=".html", delete=False) as f:
        f.write(text)
    print(f.name)
    if not args.no_browser and sys.stdout.isatty():
        import webbrowser  # on use: it imports subprocess and shlex at start-up

        webbrowser.open("file://" + os.path.abspath(f.name))
    return 0
