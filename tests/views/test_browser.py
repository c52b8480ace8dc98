"""The flame graph page in a real browser (Debian's chromium + chromium-driver,
driven by selenium): zoom by click, breadcrumb, regex search with highlight count
and matched share, hover tooltip, linked top table and sandwich view, orientation
toggle, and a page with more than 10,000 nodes.

`pytest --update-goldens` also refreshes the screenshot docs/images/flamegraph.png.
Skips (saying what to install) when no browser is available."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from chromium import open_flamegraph, requires_browser
from testenv import REPO

import pprofcore

pytestmark = requires_browser


def _attr(root, name):
    return root.get_attribute(name)


def _pointer(browser, xy, click=False):
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    a = ActionBuilder(browser)
    a.pointer_action.move_to_location(int(xy[0]), int(xy[1]))
    if click:
        a.pointer_action.click()
    a.perform()


def _center(browser, i):
    xy = browser.execute_script(
        "return document.querySelector('.pprofcore-flame').pprofcore.view.nodeCenter(arguments[0])", i
    )
    assert xy is not None, f"node {i} is not drawn"
    return xy


def _example():
    return pprofcore.load(Path(pprofcore.__file__).parent / "data" / "example-cpu.pb.gz")


def test_click_zooms_and_breadcrumb_resets(browser, tmp_path):
    fg = _example().flamegraph()
    t = fg.nodes()
    root = open_flamegraph(browser, fg, tmp_path)
    # a node a few levels down and narrower than half the root, so zooming widens it
    target = next(i for i in range(len(t)) if t["depth"][i] >= 2 and 0.05 * fg.total < t["total"][i] < 0.5 * fg.total)
    _pointer(browser, _center(browser, target), click=True)
    assert _attr(root, "data-zoom") == str(target)
    drawn = browser.execute_script(
        "var v=document.querySelector('.pprofcore-flame').pprofcore.view;"
        "var d=v.drawn;for(var k=0;k<d.length;k+=4) if(d[k]===arguments[0]) return [d[k+1],d[k+3],v.canvas.clientWidth];",  # noqa: E501
        target,
    )
    assert drawn[0] == 0 and abs(drawn[1] - drawn[2]) < 1  # the zoomed node spans the width
    crumbs = root.find_element("css selector", ".pf-crumbs").text
    path, i = [], target
    while i >= 0:
        path.append(t["name"][i])
        i = int(t["parent"][i])
    assert crumbs.split(" \u203a ") == path[::-1]
    root.find_element("css selector", ".pf-crumbs span").click()  # "root"
    assert _attr(root, "data-zoom") == "0"


def test_search_highlights_and_reports_share(browser, tmp_path):
    fg = _example().flamegraph()
    t = fg.nodes()
    root = open_flamegraph(browser, fg, tmp_path)
    box = root.find_element("css selector", "input.pf-search")
    box.clear()
    box.send_keys("^runtime\\.\n")
    count = int(_attr(root, "data-match-count"))
    share = float(_attr(root, "data-match-share"))
    rx = re.compile(r"^runtime\.")
    hit = [i > 0 and t["name"][i] != "..." and bool(rx.search(t["name"][i])) for i in range(len(t))]
    assert count == sum(hit) > 0
    covered, i = 0, 1
    ends = _subtree_ends(t)
    while i < len(t):  # outermost matches only
        if hit[i]:
            covered += int(t["total"][i])
            i = ends[i]
        else:
            i += 1
    assert abs(share - covered / fg.total) < 1e-6
    assert f"{count} matches" in root.find_element("css selector", ".pf-match").text
    box.send_keys("(")  # a broken regex says so instead of throwing
    box.send_keys("\n")
    assert "bad regex" in root.find_element("css selector", ".pf-match").text


def _subtree_ends(t):
    depth = t["depth"]
    n = len(depth)
    ends = [n] * n
    stack = []
    for i in range(n):
        while stack and depth[stack[-1]] >= depth[i]:
            ends[stack.pop()] = i
        stack.append(i)
    return ends


def test_hover_shows_tooltip(browser, tmp_path):
    p = _example()
    fg = p.flamegraph()
    t = fg.nodes()
    root = open_flamegraph(browser, fg, tmp_path)
    i = 1
    _pointer(browser, _center(browser, i))
    tip = root.find_element("css selector", ".pf-tip")
    assert tip.is_displayed()
    text = tip.text
    assert text.splitlines()[0] == t["name"][i]
    pct = 100 * int(t["total"][i]) / fg.total
    assert f"{pct:.2f}% of root" in text and "of parent" in text
    assert "file: " + t["file"][i] in text


def test_table_and_graph_are_linked_and_sandwich_opens(browser, tmp_path):
    fg = _example().flamegraph()
    root = open_flamegraph(browser, fg, tmp_path)
    row = root.find_element("css selector", "table.pf-top tbody tr")
    name = row.find_element("css selector", "td.pf-name").text
    row.click()
    assert "pf-selected" in row.get_attribute("class")
    assert _attr(root, "data-sandwich") == row.get_attribute("data-frame")
    assert name in root.find_element("css selector", ".pf-sandwich h4").text
    assert len(root.find_elements("css selector", ".pf-sandwich canvas")) == 2
    # clicking a node selects its function's row
    _pointer(browser, _center(browser, 1), click=True)
    sel = root.find_element("css selector", "table.pf-top tr.pf-selected")
    assert sel.find_element("css selector", "td.pf-name").text == fg.nodes()["name"][1]
    toggle = root.find_element("css selector", "button.pf-toggle")
    assert _attr(root, "data-orientation") == "icicle"
    toggle.click()
    assert _attr(root, "data-orientation") == "flame"


def test_diff_tooltip_has_base_new_delta(browser, tmp_path):
    new = pprofcore.from_folded("main;a 30\nmain;b 10\n", sample_type="cpu/nanoseconds")
    old = pprofcore.from_folded("main;a 10\nmain;c 20\n", sample_type="cpu/nanoseconds")
    fg = new.flamegraph(base=old, normalize=False, min_fraction=0)
    t = fg.nodes()
    root = open_flamegraph(browser, fg, tmp_path)
    c = list(t["name"]).index("c")
    _pointer(browser, _center(browser, c))  # the vanished node is drawn
    text = root.find_element("css selector", ".pf-tip").text
    assert "new: 0ns" in text and "base: 20ns" in text and "delta: -20ns (-100.00%)" in text and "vanished" in text


def test_ten_thousand_nodes_render(browser, tmp_path):
    lines = [f"main;mod{i % 50}.f{i % 7};pkg{i % 211}.g{i};leaf{i % 13} {1 + i % 5}" for i in range(12000)]
    fg = pprofcore.from_folded("\n".join(lines) + "\n").flamegraph(min_fraction=0)
    assert len(fg) > 10_000
    root = open_flamegraph(browser, fg, tmp_path, "big.html")
    assert float(_attr(root, "data-render-ms")) >= 0
    _pointer(browser, _center(browser, 1), click=True)
    assert _attr(root, "data-zoom") == "1"


def test_screenshot(browser, tmp_path, pytestconfig):
    p = _example()
    fg = p.flamegraph(title="example-cpu.pb.gz: cpu")
    root = open_flamegraph(browser, fg, tmp_path)
    box = root.find_element("css selector", "input.pf-search")
    box.send_keys("sort\\.\n")
    browser.set_window_size(1400, 1250)
    rows = root.find_elements("css selector", "table.pf-top tbody tr")
    next(r for r in rows if r.find_element("css selector", "td.pf-name").text == "main.sortWork").click()
    _pointer(browser, _center(browser, 4))
    shot = tmp_path / "flamegraph.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    if pytestconfig.getoption("--update-goldens"):
        dest = REPO / "docs" / "images" / "flamegraph.png"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, dest)
