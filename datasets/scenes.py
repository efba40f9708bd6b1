"""Table layouts: a phone photo of one finished hand, and an overhead broadcast view of four players."""
from __future__ import annotations

import math
import random
from dataclasses import replace

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import Situation
from mjtable.scoring.table import SEAT_ANGLE, PlayerArea, TableState

from .ground_truth import GroundTruth, GTObject
from .hands import _take, meld_on_table, random_winning_hand
from .render import BACK_COLOURS, DEFAULT_BOXES, IVORY_BODIES, Style, TileSpec, render, table_background
from .tileart import FONT_SETS

# how often each art source is used (real-looking sets more often)
SOURCE_WEIGHTS = {"kde_default": 1.0, "kde_traditional": 1.0, "kde_jade": 0.3, "kde_classic": 0.4,
                  "gnome_smooth": 1.0, "xmj_real": 1.5, "learner": 1.5, "font_symbola": 0.4, "font_noto": 0.4}


FONT_SET_WEIGHT = 0.5     # each made-up set drawn from CJK fonts (tileart.FONT_SETS), when the art includes them


def pick_style(art: dict, rng: random.Random) -> Style:
    names = [n for n in art if n in SOURCE_WEIGHTS or n in FONT_SETS]
    name = rng.choices(names, [SOURCE_WEIGHTS.get(n, FONT_SET_WEIGHT) for n in names])[0]
    return Style(art[name], rng.choice(BACK_COLOURS), rng.choice(IVORY_BODIES),
                 rng.uniform(0.45, 0.8), rng.uniform(0.35, 0.6))


def _tile_points(tiles: list[TileSpec], d_flat, d_stand) -> np.ndarray:
    return np.vstack([t.corners() + dd for t in tiles for dd in (np.zeros(2), d_stand if t.standing else d_flat)])


