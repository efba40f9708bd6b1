"""A whole table shot from a seat: the table's plane found from the tiles themselves, and the detections mapped
onto it, so that the overhead reading applies (vision.layout) and the detector knows to read the frame as one
(vision.detector).

Every tile lying on the table has the same size there, and its rows are straight. In the photo the rows running
across the table meet in one vanishing point and the rows running up it (the side seats', a river's rows behind
one another) in another, found from nearest-neighbour vectors between tile centres; the line through the two is
the horizon, which the map sends to infinity. What is left is affine: the two families of rows are turned and
sheared square, and the depth stretched until a tile's step up a row equals its step along one.

A frame with hardly any perspective (a camera above the table) is left as it is (None). One taken from a seat
far back, so that the near tiles look hardly larger than the far ones, still shows the table's depth squashed:
the tiles' own shapes tell how much (``depth_from_shapes``), and the depth is stretched back.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Optional

import numpy as np
from mjtable.scoring import tiles as T

from .types import SIDEWAYS, UPRIGHT, UPSIDE_DOWN, Detection

MIN_TILES = 12            # fewer boxes than this: no plane is fitted
MIN_RATIO = 1.35          # the nearest tiles at least this much larger (across) than the farthest: a seat's view
SQUASH = 0.85             # a frame without that perspective whose depth the tiles' shapes show squashed below this ...
SQUASH_TILES = 5          # ... by this many face-up tiles along the rows across it and as many along those up it


def _boxes(dets: list[Detection]) -> np.ndarray:
    return np.array([d.box for d in dets], np.float64).reshape(-1, 4)


def _centres(b: np.ndarray) -> np.ndarray:
    return np.column_stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2])


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (N,2) mapped by the 3x3 homography H (projective division included)."""
    q = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return q[:, :2] / q[:, 2:3]


def map_boxes(H: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Boxes (x1, y1, x2, y2) of tiles lying square to the table's rows, mapped by H. A photo's box is the box
    around a tile turned and sheared by the perspective; the tile's sides (a, b) on the table are what, carried
    back by the map's local linear part K at the box's centre, spans the photo box: |K| (a, b) = (width, height).
    Where that has no positive answer (a tile lying askew), the middles of the box's sides are mapped instead."""
    x1, y1, x2, y2 = boxes.T
    c = _centres(boxes)
    mc = apply_homography(H, c)
    eps = 0.5
    J = np.stack([(apply_homography(H, c + [eps, 0]) - mc) / eps,
                  (apply_homography(H, c + [0, eps]) - mc) / eps], axis=2)   # (N,2,2)
    det = J[:, 0, 0] * J[:, 1, 1] - J[:, 0, 1] * J[:, 1, 0]
    ok = np.abs(det) > 1e-12
    K = np.zeros_like(J)
    K[ok] = np.linalg.inv(J[ok])
    M = np.abs(K)
    size = np.column_stack([x2 - x1, y2 - y1])
    dm = M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
    good = ok & (np.abs(dm) > 1e-9 * np.maximum(M.reshape(-1, 4).max(1) ** 2, 1e-30))
    ab = np.zeros_like(size)
    ab[good] = np.linalg.solve(M[good], size[good][:, :, None])[:, :, 0]
    good &= (ab > 0).all(1)
    mids = np.stack([np.column_stack(p) for p in ((x1, c[:, 1]), (x2, c[:, 1]), (c[:, 0], y1), (c[:, 0], y2))], 1)
    m = apply_homography(H, mids.reshape(-1, 2)).reshape(-1, 4, 2)
    xs, ys = np.sort(m[:, :2, 0], axis=1), np.sort(m[:, 2:, 1], axis=1)
    out = np.column_stack([xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1]])
    out[good] = np.column_stack([mc[good] - ab[good] / 2, mc[good] + ab[good] / 2])
    return out


NEAREST_CHUNK = 1 << 20      # distances computed in one numpy pass (bounds the memory)


