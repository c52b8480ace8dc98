"""The explorer's Timeline view and its time window (``tw=START-END``, ns since
the epoch): the state round-trips through the URL, every view of a windowed
state equals the Python API's Profile.window, the Timeline tab is offered only
for profiles with timestamps, and in chromium a drag across the timeline's
axis sets the window that the other views then show."""

from __future__ import annotations

import warnings
from urllib.parse import parse_qs, urlparse

import pytest
from explorer_page import page_attr, wait_drawn

pytest.importorskip("starlette", reason="needs pprofcore[web]: pip install starlette uvicorn httpx")
pytest.importorskip("httpx", reason="the Starlette test client needs httpx")

from chromium import requires_browser  # noqa: E402
from timedprofile import timed_profile  # noqa: E402

import pprofcore  # noqa: E402
from pprofcore.web import Session, State, create_app  # noqa: E402

with warnings.catch_warnings():  # Starlette >= 0.47 would rather have httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402


@pytest.fixture(scope="module")
def timed():
    return timed_profile(n=80, seed=3)


@pytest.fixture(scope="module")
def client(timed):
    return TestClient(create_app(Session([("timed", timed)]), hosts=["testserver"]))


def _window(p: pprofcore.Profile, lo: float, hi: float):
    """(start, end) ns between the first and last sample at fractions lo and hi."""
    ts = p.timestamps
    first, last = int(ts.min()), int(ts.max())
    return first + int((last - first) * lo), first + int((last - first) * hi)


def test_time_window_state():
    st = State.from_query({"tw": "100-200"})
    assert st.window() == (100, 200) and st.to_query() == "tw=100-200"
    assert State.from_query({"tw": "-200"}).window() == (None, 200)
    assert State.from_query({"tw": "5-"}).window() == (5, None)
    for bad in ("a-b", "1", "1-2-3", "9" * 25 + "-1"):
        with pytest.raises(ValueError, match="tw="):
            State.from_query({"tw": bad})


@pytest.mark.parametrize("view", ["top", "flamegraph", "graph", "labels"])
def test_every_view_keeps_the_window(client, timed, view):
    lo, hi = _window(timed, 0.25, 0.6)
    w = timed.window(lo, hi)
    assert 0 < len(w) < len(timed)
    d = client.get(f"/ui/data/{view}?tw={lo}-{hi}").json()
    assert "error" not in d and d["total"] == w.total()
    if view == "top":
        assert [r["cum"] for r in d["rows"]] == w.top()["cum"].tolist()


def test_timeline_view_draws_the_whole_profile_and_the_window(client, timed):
    meta = client.get("/ui/").text
    assert '"timestamps":true' in meta
    t = timed.timeline()
    d = client.get("/ui/data/timeline").json()
    assert d["timeline"]["samples"] == t.data["samples"] and d["t0"] == str(t.t0) and d["window"] is None
    lo, hi = _window(timed, 0.1, 0.2)
    d = client.get(f"/ui/data/timeline?tw={lo}-{hi}").json()
    assert d["timeline"]["samples"] == t.data["samples"]  # the lanes show where the window lies
    assert d["window"] == [lo - t.t0, hi - t.t0] and d["total"] == timed.window(lo, hi).total()


def test_profiles_without_timestamps():
    c = TestClient(create_app(Session([("plain", pprofcore.load(pprofcore.example_path()))]), hosts=["testserver"]))
    assert '"timestamps":false' in c.get("/ui/").text
    assert "no timestamps" in c.get("/ui/data/timeline").json()["error"]
    r = c.get("/ui/data/top?tw=1-2")
    assert r.status_code == 400 and "no timestamps" in r.json()["error"]


# ------------------------------------------------------------------ chromium
@pytest.fixture(scope="module")
def server(timed):
    from pprofcore.web._serve import start_in_thread

    srv, url = start_in_thread(Session([("timed", timed)]))
    yield url
    srv.should_exit = True


@requires_browser
def test_drag_on_the_timeline_windows_every_view(browser, server, timed):
    from selenium.webdriver.common.action_chains import ActionChains

    browser.get(server + "timeline")
    wait_drawn(browser)
    svg = browser.find_element("css selector", ".pprofcore-timeline svg.tl-lanes")
    assert svg.get_attribute("data-lanes") == "3"
    axis = browser.find_element("css selector", "rect.tl-axis")
    width = axis.size["width"]
    before = page_attr(browser, "data-loaded")
    ActionChains(browser).move_to_element_with_offset(axis, int(-0.3 * width), 0).click_and_hold().move_by_offset(
        int(0.4 * width), 0
    ).release().perform()
    wait_drawn(browser, before)
    tw = parse_qs(urlparse(browser.current_url).query)["tw"][0]
    lo, hi = (int(x) for x in tw.split("-"))
    w = timed.window(lo, hi)
    assert 0 < len(w) < len(timed)
    assert int(page_attr(browser, "data-total")) == w.total()
    assert browser.find_element("css selector", "rect.tl-window").is_displayed()  # the window stays drawn
    before = page_attr(browser, "data-loaded")
    browser.find_element("css selector", '.px-tab[data-view="top"]').click()
    wait_drawn(browser, before)
    assert "tw=" in browser.current_url and int(page_attr(browser, "data-total")) == w.total()
    rows = browser.find_elements("css selector", ".px-top tbody tr")
    assert [int(r.get_attribute("data-cum")) for r in rows] == w.top()["cum"].tolist()
    chips = [c.text for c in browser.find_elements("css selector", ".px-chip-value")]
    assert chips == [tw]
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]
    assert not errors, errors
