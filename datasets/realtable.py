"""Whole tables painted with real tile faces (datasets.realfaces): seat views and top-down, as phones take them.

The geometry is the overhead scene's (datasets.scenes: four seats with walls of backs, rivers, melds with their
claimed tile sideways, flowers, the camera from above or from the south seat), with what real photos of a table
show and the drawn scenes do not:

* the near seat ("self") has won and laid its hand face up: in one row, or spread in its sets, the winning tile
  set apart; its melds and flowers before it. Another seat's hand stands (backs) or, now and then, lies face up.
* river tiles lie as they were thrown: turned a little, some at any angle.
* faces come from one tile set per table (the set's own crops for the kinds it holds, any set of the same
  split for the others), several crops per kind, one drawn for each tile; the table is a patch of a real
  table from the same split or a plain white, cream, green or blue cloth.
* the frame is sent through a messaging app: scaled down and up again, JPEG at quality 50-80.

    img, gt, angles = real_table(bank, rng, "x.jpg", (1280, 720), seat_view=True)
"""
from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np

from mjtable.scoring import tiles as T
from mjtable.scoring.table import SEAT_ANGLE, PlayerArea, TableState

from .hands import meld_on_table, random_winning_hand
from .realfaces import RealBank
from .render import BACK_COLOURS, DEFAULT_BOXES, IVORY_BODIES, Style, TileSpec
from .scenes import Deck, _finish, _row, _to_seat, lay_melds, lay_wall, pick_melds

TABLES_VERSION = 1        # bumped when the tables change: generated ones record it (datasets.generate)
PLAIN_TABLES = [(235, 238, 240), (215, 228, 236), (60, 110, 40), (40, 90, 30), (140, 90, 40), (110, 60, 20)]
REAL_TABLE = 0.5          # share of tables on a real table patch (the rest on a plain cloth)
RIVER_TURN = 12.0         # degrees: river tiles lie turned by up to this ...
RIVER_ANY = 0.08          # ... and this share of them at any angle


# ------------------------------------------------------------------------------------------ faces and table


def set_faces(bank: RealBank, tset: str) -> dict[int, list[np.ndarray]]:
    """{tile id: crops} for a table of set ``tset``: the set's own crops, for a kind it lacks every set's."""
    pooled: dict[int, list[np.ndarray]] = {}
    for faces in bank.faces.values():
        for t, crops in faces.items():
            pooled.setdefault(t, []).extend(crops)
    return {t: list(bank.faces[tset].get(t) or crops) for t, crops in pooled.items()}


def plain_table(h: int, w: int, rng: random.Random) -> np.ndarray:
    """A plain cloth or board: one colour, a soft light across it and a fine grain."""
    col = np.array(rng.choice(PLAIN_TABLES), np.float32) * rng.uniform(0.85, 1.08)
    nr = np.random.default_rng(rng.randrange(1 << 30))
    grain = cv2.GaussianBlur(nr.normal(0, 1, (h, w)).astype(np.float32), (0, 0), rng.uniform(0.6, 1.5))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    light = 1 + rng.uniform(-0.15, 0.15) * (xx / w - 0.5) + rng.uniform(-0.15, 0.15) * (yy / h - 0.5)
    img = col[None, None] * (light + 0.03 * grain)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def patch_table(patch: np.ndarray, h: int, w: int, rng: random.Random) -> np.ndarray:
    """A real table patch laid over (h, w): scaled, then mirrored copies side by side (no seams)."""
    s = rng.uniform(3.0, 6.0)           # a patch is 112 px: larger, its repeats show less
    p = cv2.resize(patch, None, fx=s, fy=s, interpolation=cv2.INTER_LINEAR)
    p = np.vstack([np.hstack([p, p[:, ::-1]]), np.hstack([p[::-1], p[::-1, ::-1]])])
    reps = (h // p.shape[0] + 1, w // p.shape[1] + 1, 1)
    return np.ascontiguousarray(np.tile(p, reps)[:h, :w])


def table_maker(bank: RealBank, tset: str, rng: random.Random):
    """The table under one scene's tiles: (h, w, rng) -> BGR, a patch of the set's photos (or any of the
    split's) or a plain cloth, chosen now."""
    patches = bank.patches.get(tset) or [p for ps in bank.patches.values() for p in ps]
    if patches and rng.random() < REAL_TABLE:
        patch = patches[rng.randrange(len(patches))]
        return lambda h, w, r: patch_table(patch, h, w, r)
    return plain_table


def real_style(bank: RealBank, rng: random.Random) -> tuple[str, Style]:
    """(set, Style) for one table: one set's faces (several per kind), a back colour, a body, a real table."""
    tset = sorted(bank.faces)[rng.randrange(len(bank.faces))]
    style = Style(set_faces(bank, tset), rng.choice(BACK_COLOURS), rng.choice(IVORY_BODIES),
                  rng.uniform(0.45, 0.8), rng.uniform(0.35, 0.6), table_maker(bank, tset, rng))
    return tset, style


def messaging_copy(img: np.ndarray, rng: random.Random) -> np.ndarray:
    """The frame as a messaging app passes it on: often scaled down and up again, JPEG at quality 50-80."""
    h, w = img.shape[:2]
    if rng.random() < 0.6:
        s = rng.uniform(0.55, 0.9)
        small = cv2.resize(img, (max(8, round(w * s)), max(8, round(h * s))), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, rng.randrange(50, 81)])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


