"""Synthetic detection lists for layout tests, built from geometry alone (no model, no images).

Tiles are laid out on the table plane (x right, y down = towards the photographing player, unit = one tile
width), then the whole scene is rotated, optionally put through a perspective warp, and every tile becomes
the axis-aligned box of its rotated rectangle with the orientation label a detector gives (nearest image axis
of the tile's up vector). Rotations are counter-clockwise on screen, in degrees.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import ACROSS, LEFT, RIGHT, Hand, Meld
from mjtable.vision.types import FACE_DOWN, SIDEWAYS, UPRIGHT, UPSIDE_DOWN, Detection

ASPECT = 1.35
SEAT_ROT = {"self": 0.0, "right": 90.0, "across": 180.0, "left": 270.0}


def rot(x: float, y: float, deg: float) -> tuple[float, float]:
    """Counter-clockwise on screen (y down)."""
    a = math.radians(deg)
    return x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a)


def label_of(up: tuple[float, float]) -> str:
    ux, uy = up
    if abs(uy) >= abs(ux):
        return UPRIGHT if uy < 0 else UPSIDE_DOWN
    return SIDEWAYS


@dataclass
class Tile:
    """A tile on the plane: centre (x, y) in tile widths; ``angle`` = its rotation (0 upright, 90 turned left)."""
    kind: int
    x: float
    y: float
    angle: float = 0.0
    back: bool = False
    seat: str = "self"
    group: str = ""


class Row:
    """Lays tiles left to right along a seat's row, bottoms aligned (sideways tiles sit on the bottom edge)."""

    def __init__(self, out: list[Tile], x: float, y_bottom: float, group: str = ""):
        self.out, self.x, self.y, self.group = out, x, y_bottom, group

    def put(self, kind: int, side: bool = False, back: bool = False, angle: float = 0.0, group: str | None = None):
        ext, tall = (ASPECT, 1.0) if side else (1.0, ASPECT)
        self.out.append(Tile(kind, self.x + ext / 2, self.y - tall / 2, angle + (90.0 if side else 0.0), back,
                             group=group or self.group))
        self.x += ext
        return self

    def skip(self, dx: float):
        self.x += dx
        return self


def put_meld(row: Row, m: Meld, group: str) -> None:
    ts = list(m.tiles)
    if m.concealed:
        for n, t in enumerate(ts):
            row.put(T.BACK if n in (0, 3) else t, back=n in (0, 3), group=group)
        return
    side = {LEFT: 0, ACROSS: 1, RIGHT: len(ts) - 1}[m.source]
    if m.claimed is not None:
        ts.remove(m.claimed)
        ts.insert(side, m.claimed)
    for n, t in enumerate(ts):
        row.put(t, side=n == side, group=group)


def layout_hand(hand: Hand, *, apart: bool = True, melds_side: str = "right", gap: float = 0.6,
                flowers_row: bool = True) -> list[Tile]:
    """Place a finished hand like a player would: concealed row, winning tile apart, melds, flowers."""
    out: list[Tile] = []
    row = Row(out, 0.0, ASPECT / 2)

    def melds():
        for i, m in enumerate(hand.melds):
            put_meld(row, m, f"meld:{i}")
            row.skip(gap)

    if melds_side == "left":
        melds()
        row.skip(gap)
    for t in sorted(hand.concealed):
        row.put(t, group="concealed")
    if hand.winning_tile is not None:
        row.skip(gap * 1.2 if apart else 0.0)
        row.put(hand.winning_tile, group="winning")
    if melds_side == "right":
        row.skip(gap * 1.5)
        melds()
    if hand.flowers:
        if flowers_row:
            frow = Row(out, 0.0, ASPECT / 2 - 1.9)
        else:
            frow = row.skip(gap)
        for f in hand.flowers:
            frow.put(f, group="flower")
    return out