def nearest(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each point's nearest other point: (its index, the distance), the lowest index of equally near ones (as
    argmin over a row of the distance matrix gives), without the n x n matrix. The points are put in a grid of
    cells holding a few each; a point whose nearest in the 3 x 3 cells around it lies within a cell's side has
    it for sure; the others (and all of a few points) are compared with every point, a bounded block of rows
    at a time."""
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    n = len(pts)
    near, dist = np.zeros(n, dtype=int), np.full(n, np.inf)
    if n < 2:
        return near, dist
    todo = np.arange(n)
    if n > 256:
        lo, span = pts.min(0), np.ptp(pts, 0)
        cell = max(2 * float(np.sqrt(span[0] * span[1] / n)), 2 * float(span.max()) / n, 1e-9)
        ij = np.floor((pts - lo) / cell).astype(np.int64)
        width = int(ij[:, 1].max()) + 3
        key = (ij[:, 0] + 1) * width + ij[:, 1] + 1
        order = np.argsort(key, kind="stable")
        keys, first = np.unique(key[order], return_index=True)
        last = np.append(first[1:], n)
        pair_i, pair_j = [], []
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                want = key + dx * width + dy
                at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
                hit = keys[at] == want
                s, c = first[at][hit], (last - first)[at][hit]
                p = np.repeat(np.flatnonzero(hit), c)
                pair_i.append(p)
                pair_j.append(order[np.repeat(s, c) + np.arange(len(p)) - np.repeat(np.cumsum(c) - c, c)])
        i, j = np.concatenate(pair_i), np.concatenate(pair_j)
        if len(i) <= 64 * n:                        # a few per cell (else the points crowd: compare them all)
            i, j = i[i != j], j[i != j]
            d = np.hypot(pts[i, 0] - pts[j, 0], pts[i, 1] - pts[j, 1])
            np.minimum.at(dist, i, d)
            best = d == dist[i]
            near[:] = n
            np.minimum.at(near, i[best], j[best])
            todo = np.flatnonzero(~(dist <= cell))  # nothing nearer can lie beyond the 3 x 3 cells
    rows = max(1, NEAREST_CHUNK // n)
    for a in range(0, len(todo), rows):
        t = todo[a:a + rows]
        d = np.hypot(pts[t, None, 0] - pts[None, :, 0], pts[t, None, 1] - pts[None, :, 1])
        d[np.arange(len(t)), t] = np.inf
        near[t] = d.argmin(1)
        dist[t] = d[np.arange(len(t)), near[t]]
    return near, dist


def _pairs(xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each point's nearest neighbour: (midpoints, vectors to it)."""
    j, _ = nearest(xy)
    return (xy + xy[j]) / 2, xy[j] - xy


def _near(v: np.ndarray, degrees: float, vertical: bool = False) -> np.ndarray:
    a = np.degrees(np.arctan2(np.abs(v[:, 1]), np.abs(v[:, 0])))
    return (a > 90 - degrees) if vertical else (a < degrees)


def _vanishing(mid: np.ndarray, v: np.ndarray) -> Optional[np.ndarray]:
    """Where the lines through ``mid`` along ``v`` meet, homogeneous (a third coordinate near 0: they are about
    parallel); least squares on the lines' unit normals, refitted without those that miss it most."""
    d = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
    lines = np.column_stack([-d[:, 1], d[:, 0], (d[:, 1] * mid[:, 0] - d[:, 0] * mid[:, 1])])
    keep = np.ones(len(mid), bool)
    point = None
    for _ in range(4):
        if keep.sum() < 3:
            return None
        point = np.linalg.svd(lines[keep], full_matrices=False)[2][-1]   # no m x m U: only V is wanted
        miss = np.abs(lines @ point)
        keep = miss <= max(3 * np.median(miss[keep]), 1e-9)
    return point


def _estimate(xy: np.ndarray) -> Optional[np.ndarray]:
    """The map from points ``xy`` (tile centres) to the table seen from above, up to scale and shift; None when
    the rows cannot be told or the photo's scale varies less than MIN_RATIO across the tiles."""
    m = np.median(xy, axis=0)                             # origin amid the tiles, well off the horizon
    T0 = np.array([[1.0, 0, -m[0]], [0, 1.0, -m[1]], [0, 0, 1.0]])
    xy0 = apply_homography(T0, xy)
    mid, v = _pairs(xy0)
    across, steep = _near(v, 20), _near(v, 65, vertical=True)
    if across.sum() < MIN_TILES // 2 or steep.sum() < 3:
        return None
    vx, vy = _vanishing(mid[across], v[across]), _vanishing(mid[steep], v[steep])
    if vx is None or vy is None:
        return None
    horizon = np.cross(vx, vy)
    w = np.column_stack([xy0, np.ones(len(xy0))]) @ horizon     # the photo's scale at each tile, up to a factor
    if np.median(w) < 0:
        horizon, w = -horizon, -w
    lo, hi = np.percentile(w, [5, 95])                    # a stray box beyond the table does not decide it
    if not np.isfinite(horizon).all() or lo <= 0.05 * hi or hi / lo < MIN_RATIO:
        return None
    P = np.array([[1.0, 0, 0], [0, 1.0, 0], horizon / np.median(w)]) @ T0
    # the two families of rows are parallel now: turned and sheared square, the rows up as far apart per
    # tile as the rows across (the depth's squash)
    mid, v = _pairs(apply_homography(P, xy))
    across, up = _near(v, 20), _near(v, 60, vertical=True)
    if across.sum() < 3 or up.sum() < 3:
        return None
    ax = v[across] * np.where(v[across, :1] < 0, -1.0, 1.0)
    ay = v[up] * np.where(v[up, 1:] < 0, -1.0, 1.0)
    dx, dy = np.median(ax, axis=0), np.median(ay, axis=0)
    B = np.column_stack([dx, dy])
    if abs(np.linalg.det(B)) < 1e-9:
        return None
    H = np.vstack([np.column_stack([np.linalg.inv(B), np.zeros(2)]), [0, 0, 1.0]]) @ P
    # the near tiles below
    near, far = xy[w >= np.percentile(w, 80)], xy[(w <= np.percentile(w, 20)) & (w > 0)]
    if np.median(apply_homography(H, near)[:, 1]) < np.median(apply_homography(H, far)[:, 1]):
        H = np.diag([-1.0, -1.0, 1.0]) @ H
    return H


