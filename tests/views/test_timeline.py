"""The timeline view (Profile.timeline): a flame chart over time, one lane per
thread, drawn by its inlined script in a real browser (chromium via selenium;
skipped without one); a window dragged across its axis refines the page's flame
graph and Top to what Profile.window gives; the page against a golden file;
refused for a profile without timestamps.

Regenerate the golden after an intended change with
    python -m pytest tests/views/test_timeline.py --update-goldens"""

from __future__ import annotations

from importlib import resources

import pytest
from chromium import requires_browser
from pbprofile import profile_class
from timedprofile import timed_profile, top_of

import pprofcore

BASE = 1_700_000_000_000_000_000


def _profile() -> pprofcore.Profile:
    msg = profile_class(True)()
    strings = [
        b"",
        b"cpu",
        b"nanoseconds",
        b"main",
        b"work",
        b"<idle & wait>",
        b"timestamp_ns",
        b"thread",
        b"t1",
        b"t2",
    ]
    msg.string_table.extend(strings)
    msg.sample_type.add(type=1, unit=2)
    for fid, name in ((1, 3), (2, 4), (3, 5)):
        msg.function.add(id=fid, name=name)
        msg.location.add(id=fid).line.add(function_id=fid)
    for k, (stack, thread) in enumerate([([2, 1], 8), ([3, 1], 9), ([1], 8), ([2, 1], 9)]):
        s = msg.sample.add(location_id=stack, value=[10])
        s.label.add(key=6, num=BASE + k * 1_000_000, num_unit=2)
        s.label.add(key=7, str=thread)
    return pprofcore.loads(msg.SerializeToString())


def _without_assets(text: str) -> str:
    """The page with each inlined asset replaced by its name: the golden holds
    what the page adds, the scripts are checked in chromium below."""
    assets = resources.files("pprofcore.display") / "assets"
    for name in ("flamegraph.js", "flamegraph.css", "timeline.js", "timeline.css"):
        code = (assets / name).read_text(encoding="utf-8")
        assert text.count(code) == 1, name
        text = text.replace(code, f"/* inlined: pprofcore/display/assets/{name} */")
    return text


def test_timeline_page_golden(check_golden):
    check_golden("timeline.html", _without_assets(_profile().timeline(title="a <b>").html()))


def test_timeline_page_is_self_contained(tmp_path):
    t = _profile().timeline(title="a <b>")
    assert t.lane == "thread"
    page = t.html()
    assert (
        "a &lt;b&gt;" in page and "<script src" not in page and "http://" not in page.replace("http://www.w3.org", "")
    )
    assert [s[1] for s in t.data["samples"]] == ["t1", "t2", "t1", "t2"]
    assert [[t.data["names"][f] for f in s[3]] for s in t.data["samples"]][0] == ["main", "work"]  # root first
    t.save(tmp_path / "t.html")
    with pytest.raises(ValueError, match="format"):
        t.save(tmp_path / "t.svg")


def test_timeline_needs_timestamps():
    p = pprofcore.load(pprofcore.example_path())
    with pytest.raises(ValueError, match="no timestamps"):
        p.timeline()


@requires_browser
def test_timeline_draws_in_chromium(tmp_path, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    driver = browser
    path = tmp_path / "t.html"
    _profile().timeline().save(path)
    driver.get(path.as_uri())
    svg = driver.find_element(By.ID, "timeline")
    assert svg.get_attribute("data-lanes") == "2"
    frames = driver.find_elements(By.CSS_SELECTOR, "rect.frame")
    assert len(frames) == 2 + 2 + 1 + 2  # every frame of every sample
    assert {f.get_attribute("data-name") for f in frames} == {"main", "work", "<idle & wait>"}
    lanes = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "text.lane")]
    assert lanes == ["thread=t1", "thread=t2"]
    # Later samples sit further right; hovering names the frame.
    xs = [float(f.get_attribute("x")) for f in frames if f.get_attribute("data-name") == "main"]
    assert xs == sorted(xs) or len(set(xs)) == len(xs)
    ActionChains(driver).move_to_element(frames[0]).perform()
    assert "main" in driver.find_element(By.ID, "timeline-tip").text
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def _flame_of(driver) -> tuple:
    """(total, {name: (flat, cum)}) of the page's flame graph and its Top table."""
    return tuple(
        driver.execute_script(
            "var a=document.querySelector('.pprofcore-flame').pprofcore,d=a.data,out={};"
            "d.top.forEach(function(f){out[d.names[f]]=[d.fvals.self[f],d.fvals.total[f]];});"
            "return [a.tree.total[0],out];"
        )
    )


@requires_browser
def test_timeline_window_refines_flame_graph_and_top(tmp_path, browser):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    driver = browser
    p = timed_profile()
    t = p.timeline()
    path = tmp_path / "w.html"
    t.save(path)
    driver.get(path.as_uri())
    svg = driver.find_element(By.ID, "timeline")
    assert svg.get_attribute("data-lanes") == "3"
    assert [e.text for e in driver.find_elements(By.CSS_SELECTOR, "text.lane")] == [
        "thread=t0",
        "thread=t1",
        "thread=t2",
    ]
    total, top = _flame_of(driver)
    assert total == p.total() and {k: tuple(v) for k, v in top.items()} == top_of(p)
    root = driver.find_element(By.CSS_SELECTOR, ".pprofcore-timeline")
    axis = driver.find_element(By.CSS_SELECTOR, "rect.tl-axis")
    width = axis.size["width"]
    for lo, hi in ((0.2, 0.55), (0.6, 1.0), (0.05, 0.3)):
        # Offsets are from the axis's centre: drag from lo to hi of its width.
        ActionChains(driver).move_to_element_with_offset(
            axis, int((lo - 0.5) * width), 0
        ).click_and_hold().move_by_offset(int((hi - lo) * width) - 1, 0).release().perform()
        a, b = (int(x) for x in root.get_attribute("data-window").split("-"))
        w = p.window(t.t0 + a, t.t0 + b)
        total, top = _flame_of(driver)
        assert 0 < len(w) < len(p)
        assert total == w.total() and {k: tuple(v) for k, v in top.items()} == top_of(w)
    ActionChains(driver).move_to_element(axis).click().perform()  # a click clears the window
    assert root.get_attribute("data-window") is None and _flame_of(driver)[0] == p.total()
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
