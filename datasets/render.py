"""Draw 3-D looking tiles on a table plane, then photograph the plane (homography + lighting + noise).

A scene is a list of TileSpec in *plane* coordinates (pixels of a flat table canvas). Each tile is a
rotated rectangle (its top face) extruded by a vector ``d`` (the visible thickness: ivory body layer,
then the coloured back layer). Lying tiles are extruded towards the camera, standing tiles away from it
(their top edge shows above the face). A tile's box is the bounding box, after the final homography, of its
whole extruded silhouette (``boxes="whole"``, the default), parts hidden under the tiles drawn after it
included, or of the part that no tile drawn later beside it covers (``boxes="visible"``: what the frame shows,
as the real photos are labelled; a tile lying on it, the added tile of a kong, does not count, so the claimed
tile under it keeps its place in its row). Visible boxes were tried and not kept: the
box refiner read them worse (README, models/README.md).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.system_files import require

from .clutter import camera_effects, racks as draw_racks, scatter

BACK_COLOURS = [  # BGR
    (60, 140, 40), (40, 110, 30), (150, 90, 30), (170, 120, 40), (40, 170, 230), (30, 120, 220), (50, 60, 200),
    (110, 60, 170), (160, 80, 110), (150, 150, 40), (200, 170, 120), (80, 80, 80), (30, 90, 150), (210, 200, 190),
    (140, 170, 60), (90, 30, 130),
]
IVORY_BODIES = [(225, 232, 235), (210, 228, 238), (235, 238, 236), (200, 222, 232), (245, 245, 242)]


@dataclass
class TileSpec:
    kind: int                 # 0..41, or T.BACK for a face-down tile
    cx: float                 # centre of the top face, plane pixels
    cy: float
    angle: float              # degrees: direction of the tile's "up" measured counter-clockwise from plane up
    w: float                  # top face width and height (h along the tile's up axis)
    h: float
    standing: bool = False    # extrude away from the camera (a standing tile shows its top edge)
    seat: str = "self"
    group: str = "concealed"
    z: int = 0                # 1 = lying on another tile (the added tile of a kong): drawn last

    def corners(self) -> np.ndarray:
        a = math.radians(self.angle)
        up = np.array([-math.sin(a), -math.cos(a)])      # plane y grows downwards
        right = np.array([math.cos(a), -math.sin(a)])
        c = np.array([self.cx, self.cy])
        hw, hh = self.w / 2, self.h / 2
        # top-left, top-right, bottom-right, bottom-left of the face as the tile is read
        return np.array([c + up * hh - right * hw, c + up * hh + right * hw,
                         c - up * hh + right * hw, c - up * hh - right * hw])


@dataclass
class Style:
    faces: dict[int, np.ndarray]
    back: tuple[int, int, int]
    body: tuple[int, int, int]
    thickness: float          # fraction of tile width
    back_layer: float         # fraction of the thickness in back colour
    # the table under the tiles, (h, w, rng) -> BGR image; None: table_background (datasets.realfaces: real ones)
    table: Optional[Callable[[int, int, random.Random], np.ndarray]] = None


def _face_top(face: np.ndarray, body, rng: random.Random) -> np.ndarray:
    """Face art inside a thin body-coloured margin."""
    h, w = face.shape[:2]
    m = max(2, int(w * rng.uniform(0.03, 0.09)))
    out = np.empty((h + 2 * m, w + 2 * m, 3), np.uint8)
    corner = face[2, 2].astype(np.int32)
    out[:] = np.clip((corner * 0.5 + np.array(body) * 0.5), 0, 255).astype(np.uint8)
    out[m:m + h, m:m + w] = face
    return out


def _back_top(colour, rng: random.Random, size=(96, 72)) -> np.ndarray:
    h, w = size
    base = np.array(colour, np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = 1.0 + 0.12 * ((xx / w - 0.5) * rng.uniform(-1, 1) + (yy / h - 0.5) * rng.uniform(-1, 1))
    # rounded edges: a real back darkens towards its rim, so touching backs show a seam
    rim = np.minimum(np.minimum(xx, w - 1 - xx), np.minimum(yy, h - 1 - yy)) / (rng.uniform(0.05, 0.12) * w)
    g = g * (1.0 - rng.uniform(0.15, 0.4) * (1.0 - np.clip(rim, 0.0, 1.0)) ** 2)
    img = base[None, None, :] * g[..., None]
    if rng.random() < 0.5:  # gloss stripe
        gl = np.exp(-((xx / w - yy / h * 0.5 - rng.uniform(0, 0.6)) ** 2) / 0.01) * rng.uniform(20, 60)
        img += gl[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _paste_quad(canvas: np.ndarray, src: np.ndarray, quad: np.ndarray) -> None:
    """Warp src (axis-aligned image) onto quad (tl,tr,br,bl) of canvas, within a local ROI."""
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    H, W = canvas.shape[:2]
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1c <= x0c or y1c <= y0c:
        return
    h, w = src.shape[:2]
    srcq = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    M = cv2.getPerspectiveTransform(srcq, np.float32(quad - [x0c, y0c]))
    size = (x1c - x0c, y1c - y0c)
    warped = cv2.warpPerspective(src, M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    mask = np.zeros((size[1] * 4, size[0] * 4), np.uint8)
    cv2.fillConvexPoly(mask, np.int32((quad - [x0c, y0c]) * 4), 255, lineType=cv2.LINE_AA)
    mask = cv2.resize(mask, size, interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
    roi = canvas[y0c:y1c, x0c:x1c]
    roi[:] = (warped * mask + roi * (1 - mask)).astype(np.uint8)


def _fill(canvas, poly, colour) -> None:
    cv2.fillConvexPoly(canvas, np.int32(np.round(poly * 4)), colour, lineType=cv2.LINE_AA, shift=2)


def _hull(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return cv2.convexHull(np.float32(np.vstack([a, b]))).reshape(-1, 2)


def silhouette(t: TileSpec, d: np.ndarray) -> np.ndarray:
    c = t.corners()
    return _hull(c, c + d)


BOX_KINDS = ("whole", "visible")
DEFAULT_BOXES = "whole"


def _cross(ax: float, ay: float, bx: float, by: float) -> float:
    return ax * by - ay * bx


def _in_convex(x: float, y: float, poly: list[tuple[float, float]], strict: bool) -> bool:
    """Is (x, y) inside the convex polygon (either winding): strictly, or inside or on its outline."""
    sign = 0
    for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1]):
        c = _cross(bx - ax, by - ay, x - ax, y - ay)
        if abs(c) <= 1e-9:
            if strict:
                return False
            continue
        if sign == 0:
            sign = 1 if c > 0 else -1
        elif (c > 0) != (sign > 0):
            return False
    return True


def visible_corners(sil: np.ndarray, above: list[np.ndarray], probe: float = 1e-4) -> np.ndarray:
    """The corners of the outline of what shows of the convex silhouette sil when the convex silhouettes above
    are drawn over it (M,2; empty when nothing shows). A homography maps straight edges to straight edges, so
    the corners' images bound the visible part's image exactly. Every edge of sil and of the silhouettes over
    it is cut where it meets another edge (or stops along a shared line); a piece is part of the outline when a
    point beside its middle, on one side, is inside sil and under none of the others."""
    polys = [[(float(x), float(y)) for x, y in sil]]
    lo, hi = sil.min(0), sil.max(0)
    polys += [[(float(x), float(y)) for x, y in a] for a in above
              if (a.min(0) < hi).all() and (a.max(0) > lo).all()]
    if len(polys) == 1:
        return np.asarray(sil, np.float64)

    def shows(x: float, y: float) -> bool:
        return _in_convex(x, y, polys[0], True) and not any(_in_convex(x, y, q, False) for q in polys[1:])

    edges = [(a, b) for q in polys for a, b in zip(q, q[1:] + q[:1])]
    out = []
    for (px, py), (qx, qy) in edges:
        rx, ry = qx - px, qy - py
        rr = rx * rx + ry * ry
        if rr < 1e-18:
            continue
        cuts = {0.0, 1.0}
        for (cx, cy), (dx, dy) in edges:
            sx, sy = dx - cx, dy - cy
            den = _cross(rx, ry, sx, sy)
            if abs(den) <= 1e-12 * (rr + sx * sx + sy * sy):
                if abs(_cross(cx - px, cy - py, rx, ry)) <= 1e-9 * math.sqrt(rr):     # on the same line
                    for ex, ey in ((cx, cy), (dx, dy)):
                        t = ((ex - px) * rx + (ey - py) * ry) / rr
                        if 0 < t < 1:
                            cuts.add(t)
                continue
            t = _cross(cx - px, cy - py, sx, sy) / den
            u = _cross(cx - px, cy - py, rx, ry) / den
            if 0 < t < 1 and -1e-12 <= u <= 1 + 1e-12:
                cuts.add(t)
        cuts = sorted(cuts)
        nx, ny = -ry / math.sqrt(rr) * probe, rx / math.sqrt(rr) * probe
        for ta, tb in zip(cuts, cuts[1:]):
            if tb - ta < 1e-9:
                continue
            mx, my = px + (ta + tb) / 2 * rx, py + (ta + tb) / 2 * ry
            if shows(mx + nx, my + ny) or shows(mx - nx, my - ny):
                out += [(px + ta * rx, py + ta * ry), (px + tb * rx, py + tb * ry)]
    return np.array(out, np.float64).reshape(-1, 2)


def draw_tile(canvas: np.ndarray, t: TileSpec, d: np.ndarray, style: Style, rng: random.Random) -> None:
    c = t.corners()
    shade = rng.uniform(0.7, 0.85)
    side_body = tuple(int(v * shade) for v in style.body)
    side_back = tuple(int(v * shade) for v in style.back)
    face_down = t.kind == T.BACK
    near, far = (side_back, side_body) if face_down else (side_body, side_back)
    if np.hypot(*d) > 0.5:
        _fill(canvas, _hull(c, c + d), far)
        k = style.back_layer if face_down else 1 - style.back_layer
        _fill(canvas, _hull(c, c + d * k), near)
        # a thin dark line where the layers meet and along the bottom edge
        cv2.polylines(canvas, [np.int32(np.round(_hull(c, c + d) * 4))], True,
                      tuple(int(v * 0.6) for v in far), 1, cv2.LINE_AA, shift=2)
    if face_down:
        top = _back_top(style.back, rng)
    else:
        face = style.faces[t.kind]
        if isinstance(face, list):      # several faces of the kind (real ones): one drawn for each tile
            face = face[rng.randrange(len(face))]
        top = _face_top(face, style.body, rng)
    _paste_quad(canvas, top, c)


# ---------------------------------------------------------------- table backgrounds

_BG_CACHE: dict[str, np.ndarray] = {}


def _texture_files() -> list[Path]:
    return [require(name) for name in ("xmahjongg_felt", "xmahjongg_green")]


def _load_texture(p: Path) -> Optional[np.ndarray]:
    if str(p) not in _BG_CACHE:
        img = None
        cap = cv2.VideoCapture(str(p))
        ok, fr = cap.read()
        if ok:
            img = fr
        _BG_CACHE[str(p)] = img
    return _BG_CACHE[str(p)]


def table_background(h: int, w: int, rng: random.Random) -> np.ndarray:
    kind = rng.random()
    nr = np.random.default_rng(rng.randrange(1 << 30))
    if kind < 0.45:   # cloth / felt
        col = np.array(rng.choice([(60, 110, 40), (40, 80, 30), (110, 70, 30), (90, 60, 40), (70, 70, 70),
                                   (40, 40, 40), (30, 30, 110), (120, 120, 120), (170, 160, 150), (60, 90, 120),
                                   (200, 200, 200), (30, 60, 60)]), np.float32)
        col *= rng.uniform(0.7, 1.2)
        noise = cv2.GaussianBlur(nr.normal(0, 1, (h, w)).astype(np.float32), (0, 0), rng.uniform(0.5, 2))
        img = col[None, None] * (1 + 0.08 * noise[..., None])
    elif kind < 0.8:  # wood
        col = np.array(rng.choice([(60, 100, 150), (40, 70, 110), (90, 140, 190), (30, 50, 80), (120, 170, 210)]),
                       np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = cv2.GaussianBlur(nr.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32), (0, 0), 3)
        warp = cv2.resize(warp, (w, h)) * rng.uniform(20, 80)
        f = rng.uniform(0.05, 0.3)
        grain = 0.5 + 0.5 * np.sin((v + warp) * f)
        planks = (np.floor(u / rng.uniform(80, 300)) % 2) * rng.uniform(0, 0.12)
        img = col[None, None] * (0.8 + 0.3 * grain[..., None] - planks[..., None])
        img *= (1 + 0.04 * nr.normal(0, 1, (h, w, 1))).astype(np.float32)
    else:             # texture image from the xmahjongg package, tiled
        files = _texture_files()
        tex = _load_texture(rng.choice(files)) if files else None
        if tex is None:
            img = np.full((h, w, 3), 100, np.float32)
        else:
            s = rng.uniform(1, 3)
            tex = cv2.resize(tex, None, fx=s, fy=s)
            reps = (h // tex.shape[0] + 1, w // tex.shape[1] + 1, 1)
            img = np.tile(tex, reps)[:h, :w].astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def distractors(canvas: np.ndarray, rng: random.Random, n: int) -> None:
    h, w = canvas.shape[:2]
    for _ in range(n):
        col = tuple(rng.randrange(256) for _ in range(3))
        x, y = rng.randrange(w), rng.randrange(h)
        s = rng.uniform(0.02, 0.08) * w
        if rng.random() < 0.5:
            cv2.circle(canvas, (x, y), int(s / 2), col, -1, cv2.LINE_AA)
        else:
            box = cv2.boxPoints(((x, y), (s, s * rng.uniform(0.3, 2)), rng.uniform(0, 180)))
            cv2.fillConvexPoly(canvas, np.int32(box), col, cv2.LINE_AA)


# ---------------------------------------------------------------- photograph

def orientation_of(t: TileSpec, Hm: np.ndarray) -> tuple[str, float]:
    """Orientation relative to the image and the image angle (deg, CCW from up) of the tile's up axis."""
    c = t.corners()
    top = (c[0] + c[1]) / 2
    bot = (c[2] + c[3]) / 2
    p = cv2.perspectiveTransform(np.float32([[top, bot]]).reshape(1, 2, 2), Hm)[0]
    v = p[0] - p[1]
    ang = math.degrees(math.atan2(-v[0], -v[1])) % 360   # 0 = up, 90 = left, 180 = down, 270 = right
    if t.kind == T.BACK:
        return "face_down", ang
    if ang < 45 or ang >= 315:
        return "upright", ang
    if 135 <= ang < 225:
        return "upside_down", ang
    return "sideways", ang