def _camera(pts: np.ndarray, out_w, out_h, rng, persp, rot_deg, margin, squash=1.0) -> np.ndarray:
    """Homography plane -> image: a perspective over a square around the tiles (far edge shorter by
    `persp`, depth shortened to `squash` of the width, as seen from a low camera), a rotation, then
    scale/offset so that every tile point fits the frame with a margin."""
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    L = max(x1 - x0, y1 - y0) / 2
    src = np.float32([[cx - L, cy - L], [cx + L, cy - L], [cx + L, cy + L], [cx - L, cy + L]])
    k = persp
    dst = np.float32([[-k * L, -L * squash], [k * L, -L * squash], [L, L * squash], [-L, L * squash]])
    a = math.radians(rot_deg)
    R = np.float32([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    P0 = cv2.getPerspectiveTransform(src, np.float32(dst @ R.T))
    q = cv2.perspectiveTransform(np.float32(pts).reshape(1, -1, 2), P0)[0]
    lo, hi = q.min(0), q.max(0)
    span = hi - lo
    s = min(out_w * (1 - 2 * margin) / span[0], out_h * (1 - 2 * margin) / span[1])
    free = np.array([out_w, out_h]) - span * s
    off = np.array([rng.uniform(0.2, 0.8) * free[0], rng.uniform(0.2, 0.8) * free[1]]) - lo * s
    A = np.float64([[s, 0, off[0]], [0, s, off[1]], [0, 0, 1]])
    return A @ P0


def _finish(kind, name, tiles, d_flat, d_stand, style, out_size, rng, persp, rot, margin, table, situation,
            n_distractors, underlays=(), boxes=DEFAULT_BOXES, squash=1.0, clutter=None, racks=None):
    out_w, out_h = out_size
    pts = _tile_points(tiles, d_flat, d_stand)
    for _ in range(6):
        Hm = _camera(pts, out_w, out_h, rng, persp, rot, margin, squash)
        # the plane must cover the whole frame (no mirrored tiles): map the frame corners back
        e = 0.05
        corners = np.float32([[-e * out_w, -e * out_h], [(1 + e) * out_w, -e * out_h],
                              [(1 + e) * out_w, (1 + e) * out_h], [-e * out_w, (1 + e) * out_h]])
        back = cv2.perspectiveTransform(corners.reshape(1, -1, 2), np.linalg.inv(Hm))[0]
        allp = np.vstack([pts, back])
        lo, hi = allp.min(0) - tiles[0].w, allp.max(0) + tiles[0].w
        if np.all(np.isfinite(back)) and (hi - lo).max() < 6000:
            break
        persp = (1 + persp) / 2
    shift = -lo
    tiles = [replace(t, cx=t.cx + shift[0], cy=t.cy + shift[1]) for t in tiles]
    underlays = [(poly + shift, colour) for poly, colour in underlays]
    Hm = Hm @ np.float64([[1, 0, -shift[0]], [0, 1, -shift[1]], [0, 0, 1]])
    plane_size = (int(hi[0] - lo[0]) + 1, int(hi[1] - lo[1]) + 1)
    img, objs = render(tiles, plane_size, d_flat, d_stand, style, Hm, out_size, rng, n_distractors, underlays,
                      boxes, clutter, racks)
    gt_objs = [GTObject(tuple(round(v, 1) for v in box), t.kind, o, t.seat, t.group)
               for t, box, o, ang in objs if box is not None]
    angles = [ang for t, box, o, ang in objs if box is not None]
    return img, GroundTruth(kind, name, table, situation, gt_objs), angles


def _row(tiles_out, kinds, x, y, w, h, angle, seat, group, standing=False, gap=0.0, sideways=None,
         face_down_h=None):
    """Place tiles left to right starting at x (left edge), bottoms aligned at y. Returns the new x."""
    for i, k in enumerate(kinds):
        if sideways is not None and i == sideways:
            tiles_out.append(TileSpec(k, x + h / 2, y - w / 2, angle + 90, w, h, standing, seat, group))
            x += h + gap
        else:
            hh = face_down_h if (face_down_h and k == T.BACK) else h
            tiles_out.append(TileSpec(k, x + w / 2, y - hh / 2, angle, w, hh, standing, seat, group))
            x += w + gap
    return x


# ------------------------------------------------------------------ phone photo of a finished hand

def loose_tiles(rng: random.Random, style: Style, w: float, h: float, x0: float, x1: float, y_far: float,
                n: int) -> list[TileSpec]:
    """n tiles lying loose beyond the hand (plane y under y_far, across x0..x1), each at any angle, face up (a
    fifth face down), none on another: tiles pushed aside on the table, which a photo of a hand often shows."""
    faces = [k for k in style.faces if k != T.BACK]
    out: list[TileSpec] = []
    span = max(x1 - x0, 4 * w)
    for _ in range(n * 20):
        if len(out) == n:
            break
        cx, cy = rng.uniform(x0, x0 + span), y_far - rng.uniform(0.7, 3.5) * h
        if all(math.hypot(cx - t.cx, cy - t.cy) > 1.1 * h for t in out):
            kind = T.BACK if rng.random() < 0.2 else rng.choice(faces)
            out.append(TileSpec(kind, cx, cy, rng.uniform(0.0, 360.0), w, h, False, "self", "loose"))
    return out


def phone_scene(art: dict, rng: random.Random, name: str, out_size=(640, 480), boxes: str = DEFAULT_BOXES,
                clutter=None, loose=None):
    """A phone photo of a finished hand. clutter: a random.Random for objects beside the tiles; loose: one for
    tiles lying loose beyond the hand at any angle (loose_tiles; not part of the hand). Each draws from its own
    generator, so the hand is the same with them and without."""
    style = pick_style(art, rng)
    hand = random_winning_hand(rng, added_kong=0.35)
    if 34 not in style.faces:
        hand = replace(hand, flowers=())
    w = 60.0
    h = w * rng.uniform(1.28, 1.4)
    t = style.thickness * w
    standing = rng.random() < 0.4
    d_flat = np.array([0.0, t * rng.uniform(0.35, 0.6)])
    d_stand = np.array([0.0, -t * rng.uniform(0.5, 0.9)])
    gap = w * rng.uniform(0.0, 0.06)
    tiles: list[TileSpec] = []
    conc = list(hand.concealed)
    if rng.random() < 0.15:
        rng.shuffle(conc)        # players do not always sort their hand
    h_c = h * (rng.uniform(0.8, 1.0) if standing else 1.0)
    y_hand = 0.0
    x = _row(tiles, conc, 0.0, y_hand, w, h_c, 0.0, "self", "concealed", standing, gap)
    x += w * rng.uniform(0.5, 1.5)
    win_standing = standing and rng.random() < 0.5
    _row(tiles, [hand.winning_tile], x, y_hand, w, h_c if win_standing else h, 0.0, "self", "winning",
         win_standing)
    x_end = x + w
    mots = [meld_on_table(m, rng) for m in hand.melds]
    melds_in_front = rng.random() < 0.6 or standing
    if melds_in_front:
        xm, ym = rng.uniform(-1, 3) * w, y_hand + h * rng.uniform(1.15, 1.5) + (abs(d_flat[1]) if not standing else 0)
        if any(m.added for m in hand.melds):
            ym += w      # room for the tile stacked on the claimed one
    else:
        xm, ym = x_end + w * rng.uniform(0.8, 1.5), y_hand
    for i, mot in enumerate(mots):
        kinds = [T.BACK if k is None else k for k in mot.tiles]
        first = len(tiles)
        xm = _row(tiles, kinds, xm, ym, w, h, 0.0, "self", f"meld:{i}", False, gap, mot.sideways)
        xm += w * rng.uniform(0.35, 0.8)
        if mot.meld is not None and mot.meld.added:
            side = tiles[first + mot.sideways]   # the added tile lies on the claimed one, a little farther
            tiles.append(replace(side, cy=side.cy - w * rng.uniform(0.6, 0.9), z=1))
    if hand.flowers:
        if rng.random() < 0.5:
            xf, yf = -w * (len(hand.flowers) + 1.2), y_hand if not standing else y_hand + h * 1.3
        else:
            xf, yf = xm + w * 0.5, ym if mots else y_hand + h * 1.3
        _row(tiles, list(hand.flowers), xf, yf, w, h, 0.0, "self", "flower", False, gap)
    if loose is not None:
        far = min(t.cy - t.h / 2 for t in tiles)
        tiles += loose_tiles(loose, style, w, h, -w, max(t.cx for t in tiles) + w, far, loose.randint(4, 16))
    table = TableState(players=[PlayerArea(
        seat="self", concealed=tuple(conc), concealed_face_down=0, melds=tuple(mots),
        winning_tile=hand.winning_tile, winning_tile_apart=True, flowers=hand.flowers)])
    persp = rng.uniform(0.7, 0.97)
    rot = rng.uniform(-8, 8)
    margin = rng.uniform(0.02, 0.12)
    return _finish("phone", name, tiles, d_flat, d_stand, style, out_size, rng, persp, rot, margin, table,
                   hand.situation, rng.randrange(0, 4), boxes=boxes, clutter=clutter)


# ------------------------------------------------------------------ overhead broadcast view

def _to_seat(tiles: list[TileSpec], seat: str) -> list[TileSpec]:
    a = math.radians(SEAT_ANGLE[seat])
    ca, sa = math.cos(a), math.sin(a)
    out = []
    for t in tiles:
        # rotate CCW on screen (y down): x' = x cos + y sin, y' = -x sin + y cos
        x, y = t.cx * ca + t.cy * sa, -t.cx * sa + t.cy * ca
        out.append(replace(t, cx=x, cy=y, angle=t.angle + SEAT_ANGLE[seat], seat=seat))
    return out


class Deck:
    """The tiles still free for a table: at most four of a kind, each flower once."""

    def __init__(self, rng: random.Random, flowers: bool):
        self.rng, self.counts = rng, [0] * T.N_KINDS
        self.flowers = list(T.FLOWERS) if flowers else []
        rng.shuffle(self.flowers)

    def take(self, tiles) -> bool:
        """Take all of ``tiles`` (kinds), or none when a kind would run out."""
        return _take(self.counts, list(tiles))

    def draw(self) -> int:
        while True:
            k = self.rng.randrange(T.N_KINDS)
            if self.take([k]):
                return k

    def take_flowers(self, wanted) -> tuple[int, ...]:
        """The wanted flowers that are still free, taken."""
        got = tuple(sorted(f for f in wanted if f in self.flowers))
        self.flowers = [f for f in self.flowers if f not in got]
        return got


def lay_wall(local: list, rng: random.Random, w: float, h: float, y: float) -> None:
    """A seat's wall: a row of backs in front of the player, some stacks already drawn (``y``: its middle)."""
    n_wall = rng.randrange(0, 19)
    start = rng.randrange(0, 19 - n_wall) if n_wall < 18 else 0
    _row(local, [T.BACK] * n_wall, -9 * w + start * w, y, w, h, 0.0, "self", "wall")


def pick_melds(deck: Deck, rng: random.Random) -> list:
    """0-3 melds of a seat, as laid on the table: each the first meld of a random hand, if its tiles are free."""
    mots = []
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        melds = random_winning_hand(rng).melds
        if melds and deck.take(melds[0].tiles):
            mots.append(meld_on_table(melds[0], rng))
    return mots


def lay_melds(local: list, mots: list, w: float, h: float, y: float) -> None:
    """Melds in the meld row (``y``), right of centre, the claimed tile of each sideways."""
    x = 9 * w - sum((len(m.tiles) - 1) * w + (h if m.sideways is not None else w) + 0.4 * w for m in mots)
    for i, mot in enumerate(mots):
        kinds = [T.BACK if k is None else k for k in mot.tiles]
        x = _row(local, kinds, x, y, w, h, 0.0, "self", f"meld:{i}", sideways=mot.sideways) + 0.4 * w


def overhead_scene(art: dict, rng: random.Random, name: str, out_size=(640, 640), boxes: str = DEFAULT_BOXES,
                   seat_view: bool = False, clutter=None, racks=None):
    """Four players' tables seen from above; seat_view: the same table photographed from the south seat (far
    edge 0.35-0.6 of the near one, depth shortened to 0.35-0.6 of the width), gt kind 'seat'. clutter: a
    generator for the objects beside the tiles and the camera's light (datasets.clutter), or None; racks: one
    for clear racks before the hands (datasets.clutter.racks), or None."""
    style = pick_style(art, rng)
    w = 40.0
    h = w * rng.uniform(1.28, 1.4)
    t = style.thickness * w
    d_flat = np.array([rng.uniform(-0.15, 0.15), rng.uniform(0.0, 0.3)]) * t
    deck = Deck(rng, 34 in style.faces)
    tiles: list[TileSpec] = []
    players = []
    stray_seat = rng.choice(list(SEAT_ANGLE)) if rng.random() < 0.3 else None
    for seat in SEAT_ANGLE:
        local: list[TileSpec] = []
        players.append(_overhead_seat(local, seat, deck, rng, w, h, seat == stray_seat))
        tiles.extend(_to_seat(local, seat))
    situation = Situation(self_drawn=False, seat_wind=rng.choice(T.WINDS), prevalent_wind=rng.choice(T.WINDS))
    persp, rot, margin, squash = _overhead_camera(rng, seat_view)
    return _finish("seat" if seat_view else "overhead", name, tiles, d_flat, d_flat, style, out_size, rng, persp,
                   rot, margin, TableState(players=players), situation, rng.randrange(0, 6), boxes=boxes,
                   squash=squash, clutter=clutter, racks=racks)


def _overhead_seat(local: list, seat: str, deck: Deck, rng: random.Random, w: float, h: float,
                   stray: bool) -> PlayerArea:
    """One seat of the overhead scene in its own frame (the seat at the bottom): wall, river, melds, flowers, the
    standing hand's backs and, if ``stray``, a tile lying face up before it; its PlayerArea."""
    lay_wall(local, rng, w, h, 9.5 * w + h / 2)
    # river: rows of 6, first row nearest the centre
    disc = [deck.draw() for _ in range(rng.randrange(0, 20))]
    for r in range(0, len(disc), 6):
        _row(local, disc[r:r + 6], -3 * w, 3.8 * w + (r // 6 + 1) * h, w, h, 0.0, seat, "discard", gap=w * 0.03)
    # melds just outside the wall, right of centre; flowers at their left
    mots = pick_melds(deck, rng)
    y_m = 9.5 * w + h + 0.4 * w + h
    lay_melds(local, mots, w, h, y_m)
    n_fl = min(len(deck.flowers), rng.choice((0, 0, 1, 2)))
    fl = tuple(sorted(deck.flowers.pop() for _ in range(n_fl)))
    _row(local, list(fl), -9 * w, y_m, w, h, 0.0, seat, "flower")
    # standing hand seen from above: only the backs show, foreshortened
    n_hand = 13 - 3 * len(mots) + (1 if rng.random() < 0.25 else 0)
    hh = h * rng.uniform(0.45, 0.7)
    _row(local, [T.BACK] * n_hand, -n_hand * w / 2 - 2 * w, y_m + 0.3 * w + hh, w, h, 0.0, seat, "concealed",
         face_down_h=hh)
    exposed: tuple[int, ...] = ()
    if stray:
        k = deck.draw()
        exposed = (k,)
        local.append(TileSpec(k, rng.uniform(-7, 7) * w, 7.2 * w, rng.choice((0.0, 0.0, 180.0)), w, h,
                              False, seat, "exposed"))
    return PlayerArea(seat=seat, concealed=None, concealed_face_down=n_hand, melds=tuple(mots),
                      winning_tile=None, winning_tile_apart=False, flowers=fl, discards=tuple(disc), exposed=exposed)


def _overhead_camera(rng: random.Random, seat_view: bool) -> tuple[float, float, float, float]:
    """(perspective, rotation, margin, squash) of the overhead camera, or of the south seat's (seat_view)."""
    persp = rng.uniform(0.9, 1.0)
    rot = rng.choice((0.0, rng.uniform(-4, 4)))
    margin = rng.uniform(0.01, 0.06)
    squash = 1.0
    if seat_view:
        persp, squash, rot = rng.uniform(0.35, 0.6), rng.uniform(0.35, 0.6), rng.uniform(-3, 3)
    return persp, rot, margin, squash


def portrait(img: np.ndarray, gt: GroundTruth, height: int, rng: random.Random) -> tuple[np.ndarray, GroundTruth]:
    """A seat view as a phone held upright takes it: the landscape frame in a frame ``height`` tall and as wide,
    the room beyond the table above it and the table's near edge below it (plain textures, no tiles), the
    boxes moved with it. The tiles are as many pixels as the landscape frame's: smaller than in a landscape
    frame of the same height."""
    h, w = img.shape[:2]
    top = int(rng.uniform(0.3, 0.7) * max(0, height - h))
    out = np.empty((height, w, 3), np.uint8)
    room = table_background(max(top, 1), w, rng).astype(np.float32) * rng.uniform(0.35, 0.7)
    out[:top] = room[:top].astype(np.uint8)
    out[top:top + h] = img
    out[top + h:] = table_background(max(height - top - h, 1), w, rng)[:height - top - h]
    objs = [replace(o, box=(o.box[0], o.box[1] + top, o.box[2], o.box[3] + top)) for o in gt.objects]
    return out, replace(gt, objects=objs)


# ------------------------------------------------------------------ close-up grid (training only)

GRID_WEIGHTS = {"learner": 3.0, "xmj_real": 2.0, "gnome_smooth": 1.5, "kde_default": 1.0, "kde_traditional": 1.0}


def grid_scene(art: dict, rng: random.Random, name: str, out_size=(640, 640), boxes: str = DEFAULT_BOXES,
               clutter=None):
    """Tiles packed edge to edge in rows, seen from above, often in a dark tray: how tile sets are
    photographed for datasets (the real riichi photos look like this). Extra training scene kind."""
    names = [n for n in art if n in GRID_WEIGHTS]
    src = rng.choices(names, [GRID_WEIGHTS[n] for n in names])[0]
    style = Style(art[src], rng.choice(BACK_COLOURS), rng.choice(IVORY_BODIES), rng.uniform(0.45, 0.8),
                  rng.uniform(0.35, 0.6))
    w = 50.0
    h = w * rng.uniform(1.28, 1.4)
    t = style.thickness * w
    d_flat = np.array([rng.uniform(-0.2, 0.2), rng.uniform(0.0, 0.35)]) * t
    pool = [k for k in range(T.N_KINDS) for _ in range(4)]
    if 34 in style.faces:
        pool += list(T.FLOWERS)
    rng.shuffle(pool)
    n_blocks = rng.choice((1, 1, 2))
    rows, cols = rng.randint(2, 5), rng.randint(4, 10)
    gap = w * rng.uniform(0.0, 0.04)
    angle = rng.choice((0.0, 0.0, 0.0, 90.0, 180.0))
    tiles: list[TileSpec] = []
    underlays = []
    tray = rng.random() < 0.6
    tray_col = tuple(int(v) for v in np.array(rng.choice([(20, 20, 20), (35, 30, 30), (60, 60, 60), (30, 50, 90)]))
                     * rng.uniform(0.7, 1.3))
    y0 = 0.0
    for b in range(n_blocks):
        for r in range(rows):
            kinds = [pool.pop() for _ in range(cols)]
            _row(tiles, kinds, 0.0, y0 + (r + 1) * (h + gap), w, h, 0.0, "self", "exposed", gap=gap)
        if tray:
            m = w * rng.uniform(0.1, 0.3)
            x1, y1 = -m, y0 - m
            x2, y2 = cols * (w + gap) + m, y0 + rows * (h + gap) + m + abs(d_flat[1])
            underlays.append((np.float32([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]), tray_col))
        y0 += rows * (h + gap) + w * rng.uniform(0.8, 2.0)
    if angle:
        tiles = _to_seat(tiles, {90.0: "right", 180.0: "across"}[angle])
        tiles = [replace(t, seat="self") for t in tiles]
        a = math.radians(angle)
        ca, sa = math.cos(a), math.sin(a)
        underlays = [(np.float32([[x * ca + y * sa, -x * sa + y * ca] for x, y in poly]), c) for poly, c in underlays]
    table = TableState(players=[PlayerArea(seat="self", concealed=None, winning_tile_apart=False,
                                           exposed=tuple(t.kind for t in tiles))])
    persp = rng.uniform(0.85, 1.0)
    rot = rng.uniform(-10, 10)
    margin = rng.uniform(0.02, 0.15)
    return _finish("grid", name, tiles, d_flat, d_flat, style, out_size, rng, persp, rot, margin, table,
                   Situation(), rng.randrange(0, 3), underlays, boxes, clutter=clutter)
