"""The pytest11 plugin (pprofcore._pytest): the assertrepr hook called
directly, and the pprof_baseline fixture driven through pytester (create,
pass, fail naming the offender, update)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pprofcore
import pprofcore.testing
from pprofcore import _pytest as plugin

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def cpu():
    return pprofcore.load(pprofcore.example_path("cpu"))


# ----------------------------------------------------------- assertrepr hook
def test_hook_explains_profiles(cpu):
    lines = plugin.pytest_assertrepr_compare(None, "==", cpu, cpu.scale(2))
    assert lines[0] == f"Profile == Profile: {len(pprofcore.testing.canonical(cpu))} differences in content"
    assert lines[1].startswith("[left]:  <pprofcore.Profile") and lines[2].startswith("[right]: ")
    assert lines[3].startswith("sample ") and "samples=2" in lines[3] and "samples=4" in lines[3]
    assert lines[-1].startswith("... and ") and len(lines) == 3 + 11


def test_hook_explains_equal_content_with_other_tables(cpu):
    # compact() may renumber the tables: == is False, the content is equal.
    other = cpu.compact()
    if other == cpu:
        pytest.skip("compact() kept the tables as they were")
    lines = plugin.pytest_assertrepr_compare(None, "==", cpu, other)
    assert "same canonical content" in lines[-1]


def test_hook_explains_tables(cpu):
    a, b = cpu.top(), cpu.top(n=3)
    lines = plugin.pytest_assertrepr_compare(None, "==", a, b)
    assert lines[0] == "ReportTable == ReportTable: 1 difference"
    assert lines[1] == f"number of rows: {len(a)} != 3"


def test_hook_leaves_other_comparisons_alone(cpu):
    assert plugin.pytest_assertrepr_compare(None, "==", 1, 2) is None
    assert plugin.pytest_assertrepr_compare(None, "!=", cpu, cpu) is None
    assert plugin.pytest_assertrepr_compare(None, "==", cpu, cpu.top()) is None


def test_plugin_is_registered(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("pprofcore")
    assert pytestconfig.getoption("pprof_update_baselines") is False


def test_rewritten_assert_uses_the_hook(pytester, cpu):
    path = pytester.path / "cpu.pb.gz"
    cpu.save(path)
    pytester.makepyfile(f"""
        import pprofcore
        def test_it():
            p = pprofcore.load({str(path)!r})
            assert p == p.scale(2)
    """)
    result = pytester.runpytest("-p", "no:cacheprovider", "-vv")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*assert Profile == Profile: * differences in content", "*samples=2*samples=4*", "*... and * more*"]
    )


# --------------------------------------------------------- pprof_baseline
TEST_MODULE = """
    import os
    import pprofcore

    def test_cpu(pprof_baseline):
        p = pprofcore.load(os.environ["PPROF_UNDER_TEST"])
        pprof_baseline(p, sample_type="cpu", cum=True, rel=0.2, min_share=0.02)

    def test_named(pprof_baseline):
        p = pprofcore.load(os.environ["PPROF_UNDER_TEST"])
        pprof_baseline(p, name="flat")
"""


def test_baseline_lifecycle(pytester, cpu, monkeypatch):
    good = pytester.path / "good.pb.gz"
    cpu.save(good)
    slow = pytester.path / "slow.pb.gz"
    pprofcore.merge([cpu, cpu.focus("^main\\.hashWork$")]).save(slow)  # hashing counted twice
    pytester.makepyfile(test_bench=TEST_MODULE)
    monkeypatch.setenv("PPROF_UNDER_TEST", str(good))
    base_dir = pytester.path / "__pprof_baselines__" / "test_bench"

    # 1. No baseline yet: fail and say how to create it.
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            f"*no profile baseline at {base_dir / 'test_cpu.pb.gz'}*",
            "*run `pytest test_bench.py::test_cpu --pprof-update-baselines` to create it*",
        ]
    )

    # 2. Create.
    result = pytester.runpytest("-p", "no:cacheprovider", "--pprof-update-baselines")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*pprofcore: wrote 2 profile baseline(s)*"])
    assert sorted(p.name for p in base_dir.iterdir()) == ["test_cpu.pb.gz", "test_named-flat.pb.gz"]
    assert pprofcore.load(base_dir / "test_cpu.pb.gz") == cpu

    # 3. The same profile passes.
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)

    # 4. A regression fails with the offenders named in a table.
    monkeypatch.setenv("PPROF_UNDER_TEST", str(slow))
    result = pytester.runpytest("-p", "no:cacheprovider", "test_bench.py::test_cpu")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*Profile regressed*", "*name*base*new*delta*delta %*", "*main.hashWork*%*+*%*"])
    out = result.stdout.str()
    assert "pprof_baseline(p, sample_type" in out  # the test's own line is shown,
    assert "assert_no_regression(pprofcore.load(path)" not in out  # the plugin's frames are hidden
    assert "raise AssertionError" not in out

    # 5. Update replaces the baseline; then it passes.
    pytester.runpytest("-p", "no:cacheprovider", "--pprof-update-baselines").assert_outcomes(passed=2)
    assert pprofcore.load(base_dir / "test_cpu.pb.gz") != cpu
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_baseline_paths_of_parametrized_tests(pytester):
    pytester.makepyfile(
        test_ids="""
        import pytest

        @pytest.mark.parametrize("case", ["a/b", "c d"])
        def test_p(pprof_baseline, case):
            print("PATH", pprof_baseline.path(), pprof_baseline.path(name="x y"))
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    base = Path(pytester.path) / "__pprof_baselines__" / "test_ids"
    assert f"PATH {base / 'test_p_a_b.pb.gz'}" in out
    assert f"{base / 'test_p_c_d-x_y.pb.gz'}" in out
