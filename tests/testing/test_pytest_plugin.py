"""The pytest11 plugin (pprofcore._pytest): the assertrepr hook called
directly, and the pprof_baseline fixture driven through pytester (create,
pass, fail naming the offender, update)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_baseline_lifecycle(pytester, cpu, cpu_under_test, monkeypatch):
    slow = pytester.path / "slow.pb.gz"
    pprofcore.merge([cpu, cpu.focus("^main\\.hashWork$")]).save(slow)  # hashing counted twice
    pytester.makepyfile(test_bench=TEST_MODULE)
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
            print("PATH", pprof_baseline.path(), pprof_baseline.path(name="x y"), pprof_baseline.path(name="flat"))

        def test_plain(pprof_baseline):
            print("PATH", pprof_baseline.path(), pprof_baseline.path(name="flat"))
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    base = Path(pytester.path) / "__pprof_baselines__" / "test_ids"
    for test, name in [("test_p[a/b]", None), ("test_p[c d]", "x y"), ("test_p[c d]", "flat")]:
        stem = plugin.baseline_stem(test, name)
        assert stem.startswith(("test_p_a_b~", "test_p_c_d-x_y~", "test_p_c_d-flat~")), stem
        assert f"{base / stem}.pb.gz" in out
    # plain names keep the names they always had
    assert f"PATH {base / 'test_plain.pb.gz'} {base / 'test_plain-flat.pb.gz'}" in out


# Test ids as pytest spells them: a function name, maybe parameters in brackets.
_IDS = st.builds(
    lambda f, params: f + (f"[{params}]" if params is not None else ""),
    st.sampled_from(["test_a", "test_a_b", "test_a_b_c", "test_x"]),
    st.none() | st.text(st.sampled_from("ab_ /-[]~.x\u00e9"), max_size=6),
)


@settings(max_examples=500)
@given(_IDS, st.none() | st.text(st.sampled_from("ab_ /-~.x"), max_size=5), _IDS, st.none() | st.text(max_size=5))
def test_baseline_stems_are_one_to_one(test1, name1, test2, name2):
    s1, s2 = plugin.baseline_stem(test1, name1), plugin.baseline_stem(test2, name2)
    assert (s1 == s2) == ((test1, name1) == (test2, name2))
    assert re.fullmatch(r"[A-Za-z0-9_.=+~-]+", s1) and len(s1) <= plugin.MAX_READABLE + 11


def test_long_test_ids_get_short_file_names():
    for test in ("t[" + "x" * 500 + "]", "t" * 300):
        stem = plugin.baseline_stem(test)
        assert stem.startswith("t") and "~" in stem and len(stem) == plugin.MAX_READABLE + 11


COLLIDING_MODULE = """
    import os
    import pytest
    import pprofcore

    def _p(tag):
        return pprofcore.load(os.environ[tag])

    @pytest.mark.parametrize("b", ["b"])
    def test_a(pprof_baseline, b):
        pprof_baseline(_p("PPROF_A"))

    def test_a_b(pprof_baseline):
        pprof_baseline(_p("PPROF_B"))

    @pytest.mark.parametrize("case", ["x y", "x/y"])
    def test_c(pprof_baseline, case):
        pprof_baseline(_p("PPROF_A" if case == "x y" else "PPROF_B"), name="n")
"""


def test_colliding_ids_get_their_own_baselines(pytester, cpu, monkeypatch):
    """test_a[b] and test_a_b, [x y] and [x/y] once wrote the same file: the
    second run then compared one test with the other's profile."""
    a, b = pytester.path / "a.pb.gz", pytester.path / "b.pb.gz"
    cpu.save(a)
    pprofcore.merge([cpu, cpu.focus("^main\\.hashWork$")]).save(b)
    monkeypatch.setenv("PPROF_A", str(a))
    monkeypatch.setenv("PPROF_B", str(b))
    pytester.makepyfile(test_coll=COLLIDING_MODULE)
    result = pytester.runpytest("-p", "no:cacheprovider", "--pprof-update-baselines")
    result.assert_outcomes(passed=4)
    files = sorted((pytester.path / "__pprof_baselines__" / "test_coll").iterdir())
    assert len(files) == 4, [f.name for f in files]
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=4)


@pytest.fixture
def cpu_under_test(pytester, cpu, monkeypatch):
    """``cpu`` saved in pytester's folder, its path in ``$PPROF_UNDER_TEST``,
    where the inner test modules load it from."""
    good = pytester.path / "good.pb.gz"
    cpu.save(good)
    monkeypatch.setenv("PPROF_UNDER_TEST", str(good))
    return good


def test_baselines_under_old_names_are_found_when_unambiguous(pytester, cpu, cpu_under_test):
    pytester.makepyfile(
        test_old="""
        import os
        import pytest
        import pprofcore

        @pytest.mark.parametrize("case", ["a/b"])
        def test_p(pprof_baseline, case):
            pprof_baseline(pprofcore.load(os.environ["PPROF_UNDER_TEST"]))

        @pytest.mark.parametrize("case", ["b"])
        def test_q(pprof_baseline, case):
            pprof_baseline(pprofcore.load(os.environ["PPROF_UNDER_TEST"]))

        def test_q_b():
            pass
    """
    )
    d = pytester.path / "__pprof_baselines__" / "test_old"
    d.mkdir(parents=True)
    cpu.save(d / "test_p_a_b.pb.gz")  # written by an older pprofcore
    cpu.save(d / "test_q_b.pb.gz")  # test_q[b]'s or test_q_b's? Not used.
    result = pytester.runpytest("-p", "no:cacheprovider", "-W", "default")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*PytestWarning: pprof_baseline: using *test_p_a_b.pb.gz,"
            " written under pprofcore's old file names; rename it to test_p_a_b~*"
        ]
    )
    result.stdout.fnmatch_lines(["*no profile baseline at *test_q_b~*"])
    # the same with only test_p selected: still found; nothing was renamed or removed
    pytester.runpytest("-p", "no:cacheprovider", "-k", "test_p").assert_outcomes(passed=1)
    assert sorted(f.name for f in d.iterdir()) == ["test_p_a_b.pb.gz", "test_q_b.pb.gz"]


def test_update_refuses_an_unknown_sample_type_at_once(pytester, cpu_under_test):
    pytester.makepyfile(
        test_typo="""
        import os
        import pprofcore

        def test_typo(pprof_baseline):
            pprof_baseline(pprofcore.load(os.environ["PPROF_UNDER_TEST"]), sample_type="cpus")

        def test_bad_granularity(pprof_baseline):
            pprof_baseline(pprofcore.load(os.environ["PPROF_UNDER_TEST"]), by="function")

        def test_index(pprof_baseline):
            pprof_baseline(pprofcore.load(os.environ["PPROF_UNDER_TEST"]), sample_type=7)
    """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "--pprof-update-baselines")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        [
            "*pprof_baseline: no sample_type 'cpus'; have samples, cpu; baseline * not written*",
            "*unknown granularity by='function'*not written*",
            "*sample_type index 7 out of range*(sample types: samples, cpu)*not written*",
        ]
    )
    assert not (pytester.path / "__pprof_baselines__").exists()