# ------------------------------------------------------------------------------------------ the table


class Sizes:
    """A table's tile size and where its rows lie, in a seat's own frame (the seat at the bottom, +y)."""

    def __init__(self, rng: random.Random, thickness: float):
        self.w = 40.0
        self.h = self.w * rng.uniform(1.28, 1.4)
        self.d = np.array([rng.uniform(-0.15, 0.15), rng.uniform(0.0, 0.3)]) * thickness * self.w
        self.wall = 9.5 * self.w + self.h / 2                           # the wall's near edge
        self.melds = 9.5 * self.w + self.h + 0.4 * self.w + self.h      # the meld row's near edge
        self.hand = self.melds + 0.4 * self.w + self.h                  # a hand laid down


def wall_and_river(local: list, deck: Deck, z: Sizes, rng: random.Random) -> tuple[int, ...]:
    """A seat's wall (a row of backs, some drawn) and river (rows of 6, tiles turned as thrown); the discards."""
    w, h = z.w, z.h
    lay_wall(local, rng, w, h, z.wall)
    disc = [deck.draw() for _ in range(rng.randrange(0, 20))]
    first = len(local)
    for r in range(0, len(disc), 6):
        _row(local, disc[r:r + 6], -3 * w, 3.8 * w + (r // 6 + 1) * h * 1.05, w, h, 0.0, "self", "discard",
             gap=w * 0.12)
    for i in range(first, len(local)):
        t = local[i]
        turn = rng.uniform(0, 360) if rng.random() < RIVER_ANY else rng.uniform(-RIVER_TURN, RIVER_TURN)
        local[i] = replace(t, angle=t.angle + turn, cx=t.cx + rng.uniform(-0.06, 0.06) * w,
                           cy=t.cy + rng.uniform(-0.06, 0.06) * w)
    return tuple(disc)


def lay_hand(local: list, kinds: list[int], z: Sizes, rng: random.Random, winning=None) -> None:
    """A hand laid face up before its seat: one row, or spread in groups of two and three; the winning tile set
    apart at its right."""
    w, h = z.w, z.h
    groups = [list(kinds)]
    if rng.random() < 0.5:
        groups, rest = [], list(kinds)
        while rest:
            n = min(len(rest), rng.choice((2, 3, 3)))
            groups.append(rest[:n])
            rest = rest[n:]
    gaps = [w * rng.uniform(0.3, 0.8) for _ in groups[1:]]
    width = len(kinds) * w + sum(gaps) + (w * 2 if winning is not None else 0)
    x = -width / 2 - w * rng.uniform(0, 1.5)
    for g, gap in zip(groups, gaps + [0.0]):
        x = _row(local, g, x, z.hand, w, h, 0.0, "self", "concealed", gap=w * rng.uniform(0, 0.04)) + gap
    if winning is not None:
        _row(local, [winning], x + w * rng.uniform(0.6, 1.2), z.hand, w, h, 0.0, "self", "winning")


def other_seat(local: list, deck: Deck, z: Sizes, rng: random.Random) -> dict:
    """A seat that did not win: melds (0-3), flowers, its hand standing (backs) or now and then laid face up;
    the PlayerArea fields."""
    mots = pick_melds(deck, rng)
    lay_melds(local, mots, z.w, z.h, z.melds)
    fl = deck.take_flowers(deck.flowers[:rng.choice((0, 0, 1, 2))])
    _row(local, list(fl), -9 * z.w, z.melds, z.w, z.h, 0.0, "self", "flower")
    n = 13 - 3 * len(mots) + (1 if rng.random() < 0.25 else 0)
    if rng.random() < 0.2:
        kinds = sorted(deck.draw() for _ in range(n))
        lay_hand(local, kinds, z, rng)
        return dict(concealed=tuple(kinds), concealed_face_down=0, melds=tuple(mots), flowers=fl)
    hh = z.h * rng.uniform(0.45, 0.7)
    _row(local, [T.BACK] * n, -n * z.w / 2 - 2 * z.w, z.melds + 0.3 * z.w + hh, z.w, z.h, 0.0, "self",
         "concealed", face_down_h=hh)
    return dict(concealed=None, concealed_face_down=n, melds=tuple(mots), flowers=fl)


def winner_seat(local: list, deck: Deck, z: Sizes, rng: random.Random):
    """The near seat's won hand laid face up with its melds and flowers; (PlayerArea fields, Situation)."""
    hand = random_winning_hand(rng)
    deck.take(list(hand.concealed) + [hand.winning_tile] + [t for m in hand.melds for t in m.tiles])
    mots = [meld_on_table(m, rng) for m in hand.melds]
    lay_melds(local, mots, z.w, z.h, z.melds)
    fl = deck.take_flowers(hand.flowers)
    _row(local, list(fl), -9 * z.w, z.melds, z.w, z.h, 0.0, "self", "flower")
    conc = list(hand.concealed)
    lay_hand(local, conc, z, rng, hand.winning_tile)
    return (dict(concealed=tuple(conc), concealed_face_down=0, melds=tuple(mots), flowers=fl,
                 winning_tile=hand.winning_tile, winning_tile_apart=True), hand.situation)


def real_table(bank: RealBank, rng: random.Random, name: str, out_size=(1280, 720), boxes: str = DEFAULT_BOXES,
               seat_view: bool = False, clutter=None, racks=None):
    """(image, GroundTruth, angles) of a whole table painted with one set of the bank's faces: top-down, or
    from the south seat (seat_view, gt kind 'seat'). Every tile is labelled with its seat and group."""
    tset, style = real_style(bank, rng)
    z = Sizes(rng, style.thickness)
    deck = Deck(rng, all(f in style.faces for f in T.FLOWERS))
    tiles, players, situation = [], [], None
    for seat in SEAT_ANGLE:                      # self first: the winner takes its tiles before the others
        local: list[TileSpec] = []
        disc = wall_and_river(local, deck, z, rng)
        if seat == "self":
            area, situation = winner_seat(local, deck, z, rng)
        else:
            area = dict(other_seat(local, deck, z, rng), winning_tile=None, winning_tile_apart=False)
        tiles.extend(_to_seat(local, seat))
        players.append(PlayerArea(seat=seat, discards=disc, **area))
    # a phone at a seat, held higher than the drawn seat views' camera and farther back: the near hand's tiles
    # 12-25 px across in a 720 px wide frame, the far seat's 8-15 px, as in real photos
    if seat_view:
        persp, squash, rot = rng.uniform(0.4, 0.65), rng.uniform(0.4, 0.65), rng.uniform(-4, 4)
        margin = rng.uniform(0.08, 0.22)
    else:
        persp, squash, rot, margin = rng.uniform(0.9, 1.0), 1.0, rng.uniform(-6, 6), rng.uniform(0.03, 0.15)
    return _finish("seat" if seat_view else "overhead", name, tiles, z.d, z.d, style, out_size, rng, persp, rot,
                   margin, TableState(players=players), situation, 0, boxes=boxes, squash=squash, clutter=clutter,
                   racks=racks)
