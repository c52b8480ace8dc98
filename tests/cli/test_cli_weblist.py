"""``pprofcore -weblist=REGEX``: the page of source and instructions.

- its per-line flat/cum equal ``pprof -list``'s for the same profile and source
  tree (google/pprof's driver as the oracle), with and without ``-divide_by``;
- a golden file of the page for the example profile over a source tree written
  here (names and text with ``<``, ``&`` and quotes, all escaped);
- in chromium: the hostile source stays text, and a click on a line of a real
  C program's hot function shows its instructions (inlined callees included);
- without ``-output``: a temporary file, its path printed, no browser opened.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import tempfile

import native_programs as native
import pytest
from chromium import requires_browser
from cli_run import CPU, run_cli
from testenv import requires_go

# A source file at the path the example profile names (corpusgen/cmd/basic/main.go).
HOSTILE = "<script>alert(1)</script> & \"q\" 'x'"


@pytest.fixture(scope="module")
def source_tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("src")
    f = root / "corpusgen" / "cmd" / "basic" / "main.go"
    f.parent.mkdir(parents=True)
    f.write_text("".join(f"// line {i} {HOSTILE}\n" for i in range(1, 400)))
    return root


def _page(*argv: str) -> str:
    """The page of ``-weblist=argv[0] argv[1:]``, through ``-output``."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "page.html")
        rc, stdout, err = run_cli("-weblist=" + argv[0], f"-output={out}", *argv[1:])
        assert rc == 0 and stdout == b"", err
        with open(out, encoding="utf-8") as f:
            return f.read()


def _weblist_rows(page: str):
    """(flat, cum, line) of every source line of the page, in order."""
    rows = []
    for m in re.finditer(r'<span class="(?:live|nop|dead)" data-line="\d+">([^<]*)</span>', page):
        flat, cum, rest = html.unescape(m.group(1)).split(None, 2)
        rows.append((flat, cum, int(rest.split(":", 1)[0])))
    return rows


def _list_rows(text: str):
    return [
        (m.group(1), m.group(2), int(m.group(3)))
        for m in re.finditer(r"^\s*(\S+)\s+(\S+)\s+(\d+):", text, re.MULTILINE)
    ]


@requires_go
@pytest.mark.parametrize("flags", [[], ["-divide_by=3"], ["-focus=handle"]], ids=["plain", "divide_by", "focus"])
def test_line_values_equal_pprof_list(pprof, source_tree, flags):
    args = [f"-source_path={source_tree}", *flags, CPU]
    want, err = pprof.run("-list=main\\.(sortWork|hashWork)", *args)
    assert err is None, err
    rows = _weblist_rows(_page("main\\.(sortWork|hashWork)", *args))
    assert rows and rows == _list_rows(want)


def test_page_golden(source_tree, check_golden):
    page = _page("main\\.sortWork", f"-source_path={source_tree}", CPU)
    assert "<script>alert" not in page
    check_golden("example-cpu.weblist.html", page.replace(str(source_tree), "SRC"))


def test_without_output_a_temporary_file_is_written(source_tree):
    rc, out, err = run_cli("-weblist=main\\.sortWork", "-no_browser", f"-source_path={source_tree}", CPU)
    assert rc == 0, err
    path = out.decode().strip()
    try:
        assert path.endswith(".html") and open(path, encoding="utf-8").read().startswith("<!DOCTYPE html>")
    finally:
        os.unlink(path)


def test_no_match_fails_as_pprof():
    rc, out, err = run_cli("-weblist=no_such_function_anywhere", CPU)
    assert rc == 2 and out == b"" and "no matches found for regexp" in err


@requires_browser
def test_page_in_chromium(browser, source_tree, tmp_path):
    page = tmp_path / "cpu.html"
    page.write_text(_page("main\\.sortWork", f"-source_path={source_tree}", CPU))
    browser.get(page.as_uri())
    assert browser.execute_script("return document.querySelectorAll('script').length") == 1
    first = browser.find_element("css selector", "pre span.dead")
    assert HOSTILE in first.text
    if native.missing_tools() is not None or shutil.which("objdump") is None:
        pytest.skip(str(native.missing_tools() or "objdump missing (binutils)"))
    exe, prof = native.build_and_profile("c-pie", tmp_path / "c-pie")
    page = tmp_path / "c.html"
    page.write_text(_page("hot", f"-source_path={native.SOURCES}", str(prof)))
    browser.get(page.as_uri())
    live = browser.find_element("css selector", "pre span.live")
    asm = browser.find_element("css selector", "pre span.asm")
    assert not asm.is_displayed()
    live.click()
    assert asm.is_displayed()
    insts = [e.text for e in asm.find_elements("css selector", "span.inst")]
    # the hot loop is inlined from spin/mix into hot's line: its samples are there
    assert any(re.match(r"\s*\d+ms\s+\d+ms\s+[0-9a-f]+: ", t) for t in insts), insts
    assert any(t.rstrip().endswith("mix") for t in insts), insts
    live.click()
    assert not asm.is_displayed()
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
