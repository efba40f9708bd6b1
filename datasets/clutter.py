"""What lies on a real table besides the tiles, as negatives, and a real camera's light (``generate --clutter``).

``scatter`` draws, on the table plane before the tiles: score sheets (ruled paper with handwritten figures and
names in the CJK fonts), coins, dice, counting sticks, a hand, a phone, a pen and a cup; each where it covers
little of the tiles. Dice, sticks and paper are ivory or white and tile-sized: the locator must learn to leave
them. ``camera_effects`` then gives the photographed frame glare, cast shadows, warm or cool light and gamma
with albumentations (each changes pixels where they are: no edge moves, the labels stay right). ``racks``
(``generate --racks``) draws, after the tiles, a clear plastic rack before each seat's hand: a pale see-through
bar with bright edges lying over the foot of the standing tiles, or beyond a hand laid face up.

Both draw from their own random generator, so a scene made with ``--clutter`` shows the same tiles, at the same
places, as without it: the difference is the clutter and the light alone.
"""
from __future__ import annotations

import math
import random

import cv2
import numpy as np

from mjtable.scoring import tiles as T

PAPER = ((236, 240, 242), (215, 235, 245), (245, 245, 245), (200, 225, 238))
PEN_INK = ((150, 60, 20), (30, 30, 30), (40, 40, 190))
SKIN = ((120, 150, 200), (95, 130, 185), (70, 100, 150), (140, 170, 215), (60, 85, 125))
METALS = ((60, 170, 210), (190, 190, 195), (60, 110, 175))        # gold, silver, copper (BGR)
NAMES = "东南西北张王李赵刘陈杨黄吴周"


def _paste(plane: np.ndarray, patch: np.ndarray, alpha: np.ndarray, centre, angle: float) -> None:
    """Blend ``patch`` (BGR) through ``alpha`` (0..1, same size) onto the plane, turned by ``angle`` degrees
    about its middle, which lands on ``centre``."""
    h, w = patch.shape[:2]
    side = int(math.hypot(w, h)) + 4
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    M[:, 2] += (side / 2 - w / 2, side / 2 - h / 2)
    p = cv2.warpAffine(patch, M, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpAffine(alpha.astype(np.float32), M, (side, side), flags=cv2.INTER_LINEAR)[..., None]
    x0, y0 = int(centre[0] - side / 2), int(centre[1] - side / 2)
    H, W = plane.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + side), min(H, y0 + side)
    if xb <= xa or yb <= ya:
        return
    p, a = p[ya - y0:yb - y0, xa - x0:xb - x0], a[ya - y0:yb - y0, xa - x0:xb - x0]
    roi = plane[ya:yb, xa:xb].astype(np.float32)
    plane[ya:yb, xa:xb] = (roi * (1 - a) + p.astype(np.float32) * a).astype(np.uint8)


def _shade(patch: np.ndarray, rng: random.Random, strength: float = 0.25) -> np.ndarray:
    """A soft light gradient across the patch."""
    h, w = patch.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    g = ((xx / max(w, 1) - 0.5) * math.cos(a) + (yy / max(h, 1) - 0.5) * math.sin(a)) * strength
    return np.clip(patch.astype(np.float32) * (1 + g[..., None]), 0, 255).astype(np.uint8)


