"""Linux ``perf.data`` recordings to a profile, through ``perf script``.

The binary format is perf's own (headers, attributes, mmap and sample records
whose layout depends on the recording's flags) and symbolizing it needs the
recorded machine's binaries and perf's build-id cache; ``perf script`` does
both. So, as pprof hands ``perf.data`` to ``perf_to_profile`` when that is on
``PATH``, pprofcore hands it to ``perf script`` (``PPROFCORE_PERF`` names
another ``perf``) and reads the text it prints (``_from_perf_script``). Without
``perf`` the input is refused naming the package and the command to run
elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from ._build import input_error
from ._from_perf_script import read_perf_script_bytes
from ._profile import Profile

FORMAT = "perf.data"
MAGICS = (b"PERFILE2", b"2ELIFREP")  # little- and big-endian recordings


def looks_like_perf_data(head: bytes) -> bool:
    return head[:8] in MAGICS


def _perf() -> str:
    perf = os.environ.get("PPROFCORE_PERF") or shutil.which("perf")
    if perf and not (os.path.isfile(perf) and os.access(perf, os.X_OK)):
        raise input_error(FORMAT, f"PPROFCORE_PERF names {perf!r}, which is not an executable perf")
    if not perf:
        raise input_error(
            FORMAT,
            "reading a Linux perf recording needs `perf script`, and perf is not installed (Debian and Ubuntu: "
            "apt-get install linux-perf; or set PPROFCORE_PERF to a perf binary); on the machine that recorded it, "
            "`perf script -i perf.data > perf.txt` writes text that pprofcore.load reads",
        )
    return perf


def read_perf_data_bytes(data: bytes) -> Profile:
    """Run ``perf script`` over the recording and read its text."""
    perf = _perf()
    with tempfile.TemporaryDirectory(prefix="pprofcore-perf-") as tmp:
        path = os.path.join(tmp, "perf.data")
        with open(path, "wb") as f:
            f.write(data)
        # perf refuses a recording that others may write to, unless forced.
        r = subprocess.run(
            [perf, "script", "-f", "-i", path], cwd=tmp, capture_output=True, stdin=subprocess.DEVNULL, check=False
        )
    if r.returncode != 0:
        why = r.stderr.decode("utf-8", "replace").strip().splitlines()[-3:] or ["it said nothing"]
        raise input_error(
            FORMAT, f"`perf script` could not read the recording (exit {r.returncode}): {' / '.join(why)}"
        )
    if not r.stdout.strip():
        raise input_error(FORMAT, "the recording holds no samples (`perf script` printed no events)")
    return read_perf_script_bytes(r.stdout)
