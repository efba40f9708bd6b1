"""The pages in a real browser (Debian's headless Chromium through selenium): upload the bundled photo and see
its score, correct a tile in one tap and see the new total, and watch the overlay fed by a recorded video."""
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest
import uvicorn

from mjtable.vision.web.app import create_app
from tests.test_web import Growing, make_video

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def _serve(app):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    assert Path(CHROMIUM).exists() and Path(DRIVER).exists(), \
        "Debian's chromium and chromium-driver are needed: the README's test command installs them"
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="mjtable-chromium-")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
              f"--user-data-dir={profile}", "--window-size=420,900"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _wait(pred, timeout=60.0):
    end = time.time() + timeout
    while time.time() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_upload_score_and_correct_a_tile(browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    server, url = _serve(create_app())
    try:
        browser.get(url + "/")
        Select(browser.find_element(By.NAME, "seat_wind")).select_by_visible_text("S")
        browser.find_element(By.ID, "photo").send_keys(str(ROOT / "examples" / "phone_win.jpg"))
        browser.find_element(By.ID, "go").click()
        _wait(lambda: "8 分" in browser.find_element(By.ID, "total").text)
        # tap the winning tile (8s) and make it 9s: the hand 7889s +9s keeps its shape, the fans change
        win = browser.find_element(By.CSS_SELECTOR, ".group.win .tile")
        assert win.get_attribute("title") == "8s"
        win.click()
        _wait(lambda: browser.find_element(By.ID, "picker").is_displayed())
        browser.find_element(By.CSS_SELECTOR, '#picker .tile[data-code="9s"]').click()
        _wait(lambda: "Re-scored" in browser.find_element(By.ID, "status").text)
        total = browser.find_element(By.ID, "total").text
        assert total and total != "8 分"
        assert browser.find_element(By.CSS_SELECTOR, ".group.win .tile").get_attribute("title") == "9s"
    finally:
        server.should_exit = True


def test_overlay_shows_a_discard(browser, tmp_path):
    from selenium.webdriver.common.by import By
    app = create_app(detector=Growing(), source=str(make_video(tmp_path / "t.avi")), kind="overhead")
    server, url = _serve(app)
    try:
        browser.get(url + "/overlay")
        last = _wait(lambda: browser.find_element(By.ID, "last").text)
        assert "self discards" in last
        assert _wait(lambda: browser.find_element(By.ID, "seat-self").text).count("River") == 1
        bg = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
        assert bg in ("rgba(0, 0, 0, 0)", "transparent")
    finally:
        server.should_exit = True
