"""Tile face art from packages installed on this machine, rendered once into a cache.

Each *source* yields a face image per tile id (0..41; some sources lack flowers): the top
face of the tile as an RGB image of FACE_W x FACE_H pixels, symbols on the face colour.
Faces are cached as PNG under data/tileart/<source>/<id>.png (gitignored: the art is GPL
or otherwise not ours to commit). Bodies, backs, thickness and shadows are drawn by
mjtable.datasets.render, not taken from the art.

Sources (all from Debian/PyPI packages, see models/README.md for licences):
  kde_default, kde_traditional, kde_jade, kde_classic  kdegames-mahjongg-data-kf5 SVGZ (QtSvg)
  gnome_smooth                                         gnome-mahjongg smooth.png atlas
  xmj_real                                             xmahjongg real.gif (scans of a real set)
  learner                                              PyPI mahjong-learner tiles_img (CC0, riichi)
  font_symbola, font_noto                              U+1F000..U+1F02B glyphs
  cjk_0 .. cjk_15                                      made-up sets drawn from CJK fonts (datasets.fontfaces)
                                                       with the dots and bamboo of FONT_SET_BASE
"""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import cv2
import numpy as np

from mjtable.system_files import require

FACE_W, FACE_H = 72, 96
ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "data" / "tileart"

FONTS = {"font_symbola": "symbola_font", "font_noto": "noto_symbols_font"}   # source -> mjtable.system_files name

IVORY = (238, 240, 236)  # BGR face colour used under transparent art

# KDE element id -> tile id (checked by rendering every element of every set).
_KDE_IDS: dict[str, int] = {}
for _i in range(9):
    _KDE_IDS[f"CHARACTER_{_i + 1}"] = _i
    _KDE_IDS[f"ROD_{_i + 1}"] = 9 + _i
    _KDE_IDS[f"BAMBOO_{_i + 1}"] = 18 + _i
_KDE_IDS.update({"WIND_1": 30, "WIND_2": 28, "WIND_3": 27, "WIND_4": 29,
                 "DRAGON_1": 31, "DRAGON_2": 32, "DRAGON_3": 33,
                 "SEASON_1": 34, "SEASON_2": 35, "SEASON_3": 36, "SEASON_4": 37,
                 "FLOWER_1": 38, "FLOWER_2": 39, "FLOWER_3": 40, "FLOWER_4": 41})
# the classic set labels its flowers Orchid, Plum, Mum, Bamboo
_KDE_OVERRIDE = {"classic": {"FLOWER_1": 39, "FLOWER_2": 38}}
KDE_SETS = {"kde_default": "default", "kde_traditional": "traditional", "kde_jade": "jade", "kde_classic": "classic"}

# gnome smooth.png: 43 cells of 96x132 in one row (second row = highlighted copies)
_GNOME_ORDER = (list(range(9, 18)) + [30, 29, 28, 27, 33, 32] + list(range(0, 9)) + list(range(18, 27))
                + [39, 40, 38, 41, 31, 34, 35, 36, 37])
# xmahjongg real.gif: 9x5 grid
_XMJ_GRID = [list(range(9, 18)), list(range(18, 27)), list(range(0, 9)),
             [34, 35, 36, 37, 30, 28, 27, 29], [38, 39, 40, 41, 32, 31, 33]]
_LEARNER = {**{f"Man{i}": i - 1 for i in range(1, 10)}, **{f"Pin{i}": 8 + i for i in range(1, 10)},
            **{f"Sou{i}": 17 + i for i in range(1, 10)},
            "Ton": 27, "Nan": 28, "Shaa": 29, "Pei": 30, "Haku": 31, "Hatsu": 32, "Chun": 33}
# Unicode mahjong block
_UNICODE = {0x1F000: 27, 0x1F001: 28, 0x1F002: 29, 0x1F003: 30, 0x1F004: 33, 0x1F005: 32, 0x1F006: 31,
            **{0x1F007 + i: i for i in range(9)}, **{0x1F010 + i: 18 + i for i in range(9)},
            **{0x1F019 + i: 9 + i for i in range(9)},
            0x1F022: 38, 0x1F023: 39, 0x1F024: 41, 0x1F025: 40,
            0x1F026: 34, 0x1F027: 35, 0x1F028: 36, 0x1F029: 37}

PACKAGED = ("kde_default", "kde_traditional", "kde_jade", "kde_classic", "gnome_smooth", "xmj_real",
            "learner", "font_symbola", "font_noto")
# made-up sets whose characters, winds, dragons and flowers are drawn from CJK fonts (datasets.fontfaces), each
# with the dots and bamboo of a packaged set
FONT_SETS = tuple(f"cjk_{k}" for k in range(16))
FONT_SET_BASE = ("xmj_real", "gnome_smooth", "kde_traditional", "kde_default")
SOURCES = PACKAGED + FONT_SETS


def _fit(img_bgr: np.ndarray) -> np.ndarray:
    return cv2.resize(img_bgr, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)


def _over(rgba: np.ndarray, bg=IVORY) -> np.ndarray:
    """Composite a BGRA image over a plain colour."""
    a = rgba[..., 3:4].astype(np.float32) / 255.0
    out = rgba[..., :3].astype(np.float32) * a + np.array(bg, np.float32) * (1 - a)
    return out.astype(np.uint8)


