"""Views of profiles: flame graphs (interactive HTML, static SVG, speedscope
JSON), call graphs (Graphviz) and the HTML shown by notebooks.

All HTML, SVG and JavaScript of pprofcore lives in this package; its scripts and
styles are package data under ``assets/`` and are inlined into every page, so
nothing is loaded from the network. The trees come from the C++ core
(``_core.call_tree``); these modules only lay them out and render them.
"""

from .flamegraph import FlameGraph

__all__ = ["FlameGraph"]
