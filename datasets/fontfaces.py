"""Tile faces drawn from the CJK fonts in Debian: the characters, winds, dragons, seasons and flowers, the faces
that differ most between real sets.

``render_set(seed)`` gives one made-up set, ``{tile id: BGR face}`` for ids 0-8 and 27-41 (the dots and bamboo
come from a packaged art source, ``tileart``). Each set picks, from its seed: the fonts (Noto Sans / Serif CJK
regular and bold, WenQuanYi Micro Hei / Zen Hei, AR PL UKai / UMing; Debian packages), traditional or
simplified characters (萬/万, 東/东, 發/发, 蘭/兰), ink colours, the face colour, corner indices (an Arabic
numeral, a wind's letter, a flower's number, or none), and the flowers' layout: a large character with its
number in a corner, or a drawn plant with a small character and the number in the corners (as on sets whose
flowers are pictures). The plant is random, so only the character and the number tell the flowers apart.
"""
from __future__ import annotations

import random
from functools import lru_cache

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.system_files import require

FACE_W, FACE_H = 72, 96          # as tileart's
SCALE = 3                        # drawn at 3x, then scaled down (smooth strokes)
# mjtable.system_files names -> face index in the collection (Noto's 2 is its Simplified Chinese face)
FONT_FILES = (("noto_sans_cjk", 2), ("noto_sans_cjk_bold", 2), ("noto_serif_cjk", 2), ("noto_serif_cjk_bold", 2),
              ("wqy_microhei", 0), ("wqy_zenhei", 0), ("arphic_ukai", 0), ("arphic_uming", 0))
NUMERALS = "一二三四五六七八九"
WIND_LETTERS = "ESWN"
# simplified, traditional
WAN = ("万", "萬")
WINDS = (("东", "南", "西", "北"), ("東", "南", "西", "北"))
GREEN = ("发", "發")
SEASONS = "春夏秋冬"
FLOWERS = (("梅", "兰", "菊", "竹"), ("梅", "蘭", "菊", "竹"))
# BGR inks
BLACK, BLUE, GREEN_INK, RED = (30, 30, 30), (150, 60, 20), (50, 120, 20), (40, 40, 200)
INKS = (BLACK, BLUE, GREEN_INK, (90, 40, 20), (20, 80, 20))
FACES = ((238, 240, 236), (225, 238, 245), (245, 245, 245), (210, 232, 240), (200, 225, 215))


def fonts() -> list[tuple[str, int]]:
    """(file, face index) of the installed fonts of FONT_FILES, all of them required (the README's test
    command installs them): SystemFileMissing naming the package otherwise."""
    return [(str(require(name)), index) for name, index in FONT_FILES]


@lru_cache(maxsize=64)
def _font(path: str, index: int, size: int):
    from PIL import ImageFont
    return ImageFont.truetype(path, size, index=index)


def _text(canvas: np.ndarray, text: str, font: tuple, colour, centre, height: float) -> None:
    """Draw ``text`` on the BGR canvas, its ink ``height`` px tall, centred on ``centre`` (x, y)."""
    from PIL import Image, ImageDraw
    size = max(8, int(height * 1.25))
    f = _font(font[0], font[1], size)
    x0, y0, x1, y1 = f.getbbox(text)
    if x1 <= x0 or y1 <= y0:
        return
    k = height / (y1 - y0)
    if abs(k - 1) > 0.05:
        f = _font(font[0], font[1], max(8, int(size * k)))
        x0, y0, x1, y1 = f.getbbox(text)
    mask = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
    ImageDraw.Draw(mask).text((2 - x0, 2 - y0), text, font=f, fill=255)
    m = np.asarray(mask, np.float32)[..., None] / 255.0
    h, w = m.shape[:2]
    cx, cy = int(centre[0] - w / 2), int(centre[1] - h / 2)
    ya, xa = max(0, cy), max(0, cx)
    yb, xb = min(canvas.shape[0], cy + h), min(canvas.shape[1], cx + w)
    if yb <= ya or xb <= xa:
        return
    m = m[ya - cy:yb - cy, xa - cx:xb - cx]
    part = canvas[ya:yb, xa:xb].astype(np.float32)
    canvas[ya:yb, xa:xb] = (part * (1 - m) + np.array(colour, np.float32) * m).astype(np.uint8)