def _render_kde(name: str) -> dict[int, np.ndarray]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QByteArray, QRectF
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    setname = KDE_SETS[name]
    data = gzip.open(require("kde_tilesets") / f"{setname}.svgz").read()
    r = QSvgRenderer(QByteArray(data))
    ids = dict(_KDE_IDS)
    ids.update(_KDE_OVERRIDE.get(setname, {}))
    # jade draws white symbols: put them on a jade-green face
    bg = (70, 110, 40) if setname == "jade" else IVORY
    out = {}
    scale = 3
    for el, tid in ids.items():
        if not r.elementExists(el):
            continue
        img = QImage(FACE_W * scale, FACE_H * scale, QImage.Format_ARGB32)
        img.fill(0)
        p = QPainter(img)
        p.setRenderHint(QPainter.Antialiasing)
        r.render(p, el, QRectF(0, 0, FACE_W * scale, FACE_H * scale))
        p.end()
        ptr = img.constBits()
        arr = np.frombuffer(ptr, np.uint8).reshape(FACE_H * scale, img.bytesPerLine() // 4, 4)[:, :FACE_W * scale]
        out[tid] = _fit(_over(arr.copy(), bg))
    return out


def _render_gnome() -> dict[int, np.ndarray]:
    atlas = cv2.imread(str(require("gnome_smooth")), cv2.IMREAD_UNCHANGED)
    out = {}
    for i, tid in enumerate(_GNOME_ORDER):
        cell = atlas[0:132, i * 96:(i + 1) * 96]
        face = cell[8:120, 6:86]      # inside the bevel (3-D edge is right/bottom)
        out[tid] = _fit(_over(face))
    return out


def _render_xmj() -> dict[int, np.ndarray]:
    path = require("xmahjongg_real")
    ok, frame = cv2.VideoCapture(str(path)).read()
    if not ok:
        from PIL import Image
        frame = cv2.cvtColor(np.array(Image.open(path).convert("RGB")), cv2.COLOR_RGB2BGR)
    out = {}
    pw, ph = 59, 79
    for r, row in enumerate(_XMJ_GRID):
        for c, tid in enumerate(row):
            cell = frame[r * ph + 4:(r + 1) * ph - 6, c * pw + 4:(c + 1) * pw - 6]
            out[tid] = _fit(cell)
    return out


def _render_learner() -> dict[int, np.ndarray]:
    import importlib.util
    spec = importlib.util.find_spec("mahjong_learner")
    if spec is None or not spec.submodule_search_locations:
        return {}
    d = Path(list(spec.submodule_search_locations)[0]) / "tiles_img"
    out = {}
    for stem, tid in _LEARNER.items():
        im = cv2.imread(str(d / f"{stem}.png"), cv2.IMREAD_UNCHANGED)
        if im is None:
            continue
        out[tid] = _fit(_over(im[40:-40, 30:-30] if im.shape[0] > 200 else im))
    return out


def _render_font(name: str) -> dict[int, np.ndarray]:
    from PIL import Image, ImageDraw, ImageFont
    font = ImageFont.truetype(str(require(FONTS[name])), 300)
    out = {}
    for cp, tid in _UNICODE.items():
        img = Image.new("L", (400, 400), 0)
        ImageDraw.Draw(img).text((50, 20), chr(cp), font=font, fill=255)
        a = np.array(img)
        ys, xs = np.nonzero(a > 40)
        if len(xs) < 50:
            continue
        g = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
        # the glyph is a tile outline with the symbol inside: keep the inside
        h, w = g.shape
        g = g[int(h * 0.06):int(h * 0.94), int(w * 0.08):int(w * 0.92)]
        ink = (cv2.resize(g, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0)[..., None]
        colour = np.array((30, 30, 30), np.float32)
        out[tid] = (np.array(IVORY, np.float32) * (1 - ink) + colour * ink).astype(np.uint8)
    return out


def render_source(name: str) -> dict[int, np.ndarray]:
    if name in KDE_SETS:
        return _render_kde(name)
    if name == "gnome_smooth":
        return _render_gnome()
    if name == "xmj_real":
        return _render_xmj()
    if name == "learner":
        return _render_learner()
    if name in FONTS:
        return _render_font(name)
    if name in FONT_SETS:
        from .fontfaces import render_set
        return render_set(FONT_SETS.index(name))
    raise ValueError(f"unknown tile art source {name!r}")


def build_cache(cache: Path = CACHE, sources=SOURCES) -> None:
    for name in sources:
        d = cache / name
        if d.exists() and any(d.glob("*.png")):
            continue
        faces = render_source(name)
        if not faces:
            continue
        tmp = cache / f".{name}.tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        for tid, img in faces.items():
            cv2.imwrite(str(tmp / f"{tid}.png"), img)
        tmp.rename(d)


def load_faces(cache: Path = CACHE) -> dict[str, dict[int, np.ndarray]]:
    """{source: {tile id: BGR face}} for every cached source (builds the cache if missing)."""
    build_cache(cache)
    out = {}
    for name in SOURCES:
        d = cache / name
        if not d.exists():
            continue
        faces = {int(p.stem): cv2.imread(str(p)) for p in d.glob("*.png")}
        if faces:
            out[name] = faces
    for k, name in enumerate(FONT_SETS):
        base = out.get(FONT_SET_BASE[k % len(FONT_SET_BASE)])
        if name in out and base is not None:
            out[name] = {**{t: base[t] for t in range(9, 27)}, **out[name]}
        else:
            out.pop(name, None)
    return out


if __name__ == "__main__":
    build_cache()
    allf = load_faces()
    rows = []
    for name, faces in allf.items():
        row = [faces.get(t, np.zeros((FACE_H, FACE_W, 3), np.uint8)) for t in range(42)]
        rows.append(np.hstack(row))
    cv2.imwrite(str(CACHE / "sheet.png"), np.vstack(rows))
    print({k: len(v) for k, v in allf.items()})
