"""The layout's shared geometry: tiles placed in a rotated frame, their rows and groups, the row direction, which
tiles lie sideways, and small numeric helpers. Every stage of the layout parser (phone, seats, rivers, melds,
flowers, winning) reads boxes through these; the tunable numbers they use are the layout's parameters
(``base.LayoutParams``, read with ``base.current_params()``).

* ``Tile``: one detection in the frame of its rows (u along the rows, v across them, w its local width);
* ``tiles_of``, ``Near``: tiles from detections, and a grid to find a tile's neighbours without looking at all;
* ``nn_angle``, ``rotate``: the dominant direction of nearest neighbours, and the tiles turned into that frame;
* ``rows_of``, ``split_groups``, ``classify_sideways``, ``frame_of`` (a ``Frame``): rows, groups split at gaps,
  tiles lying across their row, and all of it for a set of tiles at once;
* ``label_axis``, ``direction_votes``: what the orientation labels say of a tile's axis and the reading direction;
* ``mean``, ``median``, ``clip``: numbers of short lists without numpy's per-call cost; ``describe``: a tile in a
  note.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T

from ..perspective import nearest
from ..types import FACE_DOWN, SIDEWAYS, UPRIGHT, UPSIDE_DOWN, Detection
from .base import current_params


@dataclass(eq=False)      # a tile is itself only: ``t in row`` compares identities, not every field
class Tile:
    """One detection as the layout reads it: its box's centre (x, y) and scale s, its place (u, v) in the frame
    of its rows and its local width w, and what the stages find of it (lying sideways, stacked on another)."""

    i: int                 # index into the detection list
    det: Detection
    x: float
    y: float
    s: float               # sqrt(box area): orientation-independent scale
    u: float = 0.0
    v: float = 0.0
    w: float = 0.0         # local tile width (short side) in pixels
    side: bool = False     # lies sideways relative to its row
    lean: float = 0.0      # box-shape evidence of lying sideways (~1 sideways, ~0 along the row)
    added: bool = False    # stacked on a sideways tile (added kong)

    @property
    def kind(self) -> int:
        return self.det.kind

    @property
    def back(self) -> bool:
        return self.det.kind == T.BACK or self.det.orientation == FACE_DOWN


class Near:
    """Tiles by cell of a grid over their (u, v) (or (x, y)) centres: the tiles that may lie within a distance of a
    point along each axis, in their order in the list, without looking at every tile."""

    def __init__(self, tiles: list[Tile], cell: float, uv: bool = True):
        self.cell, self.uv, self.n = max(cell, 1e-6), uv, len(tiles)
        self.cells: dict[tuple[int, int], list[tuple[int, Tile]]] = {}
        for n, t in enumerate(tiles):
            self.cells.setdefault(self._key(*self._at(t)), []).append((n, t))

    def _at(self, t: Tile) -> tuple[float, float]:
        return (t.u, t.v) if self.uv else (t.x, t.y)

    def _key(self, a: float, b: float) -> tuple[int, int]:
        return math.floor(a / self.cell), math.floor(b / self.cell)

    def around(self, t: Tile, reach: float) -> list[Tile]:
        """The tiles (t too) within ``reach`` of t along both axes, and maybe a few more, in list order."""
        a, b = self._at(t)
        (i0, j0), (i1, j1) = self._key(a - reach, b - reach), self._key(a + reach, b + reach)
        if (i1 - i0 + 1) * (j1 - j0 + 1) >= len(self.cells):
            found = [x for c in self.cells.values() for x in c]
        else:
            found = [x for i in range(i0, i1 + 1) for j in range(j0, j1 + 1) for x in self.cells.get((i, j), ())]
        found.sort(key=lambda x: x[0])
        return [t for _, t in found]


def mean(xs: list[float]) -> float:
    """The mean of a non-empty list."""
    return sum(xs) / len(xs)


def median(xs: list[float]) -> float:
    """np.median of a short list, without numpy's per-call cost."""
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def clip(x: float, lo: float, hi: float) -> float:
    """np.clip for one number (the layout clips thousands of scalars per frame; numpy's call costs 30x more)."""
    return min(max(x, lo), hi)


def tiles_of(dets: list[Detection], idx: list[int]) -> list[Tile]:
    """The tiles of the detections ``idx`` names, at their boxes' centres, scaled by their boxes' areas."""
    out = []
    for i in idx:
        d = dets[i]
        out.append(Tile(i, d, *d.center, math.sqrt(max(d.width, 1e-6) * max(d.height, 1e-6))))
    return out


def box_score(d: Detection) -> float:
    """The locator's confidence that a tile lies in the box, whatever its face: the detection's confidence
    divided by the classifier's probability of its kind (the confidence itself when that is unknown)."""
    p = dict(d.candidates).get(d.kind)
    return d.confidence / p if p else d.confidence