def plane_from_tiles(dets: list[Detection]) -> Optional[np.ndarray]:
    """The 3x3 map from the photo to a view from straight above (tiles about the size of the photo's nearest
    ones), or None when the frame shows no clear perspective or too few tiles (plane_from_boxes)."""
    return plane_from_boxes(_boxes(dets))


def plane_from_boxes(b: np.ndarray) -> Optional[np.ndarray]:
    """plane_from_tiles on boxes (N, 4: x1, y1, x2, y2)."""
    if len(b) < MIN_TILES:
        return None
    H = _estimate(_centres(b))
    if H is None:
        return None
    # size: the median tile as wide as the photo's larger tiles; placed clear of the origin
    mb = map_boxes(H, b)
    side = np.median(np.minimum(mb[:, 2] - mb[:, 0], mb[:, 3] - mb[:, 1]))
    want = np.percentile(np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]), 90)
    k = want / max(side, 1e-6)
    lo = mb[:, :2].min(0) * k
    A = np.array([[k, 0, -lo[0] + want], [0, k, -lo[1] + want], [0, 0, 1.0]])
    return A @ H


def depth_from_shapes(dets: list[Detection]) -> Optional[np.ndarray]:
    """The map stretching a frame's depth (its y) back, when the tiles' shapes show it squashed under SQUASH, else
    None. A tile lying along the rows across the frame (labelled upright or upside down) is as much taller than
    wide as one lying along the rows up it (sideways) is wider than tall, whatever its make: a depth squashed
    by q makes the first q times as tall and the second q times as short, so q is the square root of the two
    ratios' quotient (the medians'; a claimed tile lying across its row is one of few)."""
    def ratios(labels, flip):
        b = _boxes([d for d in dets if d.orientation in labels and d.kind != T.BACK])
        r = (b[:, 3] - b[:, 1]) / np.maximum(b[:, 2] - b[:, 0], 1e-6)
        return 1 / r if flip else r
    along, up = ratios((UPRIGHT, UPSIDE_DOWN), False), ratios((SIDEWAYS,), True)
    if min(len(along), len(up)) < SQUASH_TILES:
        return None
    q = float(np.sqrt(np.median(along) / np.median(up)))
    return np.diag([1.0, 1.0 / q, 1.0]) if 0 < q < SQUASH else None


def beyond(H: np.ndarray, dets: list[Detection]) -> np.ndarray:
    """Which detections lie at or past the table's horizon (the wall, a person across the table), where the
    map sends them far off or behind: their scale there under a tenth of the median one."""
    c = _centres(_boxes(dets))
    w = np.column_stack([c, np.ones(len(c))]) @ H[2]
    return ~(w > 0.1 * np.median(w[w > 0])) if (w > 0).any() else np.ones(len(c), bool)


def flatten(dets: list[Detection], H: np.ndarray) -> list[Detection]:
    """The detections with their boxes mapped by H (everything else as it was)."""
    boxes = map_boxes(H, _boxes(dets))
    return [replace(d, box=tuple(float(v) for v in b)) for d, b in zip(dets, boxes)]


_POINT = re.compile(r"at \((-?\d+),(-?\d+)\)")


def in_photo(H: np.ndarray, note: str) -> str:
    """A reading note's points 'at (x,y)', written on the table's plane, put back in the photo's pixels."""
    Hinv = np.linalg.inv(H)

    def back(m: re.Match) -> str:
        x, y = apply_homography(Hinv, np.array([[float(m.group(1)), float(m.group(2))]]))[0]
        return f"at ({x:.0f},{y:.0f})"
    return _POINT.sub(back, note)


def unflatten(made: Detection, flat: Detection, photo: Detection) -> Detection:
    """A detection the reading made on the plane (two halves of a tile merged) in the photo's terms: its box
    moved and scaled from ``flat`` (a detection it grew from) as ``photo`` stands to it."""
    fx1, fy1, fx2, fy2 = flat.box
    px1, py1, px2, py2 = photo.box
    sx, sy = (px2 - px1) / max(fx2 - fx1, 1e-6), (py2 - py1) / max(fy2 - fy1, 1e-6)
    x1, y1, x2, y2 = made.box
    return replace(made, box=(px1 + (x1 - fx1) * sx, py1 + (y1 - fy1) * sy,
                              px1 + (x2 - fx1) * sx, py1 + (y2 - fy1) * sy))
