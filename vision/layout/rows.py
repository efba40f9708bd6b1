"""Rows and orientation: tiles in a rotated frame, duplicates, the row direction, rows, groups and which tiles lie
sideways.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T

from ..perspective import nearest
from ..types import FACE_DOWN, SIDEWAYS, UPRIGHT, UPSIDE_DOWN, Detection
from .base import (
    ASPECT,
    DUP_IOU,
    GAP_SPLIT,
    LABEL_POWER,
    ROW_SPLIT,
    SHADOW_CONF,
    SHADOW_CONF_BACK,
    SHADOW_COVER,
    STRADDLE_CONF,
    STRADDLE_CONF_BACK,
    STRADDLE_CONF_WEAK,
    STRADDLE_COVER,
    STRADDLE_COVER_WEAK,
    WEAK_DUP,
    WEAK_DUP_IOU,
    WRAP_COVER,
)


@dataclass(eq=False)      # a tile is itself only: ``t in row`` compares identities, not every field
class _Tile:
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


class _Near:
    """Tiles by cell of a grid over their (u, v) (or (x, y)) centres: the tiles that may lie within a distance of a
    point along each axis, in their order in the list, without looking at every tile."""

    def __init__(self, tiles: list[_Tile], cell: float, uv: bool = True):
        self.cell, self.uv, self.n = max(cell, 1e-6), uv, len(tiles)
        self.cells: dict[tuple[int, int], list[tuple[int, _Tile]]] = {}
        for n, t in enumerate(tiles):
            self.cells.setdefault(self._key(*self._at(t)), []).append((n, t))

    def _at(self, t: _Tile) -> tuple[float, float]:
        return (t.u, t.v) if self.uv else (t.x, t.y)

    def _key(self, a: float, b: float) -> tuple[int, int]:
        return math.floor(a / self.cell), math.floor(b / self.cell)

    def around(self, t: _Tile, reach: float) -> list[_Tile]:
        """The tiles (t too) within ``reach`` of t along both axes, and maybe a few more, in list order."""
        a, b = self._at(t)
        (i0, j0), (i1, j1) = self._key(a - reach, b - reach), self._key(a + reach, b + reach)
        if (i1 - i0 + 1) * (j1 - j0 + 1) >= len(self.cells):
            found = [x for c in self.cells.values() for x in c]
        else:
            found = [x for i in range(i0, i1 + 1) for j in range(j0, j1 + 1) for x in self.cells.get((i, j), ())]
        found.sort(key=lambda x: x[0])
        return [t for _, t in found]


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _median(xs: list[float]) -> float:
    """np.median of a short list, without numpy's per-call cost."""
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _clip(x: float, lo: float, hi: float) -> float:
    """np.clip for one number (the layout clips thousands of scalars per frame; numpy's call costs 30x more)."""
    return min(max(x, lo), hi)


def _tiles(dets: list[Detection], idx: list[int]) -> list[_Tile]:
    out = []
    for i in idx:
        d = dets[i]
        out.append(_Tile(i, d, *d.center, math.sqrt(max(d.width, 1e-6) * max(d.height, 1e-6))))
    return out


PAIR_CHUNK = 1 << 20       # candidate pairs of boxes looked at in one numpy pass (bounds the memory)


