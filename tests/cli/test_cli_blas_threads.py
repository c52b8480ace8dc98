"""The command line asks NumPy's OpenBLAS for one thread: pprofcore does no
linear algebra, and OpenBLAS's pool spins on the cores a command needs at its
start (``pprofcore.cli.one_blas_thread``). Each case runs ``main()`` in a
child process, as the program does, before NumPy is imported."""

from __future__ import annotations

import subprocess
import sys

from testenv import pprofcore_env

import pprofcore

RUN_INFO = (
    "import os, sys\n"
    "from pprofcore.cli import main\n"
    "{before}"
    "sys.argv = ['pprofcore', 'info', {path!r}]\n"
    "main({argv})\n"
    "threads = len(os.listdir('/proc/self/task')) if os.path.isdir('/proc/self/task') else -1\n"
    "print(os.environ.get('OPENBLAS_NUM_THREADS'), threads, file=sys.stderr)\n"
)


def _run(before: str = "", argv: str = "", **env: str):
    environment = {k: v for k, v in pprofcore_env().items() if k != "OPENBLAS_NUM_THREADS"}
    code = RUN_INFO.format(before=before, path=pprofcore.example_path(), argv=argv)
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**environment, **env}, timeout=120
    )
    assert r.returncode == 0, r.stderr
    value, threads = r.stderr.split()[-2:]
    return value, int(threads)


def test_a_command_asks_for_one_blas_thread():
    value, threads = _run()
    assert value == "1"
    if threads >= 0:
        assert threads == 1  # no OpenBLAS worker left running beside the command


def test_the_users_setting_is_kept():
    assert _run(OPENBLAS_NUM_THREADS="3")[0] == "3"


def test_numpy_imported_before_is_left_as_it_is():
    assert _run(before="import numpy\n")[0] == "None"


def test_main_called_with_argv_leaves_the_environment_alone():
    assert _run(argv="sys.argv[1:]")[0] == "None"  # a caller in its own process, not the program
