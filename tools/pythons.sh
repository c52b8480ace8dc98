# Sourced by tools/build-wheels.sh and tools/test-wheels.sh: where each CPython is.

# The CPythons the package supports (pyproject's requires-python and classifiers).
SUPPORTED_PYTHONS=(3.9 3.10 3.11 3.12 3.13)

# Prints the interpreter for version $1 (3.X): pyenv's newest patch release,
# else python3.X on the PATH; fails when there is none.
find_python() {
  local v=$1 root candidate=""
  if command -v pyenv >/dev/null 2>&1; then
    root=$(pyenv root)
    candidate=$(ls -d "$root"/versions/"$v".*/bin/python"$v" 2>/dev/null | sort -V | tail -1 || true)
  fi
  if [ -z "$candidate" ]; then candidate=$(command -v python"$v" || true); fi
  [ -n "$candidate" ] && echo "$candidate"
}
