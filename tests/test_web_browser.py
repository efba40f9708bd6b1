"""The pages in a real browser (Debian's headless Chromium through selenium): upload the bundled photo and see
its score, correct a tile in two taps and see the new total, and watch the overlay fed by a recorded video show
a discard as it comes and a win with its score.

Needs the Debian packages chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver) and the pip
package selenium (the test extra). Without them these tests fail, saying so: they are not skipped."""
from pathlib import Path

import pytest

from mjtable.pipeline import FileDetector
from mjtable.web.app import create_app
from mjtable.web.loopback import chromium, served, wait_for
from tests.test_web import Growing, Winning, make_video

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "phone_win.jpg"
pytestmark = pytest.mark.browser
def test_upload_score_and_correct_a_tile():
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    with served(create_app()) as url, chromium() as b:
        b.get(url + "/")
        Select(b.find_element(By.ID, "seat_wind")).select_by_visible_text("S")
        b.find_element(By.ID, "photo").send_keys(str(PHOTO))
        b.find_element(By.ID, "go").click()
        wait_for(lambda: b.find_element(By.ID, "total").text == "8 分", what="the total 8 分")
        assert b.find_element(By.ID, "annotated").get_attribute("src").startswith("data:image/jpeg;base64,")
        fans = [r.text for r in b.find_elements(By.CSS_SELECTOR, "#fans tbody tr")]
        assert fans and all(r.strip() for r in fans)
        assert "No violation found" in b.find_element(By.ID, "findings").text
        # tap the last tile of the concealed 7889s: the picker offers its two next likeliest kinds, then any tile
        nine = b.find_elements(By.CSS_SELECTOR, ".group.concealed .tile")[-1]
        assert nine.get_attribute("data-code") == "9s"
        nine.click()
        wait_for(lambda: b.find_element(By.ID, "picker").is_displayed(), what="the picker")
        assert len(b.find_elements(By.CSS_SELECTOR, "#picker .likely")) == 2
        assert len(b.find_elements(By.CSS_SELECTOR, "#picker .all .tile")) == 33
        # make it 7s: 7788s +8s is a pung of 8s and a pair of 7s without the closed wait: 6 分, under the minimum
        b.find_element(By.CSS_SELECTOR, '#picker .all .tile[data-code="7s"]').click()
        wait_for(lambda: "Re-scored" in b.find_element(By.ID, "status").text, what="the new score")
        assert b.find_element(By.ID, "total").text == "6 分"
        assert "under the 8-point minimum" in b.find_element(By.ID, "verdict").text
        assert "坎张" not in b.find_element(By.ID, "fans").text                      # no closed wait now
        tile = b.find_elements(By.CSS_SELECTOR, ".group.concealed .tile")[-1]
        assert tile.get_attribute("data-code") == "7s" and "corrected" in tile.get_attribute("class")
        # and back: 8 分 again
        tile.click()
        b.find_element(By.CSS_SELECTOR, '#picker .all .tile[data-code="9s"]').click()
        wait_for(lambda: b.find_element(By.ID, "total").text == "8 分", what="the total back to 8 分")
        total = b.find_element(By.ID, "total").text
        # a correction that makes an impossible hand is refused and undone
        b.find_element(By.CSS_SELECTOR, ".group.win .tile").click()
        b.find_element(By.CSS_SELECTOR, '#picker .all .tile[data-code="1m"]').click()   # a fifth 1m
        wait_for(lambda: "Not scored" in b.find_element(By.ID, "status").text, what="the refusal")
        assert b.find_element(By.CSS_SELECTOR, ".group.win .tile").get_attribute("data-code") == "8s"
        assert b.find_element(By.ID, "total").text == total


