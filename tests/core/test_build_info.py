"""pprofcore.build_info(): one version everywhere, and features that match
what the extension really does."""

import gzip
import re
from importlib.metadata import version
from pathlib import Path

import pytest

import pprofcore
from pprofcore import _core

ROOT = Path(__file__).resolve().parents[2]


def test_one_version():
    info = pprofcore.build_info()
    assert info["version"] == pprofcore.__version__ == version("pprofcore")
    # tomllib is 3.11+; the [project] table's version line is enough here.
    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert declared is not None and declared.group(1) == info["version"]


def test_every_listed_inflater_inflates():
    data = gzip.compress(b"pprofcore" * 1000)
    for name in pprofcore.build_info()["inflaters"]:
        assert bytes(_core.gunzip(data, backend=name)) == b"pprofcore" * 1000, name


def test_zstd_flag_is_what_load_does():
    # A zstd frame of an empty payload: a build with zstd decompresses it and
    # finds it empty; one without refuses it by naming the missing library.
    frame = bytes.fromhex("28b52ffd2000010000")
    expected = "decompresses to 0 bytes" if pprofcore.build_info()["zstd"] else "built without libzstd"
    with pytest.raises(pprofcore.DecodeError, match=expected):
        pprofcore.loads(frame)
