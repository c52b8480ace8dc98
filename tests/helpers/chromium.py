"""The headless browser of the view tests (tests/views/test_browser*.py):
Debian's chromium and chromium-driver, driven by selenium. conftest.py
registers the module-scoped `browser` fixture; a test module marks itself with
`pytestmark = requires_browser`, which skips, saying what to install, on a
machine without them."""

from __future__ import annotations

import shutil
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")

requires_browser = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs a headless browser: apt-get install chromium chromium-driver (and pip install selenium)",
)


@pytest.fixture(scope="module")
def browser():
    """A headless chromium for the module's tests (skips when it cannot start)."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium: pip install selenium")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for a in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        "--force-device-scale-factor=1",
    ):
        opts.add_argument(a)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    except Exception as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"chromium did not start: {e}")
    yield driver
    driver.quit()


def open_flamegraph(browser, fg, tmp_path, name="fg.html"):
    """Saves flame graph `fg` as a page, opens it and waits until it is drawn;
    no SEVERE console message. Returns the page's `.pprofcore-flame` element."""
    path = tmp_path / name
    fg.save(path)
    browser.get(path.as_uri())
    for _ in range(100):
        if browser.execute_script(
            "var r=document.querySelector('.pprofcore-flame');return r&&r.getAttribute('data-render-ms')"
        ):
            break
        time.sleep(0.05)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    return browser.find_element("css selector", ".pprofcore-flame")