def test_a_photo_that_is_not_one_says_so(tmp_path):
    from selenium.webdriver.common.by import By
    bad = tmp_path / "<img src=x onerror=alert(1)>.jpg"
    bad.write_bytes(b"hello")
    with served(create_app(detector=FileDetector(str(ROOT / "examples" / "phone_win.json")))) as url, \
            chromium() as b:
        b.get(url + "/")
        b.find_element(By.ID, "photo").send_keys(str(bad))
        assert b.find_element(By.ID, "chosen").text == bad.name                 # shown as text, not as markup
        b.find_element(By.ID, "go").click()
        wait_for(lambda: "error" in b.find_element(By.ID, "status").get_attribute("class"), what="the refusal")
        status = b.find_element(By.ID, "status").text
        assert "image" in status and "Traceback" not in status and b.find_element(By.ID, "out").is_displayed() is False
        assert not b.find_elements(By.CSS_SELECTOR, "#chosen img")


def test_overlay_shows_a_discard_as_it_comes(tmp_path):
    from selenium.webdriver.common.by import By
    det = Growing()
    video = make_video(tmp_path / "t.avi", n=7, fps=2.0)                    # 3.5 s of a table, played live
    app = create_app(detector=det, source=str(video), kind="overhead", every=0.5)
    with served(app) as url, chromium(1280, 720) as b:
        b.get(url + "/overlay")
        wait_for(lambda: b.find_element(By.ID, "seat-self").is_displayed(), what="the self seat")
        last = wait_for(lambda: b.find_element(By.ID, "last").text, what="a discard")
        assert last.startswith("self discards")
        assert b.find_element(By.CSS_SELECTOR, "#last .tile").get_attribute("data-code") == det.last_tile
        newest = b.find_element(By.CSS_SELECTOR, "#seat-self .river .tile.newest")
        assert newest.get_attribute("data-code") == det.last_tile
        for seat in ("right", "across", "left"):
            assert b.find_elements(By.CSS_SELECTOR, f"#seat-{seat} .river .tile")
        assert b.find_elements(By.CSS_SELECTOR, "#seat-right .meld .tile")       # its melds
        bg = b.execute_script("return [getComputedStyle(document.documentElement).backgroundColor,"
                              " getComputedStyle(document.body).backgroundColor]")
        assert all(c in ("rgba(0, 0, 0, 0)", "transparent") for c in bg)
        wait_for(lambda: b.find_element(By.ID, "state").text == "source ended", timeout=20, what="the end")


def test_overlay_shows_a_win_and_its_score(tmp_path):
    from selenium.webdriver.common.by import By
    video = make_video(tmp_path / "w.avi", n=8, fps=4.0, image=PHOTO)
    app = create_app(detector=Winning(), source=str(video), kind="phone", every=0.25)
    with served(app) as url, chromium(1280, 720) as b:
        b.get(url + "/overlay")
        text = wait_for(lambda: b.find_element(By.ID, "win").text, what="the win")
        assert text.startswith("self wins: ") and "分" in text
        assert len(b.find_elements(By.CSS_SELECTOR, "#win .tile")) >= 14


def test_a_photo_without_tiles_shows_how_to_retake_it(tmp_path):
    import cv2
    import numpy as np
    from selenium.webdriver.common.by import By
    noise = tmp_path / "noise.png"
    cv2.imwrite(str(noise), np.random.default_rng(0).integers(0, 256, (480, 640, 3), dtype=np.uint8))
    with served(create_app()) as url, chromium() as b:
        b.get(url + "/")
        b.find_element(By.ID, "photo").send_keys(str(noise))
        b.find_element(By.ID, "go").click()
        wait_for(lambda: b.find_element(By.ID, "retake").is_displayed(), what="the retake advice")
        assert "could not be read" in b.find_element(By.ID, "retake-head").text
        advice = b.find_element(By.ID, "retake-advice").text
        assert "photograph the tiles from above" in advice
        assert b.find_element(By.ID, "out").is_displayed() is False             # in place of an empty result


def _win_objects() -> list[dict]:
    import json
    return json.loads((ROOT / "examples" / "phone_win.json").read_text())["objects"]


def _upload(b, url):
    """The bundled photo uploaded and read on the page at ``url``."""
    from selenium.webdriver.common.by import By
    b.get(url + "/")
    b.find_element(By.ID, "photo").send_keys(str(PHOTO))
    b.find_element(By.ID, "go").click()