def _plant(canvas: np.ndarray, rng: random.Random, box) -> None:
    """A made-up flowering plant inside ``box`` (x0, y0, x1, y1): stems, leaves and blossoms in random colours."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    stem = rng.choice((GREEN_INK, (40, 100, 60), (60, 90, 30), BLUE))
    t = max(2, SCALE * 2)
    for _ in range(rng.randint(1, 3)):
        pts = [(x0 + rng.uniform(0.3, 0.7) * w, y1)]
        for _ in range(3):
            px, py = pts[-1]
            pts.append((px + rng.uniform(-0.25, 0.25) * w, py - rng.uniform(0.2, 0.35) * h))
        cv2.polylines(canvas, [np.int32(pts)], False, stem, t, cv2.LINE_AA)
        for px, py in pts[1:]:
            if rng.random() < 0.6:
                ax = (int(rng.uniform(0.08, 0.16) * w), int(rng.uniform(0.03, 0.06) * h))
                cv2.ellipse(canvas, (int(px), int(py)), ax, rng.uniform(0, 180), 0, 360, stem, -1, cv2.LINE_AA)
    petals = rng.choice((RED, (150, 80, 220), (40, 160, 230), BLUE, (90, 40, 160)))
    for _ in range(rng.randint(1, 4)):
        cx, cy = x0 + rng.uniform(0.15, 0.85) * w, y0 + rng.uniform(0.1, 0.6) * h
        r = rng.uniform(0.07, 0.14) * w
        for a in range(rng.choice((4, 5, 6))):
            ang = a * 2 * np.pi / 5 + rng.uniform(0, 0.5)
            cv2.circle(canvas, (int(cx + r * np.cos(ang)), int(cy + r * np.sin(ang))), int(r * 0.7), petals, -1,
                       cv2.LINE_AA)
        cv2.circle(canvas, (int(cx), int(cy)), max(1, int(r * 0.4)), (40, 180, 230), -1, cv2.LINE_AA)


def render_set(seed: int) -> dict[int, np.ndarray]:
    """One made-up set's faces for tile ids 0-8 (characters), 27-33 (winds, dragons) and 34-41 (flowers)."""
    rng = random.Random(seed)
    available = fonts()
    main = rng.choice(available)
    small = rng.choice(available)
    trad = rng.random() < 0.6
    face = rng.choice(FACES)
    num_ink = rng.choice(INKS)
    wind_ink = rng.choice(INKS)
    corner = rng.choice((None, "left", "right"))
    corner_ink = rng.choice((RED, BLUE, BLACK, GREEN_INK))
    pictures = rng.random() < 0.5                    # flowers drawn as plants, or as large characters
    W, H = FACE_W * SCALE, FACE_H * SCALE
    out = {}

    def blank():
        return np.full((H, W, 3), face, np.uint8)

    def index(c, text):
        if corner:
            x = W * (0.18 if corner == "left" else 0.82)
            _text(c, text, small, corner_ink, (x, H * 0.13), H * rng.uniform(0.11, 0.15))

    top = rng.uniform(0.28, 0.36)
    for r in range(9):                              # characters: the numeral over 萬
        c = blank()
        _text(c, NUMERALS[r], main, num_ink, (W / 2, H * top), H * rng.uniform(0.26, 0.34) * (0.5 if r == 0 else 1))
        _text(c, WAN[trad], main, RED, (W / 2, H * 0.70), H * rng.uniform(0.36, 0.44))
        index(c, str(r + 1))
        out[T.make(T.MAN, r + 1)] = c
    for i, ch in enumerate(WINDS[trad]):
        c = blank()
        _text(c, ch, main, wind_ink, (W / 2, H / 2), H * rng.uniform(0.5, 0.62))
        index(c, WIND_LETTERS[i])
        out[T.EAST + i] = c
    white = blank()
    kind = rng.choice(("frame", "frame", "blank", "char"))
    if kind == "frame":
        ink = rng.choice((BLUE, (170, 110, 40), GREEN_INK))
        m = int(W * rng.uniform(0.1, 0.18))
        cv2.rectangle(white, (m, m), (W - m, H - m), ink, max(2, int(W * 0.04)))
        if rng.random() < 0.5:
            m2 = m + int(W * 0.08)
            cv2.rectangle(white, (m2, m2), (W - m2, H - m2), ink, max(1, int(W * 0.02)))
    elif kind == "char":
        _text(white, "白", main, rng.choice((BLUE, BLACK)), (W / 2, H / 2), H * 0.5)
    out[T.WHITE] = white
    green = blank()
    _text(green, GREEN[trad], main, GREEN_INK, (W / 2, H / 2), H * rng.uniform(0.5, 0.62))
    out[T.GREEN] = green
    red = blank()
    _text(red, "中", main, RED, (W / 2, H / 2), H * rng.uniform(0.5, 0.62))
    out[T.RED] = red
    names = SEASONS + "".join(FLOWERS[trad])
    flower_ink = rng.choice(INKS + (RED,))
    number_side = rng.choice(("left", "right"))
    for i, ch in enumerate(names):
        c = blank()
        n = str(i % 4 + 1)
        nx = W * (0.18 if number_side == "left" else 0.82)
        if pictures:
            _plant(c, rng, (W * 0.12, H * 0.28, W * 0.88, H * 0.92))
            _text(c, ch, small, flower_ink, (W - nx, H * 0.14), H * rng.uniform(0.13, 0.17))
            _text(c, n, small, corner_ink, (nx, H * 0.14), H * rng.uniform(0.12, 0.16))
        else:
            _text(c, ch, main, flower_ink, (W / 2, H * 0.55), H * rng.uniform(0.45, 0.58))
            _text(c, n, small, corner_ink, (nx, H * 0.13), H * rng.uniform(0.12, 0.16))
        out[34 + i] = c
    return {t: cv2.resize(f, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA) for t, f in out.items()}
