"""Screenshots of ``mjtable serve`` for the docs, taken in Debian's headless Chromium (selenium):

    python -m mjtable.scripts.serve_screenshots [--out docs]

- serve_page.png: the phone page (420 px wide) after reading examples/phone_win.jpg with seat wind S.
- overlay.png: the overlay (1280 x 720) fed by a short video of examples/overhead.jpg whose last discard comes
  late, composited over that frame as OBS would show it over the camera.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
         "--hide-scrollbars", "--force-device-scale-factor=1")


@contextlib.contextmanager
def _served(app):
    import uvicorn
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        t.join(10)


@contextlib.contextmanager
def _chromium(width: int, height: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="mjtable-chromium-")
    for a in FLAGS + (f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=opts)
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(pred, timeout=30.0):
    end = time.time() + timeout
    while time.time() < end:
        try:
            if pred():
                return
        except Exception:
            pass
        time.sleep(0.1)
    raise RuntimeError("timed out")


def page_shot(out: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from mjtable.vision.web.app import create_app
    with _served(create_app()) as url, _chromium(420, 900) as b:
        b.get(url + "/")
        Select(b.find_element(By.ID, "seat_wind")).select_by_visible_text("S")
        b.find_element(By.ID, "photo").send_keys(str(ROOT / "examples" / "phone_win.jpg"))
        b.find_element(By.ID, "go").click()
        _wait(lambda: b.find_element(By.ID, "total").text == "8 分")
        b.find_elements(By.CSS_SELECTOR, ".group.concealed .tile")[-1].click()     # the picker open
        _wait(lambda: b.find_element(By.ID, "picker").is_displayed())
        for _ in range(3):                                   # the whole page, as tall as it is laid out
            height = b.execute_script("return document.documentElement.scrollHeight")
            b.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": 420, "height": min(height, 3000), "deviceScaleFactor": 1, "mobile": True})
            time.sleep(0.2)
        b.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)
        png = b.get_screenshot_as_png()
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    cv2.imwrite(str(out), img, [cv2.IMWRITE_PNG_COMPRESSION, 9])


class _Growing:
    """The overhead example's boxes; the self seat's last discard appears from the fourth read frame on."""

    def __init__(self):
        from mjtable.vision.pipeline import FileDetector
        gt = json.loads((ROOT / "examples" / "overhead.json").read_text())
        self.full = FileDetector(str(ROOT / "examples" / "overhead.json")).dets
        last = max(i for i, o in enumerate(gt["objects"]) if o["seat"] == "self" and o["group"] == "discard")
        self.before = [d for i, d in enumerate(self.full) if i != last]
        self.calls = 0

    def detect(self, img, kind="auto"):
        self.calls += 1
        return list(self.before if self.calls <= 3 else self.full)


def overlay_shot(out: Path) -> None:
    from selenium.webdriver.common.by import By

    from mjtable.vision.web.app import create_app
    frame = cv2.imread(str(ROOT / "examples" / "overhead.jpg"))
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "table.avi"
        vw = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 2.0, (frame.shape[1], frame.shape[0]))
        for _ in range(16):
            vw.write(frame)
        vw.release()
        app = create_app(detector=_Growing(), source=str(video), kind="overhead", every=0.5)
        with _served(app) as url, _chromium(1280, 720) as b:
            b.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
            b.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride",
                              {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
            b.get(url + "/overlay")
            _wait(lambda: b.find_element(By.ID, "last").text)
            time.sleep(0.5)
            png = b.get_screenshot_as_png()
    fg = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    h, w = fg.shape[:2]
    bg = cv2.resize(frame, (h, h))                                   # the camera, centred, as OBS would show it
    bg = cv2.GaussianBlur(bg, (0, 0), 4)                           # (softened: a small file)
    canvas = np.full((h, w, 3), 40, np.uint8)
    x = (w - h) // 2
    canvas[:, x:x + h] = bg
    if fg.shape[2] == 4:
        a = fg[:, :, 3:4].astype(np.float32) / 255
        canvas = (fg[:, :, :3] * a + canvas * (1 - a)).astype(np.uint8)
    else:
        canvas = fg
    cv2.imwrite(str(out), canvas, [cv2.IMWRITE_PNG_COMPRESSION, 9])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    page_shot(a.out / "serve_page.png")
    overlay_shot(a.out / "overlay.png")
    for name in ("serve_page.png", "overlay.png"):
        p = a.out / name
        print(f"{p}: {p.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
