#!/usr/bin/env bash
# The documentation site: Sphinx (pydata-sphinx-theme, numpydoc, myst-nb) into
# docs/_build/html, warnings as errors, offline (no intersphinx, nothing fetched;
# the notebooks' committed outputs are shown, not re-executed). Needs the docs
# extra: pip install ".[docs]". Then checks that the built reference names every
# public name (the docstrings' examples run in the test suite:
# tests/core/test_docstring_examples.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# The checkout's package first when its extension is built in place (tools/dev-build.sh).
if compgen -G "python/pprofcore/_core*.so" >/dev/null; then
  export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
fi
python3 -m sphinx -W --keep-going -q -j "${DOCS_JOBS:-auto}" -b html docs docs/_build/html
python3 -m pytest -q -p no:cacheprovider tests/core/test_api_reference.py
echo "docs: docs/_build/html/index.html"