def score_sheet(tw: float, rng: random.Random):
    """Ruled paper with a table of handwritten scores and the players' names."""
    from .fontfaces import _text, fonts
    w = int(tw * rng.uniform(4, 9))
    h = int(w * rng.uniform(1.0, 1.45))
    img = np.full((h, w, 3), rng.choice(PAPER), np.uint8)
    rule = rng.choice(((200, 170, 150), (180, 180, 180), (150, 150, 220)))
    rows, cols = rng.randint(6, 16), rng.randint(3, 5)
    top = int(h * rng.uniform(0.06, 0.14))
    rh, cw = (h - top) / rows, w / cols
    for r in range(rows + 1):
        cv2.line(img, (0, int(top + r * rh)), (w, int(top + r * rh)), rule, 1, cv2.LINE_AA)
    if rng.random() < 0.7:
        for c in range(1, cols):
            cv2.line(img, (int(c * cw), top), (int(c * cw), h), rule, 1, cv2.LINE_AA)
    ink = rng.choice(PEN_INK)
    font = rng.choice(fonts())
    for c in range(cols):
        _text(img, "".join(rng.choice(NAMES) for _ in range(rng.randint(1, 2))), font, ink,
              ((c + 0.5) * cw, top / 2), top * 0.6)
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.75:
                v = f"{rng.choice(('', '-', '+'))}{rng.randint(1, 300)}"
                cv2.putText(img, v, (int(c * cw + cw * 0.1), int(top + (r + 0.8) * rh)),
                            rng.choice((cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SIMPLEX,
                                        cv2.FONT_HERSHEY_PLAIN)),
                            rh / 40, ink, 1, cv2.LINE_AA)
    return _shade(img, rng, 0.15), np.ones((h, w), np.float32)


def coin(tw: float, rng: random.Random):
    """A metal coin: a rim, a shaded face, and a square hole or a raised ring."""
    d = int(tw * rng.uniform(0.6, 1.0)) | 1
    r = d / 2
    yy, xx = np.mgrid[0:d, 0:d].astype(np.float32) - r
    rad = np.hypot(xx, yy)
    metal = np.array(rng.choice(METALS), np.float32)
    light = 1 + 0.35 * (-(xx + yy) / max(r, 1)) * rng.uniform(0.5, 1)
    img = metal * light[..., None]
    img[(rad > r * 0.82) & (rad < r * 0.9)] *= 0.7
    alpha = np.clip(r - rad, 0, 1)
    if rng.random() < 0.4:
        hole = (np.abs(xx) < r * 0.18) & (np.abs(yy) < r * 0.18)
        alpha[hole] = 0
    else:
        img[(rad > r * 0.5) & (rad < r * 0.56)] *= 1.25
    return np.clip(img, 0, 255).astype(np.uint8), alpha