def _served_as(tmp_path, objs):
    """The pages served with a detector that finds the boxes ``objs`` on any photo."""
    import json
    dets = tmp_path / "dets.json"
    dets.write_text(json.dumps(objs))
    return served(create_app(detector=FileDetector(str(dets))))


def test_a_doubtful_reading_shows_its_checks_and_the_advice(tmp_path):
    from selenium.webdriver.common.by import By
    objs = _win_objects()
    objs[0]["confidence"] = 0.4                                              # one tile read unsurely
    with _served_as(tmp_path, objs) as url, chromium() as b:
        _upload(b, url)
        wait_for(lambda: b.find_element(By.ID, "retake").is_displayed(), what="the advice")
        assert "Read unsurely" in b.find_element(By.ID, "retake-head").text
        assert "check the doubtful tiles" in b.find_element(By.ID, "retake-advice").text
        assert b.find_element(By.ID, "out").is_displayed()                     # the result stays, above it the advice


def test_a_doubt_that_names_no_tile_shows_its_reason_and_a_correction_clears_it(tmp_path):
    """The winning tile read lying sideways (as a meld's claimed tile does): the seat is doubtful with no tile
    read unsurely. The page had shown nothing of it (the box waited for advice), so the score looked final. A tile
    corrected by hand is the player's reading: the doubt box goes."""
    from selenium.webdriver.common.by import By
    objs = _win_objects()
    win = next(o for o in objs if o["group"] == "winning")
    x0, y0, x1, y1 = win["box"]
    cy, w, h = (y0 + y1) / 2, x1 - x0, y1 - y0
    win.update(box=[x0, cy - w / 2, x0 + h, cy + w / 2], orientation="sideways")
    with _served_as(tmp_path, objs) as url, chromium() as b:
        _upload(b, url)
        wait_for(lambda: b.find_element(By.ID, "retake").is_displayed(), what="the doubt")
        assert "the winning tile lies sideways" in b.find_element(By.ID, "retake-why").text
        assert "check at the table what is named" in b.find_element(By.ID, "retake-advice").text
        b.find_elements(By.CSS_SELECTOR, ".group.concealed .tile")[-1].click()
        wait_for(lambda: b.find_element(By.ID, "picker").is_displayed(), what="the picker")
        b.find_element(By.CSS_SELECTOR, '#picker .all .tile[data-code="7s"]').click()
        wait_for(lambda: "Re-scored" in b.find_element(By.ID, "status").text, what="the new score")
        assert not b.find_element(By.ID, "retake").is_displayed()


def test_the_legal_reading_is_offered_above_the_score():
    """7s read as 5s at p 0.7 (7s at 0.25) breaks the winning shape: the reading the rules allow is offered first,
    above the score of the tiles as read, with its button."""
    from selenium.webdriver.common.by import By
    from tests.test_legal import _Misread
    det = _Misread("concealed", 24, ((22, 0.7), (24, 0.25), (23, 0.03)))
    with served(create_app(detector=det)) as url, chromium() as b:
        b.get(url + "/")
        b.find_element(By.ID, "photo").send_keys(str(PHOTO))
        b.find_element(By.ID, "go").click()
        wait_for(lambda: b.find_element(By.ID, "legal").text, what="the legal reading")
        legal, total = b.find_element(By.ID, "legal"), b.find_element(By.ID, "total")
        assert "Legal reading: 7s read as 5s" in legal.text and legal.find_element(By.ID, "use-legal")
        assert legal.location["y"] < total.location["y"]


def test_the_overlay_without_a_source_says_so():
    from selenium.webdriver.common.by import By
    with served(create_app(detector=FileDetector(str(ROOT / "examples" / "overhead.json")))) as url, \
            chromium(1280, 720) as b:
        b.get(url + "/overlay")
        wait_for(lambda: "no live source" in b.find_element(By.ID, "state").text, what="the missing source")
        assert "--source" in b.find_element(By.ID, "state").text
