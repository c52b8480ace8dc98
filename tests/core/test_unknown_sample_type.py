"""An unknown sample type raises the same error from every entry point: the
Profile API, reports, views, the fleet (in memory and from files, where the C++
reader raises it), testing and the CLI all say
``ProfileError: [where: ]no sample_type 'nope'; have samples, cpu``."""

from __future__ import annotations

import pytest

import pprofcore
from pprofcore.cli import main as cli_main
from pprofcore.errors import ProfileError
from pprofcore.testing import assert_no_regression, assert_share, regression_table

EXAMPLE = pprofcore.example_path()
CPU = pprofcore.load(EXAMPLE)
MESSAGE = "no sample_type 'nope'; have samples, cpu"

ENTRY_POINTS = {
    "Profile.sample_type_index": lambda: CPU.sample_type_index("nope"),
    "Profile.total": lambda: CPU.total("nope"),
    "Profile.top": lambda: CPU.top("nope"),
    "Profile.peek": lambda: CPU.peek("main", sample_type="nope"),
    "Profile.traces": lambda: CPU.traces("nope"),
    "Profile.flamegraph": lambda: CPU.flamegraph("nope"),
    "Profile.callgraph": lambda: CPU.callgraph("nope"),
    "ProfileSet.series (profiles)": lambda: pprofcore.ProfileSet([CPU]).series("nope"),
    "ProfileSet.series (files)": lambda: pprofcore.ProfileSet([EXAMPLE]).series("nope"),
    "testing.assert_share": lambda: assert_share(CPU, "main", max=0.5, sample_type="nope"),
    "testing.regression_table": lambda: regression_table(CPU, CPU, sample_type="nope"),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_the_same_error_everywhere(entry):
    with pytest.raises(ProfileError) as info:
        ENTRY_POINTS[entry]()
    assert str(info.value).endswith(MESSAGE), str(info.value)
    assert isinstance(info.value, ValueError)  # code that catches ValueError keeps working


def test_testing_names_the_profile_that_lacks_the_type():
    heap = pprofcore.load(pprofcore.example_path("heap"))
    with pytest.raises(ProfileError, match=r"^profile 1: no sample_type 'cpu'; have alloc_objects, "):
        assert_no_regression(CPU, heap)


def test_the_cli_prints_the_same_message(capsys):
    assert cli_main(["top", "--sample-index=nope", EXAMPLE]) != 0
    assert MESSAGE in capsys.readouterr().err
