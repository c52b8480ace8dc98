"""Ruby for the stackprof reader's tests (Debian packages ruby and
ruby-stackprof): a Ruby program profiled by stackprof, the dump converted to
JSON by stackprof's own command, and values dumped by Ruby's Marshal (the
oracle of ``pprofcore._ruby_marshal``). A test is skipped with a clear
message where Ruby or stackprof is missing.

``PROGRAM`` has three depths of calls under ``top_a`` and two under
``top_b``, recursion in ``fib``, blocks (``Integer#times``) and
allocations; its mode and raw setting come from the command line."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

PROGRAM = r"""
require 'stackprof'
def leaf_work(n)
  s = 0
  n.times { |i| s += i * i }
  s
end
def middle(n) = leaf_work(n)
def top_a = middle(200_000)
def top_b = leaf_work(100_000)
def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
def allocate = Array.new(200) { "x" * 10 }
mode, raw, out = ARGV[0].to_sym, ARGV[1] == "raw", ARGV[2]
StackProf.run(mode: mode, raw: raw, interval: (mode == :object ? 1 : 500), out: out) do
  15.times { top_a; top_b; fib(22); allocate }
end
"""


def _ruby_with(*packages: str) -> None:
    if not shutil.which("ruby"):
        pytest.skip("needs Ruby (apt-get install ruby ruby-stackprof)")
    for lib in packages:
        r = subprocess.run(["ruby", "-e", f"require '{lib}'"], capture_output=True, timeout=60)
        if r.returncode != 0:
            pytest.skip(f"needs Ruby's {lib} (apt-get install ruby-{lib})")


def record(tmp: Path, mode: str, raw: bool) -> Path:
    """Runs ``PROGRAM`` under stackprof in ``mode`` and returns its dump."""
    _ruby_with("stackprof")
    (tmp / "prog.rb").write_text(PROGRAM)
    out = tmp / f"{mode}-{'raw' if raw else 'agg'}.dump"
    subprocess.run(["ruby", "prog.rb", mode, "raw" if raw else "agg", str(out)], cwd=tmp, check=True, timeout=300)
    return out


def stackprof_json(dump: Path) -> bytes:
    """``stackprof DUMP --json``: the same data as JSON, by stackprof's command."""
    exe = shutil.which("stackprof")
    if exe is None:
        pytest.skip("needs the stackprof command (apt-get install ruby-stackprof)")
    return subprocess.run([exe, str(dump), "--json"], check=True, capture_output=True, timeout=300).stdout


def marshal_dumps(ruby_expressions: list) -> list:
    """``Marshal.dump`` of each Ruby expression, by Ruby (one process)."""
    _ruby_with()
    script = "require 'json'\nJSON.parse(STDIN.read).each { |e| puts Marshal.dump(eval(e)).unpack1('H*') }\n"
    r = subprocess.run(
        ["ruby", "-e", script], input=json.dumps(ruby_expressions), capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, r.stderr
    return [bytes.fromhex(line) for line in r.stdout.split()]