class _Overlaps:
    """The boxes that overlap each box, with their IoU and covers, found without an n x n matrix: the boxes
    are sorted along the axis where fewer of their extents meet, and each is compared with the boxes that start
    within its extent on that axis (sweep and prune). Time and memory grow with those pairs, not with n²."""

    def __init__(self, dets: list[Detection]):
        b = np.array([d.box for d in dets], dtype=float).reshape(-1, 4)
        n = len(b)
        area = np.maximum((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]), 1e-9)
        best = None
        for lo, hi in ((0, 2), (1, 3)):
            order = np.argsort(b[:, lo], kind="stable")
            end = np.searchsorted(b[order, lo], b[order, hi], side="left")   # boxes starting inside the extent
            counts = np.maximum(end - np.arange(n) - 1, 0)
            if best is None or counts.sum() < best[2].sum():
                best = (order, lo, counts)
        order, _, counts = best
        src, dst, inter = [], [], []
        start = 0
        while start < n:                       # rows of sorted boxes, about PAIR_CHUNK candidate pairs at a time
            stop = start + 1 + int(np.searchsorted(np.cumsum(counts[start:]), PAIR_CHUNK))
            c = counts[start:stop]
            p = np.repeat(np.arange(start, min(stop, n)), c)
            q = p + 1 + np.arange(len(p)) - np.repeat(np.cumsum(c) - c, c)
            i, j = order[p], order[q]
            ix = np.minimum(b[i, 2], b[j, 2]) - np.maximum(b[i, 0], b[j, 0])
            iy = np.minimum(b[i, 3], b[j, 3]) - np.maximum(b[i, 1], b[j, 1])
            keep = (ix > 0) & (iy > 0)
            src.append(i[keep]), dst.append(j[keep]), inter.append((ix * iy)[keep])
            start = min(stop, n)
        i, j, x = (np.concatenate(v) if v else np.zeros(0, t) for v, t in ((src, int), (dst, int), (inter, float)))
        # both ways round, sorted by box and then by neighbour (as a matrix row would list them)
        i, j, x = np.concatenate([i, j]), np.concatenate([j, i]), np.concatenate([x, x])
        o = np.lexsort((j, i))
        self.j, inter = j[o], x[o]
        self.i = i[o]
        self.iou = inter / (area[self.i] + area[self.j] - inter)
        self.cover = inter / area[self.i]                 # share of box i inside box j
        self.covered = inter / area[self.j]               # share of box j inside box i
        self.start = np.searchsorted(self.i, np.arange(n + 1))

    def of(self, i: int) -> slice:
        """Where box i's neighbours lie in ``j``, ``iou``, ``cover`` and ``covered``."""
        return slice(self.start[i], self.start[i + 1])


def _dedupe(dets: list[Detection], weak_dup: bool = False) -> tuple[list[int], list[int]]:
    """Indices kept / dropped as duplicates: the less sure of two boxes with IoU > DUP_IOU, or with IoU >
    WEAK_DUP_IOU if it is much less sure (``weak_dup``: not for a phone photo, where the claimed tile of an added
    kong, half hidden under the added one, overlaps it so and is often much less sure), or a box astride
    neighbours. Boxes that do not overlap never bear on each other: only overlapping pairs are looked at."""
    order = sorted(range(len(dets)), key=lambda i: -dets[i].confidence)
    conf = np.array([d.confidence for d in dets], dtype=float)
    back = np.array([d.kind == T.BACK for d in dets])
    ov = _Overlaps(dets)
    kept: list[int] = []
    dropped: set[int] = set()

    # one box around two others (each nearly all inside it), less sure than the surer of them: two tiles found
    # as one box as well as one by one (a claimed tile and the tile added on it)
    for i in order:
        s = ov.of(i)
        inside = ov.j[s][ov.covered[s] >= WRAP_COVER]
        if len(inside) >= 2 and _apart_pair(ov, inside, conf, conf[i]):
            dropped.add(i)
    rank: dict[int, int] = {}                 # a kept box -> its place in ``kept``
    for i in order:
        if i in dropped:
            continue
        s = ov.of(i)
        near = [(rank[j], j, n) for n, j in enumerate(ov.j[s].tolist()) if j in rank]
        near.sort()                           # the kept neighbours, in the order they were kept
        k = np.array([j for _, j, _ in near], dtype=int)
        at = np.array([n for _, _, n in near], dtype=int) + s.start
        # the plain rule; a much less sure box needs less overlap on an overhead frame
        limit = np.where(weak_dup & (conf[i] < WEAK_DUP * conf[k]), WEAK_DUP_IOU, DUP_IOU)
        dup = ov.iou[at] > limit
        # a box a quarter or more over a far surer one is its edge or shadow found again: a face-down box over
        # a face-down one; on an overhead frame, a face-up box over any (in a phone photo the claimed tile of an
        # added kong lies so under the added one)
        over = ov.cover[at] > SHADOW_COVER
        if back[i]:
            shadow = over & back[k] & (conf[i] < SHADOW_CONF_BACK * conf[k])
        else:
            shadow = over & weak_dup & (conf[i] < SHADOW_CONF * conf[k])
        if dup.any() or shadow.any() or _straddles(dets, i, k, ov.cover[at]):
            dropped.add(i)
        else:
            rank[i] = len(kept)
            kept.append(i)
    return sorted(kept), sorted(dropped)


def _apart_pair(ov: _Overlaps, inside: np.ndarray, conf: np.ndarray, below: float) -> bool:
    """Do two of ``inside`` overlap by an IoU under 0.3 (not at all, most often), one of them surer than
    ``below``? Each surer box is checked against the others it overlaps that much, not against every pair."""
    members = set(inside.tolist())
    for a in inside.tolist():
        if conf[a] <= below:
            continue
        s = ov.of(a)
        close = sum(1 for j, q in zip(ov.j[s].tolist(), ov.iou[s].tolist()) if j in members and q >= 0.3)
        if close < len(members) - 1:          # some other box of the set lies apart from this one
            return True
    return False


