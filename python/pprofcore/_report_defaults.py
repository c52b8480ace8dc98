"""pprof's report granularities and trimming defaults: the names every report,
view and command line shares. A leaf (it imports nothing), so that the command
line can parse its flags without loading the reports."""

#: pprof's granularities (``-functions``, ``-filefunctions``, ``-files``,
#: ``-lines``, ``-addresses``) and ours (``-packages``: Go import path, Java
#: package, C++/Rust namespace, Python module; ``-binaries``: the mapping's
#: file): the ``by`` of every report, view and CLI.
GRANULARITIES = ("functions", "filefunctions", "files", "lines", "addresses", "packages", "binaries")
#: The ones pprof knows, as its interactive shell lists them.
PPROF_GRANULARITIES = GRANULARITIES[:5]
#: pprof's trimming defaults: ``-nodecount`` of the graph reports (tree, call
#: graph), ``-nodefraction`` and ``-edgefraction``.
NODECOUNT = 80
NODEFRACTION = 0.005
EDGEFRACTION = 0.001
