#!/usr/bin/env bash
# Style and type checks, as CI runs them: ruff (lint and format) over the Python
# code, mypy over the package, clang-format over the C++ core and bindings.
# Fix locally with: ruff check --fix . && ruff format . && clang-format -i <files>
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m ruff check .
python3 -m ruff format --check .
python3 -m mypy
mapfile -t cxx < <(git ls-files 'cpp/*.cpp' 'cpp/*.hpp' 'bindings/*.cpp' 'bindings/*.hpp' 'fuzz/*.cpp')
clang-format --dry-run --Werror "${cxx[@]}"
echo "lint: ruff, mypy and clang-format clean"