def _box_score(d: Detection) -> float:
    """The locator's confidence that a tile lies in the box, whatever its face: the detection's confidence
    divided by the classifier's probability of its kind (the confidence itself when that is unknown)."""
    p = dict(d.candidates).get(d.kind)
    return d.confidence / p if p else d.confidence


def _straddles(dets: list[Detection], i: int, kept: np.ndarray, cover: np.ndarray) -> bool:
    """A box lying over two or more surer boxes of its side (face up / face down): one box astride neighbouring
    tiles, not a tile of its own. Tiles lie side by side; the tile added to a kong lies on one other, and a
    stray tile dropped on others is as sure as they are. Mostly inside them and less sure than each; or half
    inside them and much less sure. ``kept``: the kept boxes it overlaps, ``cover``: how much of it lies in each."""
    d = dets[i]
    down = d.kind == T.BACK or d.orientation == FACE_DOWN
    close = cover > 0.15
    over = kept[close].tolist()
    if len(over) < 2:
        return False
    inside = sum(cover[close].tolist())
    ratio = d.confidence / min(dets[j].confidence for j in over)
    if down:
        return inside > STRADDLE_COVER_WEAK and ratio < STRADDLE_CONF_BACK
    return ((inside > STRADDLE_COVER and ratio < STRADDLE_CONF)
            or (inside > STRADDLE_COVER_WEAK and ratio < STRADDLE_CONF_WEAK))


def _nn_angle(pts: np.ndarray, sym: int) -> float:
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


def _rotate(tiles: list[_Tile], theta: float) -> None:
    c, s = math.cos(theta), math.sin(theta)
    for t in tiles:
        t.u = t.x * c + t.y * s
        t.v = -t.x * s + t.y * c


def _rows(tiles: list[_Tile], k: float) -> list[list[_Tile]]:
    """Cluster tiles into rows by v (single linkage on sorted v), each row sorted by u."""
    if not tiles:
        return []
    ts = sorted(tiles, key=lambda t: t.v)
    rows = [[ts[0]]]
    for a, b in zip(ts, ts[1:]):
        if b.v - a.v > ROW_SPLIT * k * (a.s + b.s) / 2:
            rows.append([])
        rows[-1].append(b)
    return [sorted(r, key=lambda t: t.u) for r in rows]


def _width_factor(rows: list[list[_Tile]]) -> float:
    """k such that tile width w ~ k * s, from the spacing of neighbours in rows (most of them touch)."""
    ratios = [(b.u - a.u) / ((a.s + b.s) / 2) for r in rows for a, b in zip(r, r[1:])]
    if not ratios:
        return 1.0 / math.sqrt(ASPECT)
    k = float(np.percentile(ratios, 20))
    return _clip(float(k), 0.6 / math.sqrt(ASPECT), 1.6 / math.sqrt(ASPECT))


def _refine_angle(tiles: list[_Tile], theta: float, iters: int = 2) -> float:
    """Correct theta by the mean slope of the rows (least squares v = a*u + b per row)."""
    for _ in range(iters):
        _rotate(tiles, theta)
        k = 1.0 / math.sqrt(ASPECT)
        num = den = 0.0
        for r in _rows(tiles, k):
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
    _rotate(tiles, theta)
    return theta


def _label_axis(o: str) -> Optional[int]:
    """0: tile's up axis is vertical in the image, 1: horizontal, None: no information."""
    return {UPRIGHT: 0, UPSIDE_DOWN: 0, SIDEWAYS: 1}.get(o)


def _reliability(theta: float) -> tuple[float, float, float]:
    """(label reliability, shape reliability, expected (W-H)/(W+H) of an upright tile) for rows at theta."""
    c, s = abs(math.cos(theta)), abs(math.sin(theta))
    q = (c - s) / (c + s)                                  # +1 axis-aligned rows ... 0 at 45 degrees ... -1 vertical
    delta = min(abs(math.degrees(theta)) % 90, 90 - abs(math.degrees(theta)) % 90)   # to nearest axis
    rel_label = _clip((38.0 - delta) / 10.0, 0.0, 1.0)
    m_up = (1 - ASPECT) / (1 + ASPECT) * q
    rel_shape = min(1.0, 2 * abs(m_up) / 0.25)
    return rel_label, rel_shape, m_up


