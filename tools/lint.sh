#!/usr/bin/env bash
# Style and type checks, as CI runs them: ruff (lint and format) over the Python
# code, mypy over the package, clang-format over the C++ core and bindings, and
# no raw profile.proto field number in the core.
# Fix locally with: ruff check --fix . && ruff format . && clang-format -i <files>
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m ruff check .
python3 -m ruff format --check .
python3 -m mypy
mapfile -t cxx < <(git ls-files 'cpp/*.cpp' 'cpp/*.hpp' 'bindings/*.cpp' 'bindings/*.hpp' 'fuzz/*.cpp')
clang-format --dry-run --Werror "${cxx[@]}"
# profile.proto's field numbers and tag bytes are spelled once, in
# cpp/include/pprofcore/proto_fields.hpp; the core names them from there.
if git grep -nE 'case 0x[0-9a-fA-F]+:|_field\([0-9]' -- cpp/src cpp/include; then
  echo "lint: a raw profile.proto field number or tag byte (above); use the enums and tag_byte of proto_fields.hpp" >&2
  exit 1
fi
echo "lint: ruff, mypy and clang-format clean"