def layout_table(seats: dict[str, dict]) -> list[Tile]:
    """An overhead table like the generator's: per seat (each a dict with optional keys) ``discards``
    (rows of 6 from the centre outwards), ``wall`` (number of stacks), ``melds`` (Meld list), ``flowers``,
    ``hand`` (number of standing tiles, seen as backs), ``exposed`` (list of (kind, x) lying between river and
    wall, ``upside_down`` flag via (kind, x, True)), ``laid`` (a hand laid face up beyond the meld row instead of
    a standing one: groups of kinds left to right, ``laid_gap`` tile widths apart), ``winning`` (the winning tile
    set apart at its right) and ``laid_melds`` (melds laid in the same row, after the winning tile)."""
    out: list[Tile] = []
    for seat, spec in seats.items():
        local: list[Tile] = []
        disc = list(spec.get("discards", ()))
        for r in range(0, len(disc), 6):
            row = Row(local, -3.0, 3.8 + (r // 6 + 1) * ASPECT, "discard")
            for t in disc[r:r + 6]:
                row.put(t).skip(0.03)
        n_wall = spec.get("wall", 0)
        row = Row(local, -9.0 + spec.get("wall_start", 0), 9.5 + ASPECT / 2, "wall")
        for _ in range(n_wall):
            row.put(T.BACK, back=True)
        y_m = 9.5 + 2 * ASPECT + 0.4
        melds = spec.get("melds", ())
        width = sum(3 + (ASPECT if not m.concealed else 1.0) + (1 if len(m.tiles) == 4 else 0) + 0.4 for m in melds)
        row = Row(local, 9.0 - width, y_m)
        for i, m in enumerate(melds):
            put_meld(row, m, f"meld:{i}")
            row.skip(0.4)
        row = Row(local, -9.0, y_m, "flower")
        for f in spec.get("flowers", ()):
            row.put(f)
        n_hand = spec.get("hand", 0)
        row = Row(local, -n_hand / 2 - 2, y_m + 0.3 + 0.6 * ASPECT, "concealed")
        for _ in range(n_hand):
            row.put(T.BACK, back=True)
        lay_down(local, spec, y_m + 0.4 + ASPECT, len(melds))
        for e in spec.get("exposed", ()):
            kind, x = e[0], e[1]
            local.append(Tile(kind, x, 7.2, 180.0 if len(e) > 2 and e[2] else 0.0, group="exposed"))
        for t in local:
            t.x, t.y = rot(t.x, t.y, SEAT_ROT[seat])
            t.angle += SEAT_ROT[seat]
            t.seat = seat
        out += local
    return out


def lay_down(local: list[Tile], spec: dict, y_bottom: float, n_melds: int) -> None:
    """A seat's hand laid face up (``layout_table``'s ``laid``, ``winning``, ``laid_melds``) along y_bottom."""
    groups = spec.get("laid")
    if not groups:
        return
    row = Row(local, spec.get("laid_start", -7.0), y_bottom, "concealed")
    for n, g in enumerate(groups):
        if n:
            row.skip(spec.get("laid_gap", 0.5))
        for t in g:
            row.put(t)
    if spec.get("winning") is not None:
        row.skip(spec.get("winning_gap", 0.9))
        row.put(spec["winning"], group="winning")
    for i, m in enumerate(spec.get("laid_melds", ())):
        row.skip(0.6)
        put_meld(row, m, f"meld:{n_melds + i}")


def render(layout: list[Tile], *, angle: float = 0.0, scale: float = 40.0, center=(640.0, 480.0),
           homography: np.ndarray | None = None, conf: float = 0.9, squash: float = 1.0,
           edges: bool = False) -> list[Detection]:
    """Rotate the plane by ``angle`` (CCW, degrees) about the scene centre, scale to pixels, optional 3x3
    homography; ``squash`` < 1 shortens tiles standing in a row (a standing hand seen from above); ``edges``:
    each detection carries its tile's edge direction modulo 90 (Detection.angle), as a photo's detector gives
    it."""
    xs = [t.x for t in layout]
    ys = [t.y for t in layout]
    x0 = (min(xs) + max(xs)) / 2 if xs else 0.0
    y0 = (min(ys) + max(ys)) / 2 if ys else 0.0

    def to_img(x, y):
        px, py = rot((x - x0) * scale, (y - y0) * scale, angle)
        px, py = px + center[0], py + center[1]
        if homography is not None:
            p = homography @ np.array([px, py, 1.0])
            px, py = p[0] / p[2], p[1] / p[2]
        return px, py

    dets = []
    for t in layout:
        hh = ASPECT / 2 * (squash if t.group == "concealed" and t.back else 1.0)
        corners = []
        for dx, dy in ((-0.5, -hh), (0.5, -hh), (0.5, hh), (-0.5, hh)):
            cx, cy = rot(dx, dy, t.angle)
            corners.append(to_img(t.x + cx, t.y + cy))
        px = [c[0] for c in corners]
        py = [c[1] for c in corners]
        up = rot(*rot(0.0, -1.0, t.angle), angle)
        label = FACE_DOWN if t.back else label_of(up)
        edge = (t.angle + angle + 45) % 90 - 45 if edges else None
        dets.append(Detection((min(px), min(py), max(px), max(py)), t.kind, label, conf, angle=edge))
    return dets


def mild_perspective(center=(640.0, 480.0), k: float = 0.0004) -> np.ndarray:
    """A homography that shrinks the far (top) side of the image: a phone held at an angle."""
    cx, cy = center
    to = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
    back = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1.0]])
    p = np.array([[1, 0, 0], [0, 1, 0], [0, -k, 1.0]])
    return back @ p @ to