def motion_kernel(length: int, angle: float) -> np.ndarray:
    """A straight motion-blur kernel: a line length px long at angle degrees, centred on the kernel's middle
    pixel, summing to 1 (an even length has half-weight end taps on an odd-sized kernel). Its centroid is
    filter2D's anchor, so blurring moves no edge. (The kernel once put an even-length line half a pixel off the
    anchor, up to a pixel after the rotation: those frames were shifted against their labels by up to 1.1 px;
    16 of the 300 frames of the synthetic test split.)"""
    if length < 1:
        raise ValueError(f"a motion-blur kernel needs a length of at least 1 px, not {length}")
    n = length if length % 2 else length + 1
    c = (n - 1) / 2
    ker = np.zeros((n, n), np.float32)
    ker[n // 2] = np.clip(length / 2 + 0.5 - np.abs(np.arange(n) - c), 0, 1) / length
    ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((c, c), angle, 1), (n, n))
    return ker / max(float(ker.sum()), 1e-6)


def photograph(plane: np.ndarray, Hm: np.ndarray, out_w: int, out_h: int, rng: random.Random) -> np.ndarray:
    img = cv2.warpPerspective(plane, Hm, (out_w, out_h),
                              flags=cv2.INTER_AREA if rng.random() < 0.5 else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REFLECT)
    f = img.astype(np.float32)
    # lighting: a soft gradient and a warm/cool cast
    yy, xx = np.mgrid[0:out_h, 0:out_w].astype(np.float32)
    gx, gy = rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)
    light = 1 + gx * (xx / out_w - 0.5) + gy * (yy / out_h - 0.5)
    if rng.random() < 0.4:   # a spot light
        cx, cy, r = rng.uniform(0, out_w), rng.uniform(0, out_h), rng.uniform(0.3, 1) * out_w
        light += rng.uniform(0.1, 0.35) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (r * r))
    cast = np.array([rng.uniform(0.85, 1.1), rng.uniform(0.9, 1.05), rng.uniform(0.85, 1.15)], np.float32)
    f = f * light[..., None] * cast * rng.uniform(0.75, 1.2)
    blur = rng.random()
    if blur < 0.35:
        k = rng.uniform(0.4, 1.3)
        f = cv2.GaussianBlur(f, (0, 0), k)
    elif blur < 0.45:  # motion blur
        n = rng.randrange(3, 7)           # 3 to 6 px long
        f = cv2.filter2D(f, -1, motion_kernel(n, rng.uniform(0, 180)))
    nr = np.random.default_rng(rng.randrange(1 << 30))
    f += nr.normal(0, rng.uniform(1, 7), f.shape).astype(np.float32)
    img = np.clip(f, 0, 255).astype(np.uint8)
    q = rng.randrange(35, 95)
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def cast_shadows(plane: np.ndarray, sils: list[np.ndarray], offset: np.ndarray, rng: random.Random) -> None:
    h, w = plane.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for s in sils:
        cv2.fillConvexPoly(mask, np.int32(s + offset), 255)
    k = rng.uniform(1.5, 5)
    m = cv2.GaussianBlur(mask, (0, 0), k).astype(np.float32)[..., None] / 255.0
    strength = rng.uniform(0.3, 0.6)
    plane[:] = (plane * (1 - strength * m)).astype(np.uint8)


