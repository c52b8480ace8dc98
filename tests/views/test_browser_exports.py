"""Views of hard inputs in a real browser (Debian's chromium, as in
tests/views/test_browser.py): the sandwich view of a 100,000-frame stack answers
(it built one path per node, 3.8 s at 20k frames and no answer at 100k; issue
27 item 9), and SVGs of names with characters XML forbids open as images, not
as Chromium's XML error page (item 8)."""

from __future__ import annotations

import shutil

import pandas as pd
from chromium import open_flamegraph, requires_browser
from hostile import named_profile

import pprofcore

pytestmark = requires_browser

DEPTH = 100_000


def test_sandwich_of_a_deep_stack_answers(browser, tmp_path):
    text = ";".join(f"f{i}" for i in range(DEPTH)) + " 3\nf0;g 1\n"
    fg = pprofcore.from_folded(text).flamegraph(min_fraction=0)
    root = open_flamegraph(browser, fg, tmp_path, "deep.html")
    browser.set_script_timeout(120)  # a generous bound: a linear sandwich takes well under a second here
    for name in ("f0", f"f{DEPTH // 2}"):  # callees 100k deep; callers and callees 50k deep
        f = browser.execute_async_script(
            "var done = arguments[arguments.length - 1], app = arguments[0].pprofcore;"
            "var f = app.data.names.indexOf(arguments[1]);"
            "setTimeout(function () { app.select(f, true); done(f); }, 0);",
            root,
            name,
        )
        assert f >= 0
        assert root.get_attribute("data-sandwich") == str(f)
        depth = browser.execute_script(
            "var a = arguments[0].pprofcore; return [a.callers.tree.maxDepth, a.callees.tree.maxDepth];", root
        )
        assert depth == ([0, DEPTH - 1] if name == "f0" else [DEPTH // 2, DEPTH // 2 - 1])


HOSTILE_NAMES = ["a\x00b", "\x1b[31mred", "x\x01\ufffe", "<T&U>", "\uffff;\r\n", "ok"]


def _svg_opens(browser, path):
    browser.get(path.as_uri())
    return browser.execute_script(
        "return [document.documentElement.localName, document.getElementsByTagName('parsererror').length]"
    )


def test_svgs_with_forbidden_characters_open(browser, tmp_path):
    p = named_profile([(HOSTILE_NAMES, 7), (HOSTILE_NAMES[::-1], 3)])
    fg = p.flamegraph(title="t\x00", min_fraction=0)
    (tmp_path / "fg.svg").write_text(fg.to_svg(), encoding="utf-8")
    assert _svg_opens(browser, tmp_path / "fg.svg") == ["svg", 0]
    texts = browser.execute_script("return Array.from(document.querySelectorAll('text')).map(t => t.textContent)")
    assert "a\\x00b" in texts and "x\\x01\\ufffe" in texts

    from pprofcore import fleet

    df = pd.DataFrame(
        {"time": pd.to_datetime(range(6), unit="s", utc=True), "name": HOSTILE_NAMES, "value": range(1, 7)}
    )
    (tmp_path / "heat.svg").write_text(fleet.heatmap(df).svg, encoding="utf-8")
    assert _svg_opens(browser, tmp_path / "heat.svg") == ["svg", 0]
    if shutil.which("dot"):
        (tmp_path / "cg.svg").write_text(p.callgraph(title="c\x1b").to_svg(), encoding="utf-8")
        assert _svg_opens(browser, tmp_path / "cg.svg") == ["svg", 0]
