"""Screenshots of ``mjtable serve`` for the docs, taken in Debian's headless Chromium (selenium):

    python -m scripts.serve_screenshots [--out docs]

- serve_page.png: the phone page (420 px wide) after reading examples/phone_win.jpg with seat wind S.
- overlay.png: the overlay (1280 x 720) fed by a short video of examples/overhead.jpg whose last discard comes
  late, composited over that frame as OBS would show it over the camera.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from mjtable.web.loopback import chromium, served, wait_for

ROOT = Path(__file__).resolve().parent.parent
SHOT_FLAGS = ("--hide-scrollbars", "--force-device-scale-factor=1")


def page_shot(out: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from mjtable.web.app import create_app
    with served(create_app()) as url, chromium(420, 900, SHOT_FLAGS) as b:
        b.get(url + "/")
        Select(b.find_element(By.ID, "seat_wind")).select_by_visible_text("S")
        b.find_element(By.ID, "photo").send_keys(str(ROOT / "examples" / "phone_win.jpg"))
        b.find_element(By.ID, "go").click()
        wait_for(lambda: b.find_element(By.ID, "total").text == "8 分", what="the total")
        b.find_elements(By.CSS_SELECTOR, ".group.concealed .tile")[-1].click()     # the picker open
        wait_for(lambda: b.find_element(By.ID, "picker").is_displayed(), what="the picker")
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
        from mjtable.pipeline import FileDetector
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

    from mjtable.web.app import create_app
    frame = cv2.imread(str(ROOT / "examples" / "overhead.jpg"))
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "table.avi"
        vw = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 2.0, (frame.shape[1], frame.shape[0]))
        for _ in range(16):
            vw.write(frame)
        vw.release()
        app = create_app(detector=_Growing(), source=str(video), kind="overhead", every=0.5)
        with served(app) as url, chromium(1280, 720, SHOT_FLAGS) as b:
            b.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False})
            b.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride",
                              {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
            b.get(url + "/overlay")
            wait_for(lambda: b.find_element(By.ID, "last").text, what="a discard")
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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs")
    return ap


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    page_shot(a.out / "serve_page.png")
    overlay_shot(a.out / "overlay.png")
    for name in ("serve_page.png", "overlay.png"):
        p = a.out / name
        print(f"{p}: {p.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
