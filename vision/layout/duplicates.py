"""Duplicate boxes: the same tile found twice, a box astride two tiles, one box around two, a shadow found as a
tile. Only boxes that overlap are compared (sweep and prune), so the cost grows with the overlapping pairs, not
with the square of the boxes.
"""
from __future__ import annotations

import numpy as np
from mjtable.scoring import tiles as T

from ..types import FACE_DOWN, Detection
from .base import current_params


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


def dedupe(dets: list[Detection], weak_dup: bool = False) -> tuple[list[int], list[int]]:
    """Indices kept / dropped as duplicates: the less sure of two boxes with IoU > dup_iou, or with IoU >
    weak_dup_iou if it is much less sure (``weak_dup``: not for a phone photo, where the claimed tile of an added
    kong, half hidden under the added one, overlaps it so and is often much less sure), or a box astride
    neighbours. Boxes that do not overlap never bear on each other: only overlapping pairs are looked at."""
    lp = current_params()
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
        inside = ov.j[s][ov.covered[s] >= lp.wrap_cover]
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
        limit = np.where(weak_dup & (conf[i] < lp.weak_dup * conf[k]), lp.weak_dup_iou, lp.dup_iou)
        dup = ov.iou[at] > limit
        # a box a quarter or more over a far surer one is its edge or shadow found again: a face-down box over
        # a face-down one; on an overhead frame, a face-up box over any (in a phone photo the claimed tile of an
        # added kong lies so under the added one)
        over = ov.cover[at] > lp.shadow_cover
        if back[i]:
            shadow = over & back[k] & (conf[i] < lp.shadow_conf_back * conf[k])
        else:
            shadow = over & weak_dup & (conf[i] < lp.shadow_conf * conf[k])
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



def _straddles(dets: list[Detection], i: int, kept: np.ndarray, cover: np.ndarray) -> bool:
    """A box lying over two or more surer boxes of its side (face up / face down): one box astride neighbouring
    tiles, not a tile of its own. Tiles lie side by side; the tile added to a kong lies on one other, and a
    stray tile dropped on others is as sure as they are. Mostly inside them and less sure than each; or half
    inside them and much less sure. ``kept``: the kept boxes it overlaps, ``cover``: how much of it lies in each."""
    lp = current_params()
    d = dets[i]
    down = d.kind == T.BACK or d.orientation == FACE_DOWN
    close = cover > 0.15
    over = kept[close].tolist()
    if len(over) < 2:
        return False
    inside = sum(cover[close].tolist())
    ratio = d.confidence / min(dets[j].confidence for j in over)
    if down:
        return inside > lp.straddle_cover_weak and ratio < lp.straddle_conf_back
    return ((inside > lp.straddle_cover and ratio < lp.straddle_conf)
            or (inside > lp.straddle_cover_weak and ratio < lp.straddle_conf_weak))