def _classify_sideways(row: list[_Tile], theta: float) -> None:
    """Mark tiles lying across their row, by comparison with the row majority (label and box shape)."""
    rel_label, rel_shape, m_up = _reliability(theta)
    m = [(t.det.width - t.det.height) / (t.det.width + t.det.height) for t in row]
    med = _median(m) if m else 0.0
    axes = [_label_axis(t.det.orientation) for t in row]
    known = [a for a in axes if a is not None]
    major = max(set(known), key=known.count) if known else None
    for t, mi, a in zip(row, m, axes):
        ev = w = 0.0
        if rel_shape > 0 and abs(m_up) > 1e-6:
            shape = (med - mi) / (2 * m_up)                 # ~1 for a sideways tile, ~0 for its upright peers
            t.lean = rel_shape * _clip(float(shape), -0.5, 1.5)
            ev += t.lean
            w += rel_shape
        if a is not None and major is not None and rel_label > 0:
            # a face that looks alike turned a quarter (blank white dragon, one of dots) leaves the classifier
            # unsure of the axis: its vote counts for less, and the box shape decides
            sure = rel_label * _clip((t.det.axis_p - 0.5) / 0.5, 0.0, 1.0) ** LABEL_POWER
            ev += sure * (1.0 if a != major else 0.0)
            w += sure
        # too little evidence (rows near 45 degrees): leave it to the spacing test
        t.side = w >= 0.35 and ev / w > 0.5


def _spacing_sideways(group: list[_Tile]) -> None:
    """Where box cues say nothing (near 45 degrees), find the one tile whose neighbours sit farther apart."""
    if len(group) < 3 or any(t.side for t in group) or any(t.back for t in group):
        return
    d = [b.u - a.u for a, b in zip(group, group[1:])]

    def err(k):
        ext = [t.w * (ASPECT if n == k else 1.0) for n, t in enumerate(group)]
        return sum((di - (ext[j] + ext[j + 1]) / 2) ** 2 for j, di in enumerate(d))

    best, best_err = None, err(-1)
    for k in range(len(group)):
        e = err(k)
        if e < best_err * 0.5:
            best, best_err = k, e
    if best is not None:
        group[best].side = True


def _split_groups(row: list[_Tile]) -> list[list[_Tile]]:
    groups = [[row[0]]] if row else []
    for a, b in zip(row, row[1:]):
        ext = (a.w * (ASPECT if a.side else 1) + b.w * (ASPECT if b.side else 1)) / 2
        gap = (b.u - a.u) - ext
        if gap > GAP_SPLIT * (a.w + b.w) / 2:
            groups.append([])
        groups[-1].append(b)
    return groups


@dataclass
class _Frame:
    theta: float
    rows: list[list[_Tile]]
    groups: list[list[_Tile]]     # reading order: rows top to bottom, groups left to right
    k: float


def _frame(tiles: list[_Tile], theta: float, refine: bool = True) -> _Frame:
    theta = _refine_angle(tiles, theta) if refine else theta
    _rotate(tiles, theta)
    rows = _rows(tiles, 1.0 / math.sqrt(ASPECT))
    k = _width_factor(rows)
    rows = _rows(tiles, k)
    for t in tiles:
        t.w = k * t.s
    groups = []
    for r in rows:
        _classify_sideways(r, theta)
        gs = _split_groups(r)
        if sum(_reliability(theta)[:2]) < 0.35:        # box cues silent (near 45 degrees): spacing decides
            for g in gs:
                _spacing_sideways(g)
        groups += _split_groups(r) if any(t.side for g in gs for t in g) else gs
    return _Frame(theta, rows, groups, k)


def _up_label(theta: float) -> str:
    """Orientation label of an upright tile in a row running at angle theta (image coords, y down)."""
    up = (math.sin(theta), -math.cos(theta))
    if abs(up[1]) >= abs(up[0]):
        return UPRIGHT if up[1] < 0 else UPSIDE_DOWN
    return SIDEWAYS


def _direction_votes(tiles: list[_Tile], theta: float) -> float:
    """> 0 if labels say the rows read along theta, < 0 if along theta + pi, 0 if they cannot tell."""
    a, b = _up_label(theta), _up_label(theta + math.pi)
    if a == b:
        return 0.0
    n = 0.0
    for t in tiles:
        if t.side or t.back:
            continue
        n += (t.det.orientation == a) - (t.det.orientation == b)
    return n / max(1, len(tiles))


def _describe(t: _Tile) -> str:
    return f"{T.code(t.kind)} at ({t.x:.0f},{t.y:.0f})"
