"""The explorer in a real browser (Debian's chromium, headless, through
selenium), against a server on a thread: each view opens, the sample type
switches, a click refines (Top rows, graph nodes, flame graph nodes), a label
filter applies, back/forward and a reloaded URL give the same view, and the
numbers on the page equal the Python API's for the same state. Hostile names
run no script and break no view. One server and one browser for the module
(tools/explorer_screenshots.py makes the screenshots of docs/explorer.md)."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from explorer_page import page_attr, wait_drawn

pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn")
pytest.importorskip("uvicorn", reason="needs pprofcore[web]: pip install starlette uvicorn")

import explorer_data as ed  # noqa: E402
from chromium import requires_browser  # noqa: E402

from pprofcore.web import Session  # noqa: E402
from pprofcore.web._serve import start_in_thread  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
pytestmark = requires_browser  # the `browser` fixture: tests/helpers/chromium.py


@pytest.fixture(scope="module")
def plain():
    return ed.plain()


@pytest.fixture(scope="module")
def server(plain, tmp_path_factory):
    root = ed.source_tree(tmp_path_factory.mktemp("src"))
    session = Session([("plain", plain), ("half", plain.scale(0.5))], source_path=str(root))
    srv, url = start_in_thread(session)
    yield url
    srv.should_exit = True


@pytest.fixture(scope="module")
def hostile_server():
    srv, url = start_in_thread(Session([("hostile", ed.hostile())]))
    yield url
    srv.should_exit = True


def _open(browser, url):
    browser.get(url)
    wait_drawn(browser)


def _params(browser):
    return {k: v[0] for k, v in parse_qs(urlparse(browser.current_url).query).items()}


def _errors(browser):
    return [e.text for e in browser.find_elements("css selector", ".px-notes .px-error")]


def _console_errors(browser):
    return [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]


def _total(browser):
    return int(page_attr(browser, "data-total"))


@pytest.mark.parametrize(
    "path, selector",
    [
        ("", ".px-graph svg g.node"),
        ("top", ".px-top tbody tr"),
        ("flamegraph", ".pprofcore-flame canvas"),
        ("peek?f=work", ".px-peek tr.px-peek-node"),
        ("source?f=%5Emain%24", ".px-listing tr"),
        ("labels", ".px-label-key"),
    ],
)
def test_each_view_opens(browser, server, path, selector):
    _open(browser, server + path)
    assert browser.find_elements("css selector", selector), f"{path}: nothing drawn"
    assert not _errors(browser)
    assert not _console_errors(browser)


def test_disasm_without_binaries_says_why(browser, server):
    _open(browser, server + "disasm?f=main")
    assert _errors(browser)  # no binaries known: the view says so, nothing breaks
    assert not _console_errors(browser)


def test_top_numbers_equal_the_python_api(browser, server, plain):
    _open(browser, server + "top?si=samples&sort=cum")
    rows = browser.find_elements("css selector", ".px-top tbody tr")
    want = plain.top(sample_type="samples", sort="cum")
    assert [int(r.get_attribute("data-cum")) for r in rows] == want["cum"].tolist()
    assert [r.find_element("css selector", ".px-name").get_attribute("title") for r in rows] == list(want["name"])
    assert _total(browser) == plain.total("samples")


def test_switch_sample_type_in_every_view(browser, server, plain):
    from selenium.webdriver.support.ui import Select

    for path in ("top", "flamegraph", ""):
        _open(browser, server + path)
        assert _total(browser) == plain.total("cpu")
        before = page_attr(browser, "data-loaded")
        Select(browser.find_element("css selector", ".px-si")).select_by_value("samples")
        wait_drawn(browser, before)
        assert _params(browser)["si"] == "samples"
        assert _total(browser) == plain.total("samples")


def test_refine_by_clicking_top_rows_then_back_forward_and_reload(browser, server, plain):
    _open(browser, server + "top")
    first_url = browser.current_url
    for name in ("hash", "io"):
        browser.find_element("css selector", f'.px-top td.px-name[title="{name}"]').click()
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", ".px-refine-f").click()
    wait_drawn(browser, before)
    assert _params(browser)["f"] == "^hash$|^io$"
    want = plain.filter(focus="^hash$|^io$").total()
    assert _total(browser) == want
    refined_url = browser.current_url
    before = page_attr(browser, "data-loaded")
    browser.back()
    wait_drawn(browser, before)
    assert browser.current_url == first_url and _total(browser) == plain.total()
    before = page_attr(browser, "data-loaded")
    browser.forward()
    wait_drawn(browser, before)
    assert browser.current_url == refined_url and _total(browser) == want
    _open(browser, refined_url)  # a copied link reproduces the view
    assert _total(browser) == want
    chips = [c.text for c in browser.find_elements("css selector", ".px-chip-value")]
    assert chips == ["^hash$|^io$"]


def test_refine_by_clicking_a_graph_node(browser, server, plain):
    _open(browser, server + "?si=samples")
    browser.execute_script(
        "document.querySelector('.px-graph g.node[data-name=\"compress\"]')"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}))"
    )
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", ".px-refine-i").click()
    wait_drawn(browser, before)
    assert _params(browser)["i"] == "^compress$"
    assert _total(browser) == plain.filter(ignore="^compress$").total("samples")
    assert not browser.find_elements("css selector", '.px-graph g.node[data-name="compress"]')


def test_graph_drawing_equals_the_python_api_and_its_golden(browser, server, plain, check_golden):
    _open(browser, server + "?si=samples&q=work")
    want = plain.callgraph("samples")
    nodes = browser.find_elements("css selector", ".px-graph g.node")
    assert [n.get_attribute("data-name") for n in nodes] == list(want.nodes()["name"])
    assert [int(n.get_attribute("data-cum")) for n in nodes] == want.nodes()["cum"].tolist()
    assert len(browser.find_elements("css selector", ".px-graph g.edge path")) == len(want.edges()["src"])
    matched = browser.find_elements("css selector", ".px-graph g.node.px-match")
    assert [n.get_attribute("data-name") for n in matched] == ["work"]  # the search is highlighted
    svg = browser.execute_script("return document.querySelector('.px-graph svg').outerHTML")
    check_golden("explorer-graph.svg", svg.replace(" px-match", "") + "\n")


def test_refine_by_clicking_the_flame_graph(browser, server, plain):
    from selenium.webdriver.common.action_chains import ActionChains

    _open(browser, server + "flamegraph")
    # the node of "work": find it through the viewer, click at its centre
    xy = browser.execute_script(
        "var app = document.querySelector('.pprofcore-flame').pprofcore, d = app.data;"
        "for (var i = 0; i < app.tree.n; i++) if (d.names[app.tree.frame[i]] === 'work') {"
        "  var c = app.view.nodeCenter(i), r = app.view.canvas.getBoundingClientRect();"
        "  return [c[0] - r.left - r.width / 2, c[1] - r.top - r.height / 2]; }"
    )
    canvas = browser.find_element("css selector", ".pprofcore-flame canvas")
    ActionChains(browser).move_to_element_with_offset(canvas, int(xy[0]), int(xy[1])).click().perform()
    assert page_attr(browser, "data-selection") == "1"
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", ".px-refine-h").click()
    wait_drawn(browser, before)
    assert _params(browser)["h"] == "^work$"
    names = browser.execute_script("return document.querySelector('.pprofcore-flame').pprofcore.data.names")
    assert "work" not in names
    assert _total(browser) == plain.filter(hide="^work$").total()


def test_label_filter(browser, server, plain):
    _open(browser, server + "labels")
    rows = browser.find_elements("css selector", '.px-label-key[data-key="endpoint"] tr')
    row = next(r for r in rows if r.find_element("css selector", ".px-name").text == "/api/zip")
    before = page_attr(browser, "data-loaded")
    row.find_element("css selector", ".px-tag-tf").click()
    wait_drawn(browser, before)
    tf = _params(browser)["tf"]
    assert _total(browser) == plain.filter(tagfocus=tf).total() == 600
    # the picker in the bar offers the values present under the current filters
    from selenium.webdriver.support.ui import Select

    _open(browser, server + "top")
    browser.find_element("css selector", ".px-lkey").click()
    deadline = time.monotonic() + 10
    while len(Select(browser.find_element("css selector", ".px-lkey")).options) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    Select(browser.find_element("css selector", ".px-lkey")).select_by_value("endpoint")
    before = page_attr(browser, "data-loaded")
    Select(browser.find_element("css selector", ".px-lval")).select_by_visible_text("/api/io (20.66%)")
    wait_drawn(browser, before)
    assert _total(browser) == plain.filter(tagfocus=_params(browser)["tf"]).total() == 250


def test_search_highlights_and_compare(browser, server, plain):
    from selenium.webdriver.support.ui import Select

    _open(browser, server + "top")
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", ".px-search").send_keys("^(hash|io)$\n")
    wait_drawn(browser, before)
    assert _params(browser)["q"] == "^(hash|io)$"
    assert len(browser.find_elements("css selector", ".px-top tr.px-match")) == 2
    before = page_attr(browser, "data-loaded")
    Select(browser.find_element("css selector", ".px-compare")).select_by_value("1")
    wait_drawn(browser, before)
    assert _params(browser)["cmp"] == "1"
    assert _total(browser) == plain.diff(plain.scale(0.5)).total()
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", '.px-tabs a[data-view="flamegraph"]').click()
    wait_drawn(browser, before)
    assert _params(browser)["cmp"] == "1"  # the comparison follows to every view
    data = browser.execute_script("return document.querySelector('.pprofcore-flame').pprofcore.data")
    assert data["diff"] and data["total"][0] == plain.total()


@pytest.mark.parametrize("path", ["", "top", "flamegraph", "peek?q=main", "source?q=main", "labels"])
def test_hostile_names_run_no_script(browser, hostile_server, path):
    _open(browser, hostile_server + path)
    assert browser.execute_script("return window.__pwned") is None
    assert not _console_errors(browser)
    if path == "top":
        names = {e.get_attribute("title") for e in browser.find_elements("css selector", ".px-top td.px-name")}
        assert set(ed.HOSTILE_NAMES) <= names


def test_widget_script_with_a_model(browser, server, plain):
    """widget.js's render against a stand-in for anywidget's model that answers
    `request` the way ExplorerWidget does (here from the server's data)."""
    from pprofcore.web._widget import _esm

    esm = _esm().replace("export default { render };", "window.__pxRender = render;")
    _open(browser, server + "top")
    browser.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})  # the test injects its own script
    browser.execute_script(esm)
    browser.execute_script(
        """
        var traits = {view: "top", query: "si=samples", meta: document.getElementById("px-meta").textContent,
                      payload: "", request: {}}, handlers = {};
        var model = {
          get: function (k) { return traits[k]; },
          set: function (k, v) { traits[k] = v; },
          on: function (e, f) { (handlers[e] = handlers[e] || []).push(f); },
          save_changes: function () {
            var r = traits.request;
            if (r.seq && r.seq !== window.__answered) {
              window.__answered = r.seq;
              fetch("/ui/data/" + r.view + "?" + r.query).then(function (x) { return x.json(); }).then(function (d) {
                traits.payload = JSON.stringify({seq: r.seq, data: d});
                (handlers["change:payload"] || []).forEach(function (f) { f(); });
              });
            }
          }
        };
        window.__pxModel = traits;
        var host = document.createElement("div"); host.id = "widget-host";
        document.body.textContent = ""; document.body.appendChild(host);
        window.__pxRender({model: model, el: host});
        """
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not browser.find_elements("css selector", ".px-widget .px-top tbody tr"):
        time.sleep(0.05)
    rows = browser.find_elements("css selector", ".px-widget .px-top tbody tr")
    assert [int(r.get_attribute("data-flat")) for r in rows] == plain.top("samples")["flat"].tolist()
    browser.find_element("css selector", '.px-widget td.px-name[title="hash"]').click()
    browser.find_element("css selector", ".px-widget .px-refine-f").click()
    assert browser.execute_script("return window.__pxModel.query") == "si=samples&f=%5Ehash%24"


def test_a_selection_opens_peek_and_source(browser, server):
    _open(browser, server + "top")
    browser.find_element("css selector", '.px-top td.px-name[title="work"]').click()
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", '.px-tabs a[data-view="peek"]').click()
    wait_drawn(browser, before)
    assert urlparse(browser.current_url).path == "/ui/peek" and _params(browser)["f"] == "^work$"
    node = browser.find_element("css selector", ".px-peek tr.px-peek-node .px-name")
    assert node.text == "work"
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", '.px-tabs a[data-view="source"]').click()
    wait_drawn(browser, before)
    assert browser.find_elements("css selector", ".px-listing tr.px-hot")
    assert not browser.find_element("css selector", '.px-tabs a[data-view="disasm"]').is_displayed()


def test_flame_graph_names_are_shortened_package_first(browser, server):
    _open(browser, server + "flamegraph")
    forms = browser.execute_script(
        "return ['github.com/a/b/pkg.(*T).Method', 'com.example.app.Main.run', 'ns::C::m']"
        ".map(window.pprofcoreExplorer.shortNames)"
    )
    assert forms[0] == ["github.com/a/b/pkg.(*T).Method", "pkg.(*T).Method"]
    assert forms[1][-1] == "Main.run" and forms[2][-1] == "C::m"
