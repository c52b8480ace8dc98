"""Views of profiles: flame graphs (interactive HTML, static SVG, speedscope
JSON), call graphs (Graphviz), the timeline and fleet plots, and the HTML that
notebooks show of profiles and report tables (``notebook``).

All HTML, SVG and JavaScript of pprofcore lives in this package; its scripts and
styles are package data under ``assets/`` and are inlined into every page, so
nothing is loaded from the network. The trees come from the C++ core
(``_core.call_tree``); these modules only lay them out and render them.

This file imports nothing: the report tables in ``reports/`` use
``display.notebook`` for their HTML, and the flame graph uses the report
tables, so loading the package must not load the flame graph. Import the
classes from their modules (``pprofcore.display.flamegraph.FlameGraph``) or use
``Profile.flamegraph()``.
"""