def nn_angle(pts: np.ndarray, sym: int) -> float:
    """Dominant direction (radians, modulo 2*pi/sym) of nearest-neighbour vectors."""
    n = len(pts)
    if n < 2:
        return 0.0
    j, nd = nearest(pts)
    vec = pts[j] - pts
    keep = nd < 2.0 * np.median(nd)
    ang = np.arctan2(vec[keep, 1], vec[keep, 0])
    z = np.exp(1j * sym * ang).sum()
    return float(np.angle(z) / sym) if abs(z) > 0 else 0.0


def rotate(tiles: list[Tile], theta: float) -> None:
    """Set each tile's (u, v): its centre in the frame turned by theta (u along the rows, v across them)."""
    c, s = math.cos(theta), math.sin(theta)
    for t in tiles:
        t.u = t.x * c + t.y * s
        t.v = -t.x * s + t.y * c


def rows_of(tiles: list[Tile], k: float) -> list[list[Tile]]:
    """Cluster tiles into rows by v (single linkage on sorted v), each row sorted by u."""
    lp = current_params()
    if not tiles:
        return []
    ts = sorted(tiles, key=lambda t: t.v)
    rows = [[ts[0]]]
    for a, b in zip(ts, ts[1:]):
        if b.v - a.v > lp.row_split * k * (a.s + b.s) / 2:
            rows.append([])
        rows[-1].append(b)
    return [sorted(r, key=lambda t: t.u) for r in rows]


def _width_factor(rows: list[list[Tile]]) -> float:
    """k such that tile width w ~ k * s, from the spacing of neighbours in rows (most of them touch)."""
    lp = current_params()
    ratios = [(b.u - a.u) / ((a.s + b.s) / 2) for r in rows for a, b in zip(r, r[1:])]
    if not ratios:
        return 1.0 / math.sqrt(lp.aspect)
    k = float(np.percentile(ratios, 20))
    return clip(float(k), 0.6 / math.sqrt(lp.aspect), 1.6 / math.sqrt(lp.aspect))


def _refine_angle(tiles: list[Tile], theta: float, iters: int = 2) -> float:
    """Correct theta by the mean slope of the rows (least squares v = a*u + b per row)."""
    lp = current_params()
    for _ in range(iters):
        rotate(tiles, theta)
        k = 1.0 / math.sqrt(lp.aspect)
        num = den = 0.0
        for r in rows_of(tiles, k):
            if len(r) < 3:
                continue
            u = np.array([t.u for t in r])
            v = np.array([t.v for t in r])
            uc = u - u.mean()
            var = float((uc ** 2).sum())
            if var <= 0:
                continue
            slope = float((uc * (v - v.mean())).sum() / var)
            if abs(slope) > 0.3:          # not a row, just a coincidence of v
                continue
            num += slope * len(r)
            den += len(r)
        if den == 0:
            break
        theta += math.atan(num / den)
    rotate(tiles, theta)
    return theta


def label_axis(o: str) -> Optional[int]:
    """0: tile's up axis is vertical in the image, 1: horizontal, None: no information."""
    return {UPRIGHT: 0, UPSIDE_DOWN: 0, SIDEWAYS: 1}.get(o)


def _reliability(theta: float) -> tuple[float, float, float]:
    """(label reliability, shape reliability, expected (W-H)/(W+H) of an upright tile) for rows at theta."""
    lp = current_params()
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    q = (c - s) / (c + s)                                  # +1 axis-aligned rows ... 0 at 45 degrees ... -1 vertical
    delta = min(abs(math.degrees(theta)) % 90, 90 - abs(math.degrees(theta)) % 90)   # to nearest axis
    rel_label = clip((38.0 - delta) / 10.0, 0.0, 1.0)
    m_up = (1 - lp.aspect) / (1 + lp.aspect) * q
    rel_shape = min(1.0, 2 * abs(m_up) / 0.25)
    return rel_label, rel_shape, m_up


def classify_sideways(row: list[Tile], theta: float) -> None:
    """Mark tiles lying across their row, by comparison with the row majority (label and box shape)."""
    lp = current_params()
    rel_label, rel_shape, m_up = _reliability(theta)
    m = [(t.det.width - t.det.height) / (t.det.width + t.det.height) for t in row]
    med = median(m) if m else 0.0
    axes = [label_axis(t.det.orientation) for t in row]
    known = [a for a in axes if a is not None]
    major = max(set(known), key=known.count) if known else None
    for t, mi, a in zip(row, m, axes):
        ev = w = 0.0
        if rel_shape > 0 and abs(m_up) > 1e-6:
            shape = (med - mi) / (2 * m_up)                 # ~1 for a sideways tile, ~0 for its upright peers
            t.lean = rel_shape * clip(float(shape), -0.5, 1.5)
            ev += t.lean
            w += rel_shape
        if a is not None and major is not None and rel_label > 0:
            # a face that looks alike turned a quarter (blank white dragon, one of dots) leaves the classifier
            # unsure of the axis: its vote counts for less, and the box shape decides
            sure = rel_label * clip((t.det.axis_p - 0.5) / 0.5, 0.0, 1.0) ** lp.label_power
            ev += sure * (1.0 if a != major else 0.0)
            w += sure
        # too little evidence (rows near 45 degrees): leave it to the spacing test
        t.side = w >= 0.35 and ev / w > 0.5


