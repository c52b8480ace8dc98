"""Sphinx configuration of the documentation site (built by tools/docs.sh).

The guide is the Markdown of docs/ (MyST), the API reference is generated from
the docstrings of every public name (``__all__`` of the package and of its
public submodules), the CLI reference from the argparse parser, and the
notebooks are shown with the outputs committed by notebooks/build_notebooks.py.
Nothing is downloaded: no intersphinx, no CDN."""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import pprofcore  # noqa: E402  (the checkout's package when tools/docs.sh puts python/ first)

project = "pprofcore"
author = "the pprofcore authors"
copyright = "the pprofcore authors"
release = pprofcore.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
    "pprofcore_docs",
]

root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
suppress_warnings = ["myst.header"]

# MyST: GitHub-style heading anchors, so the #links of the pages (which the
# docs link test checks against GitHub's rules) resolve here too.
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence"]
# The notebooks are executed by notebooks/build_notebooks.py and committed with
# their outputs; the site shows those outputs and runs nothing.
nb_execution_mode = "off"
nb_merge_streams = True

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = False

html_theme = "pydata_sphinx_theme"
html_title = f"pprofcore {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
    "icon_links": [],
}
html_last_updated_fmt = None