def die(tw: float, rng: random.Random):
    """A die seen from above: a rounded ivory square with red or black pips."""
    s = int(tw * rng.uniform(0.45, 0.7))
    body = rng.choice(((235, 240, 242), (215, 232, 240), (240, 240, 240)))
    img = np.full((s, s, 3), body, np.uint8)
    alpha = np.zeros((s, s), np.float32)
    rr = max(1, s // 6)
    cv2.rectangle(alpha, (rr, 0), (s - rr - 1, s - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, rr), (s - 1, s - rr - 1), 1.0, -1)
    for x, y in ((rr, rr), (s - rr - 1, rr), (rr, s - rr - 1), (s - rr - 1, s - rr - 1)):
        cv2.circle(alpha, (x, y), rr, 1.0, -1, cv2.LINE_AA)
    n = rng.randint(1, 6)
    pos = {1: [(2, 2)], 2: [(1, 1), (3, 3)], 3: [(1, 1), (2, 2), (3, 3)], 4: [(1, 1), (3, 1), (1, 3), (3, 3)],
           5: [(1, 1), (3, 1), (2, 2), (1, 3), (3, 3)], 6: [(1, 1), (3, 1), (1, 2), (3, 2), (1, 3), (3, 3)]}[n]
    ink = (40, 40, 200) if n in (1, 4) or rng.random() < 0.3 else (30, 30, 30)
    for px, py in pos:
        cv2.circle(img, (int(px * s / 4), int(py * s / 4)), max(1, int(s * (0.12 if n == 1 else 0.08))), ink, -1,
                   cv2.LINE_AA)
    return _shade(img, rng), alpha


def stick(tw: float, rng: random.Random):
    """A scoring stick: long, thin, ivory or coloured, with rows of dots."""
    length, width = int(tw * rng.uniform(2.5, 4)), max(3, int(tw * rng.uniform(0.12, 0.2)))
    img = np.full((width, length, 3), rng.choice(((235, 240, 242), (60, 60, 200), (200, 120, 40), (40, 40, 40))),
                  np.uint8)
    dot = rng.choice(((40, 40, 200), (30, 30, 30), (40, 150, 40)))
    n = rng.choice((1, 2, 5, 8))
    for i in range(n):
        cv2.circle(img, (int(length * (i + 1) / (n + 1)), width // 2), max(1, width // 4), dot, -1, cv2.LINE_AA)
    return _shade(img, rng), np.ones((width, length), np.float32)


def hand(tw: float, rng: random.Random):
    """A hand seen from above: a palm and five fingers in a skin tone, softly shaded."""
    s = int(tw * rng.uniform(3, 4.5))
    img = np.zeros((s, s, 3), np.uint8)
    alpha = np.zeros((s, s), np.float32)
    cx, cy = s / 2, s * 0.65
    cv2.ellipse(alpha, (int(cx), int(cy)), (int(s * 0.22), int(s * 0.26)), 0, 0, 360, 1.0, -1, cv2.LINE_AA)
    cv2.rectangle(alpha, (int(cx - s * 0.17), int(cy)), (int(cx + s * 0.17), s), 1.0, -1)       # wrist
    fw = max(2, int(s * 0.07))
    for i, (dx, ln) in enumerate(((-0.15, 0.3), (-0.05, 0.36), (0.05, 0.34), (0.14, 0.28))):
        bend = rng.uniform(-0.06, 0.06)
        p0 = (int(cx + dx * s), int(cy - s * 0.18))
        p1 = (int(cx + (dx + bend) * s), int(cy - s * (0.18 + ln)))
        cv2.line(alpha, p0, p1, 1.0, fw * 2, cv2.LINE_AA)
    cv2.line(alpha, (int(cx + s * 0.18), int(cy)), (int(cx + s * 0.38), int(cy - s * 0.15)), 1.0, fw * 2,
             cv2.LINE_AA)
    img[:] = rng.choice(SKIN)
    img = _shade(img, rng, 0.35)
    if rng.random() < 0.5:
        alpha = cv2.flip(alpha, 1)
    return img, cv2.GaussianBlur(alpha, (0, 0), 0.8)


def phone(tw: float, rng: random.Random):
    """A phone lying face up: a dark body with a lit screen, or face down."""
    w = int(tw * rng.uniform(2.2, 3.2))
    h = int(w * rng.uniform(1.9, 2.2))
    img = np.full((h, w, 3), rng.choice(((25, 25, 25), (200, 200, 205), (60, 40, 30))), np.uint8)
    alpha = np.zeros((h, w), np.float32)
    r = max(2, w // 8)
    cv2.rectangle(alpha, (r, 0), (w - r, h), 1.0, -1)
    cv2.rectangle(alpha, (0, r), (w, h - r), 1.0, -1)
    for x, y in ((r, r), (w - r, r), (r, h - r), (w - r, h - r)):
        cv2.circle(alpha, (x, y), r, 1.0, -1, cv2.LINE_AA)
    if rng.random() < 0.6:
        m = max(2, w // 16)
        screen = np.array([rng.randrange(256) for _ in range(3)], np.float32)
        img[m * 2:h - m * 2, m:w - m] = screen
        for _ in range(rng.randint(0, 12)):           # app icons
            x, y = rng.randrange(m, max(m + 1, w - 3 * m)), rng.randrange(3 * m, max(3 * m + 1, h - 5 * m))
            cv2.rectangle(img, (x, y), (x + 2 * m, y + 2 * m), tuple(rng.randrange(256) for _ in range(3)), -1)
    return _shade(img, rng), alpha


def pen(tw: float, rng: random.Random):
    length, width = int(tw * rng.uniform(2.5, 3.5)), max(3, int(tw * 0.12))
    img = np.full((width, length, 3), rng.choice(((30, 30, 30), (150, 60, 20), (40, 40, 190), (220, 220, 220))),
                  np.uint8)
    img[:, :length // 8] = (200, 200, 200)
    return _shade(img, rng), np.ones((width, length), np.float32)


def cup(tw: float, rng: random.Random):
    """A cup or glass from above: a rim ring around a darker drink."""
    d = int(tw * rng.uniform(1.6, 2.4)) | 1
    r = d / 2
    yy, xx = np.mgrid[0:d, 0:d].astype(np.float32) - r
    rad = np.hypot(xx, yy)
    body = np.array(rng.choice(((240, 240, 240), (200, 210, 230), (60, 80, 120))), np.float32)
    drink = np.array(rng.choice(((30, 70, 110), (40, 110, 160), (200, 200, 190))), np.float32)
    img = np.where((rad < r * 0.85)[..., None], drink, body)
    return _shade(np.clip(img, 0, 255).astype(np.uint8), rng), np.clip(r - rad, 0, 1)


# (maker, how many at most)
OBJECTS = ((score_sheet, 1), (coin, 6), (die, 3), (stick, 6), (hand, 2), (phone, 1),
           (pen, 1), (cup, 1))


def scatter(plane: np.ndarray, tiles_mask: np.ndarray, tile_w: float, rng: random.Random,
            seen: np.ndarray) -> int:
    """Draw a few objects on the table plane inside the polygon ``seen`` (the part of the plane the camera
    sees), each where it covers at most a tenth of its area of tiles (``tiles_mask`` > 0 where a tile will
    stand); the number drawn."""
    H, W = plane.shape[:2]
    seen = np.float32(seen).reshape(-1, 1, 2)
    (lx, ly), (hx, hy) = np.maximum(seen.min((0, 1)), 0), np.minimum(seen.max((0, 1)), (W, H))
    kinds = rng.sample(OBJECTS, k=rng.randint(2, 5))
    drawn = 0
    for make, most in kinds:
        for _ in range(rng.randint(1, most)):
            patch, alpha = make(tile_w, rng)
            h, w = patch.shape[:2]
            for _try in range(12):
                cx, cy = rng.uniform(lx, hx), rng.uniform(ly, hy)
                if cv2.pointPolygonTest(seen, (float(cx), float(cy)), False) < 0:
                    continue
                x0, y0 = int(max(0, cx - w / 2)), int(max(0, cy - h / 2))
                under = tiles_mask[y0:int(cy + h / 2), x0:int(cx + w / 2)]
                if under.size and (under > 0).mean() <= 0.1:
                    _paste(plane, patch, alpha, (cx, cy), rng.uniform(0, 360))
                    drawn += 1
                    break
    return drawn


_EFFECTS = None


def camera_effects(img: np.ndarray, rng: random.Random) -> np.ndarray:
    """Glare, shadows, colour temperature and gamma (albumentations, seeded from ``rng``); each changes pixels'
    values where they are, so no edge moves."""
    global _EFFECTS
    import albumentations as A
    if _EFFECTS is None:
        _EFFECTS = A.Compose([
            A.RandomSunFlare(flare_roi=(0, 0, 1, 1), src_radius=160, num_flare_circles_range=(1, 4), p=0.15),
            A.RandomShadow(shadow_roi=(0, 0, 1, 1), num_shadows_limit=(1, 2), shadow_dimension=5, p=0.3),
            A.PlanckianJitter(mode="blackbody", p=0.35),
            A.RandomGamma(gamma_limit=(70, 140), p=0.3),
        ])      # no blur or noise here: the renderer adds both (its motion blur is centred, albumentations' is not)
    _EFFECTS.set_random_seed(rng.randrange(1 << 31))
    rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    return cv2.cvtColor(_EFFECTS(image=rgb)["image"], cv2.COLOR_RGB2BGR)


def racks(plane: np.ndarray, tiles: list, sils: list[np.ndarray], rng: random.Random) -> int:
    """Clear plastic racks, drawn over the tiles already painted on the table plane: for most seats a bar along
    its hand's row (the tiles of group "concealed") on the side towards the table's middle, over the foot of a
    standing hand (up to 40 % of its depth) or just beyond a hand laid face up; see-through (the tiles show
    through, paler), with a bright line along each long edge. ``tiles``: the scene's TileSpecs, ``sils``: their
    outlines on the plane. The number drawn. Tiles keep their boxes: the labels stay right."""
    if not tiles:
        return 0
    middle = np.mean([[t.cx, t.cy] for t in tiles], axis=0)
    w = min(tiles[0].w, tiles[0].h)
    drawn = 0
    for seat in sorted({t.seat for t in tiles}):
        row = [(t, s) for t, s in zip(tiles, sils) if t.seat == seat and t.group == "concealed"]
        if len(row) < 3 or rng.random() < 0.2:
            continue
        a = np.radians(row[0][0].angle)
        along = np.array([np.cos(a), -np.sin(a)])
        up = np.array([-np.sin(a), -np.cos(a)])
        pts = np.vstack([s for _, s in row])
        centre = pts.mean(0)
        if np.dot(middle - centre, up) < 0:          # the rack stands on the side towards the table's middle
            up = -up
        u, v = (pts - centre) @ along, (pts - centre) @ up
        standing = any(t.standing or t.kind == T.BACK for t, _ in row)
        near = v.max() - (rng.uniform(0.0, 0.4) * (v.max() - v.min()) if standing else -rng.uniform(0.1, 0.6) * w)
        far = near + rng.uniform(0.25, 0.6) * w
        u0, u1 = u.min() - rng.uniform(0.2, 1.0) * w, u.max() + rng.uniform(0.2, 1.0) * w
        corners = [centre + along * x + up * y for x, y in ((u0, near), (u1, near), (u1, far), (u0, far))]
        # drawn in the rack's own window of the plane (its lines' width and blur inside the margin), not the
        # whole plane
        (x0, y0), (x1, y1) = np.floor(np.min(corners, 0)) - 16, np.ceil(np.max(corners, 0)) + 16
        x0, y0 = max(int(x0), 0), max(int(y0), 0)
        x1, y1 = min(int(x1), plane.shape[1]), min(int(y1), plane.shape[0])     # beside the tiles: never empty
        at = np.array([x0, y0], float)
        win = plane[y0:y1, x0:x1]
        poly = np.int32(np.round(np.array(corners) - at))
        body = np.zeros(win.shape[:2], np.float32)
        cv2.fillConvexPoly(body, poly, 1.0, cv2.LINE_AA)
        tint = np.array([rng.uniform(215, 250), rng.uniform(225, 250), rng.uniform(225, 250)], np.float32)
        alpha = rng.uniform(0.1, 0.3) * body
        edges = np.zeros(win.shape[:2], np.float32)
        width = max(1, int(round(w * rng.uniform(0.03, 0.08))))
        for y in (near, far):
            a0, a1 = centre + along * u0 + up * y - at, centre + along * u1 + up * y - at
            cv2.line(edges, tuple(int(round(x)) for x in a0), tuple(int(round(x)) for x in a1),
                     rng.uniform(0.4, 0.85), width, cv2.LINE_AA)
        edges = cv2.GaussianBlur(edges, (0, 0), rng.uniform(0.5, 1.2))
        alpha = np.clip(alpha + edges, 0.0, 0.9)[..., None]
        win[:] = np.clip(win * (1 - alpha) + tint * alpha, 0, 255).astype(np.uint8)
        drawn += 1
    return drawn