def _spacing_sideways(group: list[Tile]) -> None:
    """Where box cues say nothing (near 45 degrees), find the one tile whose neighbours sit farther apart."""
    lp = current_params()
    if len(group) < 3 or any(t.side for t in group) or any(t.back for t in group):
        return
    d = [b.u - a.u for a, b in zip(group, group[1:])]

    def err(k):
        ext = [t.w * (lp.aspect if n == k else 1.0) for n, t in enumerate(group)]
        return sum((di - (ext[j] + ext[j + 1]) / 2) ** 2 for j, di in enumerate(d))

    best, best_err = None, err(-1)
    for k in range(len(group)):
        e = err(k)
        if e < best_err * 0.5:
            best, best_err = k, e
    if best is not None:
        group[best].side = True


def split_groups(row: list[Tile]) -> list[list[Tile]]:
    """A row (sorted along u) split into groups where the free space between neighbours is more than gap_split
    tile widths (a tile lying sideways takes aspect widths along the row)."""
    lp = current_params()
    groups = [[row[0]]] if row else []
    for a, b in zip(row, row[1:]):
        ext = (a.w * (lp.aspect if a.side else 1) + b.w * (lp.aspect if b.side else 1)) / 2
        gap = (b.u - a.u) - ext
        if gap > lp.gap_split * (a.w + b.w) / 2:
            groups.append([])
        groups[-1].append(b)
    return groups


@dataclass
class Frame:
    """A set of tiles read in one frame: the row direction theta (radians, image coordinates), the rows (across
    the frame, each sorted along it), the groups in reading order, and k (a tile's width = k x its scale s)."""
    theta: float
    rows: list[list[Tile]]
    groups: list[list[Tile]]     # reading order: rows top to bottom, groups left to right
    k: float


def frame_of(tiles: list[Tile], theta: float, refine: bool = True) -> Frame:
    """The Frame of tiles whose rows run near theta: the angle refined by the rows' slopes (unless ``refine`` is
    False), the tiles turned into it and sized (Tile.w), clustered into rows, those lying across their row marked
    (Tile.side) and the rows split into groups."""
    lp = current_params()
    theta = _refine_angle(tiles, theta) if refine else theta
    rotate(tiles, theta)
    rows = rows_of(tiles, 1.0 / math.sqrt(lp.aspect))
    k = _width_factor(rows)
    rows = rows_of(tiles, k)
    for t in tiles:
        t.w = k * t.s
    groups = []
    for r in rows:
        classify_sideways(r, theta)
        gs = split_groups(r)
        if sum(_reliability(theta)[:2]) < 0.35:        # box cues silent (near 45 degrees): spacing decides
            for g in gs:
                _spacing_sideways(g)
        groups += split_groups(r) if any(t.side for g in gs for t in g) else gs
    return Frame(theta, rows, groups, k)


def _up_label(theta: float) -> str:
    """Orientation label of an upright tile in a row running at angle theta (image coords, y down)."""
    up = (math.sin(theta), -math.cos(theta))
    if abs(up[1]) >= abs(up[0]):
        return UPRIGHT if up[1] < 0 else UPSIDE_DOWN
    return SIDEWAYS


def direction_votes(tiles: list[Tile], theta: float, reversible: bool = True) -> float:
    """> 0 if labels say the rows read along theta, < 0 if along theta + pi, 0 if they cannot tell. Tiles whose
    faces look the same turned 180 degrees in most sets (scoring.tiles.REVERSIBLE) vote only when the others tie
    (and not at all with ``reversible`` False): the classifier's up or down for them is a guess on a set without
    corner numbers, however sure."""
    a, b = _up_label(theta), _up_label(theta + math.pi)
    if a == b:
        return 0.0
    n = [0.0, 0.0]                          # the other tiles' votes, the reversible tiles'
    for t in tiles:
        if t.side or t.back:
            continue
        n[t.kind in T.REVERSIBLE] += (t.det.orientation == a) - (t.det.orientation == b)
    return (n[0] or (n[1] if reversible else 0.0)) / max(1, len(tiles))


def describe(t: Tile) -> str:
    """A tile named in a note: its code and its centre in the frame's pixels."""
    return f"{T.code(t.kind)} at ({t.x:.0f},{t.y:.0f})"