def _image_box(pts: np.ndarray, Hm: np.ndarray, out_w: int, out_h: int):
    """(box, area): the bounding box of plane points after the homography, clipped to the frame (None when none
    of it is inside), and its area before clipping."""
    p = cv2.perspectiveTransform(np.float32(pts).reshape(1, -1, 2), Hm)[0]
    (x1, y1), (x2, y2) = p.min(0), p.max(0)
    cx1, cy1, cx2, cy2 = max(x1, 0), max(y1, 0), min(x2, out_w), min(y2, out_h)
    box = (float(cx1), float(cy1), float(cx2), float(cy2)) if cx2 > cx1 and cy2 > cy1 else None
    return box, float((x2 - x1) * (y2 - y1))


def render(tiles: list[TileSpec], plane_size: tuple[int, int], d_flat: np.ndarray, d_stand: np.ndarray,
           style: Style, Hm: np.ndarray, out_size: tuple[int, int], rng: random.Random, n_distractors: int = 0,
           underlays=(), boxes: str = DEFAULT_BOXES, clutter: Optional[random.Random] = None,
           racks: Optional[random.Random] = None):
    """Returns (image, [(TileSpec, box, orientation, angle)]) for the tiles visible in the frame (box None for
    the others). underlays: (polygon in plane pixels, BGR colour) drawn on the table under the tiles (trays,
    racks). boxes: "whole" (each tile's whole silhouette, hidden parts too) or "visible" (what shows of it).
    A tile is left out when less than 60 % of its whole box is in the frame or nothing of it shows.
    clutter: a generator for the objects beside the tiles and the camera's light (datasets.clutter), or None.
    racks: a generator for clear racks before the seats' hands (datasets.clutter.racks), or None."""
    if boxes not in BOX_KINDS:
        raise ValueError(f"boxes must be one of {BOX_KINDS}, not {boxes!r}")
    pw, ph = plane_size
    plane = (style.table or table_background)(ph, pw, rng)
    distractors(plane, rng, n_distractors)
    for poly, colour in underlays:
        cv2.fillPoly(plane, [np.int32(np.round(poly))], colour, cv2.LINE_AA)
    ds = [d_stand if t.standing else d_flat for t in tiles]
    sils = [silhouette(t, d) for t, d in zip(tiles, ds)]
    if clutter is not None and tiles:
        mask = np.zeros(plane.shape[:2], np.uint8)
        for sil in sils:
            cv2.fillConvexPoly(mask, np.int32(sil), 255)
        ow, oh = out_size
        seen = cv2.perspectiveTransform(np.float32([[0, 0], [ow, 0], [ow, oh], [0, oh]]).reshape(1, -1, 2),
                                        np.linalg.inv(Hm))[0]
        scatter(plane, mask, min(tiles[0].w, tiles[0].h), clutter, seen)
    cast_shadows(plane, sils, np.array([rng.uniform(-1, 1), rng.uniform(-0.5, 1.5)]) * style.thickness * tiles[0].w
                 if tiles else np.zeros(2), rng)
    # painted top to bottom, then left to right, whatever the thickness's direction: where it points left, each
    # tile's body is painted over the edge of the face of the tile left of it (a real tile's face is never
    # covered by a neighbour's side); painting nearest the camera last was tried (models/README.md)
    order = sorted(range(len(tiles)), key=lambda i: (tiles[i].z, tiles[i].cy + tiles[i].cx * 1e-4))
    for i in order:
        draw_tile(plane, tiles[i], ds[i], style, rng)
    if racks is not None:
        draw_racks(plane, tiles, sils, racks)
    out_w, out_h = out_size
    img = photograph(plane, Hm, out_w, out_h, rng)
    if clutter is not None:
        img = camera_effects(img, clutter)
    rank = np.empty(len(tiles), int)
    rank[order] = np.arange(len(tiles))
    objs = []
    for i, (t, s) in enumerate(zip(tiles, sils)):
        box, full = _image_box(s, Hm, out_w, out_h)
        if box is not None and (box[2] - box[0]) * (box[3] - box[1]) < 0.6 * full:
            box = None
        if box is not None and boxes == "visible":
            # what neighbours drawn later hide; a tile lying on this one (an added kong's) leaves it its place
            shown = visible_corners(s, [sils[j] for j in range(len(tiles))
                                        if rank[j] > rank[i] and tiles[j].z == t.z])
            box = _image_box(shown, Hm, out_w, out_h)[0] if len(shown) else None
        if box is None:
            objs.append((t, None, None, None))
            continue
        o, ang = orientation_of(t, Hm)
        objs.append((t, box, o, ang))
    return img, objs
